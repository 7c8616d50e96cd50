"""Policies and bounds that read the simulated user (``Setting.truth``): not models, yardsticks.

- ``OraclePolicy``: the true model's plan of the episode (``pushgen.baselines.planner``): in
  each context, of every notification the user could receive (each of its apps' channels,
  subjects and update levels), the one with the highest true P(open) given the fatigue and
  habituation its own earlier choices left, less the shadow price of the fatigue and
  habituation it leaves for later. ``myopic_oracle`` drops the prices: greedy on P(open) now.
  Neither is proven optimal, so neither is marked an upper bound.
- ``context_blind_oracle``: the same planner told a context-blind user: every context's
  situations (and its row part of the logit) replaced by their average over the user's test
  contexts, so that its choices depend only on what it sent before and when, never on the
  context. Its plan is then judged by the true model in the real contexts. The gap between the
  oracle and it is what knowing the context is worth.
- ``upper_bound``: per context, the highest true P(open) of any possible notification at a
  fresh state (no fatigue, no habituation). Every penalty is >= 0 and everything else in the
  logit is fixed by the context, so no sequence of notifications, however chosen, has a
  higher P(open) in any context: a provable upper bound on every policy's reward (the reward
  grows with P(open) in both modes).
- ``BestFixedPerUserPolicy``: the single possible notification with the highest expected
  reward when sent in every context, its own habituation included, found exhaustively; what
  ignoring the context costs.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pushgen.baselines.base import Codes, NoHistory, Setting, StaticPolicy, Truth, as_codes, batch_size
from pushgen.baselines.fixed import FixedPolicy
from pushgen.baselines.planner import PRICE_SCALES, plan_episode, planned_user
from pushgen.baselines.true_model import true_candidates
from pushgen.model.engagement import RowTerms
from pushgen.model.simulated_user import p_open, penalty_weights, row_blocks


class OraclePolicy(NoHistory, StaticPolicy):
    """The true model's plan (``plan_episode``), replayed context by context.

    A yardstick, not a model: it reads the simulated user and plans for the fatigue and
    habituation its own notifications cause.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode, with the simulated user
        (``make_setting(..., reads_truth=True)``).
    prices : tuple of float, default (2.5, 5.0, 8.0)
        Scales of the linearised cost of a send that the planner tries (the best is kept); empty:
        greedy on P(open).
    context_blind : bool, default False
        Plan on the user's average context instead of each context.

    Examples
    --------
    >>> from pushgen.baselines import OraclePolicy
    >>> from pushgen.benchmark import run_policy
    >>> [run] = run_policy("pushgen-mini-v4", 1, "oracle", OraclePolicy, users=[0], reads_truth=True)
    >>> bool(run.possible.all()), round(float(run.reward.mean()), 2)
    (True, 1.39)
    """

    def __init__(self, setting: Setting, prices: tuple[float, ...] = PRICE_SCALES,
                 context_blind: bool = False) -> None:
        truth = setting.true_model("the oracle")
        self.truth = blind_to_context(truth) if context_blind else truth
        self.prices = prices
        self.plan: np.ndarray | None = None
        self.answered = 0

    def act(self, contexts: Codes) -> Codes:
        if self.plan is None:
            self.plan = plan_episode(self.truth, self.prices).notifications
        n = batch_size(contexts)
        if self.answered + n > len(self.plan):
            raise ValueError("the oracle answers its episode's contexts in order, once each")
        chosen = self.plan[self.answered:self.answered + n]
        self.answered += n
        return as_codes(chosen)


def myopic_oracle(setting: Setting) -> OraclePolicy:
    """Greedy on the true P(open) alone: blind to the fatigue and habituation it causes.

    Parameters
    ----------
    setting : Setting
        With the simulated user, as for ``OraclePolicy``.

    Returns
    -------
    OraclePolicy
        ``OraclePolicy(setting, prices=())``: the planner without shadow prices.

    Examples
    --------
    >>> from pushgen.baselines import myopic_oracle
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v4", 1), 1, "myopic", 0, reads_truth=True)
    >>> myopic_oracle(setting).prices  # no price on the fatigue and habituation it leaves
    ()
    """
    return OraclePolicy(setting, prices=())


def context_blind_oracle(setting: Setting) -> OraclePolicy:
    """The oracle's planner on the user's average context: choices blind to each context.

    Parameters
    ----------
    setting : Setting
        As for ``OraclePolicy``.

    Returns
    -------
    OraclePolicy
        ``OraclePolicy(setting, context_blind=True)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.baselines import context_blind_oracle
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v4", 1), 1, "blind", 0, reads_truth=True)
    >>> base = context_blind_oracle(setting).truth.row_terms.base
    >>> bool(np.allclose(base, base[0]))  # every context looks alike to its planner
    True
    """
    return OraclePolicy(setting, context_blind=True)


def blind_to_context(truth: Truth) -> Truth:
    """``truth`` with every row's part of the logit and situations replaced by their mean over the
    episode: the user as a planner sees it that knows everything but the context."""
    terms = truth.row_terms
    n = len(terms.base)
    if not n:
        return truth
    average = RowTerms(base=np.full(n, terms.base.mean()),
                       situations=np.tile(terms.situations.mean(axis=0), (n, 1)))
    return replace(truth, row_terms=average)


def upper_bound(truth: Truth) -> tuple[np.ndarray, np.ndarray]:
    """Per context of the episode: the highest fresh-state P(open) of any possible notification,
    and that notification (an (n, 7) matrix).

    No policy scores above it: fatigue and habituation only lower P(open).

    Parameters
    ----------
    truth : Truth
        The simulated user behind the episode.

    Returns
    -------
    tuple of numpy.ndarray
        ``(n,)`` the highest P(open) per context and ``(n, 7)`` the notification that reaches it.

    Examples
    --------
    >>> from pushgen.baselines import upper_bound
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v4", 1), 1, "bound", 0, reads_truth=True)
    >>> best, notifications = upper_bound(setting.truth)
    >>> notifications.shape == (len(best), 7), bool(((best >= 0) & (best <= 1)).all())
    (True, True)
    """
    penalty_weights(truth.parameters, truth.parameter_row)  # the bound holds because these are >= 0
    candidates = true_candidates(truth)
    n = len(truth.seconds)
    if not len(candidates):
        return np.zeros(n), np.zeros((n, 7), dtype=np.int64)
    best = np.empty(n)
    chosen = np.empty(n, dtype=np.int64)
    for block in row_blocks(n):
        scores = candidates.scores(truth, block)
        chosen[block] = np.argmax(scores, axis=1)
        best[block] = scores[np.arange(len(scores)), chosen[block]]
    return p_open(truth.row_terms.base + best), candidates.matrix[chosen]


class BestFixedPerUserPolicy(FixedPolicy):
    """The one possible notification with the highest expected reward sent in every context.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode, with the simulated user, whose expected rewards
        it compares (``make_setting(..., reads_truth=True)``).

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.baselines import BestFixedPerUserPolicy
    >>> from pushgen.benchmark import run_policy
    >>> [run] = run_policy("pushgen-mini-v4", 1, "fixed", BestFixedPerUserPolicy, users=[0], reads_truth=True)
    >>> len(np.unique(run.generated, axis=0))  # the same notification in every context
    1
    """

    def __init__(self, setting: Setting) -> None:
        truth = setting.true_model("the best fixed notification per user")
        candidates = true_candidates(truth)
        # per candidate, the sum of its true P(open) when sent in every context; expected reward =
        # 2 P(open) - logged open, so the highest total P(open) wins
        totals = planned_user(truth, candidates).fixed_totals(truth.seconds, truth.row_terms, candidates.base,
                                                              candidates.per_situation)
        self.choice = candidates.matrix[int(np.argmax(totals))] if len(candidates) else np.zeros(7, np.int64)
