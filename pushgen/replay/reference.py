"""Task 2's reference without feedback: the best a policy could send knowing the user's apps
but nothing of its tastes.

The public history's notifications are ranked by open rate among those that at least
``MIN_USERS`` users received in task 1's training part (ties: the more often received, then
code order). ``best_fixed_notification`` is the first of them, sent to everyone;
``apps_aware_reference`` sends each user the first of them that one of its apps can post
(the split's simulated user says which apps it has: the scorer's side). Task 2's learning
metric is the area between a policy's reward curve and this reference's on the same
contexts: the reward it gained per step by listening to the user's responses.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.model.feasibility import is_possible
from pushgen.splits import read_part

MIN_USERS = 2
FEATURES = tuple(schemas.NOTIFICATION_FEATURES)


@lru_cache(maxsize=8)
def ranked_public_notifications(folder: Path) -> np.ndarray:
    """(k, 7) codes: the split's public history's distinct notifications, best open rate first."""
    return rank_by_open_rate(read_part(folder, "task1/train"))


def rank_by_open_rate(history: pd.DataFrame, min_users: int = MIN_USERS) -> np.ndarray:
    """(k, 7) codes: the distinct notifications of ``history`` by open rate, those at least
    ``min_users`` users received first (ties: the more often received, then code order)."""
    if not len(history):
        raise ValueError("no public training rows to rank notifications in")
    codes = schemas.frame_codes(history, FEATURES)
    matrix = np.column_stack([codes[f] for f in FEATURES])
    opened = (schemas.frame_codes(history, ("action",))["action"]
              == schemas.field("action").code("opened"))
    unique, inverse, counts = np.unique(matrix, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    users = np.unique(np.column_stack([inverse, history["user_id"].to_numpy()]), axis=0)[:, 0]
    n_users = np.bincount(users, minlength=len(unique))
    rate = np.bincount(inverse, weights=opened, minlength=len(unique)) / counts
    eligible = n_users >= min(min_users, int(history["user_id"].nunique()))
    return unique[np.lexsort((-counts, -np.where(eligible, rate, -1.0)))]


def best_fixed_notification(folder: Path) -> dict[str, int]:
    """Codes of the best fixed notification of the split's public history."""
    best = ranked_public_notifications(folder)[0]
    return {f: int(best[j]) for j, f in enumerate(FEATURES)}


def apps_aware_reference(folder: Path, has_app: np.ndarray) -> dict[str, np.ndarray]:
    """Per row, the codes of the best ranked public notification that the row's user can receive
    (``has_app``: (rows, apps) of the rows' users); the best overall where none can."""
    rows = first_possible(ranked_public_notifications(folder), has_app)
    return {f: rows[:, j] for j, f in enumerate(FEATURES)}


def first_possible(ranked: np.ndarray, has_app: np.ndarray) -> np.ndarray:
    """Per row of ``has_app`` ((rows, apps), or one user's (apps,)), the first notification of
    ``ranked`` its user can receive (the first of all where none): (rows, 7), or (7,)."""
    if np.ndim(has_app) == 1:
        return first_possible(ranked, np.asarray(has_app)[None, :])[0]
    has_app = np.asarray(has_app, dtype=bool)
    owners, row_of_owner = np.unique(has_app, axis=0, return_inverse=True)
    chosen = np.zeros(len(owners), dtype=np.int64)
    candidates = {f: ranked[:, j] for j, f in enumerate(FEATURES)}
    for k, apps in enumerate(owners):
        possible = np.flatnonzero(is_possible(candidates, apps))
        chosen[k] = possible[0] if len(possible) else 0
    return ranked[chosen[row_of_owner.ravel()]]
