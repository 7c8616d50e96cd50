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
import pandas as pd

from pushgen.baselines.base import Codes, Setting, StaticPolicy, Truth, as_codes, batch_size
from pushgen.baselines.fixed import FixedPolicy
from pushgen.baselines.greedy import KEYS
from pushgen.baselines.planner import PRICE_SCALES, plan_episode
from pushgen.baselines.true_model import BLOCK, penalty_weights, row_blocks, time_constants, true_candidates
from pushgen.model.engagement import RowTerms
from pushgen.model.exposure import keyed_exposure
from pushgen.model.logistic import expit

CANDIDATE_BLOCK = 256


class OraclePolicy(StaticPolicy):
    """The true model's plan (``plan_episode``), replayed context by context."""

    def __init__(self, setting: Setting, prices: tuple[float, ...] = PRICE_SCALES,
                 context_blind: bool = False) -> None:
        truth = setting.true_model("the oracle")
        self.truth = blind_to_context(truth) if context_blind else truth
        self.prices = prices
        self.plan: np.ndarray | None = None
        self.answered = 0

    def fit(self, history: pd.DataFrame) -> None:
        return None

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
    """Greedy on the true P(open) alone: blind to the fatigue and habituation it causes."""
    return OraclePolicy(setting, prices=())


def context_blind_oracle(setting: Setting) -> OraclePolicy:
    """The oracle's planner on the user's average context: choices blind to each context."""
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
    and that notification (an (n, 7) matrix)."""
    penalty_weights(truth)  # the bound holds because these are >= 0
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
    return expit(truth.row_terms.base + best), candidates.matrix[chosen]


def fixed_probabilities(truth: Truth, candidates=None) -> tuple[np.ndarray, np.ndarray]:
    """Per possible notification c: the sum over the episode's contexts of the true P(open) when c
    is sent in every context (shape (K,)), and the candidates' matrix.

    Sending c everywhere, its exposure to each key at row i is the decayed count of the rows
    before i plus the user's initial exposure to c's key, decayed; likewise fatigue, scaled
    by how much c interrupts. So every candidate is evaluated at once from four sums.
    """
    candidates = true_candidates(truth) if candidates is None else candidates
    weights = penalty_weights(truth)
    taus = time_constants(truth)
    t = truth.seconds
    sent_before = {key: keyed_exposure(t, np.zeros(len(t), dtype=np.int64), tau)
                   for key, tau in taus.items()}
    fading = {key: np.exp(-t / tau)[:, None] for key, tau in taus.items()}
    totals = np.zeros(len(candidates))
    for rows in row_blocks(len(t), BLOCK):
        base = truth.row_terms.base[rows, None]
        fatigue = float(truth.initial["fatigue"][0]) * fading["fatigue"][rows]
        for columns in row_blocks(len(candidates), CANDIDATE_BLOCK):
            penalty = weights["fatigue"] * (sent_before["fatigue"][rows, None]
                                            * candidates.interrupts[columns] + fatigue)
            for key in KEYS:
                exposure = (sent_before[key][rows, None]
                            + truth.initial[key][candidates.keys[key][columns]] * fading[key][rows])
                penalty += weights[key] * np.sqrt(exposure)
            scores = base + candidates.base[columns] + (truth.row_terms.situations[rows]
                                                        @ candidates.per_situation[columns].T)
            totals[columns] += expit(scores - penalty).sum(axis=0)
    return totals, candidates.matrix


class BestFixedPerUserPolicy(FixedPolicy):
    """The one possible notification with the highest expected reward sent in every context."""

    def __init__(self, setting: Setting) -> None:
        truth = setting.true_model("the best fixed notification per user")
        totals, matrix = fixed_probabilities(truth)
        # expected reward = 2 P(open) - logged open, so the highest total P(open) wins
        self.choice = matrix[int(np.argmax(totals))] if len(matrix) else np.zeros(7, dtype=np.int64)

    def fit(self, history: pd.DataFrame) -> None:
        return None
