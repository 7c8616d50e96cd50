"""Baselines of the selection task (``pushgen/NotificationSelection-v0``): choose a candidate or hold.

A selection policy is a ``pushgen.baselines.base.Policy[dict, int]``, told its episode once
(``SelectionSetting``, the public history included: ``fit`` has nothing to do; it and the
learners ``linucb`` and ``rdsm`` live in ``pushgen.baselines.selection_online``) and then, context
after context, ``act(observation) -> action`` (a candidate slot, or ``k`` to hold) and
``update(observation, action, opened)`` with the simulated user's response. Only the
yardsticks marked ``reads_truth`` are given the environment itself (the true P(open) of the
candidates, the state); the upper bound is computed, not played.

- ``random``: a uniform candidate; ``hold``: never sends; ``slot-0``: always the first slot;
- ``frequent-app``: the candidate of the app most frequent in the public logged history;
- ``category-rate``: no learning, the candidate whose (category, priority) has the highest open
  rate in the public logged history;
- ``linucb``: LinUCB (Li et al. 2010) over the one-hot candidate x context features of
  ``pushgen.baselines.design`` and the policy's own recent exposure to the candidate's app,
  subject and channel, learning online from the user's responses;
- ``rdsm``: Recovering Difference Softmax (Yancey & Settles, KDD 2020), Duolingo's bandit for
  recurring notifications, as published: arms (here a candidate's channel) scored by the
  difference between the mean reward of the rounds it was chosen and of the rounds it was
  eligible but not chosen, less a recency penalty ``gamma * 0.5 ** (hours since the arm was
  last sent / half-life)`` ("recovering"), chosen by a softmax of temperature ``tau`` among the
  eligible arms only ("sleeping"); the statistics start from the public logged history
  (prior weight ``PRIOR_ROUNDS`` rounds) and follow the user's responses;
- ``greedy``: the candidate with the highest true P(open) now (never holds without a cost);
- ``oracle``: the true model looking one context ahead: the action (a candidate or hold) with
  the highest P(open) now plus the best P(open) it leaves at the next context;
- ``upper-bound``: per context the best candidate's P(open) at a fresh state (no fatigue, no
  habituation), less the cost if positive: a proven bound (``docs/leaderboard.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pushgen import schemas
from pushgen.baselines.base import Baseline, NoHistory, Policy, StaticPolicy, named_rows
from pushgen.baselines.selection_online import (
    APP,
    CATEGORY,
    PRIORITY,
    LinUCB,
    PublicHistory,
    RecoveringDifferenceSoftmax,
    SelectionSetting,
    candidates_of,
)
from pushgen.baselines.selection_probes import AppCategoryCounter
from pushgen.envs.selection import NotificationSelectionEnv
from pushgen.model.renamed import moved
from pushgen.model.simulated_user import p_open

if TYPE_CHECKING:
    from pushgen.envs.long_horizon import LongHorizonEnv

SelectionPolicy = Policy  # a selection policy is a Policy[dict, int]: an observation in, a slot or hold out


class UniformCandidate(NoHistory, StaticPolicy):
    def __init__(self, setting: SelectionSetting) -> None:
        self.rng = setting.rng()

    def act(self, observation: dict[str, Any]) -> int:
        return int(self.rng.integers(candidates_of(observation)[1]))


class AlwaysHold(NoHistory, StaticPolicy):
    def __init__(self, setting: SelectionSetting) -> None:
        self.k = setting.k

    def act(self, observation: dict[str, Any]) -> int:
        return self.k


class FirstSlot(NoHistory, StaticPolicy):
    def __init__(self, setting: SelectionSetting) -> None:
        pass

    def act(self, observation: dict[str, Any]) -> int:
        return 0


class RankedCandidates(NoHistory, StaticPolicy):
    """The candidate with the highest public score (first slot on ties)."""

    score: Callable[[np.ndarray], np.ndarray]

    def act(self, observation: dict[str, Any]) -> int:
        candidates, _ = candidates_of(observation)
        return int(np.argmax(self.score(candidates)))


class FrequentApp(RankedCandidates):
    def __init__(self, setting: SelectionSetting) -> None:
        self.frequency, _ = setting.public.counts_by(setting.public.notifications[:, APP],
                                                     len(schemas.values("postingApp")))

    def score(self, candidates: np.ndarray) -> np.ndarray:
        return self.frequency[candidates[:, APP]]


class CategoryRate(RankedCandidates):
    PRIOR = 20.0  # pseudo-rows at the overall open rate

    def __init__(self, setting: SelectionSetting) -> None:
        public = setting.public
        self.width = int(public.notifications[:, PRIORITY].max(initial=0)) + 8
        key = public.notifications[:, CATEGORY] * self.width + public.notifications[:, PRIORITY]
        size = int(key.max(initial=0)) + 1
        rows, opens = public.counts_by(key, size)
        self.overall = public.open_rate
        self.rate = (opens + self.PRIOR * self.overall) / (rows + self.PRIOR)

    def score(self, candidates: np.ndarray) -> np.ndarray:
        key = candidates[:, CATEGORY] * self.width + candidates[:, PRIORITY]
        known = key < len(self.rate)
        return np.where(known, self.rate[np.minimum(key, len(self.rate) - 1)], self.overall)


def greedy_action(env: NotificationSelectionEnv) -> int:
    """The candidate of the next context with the highest true P(open) now; hold when none's
    exceeds the cost."""
    p = env.candidate_probabilities()
    j = int(np.argmax(p))
    return j if p[j] > env.cost else env.hold


class GreedyTrue(NoHistory, StaticPolicy):
    """The candidate with the highest true P(open) now; holds when no candidate's exceeds the cost."""

    def __init__(self, setting: SelectionSetting) -> None:
        self.env = setting.true_env("greedy")

    def act(self, observation: dict[str, Any]) -> int:
        return greedy_action(self.env)


