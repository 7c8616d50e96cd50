"""Kernel of ``feasibility.channel_of``: each notification's channel looked up and checked."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def carried_channels(lookup: np.ndarray, subjects: np.ndarray, updates: np.ndarray, app: np.ndarray,
                     category: np.ndarray, priority: np.ndarray, visibility: np.ndarray, ongoing: np.ndarray,
                     subject: np.ndarray, number_of_updates: np.ndarray) -> np.ndarray:
    """``lookup[app, category, priority, visibility, ongoing]`` for each notification, -1 where the
    channel does not carry its ``subject`` or ``number_of_updates`` level; codes index as NumPy
    indexes them (a negative code counts from the end, one out of range raises IndexError)."""

    def index(code: int, size: int) -> int:
        wrapped = code + size if code < 0 else code
        if wrapped < 0 or wrapped >= size:
            raise IndexError("a code is out of range of its feature's values")
        return wrapped

    shape = lookup.shape
    channel = np.empty(len(app), dtype=np.int64)
    for i in range(len(app)):
        c = lookup[index(app[i], shape[0]), index(category[i], shape[1]), index(priority[i], shape[2]),
                   index(visibility[i], shape[3]), index(ongoing[i], shape[4])]
        safe = max(c, 0)
        carries_subject = subjects[safe, index(subject[i], subjects.shape[1])]
        carries_updates = updates[safe, index(number_of_updates[i], updates.shape[1])]  # checked either way
        carried = carries_subject and carries_updates
        channel[i] = c if c >= 0 and carried else -1
    return channel
