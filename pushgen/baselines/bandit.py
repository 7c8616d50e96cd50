"""Bandit: linear Thompson sampling over notification and context features, learning online.

The open/dismiss response y of a generated notification x in context c is modelled as
y = w . phi(x, c) + noise, with phi the one-hot features of ``pushgen.baselines.design``, the
policy's own recent exposure to x's app, subject and channel (``pushgen.baselines.recency``)
and an intercept, and a Gaussian prior w ~ N(0, I / prior_precision) (the intercept's prior
is nearly flat). The posterior after responses Phi, y is N(A^-1 Phi'y, scale^2 A^-1) with
A = prior_precision I + Phi'Phi. Every ``refresh`` responses it draws new weights from the
posterior, and which apps the user has from its beliefs (``pushgen.baselines.ownership``: an
app whose notifications are never opened is probably not on the phone); then, context after
context, it generates the candidate of a drawn app that scores highest under the drawn
weights, less the drawn penalty for repeating what it sent recently. Candidates: the public
pool of plausible notifications in task 2 (cold start), the history's notifications in task
1, where ``fit`` feeds the logged responses in first.

Decisions depend only on how many responses came before, not on how they were batched, as
long as ``refresh`` is a multiple of the batch size.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, solve_triangular

from pushgen.baselines.base import Codes, Setting, as_codes, as_matrix, batch_size
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.baselines.design import Design
from pushgen.baselines.greedy import KEYS
from pushgen.baselines.ownership import APP, AppBeliefs
from pushgen.baselines.recency import history_exposure, own_recency_chooser, rows_per_day
from pushgen.envs.spaces import CONTEXT_FEATURES, frame_codes

REFRESH = 50
PRIOR_PRECISION = 30.0
SCALE = 0.2
INTERCEPT_PRECISION = 1e-4


class ThompsonPolicy:
    """Linear Thompson sampling; ``scale`` widens (or narrows) the exploration.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode (``pushgen.benchmark.make_setting``).
    prior_precision : float, default 30.0
        The precision of the weights' Gaussian prior.
    scale : float, default 0.2
        Widens (or narrows) the posterior samples.
    refresh : int, default 50
        Responses between new draws of the weights from the posterior.

    Examples
    --------
    >>> from pushgen.baselines import ThompsonPolicy
    >>> from pushgen.benchmark import run_policy
    >>> [run] = run_policy("pushgen-mini-v4", 2, "bandit", ThompsonPolicy)  # task 2: it learns online
    >>> bool(run.reward.mean() > run.reference_reward.mean())  # above the reference without feedback
    True
    """

    def __init__(self, setting: Setting, prior_precision: float = PRIOR_PRECISION, scale: float = SCALE,
                 refresh: int = REFRESH) -> None:
        self.rng = setting.rng()
        self.design = Design()
        self.scale = scale
        self.refresh = refresh
        d = self.design.size + len(KEYS) + 1
        self.precision = np.diag(np.r_[np.full(d - 1, prior_precision), INTERCEPT_PRECISION])
        self.target = np.zeros(d)
        self.responses = 0
        self.weights: np.ndarray | None = None
        self.owned: np.ndarray | None = None
        if "app beliefs" not in setting.shared:
            setting.shared["app beliefs"] = AppBeliefs.from_public(setting.public)
            setting.shared["rows per day"] = rows_per_day(setting.public)
        prior = setting.shared["app beliefs"]
        self.beliefs = AppBeliefs(prior.prior, 1.0 - np.exp(prior.log_miss))
        self.pace = setting.shared["rows per day"]
        self._use_candidates(setting.pool)

    def _use_candidates(self, candidates: np.ndarray) -> None:
        self.candidates = candidates
        self.chooser = own_recency_chooser(candidates, np.zeros(len(KEYS)))
        self.answered = 0
        self.pending: deque[np.ndarray] = deque()

    def fit(self, history: pd.DataFrame) -> None:
        if not len(history):
            return
        matrix = notification_matrix(history)
        self._use_candidates(distinct(matrix)[0])
        self.pace = rows_per_day(history)
        was_opened = opened(history)
        self._learn(matrix, frame_codes(history, CONTEXT_FEATURES), history_exposure(history, matrix),
                    was_opened.astype(np.float64))
        self.beliefs.observe(matrix[:, APP], np.ones(len(matrix), dtype=bool))  # its own apps
        self.weights = None

    def act(self, contexts: Codes) -> Codes:
        if self.weights is None or self.owned is None:
            self.weights = self._draw()
            self.owned = self.beliefs.sample(self.rng)
            penalty = np.maximum(0.0, -self.weights[self.design.size:self.design.size + len(KEYS)])
            self.chooser.weights = dict(zip(KEYS, penalty.tolist(), strict=True))
        n = batch_size(contexts)
        scores = self.design.scores(self.weights[: self.design.size], self.candidates, contexts)
        allowed = self.owned[self.candidates[:, APP]]
        if allowed.any():
            scores[:, ~allowed] = -np.inf
        clock = (self.answered + np.arange(n)) / self.pace
        self.answered += n
        chosen = self.chooser.choose(scores, clock)
        self.pending.extend(np.sqrt(self.chooser.exposure_at_choice))
        return as_codes(self.candidates[chosen])

    def update(self, contexts: Codes, notifications: Codes, opened: np.ndarray) -> None:
        was_opened = np.asarray(opened, dtype=bool)
        exposure = np.array([self.pending.popleft() if self.pending else np.zeros(len(KEYS))
                             for _ in range(len(was_opened))]).reshape(-1, len(KEYS))
        matrix = as_matrix(notifications)
        before = self.responses // self.refresh
        self._learn(matrix, contexts, exposure, was_opened.astype(np.float64))
        self.beliefs.observe(matrix[:, APP], was_opened)
        if self.responses // self.refresh != before:
            self.weights = None

    def _learn(self, notifications: np.ndarray, contexts: Codes, exposure: np.ndarray, y: np.ndarray) -> None:
        x = sp.hstack([self.design.matrix(notifications, contexts), sp.csr_matrix(exposure),
                       sp.csr_matrix(np.ones((len(y), 1)))], format="csr")
        self.precision += (x.T @ x).toarray()
        self.target += x.T @ y
        self.responses += len(y)

    def _draw(self) -> np.ndarray:
        factor = cho_factor(self.precision, lower=True)
        mean = cho_solve(factor, self.target)
        z = self.rng.standard_normal(len(mean))
        return mean + self.scale * solve_triangular(factor[0], z, lower=True, trans="T")
