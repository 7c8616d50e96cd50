"""Kernel of ``device.battery``: the charge events, walked from one to the next."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
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


@Kernel
def spending(state: np.ndarray, music: np.ndarray, drain_by_state: np.ndarray, music_drain: float,
             drain_per_slot: float, charger_by_state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``spent[t]``, the battery drained before slot t (``len(state) + 1`` values), each slot
    draining ``drain_per_slot`` x (its state's drain + ``music_drain`` while music plays); and
    ``next_charger[t]``, the first slot at or after t whose state has a charger at hand
    (``len(state)`` when none)."""
    n = len(state)
    spent = np.empty(n + 1)
    spent[0] = 0.0
    for t in range(n):
        drain = drain_per_slot * (drain_by_state[state[t]] + music_drain * music[t])
        spent[t + 1] = drain if t == 0 else spent[t] + drain
    next_charger = np.empty(n, dtype=np.int64)
    following = n
    for t in range(n - 1, -1, -1):
        if charger_by_state[state[t]]:
            following = t
        next_charger[t] = following
    return spent, next_charger


@Kernel
def slot_levels(spent: np.ndarray, starts: np.ndarray, levels: np.ndarray, plugged: np.ndarray,
                per_slot_charge: float) -> tuple[np.ndarray, np.ndarray]:
    """The battery's percent at each slot's start and whether it is plugged in, from its runs in
    order (``charge_runs``): rising by ``per_slot_charge`` a slot while plugged, capped at 100, else
    falling by what is spent, floored at 1."""
    n = len(spent) - 1
    percent = np.empty(n)
    charging = np.empty(n, dtype=np.bool_)
    for run in range(len(starts)):
        first = starts[run]
        end = starts[run + 1] if run + 1 < len(starts) else n
        for t in range(first, end):
            charging[t] = plugged[run]
            if plugged[run]:
                percent[t] = min(100.0, levels[run] + per_slot_charge * (t - first))
            else:
                percent[t] = max(1.0, levels[run] - (spent[t] - spent[first]))
    return percent, charging


@Kernel
def slot_ringer(state: np.ndarray, segment: np.ndarray, segment_mode: np.ndarray, quiet_night: np.ndarray,
                night_mode: np.ndarray, do_not_disturb: np.ndarray, slots_per_day: int, slot_hours: float,
                quiet_until_hour: float, sleep: int, home: int, silent: int) -> np.ndarray:
    """The ringer mode of each slot: its segment's mode, but the night's mode (nights run from
    noon to noon) while asleep or, at home, before ``quiet_until_hour`` on a quieted night, and
    ``silent`` all through a do-not-disturb day."""
    mode = np.empty(len(state), dtype=np.int16)
    for t in range(len(state)):
        day, hour = t // slots_per_day, (t % slots_per_day) * slot_hours
        night = day + 1 if hour >= 12.0 else day
        quieted = quiet_night[night] and (state[t] == sleep or (hour < quiet_until_hour and state[t] == home))
        if do_not_disturb[day]:
            mode[t] = silent
        elif quieted:
            mode[t] = night_mode[night]
        else:
            mode[t] = segment_mode[segment[t]]
    return mode
