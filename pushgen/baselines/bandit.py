"""Bandit: linear Thompson sampling over factored notification features, learning online.

The open/dismiss response y of a generated notification x in context c is modelled as
y = w . phi(x, c) + noise, with phi the one-hot features of ``pushgen.baselines.design``
and an intercept, and a Gaussian prior w ~ N(0, I / prior_precision) (the intercept's prior
is nearly flat). The posterior after responses Phi, y is N(A^-1 Phi'y, scale^2 A^-1) with
A = prior_precision I + Phi'Phi. Every ``refresh`` responses it draws new weights from the
posterior and then generates, for each context, the candidate that scores highest under
them. Candidates: the public pool of plausible notifications in task 2 (cold start), the
history's notifications in task 1, where ``fit`` feeds the logged responses in first.

Decisions depend only on how many responses came before, not on how they were batched, as
long as ``refresh`` is a multiple of the batch size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, solve_triangular

from pushgen.baselines.base import Codes, Setting, as_codes, as_matrix
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.baselines.design import Design
from pushgen.envs.spaces import CONTEXT_FEATURES, frame_codes

REFRESH = 50
# chosen by playing task 1 users' test months online (not the task 2 users)
PRIOR_PRECISION = 30.0
SCALE = 0.2
INTERCEPT_PRECISION = 1e-4


class ThompsonPolicy:
    """Linear Thompson sampling; ``scale`` widens (or narrows) the exploration."""

    def __init__(self, setting: Setting, prior_precision: float = PRIOR_PRECISION, scale: float = SCALE,
                 refresh: int = REFRESH) -> None:
        self.rng = setting.rng()
        self.design = Design()
        self.candidates = setting.pool
        self.scale = scale
        self.refresh = refresh
        d = self.design.size + 1
        self.precision = np.diag(np.r_[np.full(d - 1, prior_precision), INTERCEPT_PRECISION])
        self.target = np.zeros(d)
        self.responses = 0
        self.weights: np.ndarray | None = None

    def fit(self, history: pd.DataFrame) -> None:
        if not len(history):
            return
        self.candidates = distinct(notification_matrix(history))[0]
        self._learn(notification_matrix(history), frame_codes(history, CONTEXT_FEATURES),
                    opened(history))
        self.weights = None

    def act(self, contexts: Codes) -> Codes:
        if self.weights is None:
            self.weights = self._draw()
        return as_codes(self.candidates[self.design.best(self.weights, self.candidates, contexts)])

    def update(self, contexts: Codes, notifications: Codes, opened: np.ndarray) -> None:
        before = self.responses // self.refresh
        self._learn(as_matrix(notifications), contexts, np.asarray(opened, dtype=np.float64))
        if self.responses // self.refresh != before:
            self.weights = None

    def _learn(self, notifications: np.ndarray, contexts: Codes, y: np.ndarray) -> None:
        x = sp.hstack([self.design.matrix(notifications, contexts),
                       sp.csr_matrix(np.ones((len(y), 1)))], format="csr")
        self.precision += (x.T @ x).toarray()
        self.target += x.T @ y
        self.responses += len(y)

    def _draw(self) -> np.ndarray:
        factor = cho_factor(self.precision, lower=True)
        mean = cho_solve(factor, self.target)
        z = self.rng.standard_normal(len(mean))
        return mean + self.scale * solve_triangular(factor[0], z, lower=True, trans="T")
