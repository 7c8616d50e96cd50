"""Dynamic routine nodes: each day's plan, then each slot's routine state, place and activity.

Day level (one draw per day, parents: habits and weekday): wake-up and bedtime, whether it
is a workday, the commute, an errand, an outing, a workout, a trip. Slot level: the routine
state is the highest-priority plan item covering the slot; place and activity are drawn
from the state.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from pushgen import schemas
from pushgen.model.habits import Chronotype, Commute, Lifestyle, Places, Schedule
from pushgen.model.routine_kernel import slot_places, slot_states
from pushgen.model.sampling import categorical, categorical_rows
from pushgen.model.timegrid import SLOT_HOURS, TimeGrid


class State(IntEnum):
    # arrays are compared with int(State.X): NumPy compares with a plain int about 3x faster
    SLEEP = 0
    HOME = 1
    COMMUTE = 2
    WORK = 3
    ERRAND = 4
    LEISURE = 5
    EXERCISE = 6
    TRAVEL = 7


N_STATES = len(State)


@dataclass(frozen=True)
class DayPlan:
    """Per-day plan nodes (arrays of length ``days``), hours after that day's midnight."""

    wake: np.ndarray
    bedtime: np.ndarray  # may exceed 24: asleep after midnight
    workday: np.ndarray
    leave: np.ndarray
    work_end: np.ndarray
    home_again: np.ndarray
    errand_start: np.ndarray  # NaN: no errand that day
    errand_place: np.ndarray
    outing_start: np.ndarray  # NaN: no outing
    outing_end: np.ndarray
    outing_place: np.ndarray
    exercise_start: np.ndarray  # NaN: no workout
    trip_start: np.ndarray  # NaN: no airport that day


# The day's uniform draws, one a day each, in the order drawn: (low, high); (0, 1) decides an event.
DAY_UNIFORMS = {
    "commute_back": (0.9, 1.3),  # the commute home's length, x the commute's
    "lunch_errand": (0.0, 0.6),  # hours after 12:18 of a workday's errand
    "day_errand": (10.0, 17.0),  # the hour of a day off's errand
    "errand": (0.0, 1.0),
    "weekend_outing": (0.0, 1.0),
    "evening_outing": (19.0, 21.0),  # the hour an evening outing starts
    "outing": (0.0, 1.0),
    "afternoon_outing": (12.5, 15.0),  # the hour a day off's outing starts
    "outing_hours": (1.5, 3.5),
    "exercise": (0.0, 1.0),
    "trip_hour": (7.0, 16.0),  # the hour at the airport
    "trip": (0.0, 1.0),
}
_LOW = np.array([low for low, _ in DAY_UNIFORMS.values()])[:, None]
_SPAN = np.array([high - low for low, high in DAY_UNIFORMS.values()])[:, None]


