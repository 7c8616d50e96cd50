"""Kernel of ``nodes.features``: each post's context read at its slot, as schema codes."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

# rows of ``context_codes``' result
CONTEXT_ROWS = ("place", "activity", "noise", "proximity", "ringerMode", "batteryLevel", "charging",
                "headphonesIn", "musicActive", "day", "time")


@Kernel
def context_codes(slot: np.ndarray, slots_per_day: int, place: np.ndarray, activity: np.ndarray,
                  noise: np.ndarray, proximity: np.ndarray, ringer: np.ndarray, percent: np.ndarray,
                  level_bounds: np.ndarray, level_codes: np.ndarray, charging: np.ndarray,
                  headphones: np.ndarray, music: np.ndarray, flag_codes: np.ndarray,
                  weekday_of_day: np.ndarray, hour: np.ndarray, time_block: np.ndarray) -> np.ndarray:
    """(len(CONTEXT_ROWS), posts) codes: the per-slot codes at each post's slot; the battery level
    of the slot's ``percent``, ``level_codes`` = (low, medium, high) with low below
    ``level_bounds[0]`` and high from ``level_bounds[1]``; the charging, headphones and music flags
    as ``flag_codes[feature, flag]``; the weekday of the slot's day; and the time block of the
    post's clock hour."""
    codes = np.empty((len(CONTEXT_ROWS), len(slot)), dtype=np.int16)
    low_below, high_from = level_bounds[0], level_bounds[1]
    for i in range(len(slot)):
        t = slot[i]
        codes[0, i], codes[1, i], codes[2, i] = place[t], activity[t], noise[t]
        codes[3, i], codes[4, i] = proximity[t], ringer[t]
        level = 0 if percent[t] < low_below else (2 if percent[t] >= high_from else 1)
        codes[5, i] = level_codes[level]
        codes[6, i] = flag_codes[0, 1 if charging[t] else 0]
        codes[7, i] = flag_codes[1, 1 if headphones[t] else 0]
        codes[8, i] = flag_codes[2, 1 if music[t] else 0]
        codes[9, i] = weekday_of_day[t // slots_per_day]
        codes[10, i] = time_block[int(hour[i])]
    return codes
