"""Models that off-policy evaluation needs besides the log: a learned open model that the target
policies act on, and the reward model of DM and DR. Both are the learned baseline's logistic
regression on one-hot (notification, context) features with interactions
(``pushgen.baselines.design``; needs ``pushgen[ml]``), and neither reads the answer key.

- ``learned_scorer(split)``: fitted on the split's public task 1 training rows (notifications
  the apps posted, opened or dismissed), with an intercept per user; it scores a candidate with
  an average user's open log-odds before any recent exposure (the mean of the user intercepts);
- ``reward_model(log)``: fitted on the log's own sent rounds (the sampled rewards), cross-fitted
  (rounds of even number predicted by a model of the odd ones, and the other way round) so that a
  round's estimate never saw its own reward; hold earns 0 by definition.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pushgen.baselines.design import Design
from pushgen.baselines.learned import REGULARISATION, fit_open_model, require_sklearn
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.ope.log import BanditLog
from pushgen.ope.policies import Scorer, Slates
from pushgen.publishing.access import resolve_split
from pushgen.splits import read_part

FOLDS = 2


def slate_rows(slates: Slates) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every (round, slot) pair as design inputs: candidates (n * k, 7) and their contexts."""
    n, k = slates.mask.shape
    candidates = slates.candidates.reshape(n * k, len(NOTIFICATION_FEATURES))
    return candidates, {f: np.repeat(c, k) for f, c in slates.contexts.items()}


def learned_scorer(split: str | Path, regularisation: float = REGULARISATION) -> Scorer:
    """The open log-odds of each candidate for an average user before any recent exposure, by a model
    fitted on the split's task 1 training rows (public data only)."""
    design = Design()
    rows = read_part(resolve_split(split), "task1/train")
    model = fit_open_model(design, rows, regularisation, per_user=True)

    def score(slates: Slates) -> np.ndarray:
        candidates, contexts = slate_rows(slates)
        scores = design.matrix(candidates, contexts) @ model.weights + model.intercept
        return scores.reshape(slates.mask.shape)

    return score


def reward_model(log: BanditLog, regularisation: float = REGULARISATION) -> np.ndarray:
    """(rounds, k + 1): the cross-fitted estimate of each action's reward (0 for hold and empty slots)."""
    from scipy.special import expit

    logistic = require_sklearn()
    design = Design()
    slates = log.slates()
    n, k = slates.mask.shape
    rounds = log.rounds
    sent = ~rounds["held"].to_numpy(dtype=bool)
    slot = rounds["slot"].to_numpy(dtype=np.int64)
    reward = rounds["reward"].to_numpy(dtype=np.int64)
    fold = np.arange(n) % FOLDS
    all_candidates, all_contexts = slate_rows(slates)
    features = design.matrix(all_candidates, all_contexts)
    chosen_rows = np.arange(n) * k + np.minimum(slot, k - 1)
    out = np.zeros((n, k + 1))
    for f in range(FOLDS):
        train = sent & (fold != f)
        predict = fold == f
        if len(np.unique(reward[train])) < 2:
            estimate = np.full(int(predict.sum()) * k, reward[train].mean() if train.any() else 0.0)
        else:
            model = logistic(C=regularisation, max_iter=2000, tol=1e-6)
            model.fit(features[chosen_rows[train]], reward[train])
            rows = (np.flatnonzero(predict)[:, None] * k + np.arange(k)).ravel()
            estimate = expit(features[rows] @ model.coef_.ravel() + model.intercept_[0])
        out[predict, :k] = estimate.reshape(-1, k)
    out[:, :k] = np.where(slates.mask, out[:, :k], 0.0)
    return out
