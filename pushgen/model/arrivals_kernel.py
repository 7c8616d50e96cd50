"""Kernel of ``arrivals.arrivals``: the posts that fall on a phone-on day of the grid, in time order."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

DAY_SECONDS = 86400.0
HOUR_SECONDS = 3600.0


@Kernel
def thinned_slots(day: np.ndarray, slot_of_day: np.ndarray, row: np.ndarray, sleeping: np.ndarray,
                  asleep_factor: np.ndarray, keep_draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slot and row of the proposals kept: every one in a slot where ``sleeping[day]`` is 0, one
    in a sleeping slot when its draw is below its row's ``asleep_factor``."""
    n, slots_per_day = len(day), sleeping.shape[1]
    slot, kept_row = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if sleeping[day[i], slot_of_day[i]] > 0 and not keep_draws[i] < asleep_factor[row[i]]:
            continue
        slot[m], kept_row[m] = day[i] * slots_per_day + slot_of_day[i], row[i]
        m += 1
    return slot[:m].copy(), kept_row[:m].copy()


@Kernel
def all_posts(seconds: np.ndarray, app: np.ndarray, messaging: np.ndarray, follow_ups: np.ndarray,
              gaps: np.ndarray, alarm_seconds: np.ndarray, clock_app: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seconds, app, thread position, thread (index of its first message, -1 for none) and
    alarm flag of the first messages, their follow-ups and the alarms, in that order.

    The messaging posts start conversations in turn, ``follow_ups`` giving each one's count;
    follow-up k comes ``gaps`` later than the one before (the first after the first message),
    its offset taken from one running sum of all gaps, less that sum before its conversation.
    """
    count, n_follow_ups, n_alarms = len(seconds), len(gaps), len(alarm_seconds)
    n = count + n_follow_ups + n_alarms
    all_seconds, all_app = np.empty(n), np.empty(n, dtype=np.int64)
    position, thread = np.zeros(n, dtype=np.int16), np.full(n, -1, dtype=np.int64)
    alarm = np.zeros(n, dtype=np.bool_)
    all_seconds[:count] = seconds
    all_app[:count] = app
    k, conversation, running = count, 0, 0.0
    for i in range(count):
        if not messaging[i]:
            continue
        thread[i] = i
        before = 0.0
        for p in range(follow_ups[conversation]):
            f = k - count
            running = gaps[f] if f == 0 else running + gaps[f]
            if p == 0:
                before = running - gaps[f]
            all_seconds[k] = seconds[i] + (running - before)
            all_app[k], position[k], thread[k] = app[i], p + 1, i
            k += 1
        conversation += 1
    all_seconds[k:] = alarm_seconds
    all_app[k:] = clock_app
    alarm[k:] = True
    return all_seconds, all_app, position, thread, alarm


@Kernel
def time_order(seconds: np.ndarray, thread: np.ndarray, volume: np.ndarray, slot_seconds: float,
               slots_per_day: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The posts kept (within the ``len(volume)`` days, on a day of volume above 0) as
    ``np.argsort(seconds[kept], kind="stable")`` orders them: their indices, slots, hours of
    the day, and the new index of each one's conversation (``thread``: an index into
    ``seconds``, -1 for none, and -1 when that post is not kept).

    The posts are counted into their slots (a stable bucket sort: a slot holds earlier times
    than the next) and sorted by time within each slot, ties in their first order.
    """
    n, n_slots = len(seconds), len(volume) * slots_per_day
    end = n_slots * slot_seconds
    slot_of = np.full(n, -1, dtype=np.int64)
    start = np.zeros(n_slots + 1, dtype=np.int64)
    for i in range(n):
        s = seconds[i]
        if s >= 0 and s < end:
            whole = np.floor(s / slot_seconds)  # s // slot_seconds, exactly as Python gives it
            if whole * slot_seconds > s:
                whole -= 1.0
            elif (whole + 1.0) * slot_seconds <= s:
                whole += 1.0
            if volume[int(whole) // slots_per_day] > 0:
                slot_of[i] = int(whole)
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
        midnight = (slot[p] // slots_per_day) * DAY_SECONDS
        hour[p] = (seconds[kept[p]] - midnight) / HOUR_SECONDS  # the subtraction is s % DAY_SECONDS, exact
    kept_thread = np.empty(m, dtype=np.int64)
    for p in range(m):
        parent = thread[kept[p]]
        kept_thread[p] = new_index[parent] if parent >= 0 else -1
    return kept, slot, hour, kept_thread


@Kernel
def rhythm_exponents(hours: np.ndarray, peaks: np.ndarray, width_hours: float) -> np.ndarray:
    """(apps, peaks, hours): -((distance / width_hours)^2) / 2 of each hour's circular distance to
    each of each app's peaks (NaN for a missing peak)."""
    n_apps, n_peaks = peaks.shape
    out = np.empty((n_apps, n_peaks, len(hours)))
    for a in range(n_apps):
        for p in range(n_peaks):
            for k in range(len(hours)):
                distance = abs(hours[k] - peaks[a, p])
                distance = min(distance, 24 - distance)
                z = distance / width_hours
                out[a, p, k] = -0.5 * (z * z)
    return out


@Kernel
def rhythm_sums(floor: float, heights: np.ndarray, bells: np.ndarray) -> np.ndarray:
    """(apps, hours): floor + the sum over each app's peaks, in order, of height x bell, a missing
    (NaN) term left out."""
    n_apps, n_peaks, n_hours = bells.shape
    out = np.empty((n_apps, n_hours))
    for a in range(n_apps):
        for k in range(n_hours):
            total = 0.0
            for p in range(n_peaks):
                bump = heights[a, p] * bells[a, p, k]
                if not np.isnan(bump):
                    total = bump if p == 0 else total + bump
            out[a, k] = floor + total
    return out
