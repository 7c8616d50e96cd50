"""The learned open model that off-policy evaluation's target policies and the ``softmax-learned``
logging policy act on: the learned baseline's logistic regression on one-hot (notification,
context) features with interactions (``pushgen.baselines.design``; needs ``pushgen[ml]``),
fitted on the split's public task 1 training rows (notifications the apps posted, opened or
dismissed) with an intercept per user. It reads no answer key.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pushgen.baselines.design import Design
from pushgen.baselines.learned import REGULARISATION, fit_open_model
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.ope.policies import Scorer, Slates
from pushgen.publishing.access import resolve_split
from pushgen.splits import read_part


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