class LookaheadOracle(NoHistory, StaticPolicy):
    """The true model looking one context ahead (see the module's docstring), through the
    simulated user's public what-if: snapshot, send, restore."""

    def __init__(self, setting: SelectionSetting) -> None:
        self.env = setting.true_env("oracle")

    def act(self, observation: dict[str, Any]) -> int:
        env, user = self.env, self.env.simulated_user
        i, offered = env.next_context, env.slates(env.user)
        if i + 1 >= len(offered.rows):
            return greedy_action(env)
        now = env.candidate_probabilities(i)
        saved = user.snapshot()
        best, best_value = env.hold, max(0.0, float(env.candidate_probabilities(i + 1).max()) - env.cost)
        for j in range(int(offered.mask[i].sum())):
            user.restore(saved)
            env.send_to_simulated_user(i, j)
            later = max(0.0, float(env.candidate_probabilities(i + 1).max()) - env.cost)
            value = now[j] - env.cost + later
            if value > best_value:
                best, best_value = j, value
        user.restore(saved)
        return best


def fresh_rewards(env: NotificationSelectionEnv | LongHorizonEnv, static: np.ndarray,
                  cost: float) -> np.ndarray:
    """Per context, the best candidate's P(open) at a fresh state (from the logits ``static``, -inf
    for an empty slot), less ``cost``, or 0 (hold). Refuses a user whose fatigue or habituation
    weight is negative (then exposure could raise P(open))."""
    user = env.simulated_user
    if user.fatigue_weight < 0 or min(user.habituation) < 0:
        raise ValueError(f"user {env.user}: a negative fatigue or habituation weight; the fresh-state "
                         "bound does not hold")
    return np.maximum(p_open(static).max(axis=1) - cost, 0.0)


def fresh_bound(env: NotificationSelectionEnv) -> np.ndarray:
    """Per context of ``env``'s episode, the best reward any policy could get there
    (``fresh_rewards``)."""
    return fresh_rewards(env, env.slates(env.user).static, env.cost)


SELECTION_BASELINES: dict[str, Baseline[SelectionSetting, SelectionPolicy]] = named_rows(
    Baseline("hold", "always hold (never sends)", AlwaysHold),
    Baseline("slot-0", "always the first candidate", FirstSlot),
    Baseline("random", "uniform random candidate", UniformCandidate),
    Baseline("frequent-app", "most frequent app of the public history", FrequentApp),
    Baseline("category-rate", "best public open rate of (category, priority); no learning",
                      CategoryRate),
    Baseline("app-category", "probe: per-user open counts of (app, category), optimistic; no "
                      "context", AppCategoryCounter),
    Baseline("rdsm", "Recovering Difference Softmax (Yancey & Settles 2020), online",
                      RecoveringDifferenceSoftmax),
    Baseline("linucb", "LinUCB over candidate x context features, online", LinUCB),
    Baseline("greedy", "greedy on the true P(open)", GreedyTrue, reads_truth=True),
    Baseline("oracle", "oracle (true model, one context ahead, may hold)", LookaheadOracle,
                      reads_truth=True),
    Baseline("upper-bound", "upper bound (provable: best P(open) per context at a fresh state)",
                      bound=fresh_bound, reads_truth=True, upper_bound=True),
)

__all__ = ["SELECTION_BASELINES", "LinUCB", "PublicHistory", "RecoveringDifferenceSoftmax",
           "SelectionPolicy", "SelectionSetting", "fresh_bound", "greedy_action"]
__getattr__ = moved("pushgen.baselines.selection", {"SelectionBaseline": "pushgen.baselines.Baseline"})
