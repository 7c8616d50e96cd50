"""The non-learning reference of a split: the best fixed notification in the public history.

The notification with the highest open rate among those that at least ``MIN_USERS`` users
received in task 1's training part (ties: the more often received), sent in every context.
Task 2's learning metric is measured against it on the same contexts, so that a policy which
never learns scores 0 whatever the contexts' drift.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from pushgen import schemas
from pushgen.splits import read_part

MIN_USERS = 2


@lru_cache(maxsize=8)
def best_fixed_notification(folder: Path) -> dict[str, int]:
    """Codes of the best fixed notification of the split's public history."""
    history = read_part(folder, "task1/train")
    features = list(schemas.NOTIFICATION_FEATURES)
    codes = schemas.frame_codes(history, features)
    matrix = np.column_stack([codes[f] for f in features])
    opened = (schemas.frame_codes(history, ("action",))["action"]
              == schemas.field("action").code("opened"))
    unique, inverse, counts = np.unique(matrix, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    users = np.unique(np.column_stack([inverse, history["user_id"].to_numpy()]), axis=0)[:, 0]
    n_users = np.bincount(users, minlength=len(unique))
    rate = np.bincount(inverse, weights=opened, minlength=len(unique)) / counts
    eligible = n_users >= min(MIN_USERS, int(history["user_id"].nunique()))
    best = np.lexsort((-counts, -np.where(eligible, rate, -1.0)))[0]
    return {f: int(unique[best, j]) for j, f in enumerate(features)}
