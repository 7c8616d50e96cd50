"""Kernel of ``arrivals.arrivals``: the posts that fall on a phone-on day of the grid, in time order."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel

DAY_SECONDS = 86400.0
HOUR_SECONDS = 3600.0


@kernel
def time_order(seconds: np.ndarray, thread: np.ndarray, volume: np.ndarray, slot_seconds: float,
               slots_per_day: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The posts kept (within the ``len(volume)`` days, on a day of volume above 0) as
    ``np.argsort(seconds[kept], kind="stable")`` orders them: their indices, slots, hours of
    the day, and the new index of each one's conversation (``thread``: an index into
    ``seconds``, -1 for none, and -1 when that post is not kept).

    The posts are counted into their slots (a stable bucket sort: a slot holds earlier times
    than the next) and sorted by time within each slot, ties in their first order.
    """

    def whole(x: float, d: float) -> float:  # x // d exactly as Python gives it, for x >= 0
        q = np.floor(x / d)
        if q * d > x:
            return q - 1.0
        return q + 1.0 if (q + 1.0) * d <= x else q

    n, n_slots = len(seconds), len(volume) * slots_per_day
    end = n_slots * slot_seconds
    slot_of = np.full(n, -1, dtype=np.int64)
    start = np.zeros(n_slots + 1, dtype=np.int64)
    for i in range(n):
        s = seconds[i]
        if s >= 0 and s < end and volume[int(whole(s, DAY_SECONDS))] > 0:
            slot_of[i] = int(whole(s, slot_seconds))
            start[slot_of[i] + 1] += 1
    for k in range(n_slots):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    kept = np.empty(start[n_slots], dtype=np.int64)
    for i in range(n):
        if slot_of[i] >= 0:
            kept[fill[slot_of[i]]] = i
            fill[slot_of[i]] += 1
    for k in range(n_slots):
        for p in range(start[k] + 1, start[k + 1]):
            index, value, q = kept[p], seconds[kept[p]], p
            while q > start[k] and seconds[kept[q - 1]] > value:
                kept[q] = kept[q - 1]
                q -= 1
            kept[q] = index
    m = len(kept)
    new_index = np.full(n, -1, dtype=np.int64)
    slot = np.empty(m, dtype=np.int64)
    hour = np.empty(m)
    for p in range(m):
        new_index[kept[p]] = p
        slot[p] = slot_of[kept[p]]
        s = seconds[kept[p]]
        hour[p] = (s - whole(s, DAY_SECONDS) * DAY_SECONDS) / HOUR_SECONDS  # exact: s % DAY_SECONDS
    kept_thread = np.empty(m, dtype=np.int64)
    for p in range(m):
        parent = thread[kept[p]]
        kept_thread[p] = new_index[parent] if parent >= 0 else -1
    return kept, slot, hour, kept_thread
