"""Learned: a logistic regression of P(open) on the history, then the candidate it rates highest.

The model is fitted on one-hot features of the logged (notification, context) pairs with a
few category-by-context interactions (``pushgen.baselines.design``). For each context it
scores the candidates (the distinct notifications of the history) and generates the best:
maximising P(open) maximises the expected reward, since an opened notification never scores
less than a dismissed one in the same context.

``temperature`` is the diversity knob: 0 takes the best candidate; above 0, a candidate is
drawn with probability proportional to exp(logit / temperature), trading reward for variety.
In task 2 the model is fitted once on the public task 1 training rows (a population model,
with an intercept per user), chooses among the public pool of notifications and does not
learn online.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size, fitted
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.baselines.design import Design
from pushgen.envs.spaces import CONTEXT_FEATURES, frame_codes

REGULARISATION = 0.1  # inverse L2 strength (scikit-learn's C), by log-loss on validation weeks


def require_sklearn():
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise ImportError("the learned baseline needs scikit-learn: pip install 'pushgen[ml]'") from None
    return LogisticRegression


def fit_logistic(design: Design, rows: pd.DataFrame, regularisation: float,
                 per_user: bool = False) -> np.ndarray:
    """Weights (one per design column) of the L2-regularised logistic regression.

    With ``per_user``, each user of ``rows`` gets an intercept of its own (dropped from the
    result), so that an app only some users receive is not credited with their own open rate.
    """
    was_opened = opened(rows)
    if was_opened.all() or not was_opened.any():
        return np.zeros(design.size)
    logistic = require_sklearn()
    x = design.matrix(notification_matrix(rows), frame_codes(rows, CONTEXT_FEATURES))
    if per_user:
        users = pd.factorize(rows["user_id"], sort=True)[0]
        x = sp.hstack([x, sp.csr_matrix((np.ones(len(users)), (np.arange(len(users)), users)))],
                      format="csr")
    model = logistic(C=regularisation, max_iter=1000, tol=1e-6)
    model.fit(x, was_opened)
    return model.coef_.ravel()[: design.size].astype(np.float64)


class LearnedPolicy(StaticPolicy):
    """The candidate with the highest P(open) under a model fitted on the history."""

    def __init__(self, setting: Setting, temperature: float = 0.0,
                 regularisation: float = REGULARISATION) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0; got {temperature}")
        self.setting = setting
        self.temperature = temperature
        self.regularisation = regularisation
        self.rng = setting.rng()
        self.design = Design()
        self.weights = np.zeros(self.design.size)
        self.candidates = setting.pool

    def fit(self, history: pd.DataFrame) -> None:
        if len(history):
            self.candidates = distinct(notification_matrix(history))[0]
        self.weights = fitted(history, self.setting, f"logistic regression, C={self.regularisation}",
                              lambda rows: fit_logistic(self.design, rows, self.regularisation,
                                                        per_user=not len(history)))

    def act(self, contexts: Codes) -> Codes:
        if self.temperature == 0:
            chosen = self.design.best(self.weights, self.candidates, contexts)
        else:
            u = self.rng.random(batch_size(contexts))
            chosen = self.design.sample(self.weights, self.candidates, contexts, self.temperature, u)
        return as_codes(self.candidates[chosen])
