"""Kernels of ``timings.timings``: each row's branch chosen once, so that each LogNormal takes one
exponential (computed by NumPy) per row rather than one per branch."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
def branch_exponents(asleep: np.ndarray, opened: np.ndarray, later: np.ndarray, z_seen: np.ndarray,
                     z_decision: np.ndarray, swipe_share: float, delayed_share: float, delayed_seconds: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: sd x z of seenTime's LogNormal (asleep 0.8, awake 1.1), and sd x z and median of
    decisionTime's (opened at once 4 s, sd 0.8, or delayed; dismissed: swiped 3 s, sd 0.7, or left
    40 min, sd 1.0), with ``later`` deciding a delayed open (below ``delayed_share``) or a swipe
    (below ``swipe_share``)."""
    n = len(asleep)
    seen_exponent, decision_exponent, decision_median = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        seen_exponent[i] = (0.8 if asleep[i] else 1.1) * z_seen[i]
        if opened[i]:
            delayed = later[i] < delayed_share
            sd, decision_median[i] = (1.3, delayed_seconds) if delayed else (0.8, 4.0)
        else:
            swiped = later[i] < swipe_share
            sd, decision_median[i] = (0.7, 3.0) if swiped else (1.0, 2400.0)
        decision_exponent[i] = sd * z_decision[i]
    return seen_exponent, decision_exponent, decision_median


@Kernel
def seen_seconds(asleep: np.ndarray, seconds_to_wake: np.ndarray, seen_median: float,
                 ringer_factor: np.ndarray, ringer: np.ndarray, priority_factor: np.ndarray,
                 priority: np.ndarray, state_factor: np.ndarray, state: np.ndarray, evening: np.ndarray,
                 spread: np.ndarray) -> np.ndarray:
    """seenTime from each row's exp(sd x z) ``spread``: asleep, the time until wake-up + 40 s x
    spread; awake, the user's median x ringer, priority, routine and evening factors x spread."""
    seen = np.empty(len(asleep))
    for i in range(len(asleep)):
        if asleep[i]:
            seen[i] = seconds_to_wake[i] + 40.0 * spread[i]
        else:
            median = seen_median * ringer_factor[ringer[i]] * priority_factor[priority[i]]
            seen[i] = median * state_factor[state[i]] * evening[i] * spread[i]
    return seen


@Kernel
def seconds_to_wake(slot: np.ndarray, hour: np.ndarray, seconds: np.ndarray, wake: np.ndarray,
                    slots_per_day: int) -> np.ndarray:
    """Seconds from each post until the next wake-up (``wake``: each day's hour; the last day's
    again after it), 0 for none."""
    days = len(wake)
    out = np.empty(len(slot))
    for i in range(len(slot)):
        day = slot[i] // slots_per_day
        after_wake = day + 1 if hour[i] >= wake[day] else day
        wake_seconds = (after_wake * 24.0 + wake[min(after_wake, days - 1)]) * 3600.0
        out[i] = max(wake_seconds - seconds[i], 0.0)
    return out


@Kernel
def evening_exponents(hour: np.ndarray, peak_hour: float, width_hours: float) -> np.ndarray:
    """-((distance / width_hours)^2) / 2 of each hour's circular distance to ``peak_hour``
    (the shorter way round the clock)."""
    out = np.empty(len(hour))
    for i in range(len(hour)):
        distance = abs(hour[i] - peak_hour)
        distance = min(distance, 24.0 - distance)
        z = distance / width_hours
        out[i] = -0.5 * (z * z)
    return out
