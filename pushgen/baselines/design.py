"""One-hot features of (notification, context) pairs for the linear models.

Columns: one per value of each of the 18 features (main effects), then one per pair of values
of each interaction (a notification feature by a context variable): the category by the time
block, the weekday, the activity, the ringer mode and ``audio`` (headphones and music
together, 4 levels), the priority by the ringer mode, and the number of updates by the
activity. A linear score then splits into a notification part, a context part and the
interaction parts, so every candidate is scored in every context with a few table look-ups.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pushgen import schemas
from pushgen.baselines.base import Codes, batch_size
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES

INTERACTIONS: tuple[tuple[str, str], ...] = (
    ("category", "time"), ("category", "day"), ("category", "activity"), ("category", "ringerMode"),
    ("category", "audio"), ("priority", "ringerMode"), ("numberOfUpdates", "activity"),
)


def context_variable(name: str, contexts: Codes) -> np.ndarray:
    """Codes of a context feature, or of ``audio`` = 2 * headphonesIn + musicActive."""
    if name == "audio":
        return 2 * np.asarray(contexts["headphonesIn"]) + np.asarray(contexts["musicActive"])
    return np.asarray(contexts[name])


def variable_size(name: str) -> int:
    return 4 if name == "audio" else len(schemas.values(name))


class Design:
    """Column layout of the one-hot features."""

    def __init__(self, interactions: tuple[tuple[str, str], ...] = INTERACTIONS) -> None:
        self.interactions = interactions
        offset = 0
        self.offsets: dict[str, int] = {}
        for name in (*NOTIFICATION_FEATURES, *CONTEXT_FEATURES):
            self.offsets[name] = offset
            offset += len(schemas.values(name))
        for notification, context in interactions:
            self.offsets[f"{notification}*{context}"] = offset
            offset += variable_size(notification) * variable_size(context)
        self.size = offset

    def columns(self, notifications: np.ndarray, contexts: Codes) -> np.ndarray:
        """Per row, the indices of its nonzero columns; ``notifications`` is an (n, 7) matrix."""
        parts = [self.offsets[f] + notifications[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)]
        parts += [self.offsets[f] + np.asarray(contexts[f]) for f in CONTEXT_FEATURES]
        for notification, context in self.interactions:
            value = notifications[:, NOTIFICATION_FEATURES.index(notification)]
            parts.append(self.offsets[f"{notification}*{context}"] + value * variable_size(context)
                         + context_variable(context, contexts))
        return np.column_stack(parts).astype(np.int64)

    def matrix(self, notifications: np.ndarray, contexts: Codes) -> sp.csr_matrix:
        columns = self.columns(notifications, contexts)
        n, k = columns.shape
        indptr = np.arange(0, n * k + 1, k)
        return sp.csr_matrix((np.ones(n * k), columns.ravel(), indptr), shape=(n, self.size))

    def scores(self, weights: np.ndarray, candidates: np.ndarray, contexts: Codes) -> np.ndarray:
        """(n contexts, n candidates): every score, less the context part."""
        own = sum(weights[self.offsets[f] + candidates[:, j]] for j, f in enumerate(NOTIFICATION_FEATURES))
        total = np.tile(own, (batch_size(contexts), 1))
        for notification, context in self.interactions:
            size = variable_size(context)
            start = self.offsets[f"{notification}*{context}"]
            table = weights[start:start + variable_size(notification) * size].reshape(-1, size)
            value = candidates[:, NOTIFICATION_FEATURES.index(notification)]
            total += table[:, context_variable(context, contexts)].T[:, value]
        return total
