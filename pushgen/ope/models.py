"""Models that off-policy evaluation needs besides the log: a learned open model that the target
policies act on, and the reward model of DM and DR. Both are the learned baseline's logistic
regression on one-hot (notification, context) features with interactions
(``pushgen.baselines.design``; needs ``pushgen[ml]``), and neither reads the answer key.

- ``learned_scorer(split)`` (``pushgen.ope.open_model``): fitted on the split's public task 1
  training rows (notifications the apps posted, opened or dismissed), with an intercept per user;
  it scores a candidate with an average user's open log-odds before any recent exposure (the mean
  of the user intercepts);
- ``reward_model(log)``: fitted on the log's own sent rounds (the sampled rewards), cross-fitted
  (rounds of even number predicted by a model of the odd ones, and the other way round) so that a
  round's estimate never saw its own reward; hold earns 0 by definition.
"""

from __future__ import annotations

import numpy as np

from pushgen.baselines.design import Design
from pushgen.baselines.learned import REGULARISATION, require_sklearn
from pushgen.ope.log import BanditLog
from pushgen.ope.open_model import learned_scorer as learned_scorer
from pushgen.ope.open_model import slate_rows

FOLDS = 2


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
