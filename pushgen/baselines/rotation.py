"""Rotation: a probe with no model and no context, cycling through the user's most opened
notifications of its history.

It ranks the distinct notifications of the history by how often they were opened (ties: the
more often received, then code order), keeps the first ``size`` and sends them in turn, one
per context, whatever the context. It knows the user and does not repeat itself; a model
that reads the context must score clearly above it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.baselines.fixed import BestFixedOverallPolicy

ROTATION_SIZE = 45


def most_opened(history: pd.DataFrame, size: int) -> np.ndarray:
    """The ``size`` distinct notifications of ``history`` opened most often, most opened first."""
    unique, inverse, counts = distinct(notification_matrix(history))
    opens = np.bincount(inverse, weights=opened(history), minlength=len(unique))
    order = np.lexsort((np.arange(len(unique)), -counts, -opens))
    return unique[order[:size]]


class RotationPolicy(StaticPolicy):
    """The user's ``size`` most opened history notifications, in turn (the overall best fixed
    notification without history)."""

    def __init__(self, setting: Setting, size: int = ROTATION_SIZE) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1; got {size}")
        self.size = size
        self.fallback = BestFixedOverallPolicy(setting).choice[None, :]
        self.cycle = self.fallback
        self.answered = 0

    def fit(self, history: pd.DataFrame) -> None:
        self.cycle = most_opened(history, self.size) if len(history) else self.fallback
        self.answered = 0

    def act(self, contexts: Codes) -> Codes:
        n = batch_size(contexts)
        turn = (self.answered + np.arange(n)) % len(self.cycle)
        self.answered += n
        return as_codes(self.cycle[turn])
