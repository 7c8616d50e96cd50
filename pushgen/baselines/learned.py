"""Learned: a logistic regression of P(open) on the history, then per context the best candidate
less a penalty for what the policy itself sent recently.

The model is fitted on one-hot features of the logged (notification, context) pairs with
notification-by-context interactions (``pushgen.baselines.design``), plus each logged row's
recent exposure to its app, subject and channel (``pushgen.baselines.recency``): the fitted
weight of that exposure is how much a repeat loses, which is what stops the model from
sending its favourite notification in every context. For each context in turn it generates
the candidate (a notification the history holds at least ``MIN_RECEIVED`` times: the log-odds
of one seen once or twice are mostly its regularised guess) with the highest predicted log-odds
given the exposures its own earlier choices left: maximising P(open) maximises the expected
reward, since an opened notification never scores less than a dismissed one.

``temperature`` is the diversity knob: 0 takes the best candidate; above 0, a candidate is
drawn with probability proportional to exp(log-odds / temperature) (Gumbel noise on the
scores), trading reward for variety. In task 2 the model is fitted once on the public task 1
training rows (a population model, with an intercept per user), chooses among the public
pool of notifications and does not learn online.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size, fitted
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.baselines.design import Design
from pushgen.baselines.greedy import KEYS
from pushgen.baselines.recency import history_exposure, own_recency_chooser, rows_per_day
from pushgen.envs.spaces import CONTEXT_FEATURES, frame_codes

REGULARISATION = 0.1  # inverse L2 strength (scikit-learn's C)
MIN_RECEIVED = 3  # times a notification of the history must have been received to be a candidate


def require_sklearn(needs: str = "the learned baselines need"):
    """scikit-learn's ``LogisticRegression``, or an ImportError that says who ``needs`` it and how
    to install it."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        from pushgen.extras import install_line

        raise ImportError(f"{needs} scikit-learn: {install_line('ml')}") from None
    return LogisticRegression


@dataclass(frozen=True)
class OpenModel:
    """A fitted model of the open log-odds."""

    weights: np.ndarray  # one per design column
    recency: np.ndarray  # (3,) per sqrt(exposure) to the app, subject and channel
    rows_per_day: float
    intercept: float = 0.0  # an average user's: the model's, plus the mean per-user one with per_user

    def penalties(self) -> np.ndarray:
        """Log-odds lost per sqrt(exposure) to each key (>= 0)."""
        return np.maximum(0.0, -self.recency)


def fit_open_model(design: Design, rows: pd.DataFrame, regularisation: float,
                   per_user: bool = False) -> OpenModel:
    """The L2-regularised logistic regression of the action on the design and recency features.

    With ``per_user``, each user of ``rows`` gets an intercept of its own (the result keeps their
    mean), so that an app only some users receive is not credited with their own open rate.
    """
    was_opened = opened(rows)
    pace = rows_per_day(rows)
    if was_opened.all() or not was_opened.any():
        return OpenModel(np.zeros(design.size), np.zeros(len(KEYS)), pace)
    logistic = require_sklearn()
    matrix = notification_matrix(rows)
    parts = [design.matrix(matrix, frame_codes(rows, CONTEXT_FEATURES)),
             sp.csr_matrix(history_exposure(rows, matrix))]
    if per_user:
        users = pd.factorize(rows["user_id"], sort=True)[0]
        parts.append(sp.csr_matrix((np.ones(len(users)), (np.arange(len(users)), users))))
    model = logistic(C=regularisation, max_iter=2000, tol=1e-6)
    model.fit(sp.hstack(parts, format="csr"), was_opened)
    coefficients = model.coef_.ravel().astype(np.float64)
    users_mean = float(coefficients[design.size + len(KEYS):].mean()) if per_user else 0.0
    return OpenModel(coefficients[: design.size], coefficients[design.size:design.size + len(KEYS)], pace,
                     float(model.intercept_[0]) + users_mean)


class LearnedPolicy(StaticPolicy):
    """The candidate with the highest P(open) under a model fitted on the history, given its own
    recent sends.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode (``pushgen.benchmark.make_setting``).
    temperature : float, default 0.0
        0 sends the best candidate; above 0, a draw in proportion to exp(log-odds / temperature)
        (the diversity knob).
    regularisation : float, default 0.1
        scikit-learn's ``C``: the inverse strength of the logistic regression's L2 penalty.

    Examples
    --------
    >>> import numpy as np
    >>> from functools import partial
    >>> from pushgen.baselines import LearnedPolicy
    >>> from pushgen.benchmark import run_policy
    >>> diverse = partial(LearnedPolicy, temperature=1.0)
    >>> runs = [run_policy("pushgen-mini-v4", 1, "learned", make, users=[0])[0]
    ...         for make in (LearnedPolicy, diverse)]
    >>> [len(np.unique(run.generated, axis=0)) for run in runs]  # distinct notifications sent
    [16, 115]
    """

    def __init__(self, setting: Setting, temperature: float = 0.0,
                 regularisation: float = REGULARISATION) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0; got {temperature}")
        self.setting = setting
        self.temperature = temperature
        self.regularisation = regularisation
        self.rng = setting.rng()
        self.design = Design()
        self.candidates = setting.pool
        self.model: OpenModel | None = None
        self.answered = 0

    def fit(self, history: pd.DataFrame) -> None:
        if len(history):
            unique, _, counts = distinct(notification_matrix(history))
            frequent = counts >= MIN_RECEIVED
            self.candidates = unique[frequent] if frequent.any() else unique
        self.model = fitted(history, self.setting, f"open model, C={self.regularisation}",
                            lambda rows: fit_open_model(self.design, rows, self.regularisation,
                                                        per_user=not len(history)))
        self.chooser = own_recency_chooser(self.candidates, self.model.penalties())
        self.answered = 0

    def act(self, contexts: Codes) -> Codes:
        if self.model is None:
            raise ValueError("fit() the learned policy before act()")
        n = batch_size(contexts)
        scores = self.design.scores(self.model.weights, self.candidates, contexts)
        noise = (self.temperature * self.rng.gumbel(size=scores.shape)) if self.temperature else None
        clock = (self.answered + np.arange(n)) / self.model.rows_per_day
        self.answered += n
        return as_codes(self.candidates[self.chooser.choose(scores, clock, noise)])
