"""Kernels of ``routine.routine_state`` and ``routine.place``: each slot read against its day's plan."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

# routine.State codes, in the order a slot's plan items take precedence
SLEEP, HOME, COMMUTE, WORK, ERRAND, LEISURE, EXERCISE, TRAVEL = range(8)
ERRAND_HOURS, WORKOUT_HOURS, TRIP_HOURS = 0.5, 0.75, 3.0


@Kernel
def slot_states(slots_per_day: int, slot_hours: float, commute_hours: float, wake: np.ndarray,
                bedtime: np.ndarray, workday: np.ndarray, leave: np.ndarray, work_end: np.ndarray,
                home_again: np.ndarray, errand_start: np.ndarray, outing_start: np.ndarray,
                outing_end: np.ndarray, exercise_start: np.ndarray, trip_start: np.ndarray) -> np.ndarray:
    """The routine state of each slot of the days of the plan: asleep, then travelling,
    commuting, working (not on an errand), exercising, out, on an errand, else at home.

    Asleep after the day's bedtime or before its wake-up and after the previous bedtime (for
    the first day, that bedtime a day earlier); out until the previous evening's outing ends.
    """
    days = len(wake)
    state = np.empty(days * slots_per_day, dtype=np.int8)
    for d in range(days):
        previous_bedtime = (bedtime[d - 1] if d else bedtime[0] - 24) - 24
        previous_outing_end = outing_end[d - 1] - 24 if d else np.nan
        arrive = leave[d] + commute_hours
        for k in range(slots_per_day):
            h = k * slot_hours
            errand = h >= errand_start[d] and h < errand_start[d] + ERRAND_HOURS
            if h >= bedtime[d] or (h < wake[d] and h >= previous_bedtime):
                s = SLEEP
            elif h >= trip_start[d] and h < trip_start[d] + TRIP_HOURS:
                s = TRAVEL
            elif workday[d] and ((h >= leave[d] and h < arrive) or (h >= work_end[d] and h < home_again[d])):
                s = COMMUTE
            elif workday[d] and h >= arrive and h < work_end[d] and not errand:
                s = WORK
            elif h >= exercise_start[d] and h < exercise_start[d] + WORKOUT_HOURS:
                s = EXERCISE
            elif (h >= outing_start[d] and h < outing_end[d]) or h < previous_outing_end:
                s = LEISURE
            elif errand:
                s = ERRAND
            else:
                s = HOME
            state[d * slots_per_day + k] = s
    return state


@Kernel
def slot_places(state: np.ndarray, slots_per_day: int, slot_hours: float, outing_end: np.ndarray,
                errand_place: np.ndarray, outing_place: np.ndarray, home: int, work: int,
                airport: int) -> np.ndarray:
    """The place code of each slot: work, the day's errand place, the outing's place (the
    previous day's until that evening's outing ends after midnight), the airport, else home."""
    codes = np.empty(len(state), dtype=np.int16)
    for t in range(len(state)):
        d, k = t // slots_per_day, t % slots_per_day
        s = state[t]
        if s == WORK:
            codes[t] = work
        elif s == ERRAND:
            codes[t] = errand_place[d]
        elif s == LEISURE:
            after_midnight = d > 0 and k * slot_hours < outing_end[d - 1] - 24
            codes[t] = outing_place[d - 1 if after_midnight else d]
        elif s == TRAVEL:
            codes[t] = airport
        else:
            codes[t] = home
    return codes
