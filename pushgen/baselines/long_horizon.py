"""Baselines of the long-horizon task (``pushgen/LongHorizon-v0``): send one of the app's candidates or hold.

Each is a ``pushgen.baselines.base.Policy[dict, int]`` made from a ``HorizonSetting``; only the
yardsticks that read the true model are given the environment, and they ask it only the
simulated user's public what-if (``candidate_probabilities``: the true P(open) now;
``annoyance_after``: the annoyance a send would leave; the long-term user's ``tolerance``).

- ``hold`` never sends; ``slot-0`` always sends the first slot (when it is allowed); ``random``
  a uniform allowed candidate, at each context with probability ``rate`` (1 by default; the
  board tunes it as ``random-rate``);
- ``history-cap``: no model: at most ``cap`` sends in the last 24 hours, each the candidate whose
  channel or subject has the best smoothed open rate among the app's own sends so far
  (``candidate_history``), at each context with probability ``rate``;
- ``greedy``: the myopic true model: its best candidate whenever its P(open) now exceeds the
  send cost;
- ``threshold``: the best candidate when its true P(open) now is at least ``theta``;
- ``daily-cap``: the same, at most ``cap`` sends in the last 24 hours (the app's public counter);
- ``planner``: one of the state-aware family: the best candidate when its P(open) is at least
  ``theta`` and the annoyance it would leave stays below ``rho`` times the user's tolerance (the
  planning oracle is the best of the family per user);
- ``linucb``: LinUCB (``pushgen.baselines.selection_online``) learning from the sampled opens
  only, sending its best upper bound when it is at least ``theta`` and under the daily ``cap``
  (the board tunes ``theta`` on the training users);
- ``horizon_bound``: the proven upper bound (computed, not played).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pushgen.baselines.base import Baseline, NoHistory, StaticPolicy, named_rows
from pushgen.baselines.selection import fresh_rewards
from pushgen.baselines.selection_online import LinUCB
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.model.renamed import moved


@dataclass
class HorizonSetting:
    """What a long-horizon policy is told: ``k``, its seed, its knobs (``theta``: the least P(open)
    worth a send; ``cap``: sends a day; ``rho``: the share of the tolerance the annoyance may
    reach) and, for the yardsticks that read the true model only, the environment."""

    k: int
    seed: np.random.SeedSequence
    theta: float = 0.0
    cap: int = 1_000_000
    rho: float = np.inf
    rate: float = 1.0
    env: LongHorizonEnv | None = None
    shared: dict = field(default_factory=dict)

    def true_env(self, reader: str) -> LongHorizonEnv:
        if self.env is None:
            raise ValueError(f"{reader} reads the simulated user: give its setting the environment")
        return self.env


def allowed_slots(observation: dict[str, Any]) -> np.ndarray:
    """The slots an observation allows (filled, channel on)."""
    return np.flatnonzero(np.asarray(observation["candidate_mask"]))


def allowed_first(observation: dict[str, Any], k: int) -> tuple[np.ndarray, dict[str, Any]]:
    """The allowed slots, and the observation with only their candidates, in slot order (as the
    selection task's learners read a slate)."""
    slots = allowed_slots(observation)
    packed = dict(observation)
    packed["candidates"] = np.asarray(observation["candidates"]).reshape(k, -1)[slots].ravel()
    packed["candidate_mask"] = np.ones(len(slots), dtype=np.int8)
    return slots, packed


class Static(NoHistory, StaticPolicy):
    """A policy that does not learn."""

    def __init__(self, setting: HorizonSetting) -> None:
        self.hold = setting.k
        self.setting = setting


class Never(Static):
    def act(self, observation: dict[str, Any]) -> int:
        return self.hold


class FirstSlot(Static):
    def act(self, observation: dict[str, Any]) -> int:
        return 0 if observation["candidate_mask"][0] else self.hold


class RandomSlot(Static):
    def __init__(self, setting: HorizonSetting) -> None:
        super().__init__(setting)
        self.rng = np.random.default_rng(setting.seed)

    def act(self, observation: dict[str, Any]) -> int:
        slots = allowed_slots(observation)
        if not len(slots) or self.rng.random() >= self.setting.rate:
            return self.hold
        return int(self.rng.choice(slots))


class HistoryCap(RandomSlot):
    """No model: at most ``cap`` sends in the last 24 hours, at each context with probability
    ``rate``, of the candidate whose channel or subject has the app's best smoothed open rate so
    far (``candidate_history``; ties at random)."""

    def act(self, observation: dict[str, Any]) -> int:
        slots = allowed_slots(observation)
        s = self.setting
        if not len(slots) or observation["app_counts"][0] >= s.cap or self.rng.random() >= s.rate:
            return self.hold
        history = np.asarray(observation["candidate_history"]).reshape(s.k, -1)[slots]
        rates = np.maximum(history[:, 1], history[:, 3]) + 1e-9 * self.rng.random(len(slots))
        return int(slots[np.argmax(rates)])


class Threshold(Static):
    """The best candidate by true P(open) now when it is at least ``theta`` (and above the send
    cost), at most ``cap`` sends in the last 24 hours, and (``rho`` finite) when the annoyance it
    would leave stays below ``rho`` times the tolerance."""

    def __init__(self, setting: HorizonSetting) -> None:
        super().__init__(setting)
        self.env = setting.true_env(type(self).__name__)

    def act(self, observation: dict[str, Any]) -> int:
        s, env = self.setting, self.env
        if observation["app_counts"][0] >= s.cap:
            return self.hold
        p = env.candidate_probabilities()
        j = int(np.argmax(p))
        if p[j] <= env.send_cost or p[j] < s.theta:
            return self.hold
        if np.isfinite(s.rho) and env.annoyance_after(j) >= s.rho * env.long_term_user.tolerance:
            return self.hold
        return j


class CappedLinUCB(NoHistory):
    """LinUCB over the allowed candidates, sending its best upper bound when it is at least
    ``theta`` and fewer than ``cap`` were sent in the last 24 hours."""

    def __init__(self, setting: HorizonSetting) -> None:
        self.setting = setting
        self.hold = setting.k
        self.learner = LinUCB(None)  # LinUCB reads nothing of its setting
        self._slots: np.ndarray | None = None

    def act(self, observation: dict[str, Any]) -> int:
        s = self.setting
        self._slots = None
        if observation["app_counts"][0] >= s.cap:
            return self.hold
        slots, packed = allowed_first(observation, s.k)
        if not len(slots):
            return self.hold
        score = self.learner.upper_bounds(packed)
        j = int(np.argmax(score))
        if score[j] < s.theta:
            return self.hold
        self._slots = slots
        return int(slots[self.learner.choose(j)])

    def update(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        if self._slots is not None:
            self.learner.update(observation, action, opened)


def horizon_bound(env: LongHorizonEnv) -> float:
    """The proven upper bound of the expected reward of ``env``'s episode (its user and app).

    ``sum over decision points i of max(0, max_j sigmoid(static_ij) - send_cost)``, where
    ``static_ij`` is candidate ``j``'s logit before exposure (the fresh-state P(open)).

    Why no policy can exceed it: a send at decision point ``i`` earns ``opened - send_cost`` with
    ``E[opened | the past] = P(open) = sigmoid(static_ij - penalty)``, and the penalty (fatigue
    and habituation weights, refused here if negative, times exposures, which are >= 0) is >= 0,
    so the expected reward of a send is at most ``max_j sigmoid(static_ij) - send_cost``; a hold
    earns 0, and a channel or app turned off only removes options and decision points. So the
    expected reward at each decision point, given any past, is at most that point's term, and by
    the tower property the expected total of any policy (adaptive or not) is at most the sum.
    It holds also for the sum of the sends' P(open) less their cost, trajectory by trajectory.
    """
    return float(fresh_rewards(env, env.terms.slates.static, env.send_cost).sum())


HORIZON_BASELINES: dict[str, Baseline[HorizonSetting, Any]] = named_rows(
    Baseline("hold", "never send", Never),
    Baseline("slot-0", "always send slot 0", FirstSlot),
    Baseline("random", "uniform random candidate", RandomSlot),
    Baseline("history-cap", "best observed open rate, capped a day", HistoryCap),
    Baseline("linucb", "LinUCB, online, with a tuned least upper bound", CappedLinUCB),
    Baseline("greedy", "myopic greedy true model", Threshold, reads_truth=True),
    Baseline("threshold", "threshold on the true P(open), tuned", Threshold, reads_truth=True),
    Baseline("daily-cap", "daily cap with a threshold, tuned", Threshold, reads_truth=True),
    Baseline("planner", "state-aware: threshold and annoyance below rho x tolerance", Threshold,
                    reads_truth=True),
)

__all__ = ["HORIZON_BASELINES", "CappedLinUCB", "HistoryCap", "HorizonSetting",
           "Threshold", "allowed_first", "allowed_slots", "horizon_bound"]
__getattr__ = moved("pushgen.baselines.long_horizon", {"HorizonBaseline": "pushgen.baselines.Baseline"})