def day_uniforms(days: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each of ``DAY_UNIFORMS`` for each day, from one block of uniforms, a row per draw:
    ``rng.uniform(low, high, days)`` row by row (which is low + (high - low) x ``rng.random``)."""
    return dict(zip(DAY_UNIFORMS, _LOW + _SPAN * rng.random((len(DAY_UNIFORMS), days)), strict=True))


def day_plan(grid: TimeGrid, chrono: Chronotype, sched: Schedule, places: Places, life: Lifestyle,
             away: np.ndarray, rng: np.random.Generator) -> DayPlan:
    """Parents: chronotype, schedule, places, lifestyle, weekday, the daily regime (days away).
    Jitters ~ Normal; events ~ Bernoulli."""
    days = grid.days
    weekday = grid.weekday_of_day
    on_vacation = np.asarray(away, dtype=bool)
    workday = sched.workdays[weekday] & ~on_vacation
    day_off = ~workday
    wake = chrono.wake_hour + day_off * chrono.weekend_delay + rng.normal(0, 0.3, days)
    late_night = (weekday == 4) | (weekday == 5)  # Friday and Saturday nights
    bedtime = wake + 24 - chrono.sleep_hours + rng.normal(0, 0.4, days) + late_night * 0.8
    shift = rng.normal(0, 0.2, days)
    arrive = np.maximum(sched.work_start + shift, wake + sched.commute_hours + 0.3)
    leave = arrive - sched.commute_hours
    work_end = arrive + sched.work_hours + rng.normal(0, 0.3, days)
    u = day_uniforms(days, rng)
    home_again = work_end + sched.commute_hours * u["commute_back"]

    def maybe(p: np.ndarray | float, start: np.ndarray, draw: np.ndarray) -> np.ndarray:
        return np.where(draw < p, start, np.nan)

    errand_start = maybe(
        np.where(workday, 0.25, 0.5),
        np.where(workday, 12.3 + u["lunch_errand"], u["day_errand"]),
        u["errand"],
    )
    outing_rate = life.outings_per_week / 7 * np.where(late_night, 2.2, 0.7)
    weekend_outing = day_off & (u["weekend_outing"] < min(0.2 * life.outings_per_week, 0.6))
    outing_start = maybe(np.minimum(outing_rate, 0.9), u["evening_outing"], u["outing"])
    outing_start = np.where(weekend_outing, u["afternoon_outing"], outing_start)
    outing_end = np.minimum(outing_start + u["outing_hours"], bedtime - 0.25)
    exercise_hour = np.where(
        life.exercise_morning, wake + 0.3, np.where(workday, home_again + 0.7, wake + 3.0)
    )
    exercise_start = maybe(life.exercise_per_week / 7, exercise_hour, u["exercise"])
    before = np.concatenate(([False], on_vacation[:-1]))
    after = np.concatenate((on_vacation[1:], [False]))
    vacation_edge = on_vacation & (~before | ~after)
    trip_start = maybe(vacation_edge * 0.5, u["trip_hour"], u["trip"])
    return DayPlan(
        wake=wake,
        bedtime=bedtime,
        workday=workday,
        leave=leave,
        work_end=work_end,
        home_again=home_again,
        errand_start=errand_start,
        errand_place=categorical(places.errand, days, rng),
        outing_start=outing_start,
        outing_end=outing_end,
        outing_place=categorical(places.leisure, days, rng),
        exercise_start=exercise_start,
        trip_start=trip_start,
    )


def routine_state(grid: TimeGrid, plan: DayPlan, sched: Schedule) -> np.ndarray:
    """Parents: the day plan and the schedule's commute length. Deterministic: the
    highest-priority plan item covering each slot.

    Each slot is read against its day's plan in ``routine_kernel.slot_states``.
    """
    return slot_states(grid.slots // grid.days, SLOT_HOURS, float(sched.commute_hours), plan.wake,
                       plan.bedtime, plan.workday, plan.leave, plan.work_end, plan.home_again,
                       plan.errand_start, plan.outing_start, plan.outing_end, plan.exercise_start,
                       plan.trip_start)


def place(grid: TimeGrid, state: np.ndarray, plan: DayPlan, places: Places) -> np.ndarray:
    """Parents: routine state, the day's errand and outing places. Deterministic given those.

    Each slot is read in ``routine_kernel.slot_places``.
    """
    return slot_places(state, grid.slots // grid.days, SLOT_HOURS, plan.outing_end, plan.errand_place,
                       plan.outing_place, int(places.home), int(places.work),
                       schemas.field("place").code("TYPE_AIRPORT"))


# P(activity | routine state), columns in schema order of `activity`.
ACTIVITY_GIVEN_STATE = {
    State.SLEEP: {"still": 0.93, "unknown": 0.05, "tilting": 0.02},
    State.HOME: {"still": 0.7, "tilting": 0.12, "unknown": 0.08, "foot walking": 0.1},
    State.WORK: {"still": 0.75, "foot walking": 0.1, "tilting": 0.08, "unknown": 0.07},
    State.ERRAND: {"foot walking": 0.55, "still": 0.35, "vehicle": 0.05, "unknown": 0.05},
    State.LEISURE: {"still": 0.55, "foot walking": 0.35, "tilting": 0.05, "unknown": 0.05},
    State.TRAVEL: {"still": 0.5, "foot walking": 0.4, "vehicle": 0.1},
}
ACTIVITY_ON_COMMUTE = {
    Commute.CAR: {"vehicle": 0.85, "still": 0.1, "unknown": 0.05},
    Commute.TRANSIT: {"vehicle": 0.6, "foot walking": 0.25, "still": 0.15},
    Commute.BICYCLE: {"bicycle": 0.8, "foot walking": 0.1, "still": 0.1},
    Commute.WALK: {"foot walking": 0.85, "still": 0.1, "unknown": 0.05},
}
ACTIVITY_ON_WORKOUT = {
    True: {"foot running": 0.8, "foot walking": 0.15, "still": 0.05},
    False: {"bicycle": 0.85, "still": 0.1, "foot walking": 0.05},
}


def cdf_given_state(name: str, rows: dict[State, dict]) -> np.ndarray:
    """(N_STATES, n_values) cumulative P(feature value | routine state) from sparse rows."""
    field = schemas.field(name)
    table = np.zeros((N_STATES, len(field.listed())))
    for state, probabilities in rows.items():
        for value, p in probabilities.items():
            table[state, field.code(value)] = p
    return np.cumsum(table, axis=1)


def activity_table(sched: Schedule, life: Lifestyle) -> np.ndarray:
    """(N_STATES, n_activity) cumulative P(activity | state) for this user's commute and workout."""
    return _activity_cdf(sched.commute, life.exercise_running)


@functools.cache
def _activity_cdf(commute: Commute, running: bool) -> np.ndarray:
    rows = dict(ACTIVITY_GIVEN_STATE)
    rows[State.COMMUTE] = ACTIVITY_ON_COMMUTE[commute]
    rows[State.EXERCISE] = ACTIVITY_ON_WORKOUT[running]
    cdf = cdf_given_state("activity", rows)
    cdf.flags.writeable = False
    return cdf


def activity(state: np.ndarray, table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state (and the user's commute and workout). activity ~ Categorical."""
    return categorical_rows(table, state, rng)
