"""Candidate notifications: the distinct notifications of some logged rows.

Generating only notifications that were logged keeps every field tied to a real app
(no WhatsApp ``email``); the models choose among them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.envs.spaces import NOTIFICATION_FEATURES, OPENED, frame_codes

POOL_MIN_USERS = 2


def notification_matrix(frame: pd.DataFrame) -> np.ndarray:
    """The notifications of ``frame``'s rows as an (n, 7) code matrix."""
    codes = frame_codes(frame, NOTIFICATION_FEATURES)
    if not len(frame):
        return np.zeros((0, len(NOTIFICATION_FEATURES)), dtype=np.int64)
    return np.column_stack([codes[f] for f in NOTIFICATION_FEATURES])


def opened(frame: pd.DataFrame) -> np.ndarray:
    return frame_codes(frame, ("action",))["action"] == OPENED


def distinct(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows (sorted), the index of each row's distinct row, and their counts."""
    if not len(matrix):
        return matrix, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    unique, inverse, counts = np.unique(matrix, axis=0, return_inverse=True, return_counts=True)
    return unique, inverse.ravel(), counts


def ranked(history: pd.DataFrame, size: int, smoothing: float | None = None) -> np.ndarray:
    """The ``size`` distinct notifications of ``history`` opened most often or, with ``smoothing``,
    with the best open rate smoothed towards the history's own by that many pseudo-rows (ties: the
    more often received, then code order)."""
    unique, inverse, counts = distinct(notification_matrix(history))
    was_opened = opened(history)
    opens = np.bincount(inverse, weights=was_opened, minlength=len(unique))
    score = opens if smoothing is None else (opens + smoothing * was_opened.mean()) / (counts + smoothing)
    return unique[np.lexsort((-counts, -score))[:size]]


def public_pool(public: pd.DataFrame, min_users: int = POOL_MIN_USERS) -> np.ndarray:
    """Distinct notifications that at least ``min_users`` users of ``public`` received."""
    matrix = notification_matrix(public)
    if not len(matrix):
        return matrix
    users = public["user_id"].to_numpy(dtype=np.int64)
    pairs = np.unique(np.column_stack([matrix, users]), axis=0)
    unique, _, counts = distinct(pairs[:, :-1])
    common = unique[counts >= min(min_users, len(np.unique(users)))]
    return common if len(common) else unique
