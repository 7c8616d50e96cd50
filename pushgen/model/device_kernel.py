"""Kernel of ``device.battery``: the charge events, walked from one to the next."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def charge_runs(spent: np.ndarray, next_charger: np.ndarray, night_start: np.ndarray, night_end: np.ndarray,
                topup_slots: np.ndarray, start_level: float, topup_threshold: float,
                per_slot_charge: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The battery's runs (unplugged or plugged) over ``len(spent) - 1`` slots: each run's first
    slot, level at that slot and whether it is plugged.

    ``spent[t]``: drained before slot t; ``next_charger[t]``: the first slot at or after t where
    a charger is at hand; the nights plugged in, in order; the top-up lengths, used in turn.
    Unplugged, the level falls by what is spent until a night starts or, after it falls
    below ``topup_threshold``, a charger is at hand (a top-up); plugged, it rises by
    ``per_slot_charge`` a slot, capped at 100, floored at 1 when unplugged.
    """
    n = len(spent) - 1
    capacity = 2 * n + 2
    starts = np.empty(capacity, dtype=np.int64)
    levels = np.empty(capacity)
    plugged = np.empty(capacity, dtype=np.bool_)
    runs, t, level, topups = 0, 0, start_level, 0
    nights, night = len(night_start), 0
    n_start, n_end = (night_start[0], night_end[0]) if nights else (n, n)
    while t < n:
        while n_end <= t:
            night += 1
            n_start, n_end = (night_start[night], night_end[night]) if night < nights else (n, n)
        starts[runs], levels[runs] = t, level
        if n_start <= t:
            plugged[runs] = True
            runs += 1
            level = min(100.0, level + per_slot_charge * (n_end - t))
            t = n_end
            continue
        plugged[runs] = False
        runs += 1
        low, high, empty_at = 0, n + 1, spent[t] + level - topup_threshold
        while low < high:  # the first slot whose spending reaches empty_at
            mid = (low + high) >> 1
            if spent[mid] <= empty_at:
                low = mid + 1
            else:
                high = mid
        topup = next_charger[min(low, n - 1)] if low < n else n
        stop = min(topup, n_start, n)
        level = max(1.0, level - (spent[stop] - spent[t]))
        t = stop
        if t == topup and t < n_start and t < n:
            length = topup_slots[topups % len(topup_slots)]
            topups += 1
            starts[runs], levels[runs], plugged[runs] = t, level, True
            runs += 1
            end = min(t + length, n_start, n)
            level = min(100.0, level + per_slot_charge * (end - t))
            t = end
    return starts[:runs], levels[:runs], plugged[:runs]
