"""Dynamic notification arrivals: an inhomogeneous Poisson process per app over the slots.

Routine intensity of app a in slot t (expected count):

    rate[a] * days * shape[a, t] / sum_t shape[a, t]
    shape[a, t] = rhythm[a](hour) * (asleep[a] if sleeping) * (weekend[a] * user factor if day off)
    rhythm[a](h) = 0.25 + sum_k height[a, k] * exp(-0.5 * (circular distance(h, peak[a, k]) / 1.5)^2)

plus a triggered intensity ``trigger_rate[a] * slot hours`` while the app's trigger lasts
(music playing, commuting or travelling, a workout). Messaging apps post conversations: each
arrival opens a thread of 1 + Geometric follow-ups (mean = the user's chattiness) spaced by
Exponential gaps. The clock posts an alarm at wake-up on days the user sets one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen.model.catalog import TRIGGERS, AppCatalog, kind_code
from pushgen.model.portfolio import Portfolio
from pushgen.model.routine import DayPlan, State
from pushgen.model.timegrid import SLOT_HOURS, SLOT_SECONDS, TimeGrid

RHYTHM_FLOOR = 0.25
RHYTHM_WIDTH_HOURS = 1.5
FOLLOW_UP_GAP_SECONDS = 75.0


@dataclass(frozen=True)
class Arrivals:
    seconds: np.ndarray  # float64, since the grid's first midnight, sorted
    app: np.ndarray  # int16 app code
    thread_position: np.ndarray  # int16, 0 for the first message of a conversation
    thread: np.ndarray  # int64, the row's conversation (its first row's index); -1 for none
    alarm: np.ndarray  # bool


def intensity(
    grid: TimeGrid,
    state: np.ndarray,
    music: np.ndarray,
    plan: DayPlan,
    folio: Portfolio,
    catalog: AppCatalog,
) -> np.ndarray:
    """(n_apps, slots) expected routine plus triggered notifications per slot."""
    apps = folio.apps
    hours = np.arange(0, 24, SLOT_HOURS)
    distance = np.abs(hours[None, None, :] - folio.peaks[:, :, None])
    distance = np.minimum(distance, 24 - distance)
    bumps = folio.peak_heights[:, :, None] * np.exp(-0.5 * (distance / RHYTHM_WIDTH_HOURS) ** 2)
    rhythm = RHYTHM_FLOOR + np.nansum(bumps, axis=1)  # (n_apps, slots per day)
    n_days = grid.days
    day_off = ~plan.workday
    day_factor = np.where(day_off[None, :], catalog.weekend[apps, None] * folio.weekend_factor,
                          1.0)  # (n_apps, days)
    shape = (rhythm[:, None, :] * day_factor[:, :, None]).reshape(len(apps), grid.slots)
    asleep = state == State.SLEEP
    shape = np.where(asleep[None, :], shape * catalog.asleep[apps, None], shape)
    routine = folio.daily_rate[:, None] * n_days * shape / shape.sum(axis=1, keepdims=True)
    active = {
        TRIGGERS.index("music"): music,
        TRIGGERS.index("commute"): (state == State.COMMUTE) | (state == State.TRAVEL),
        TRIGGERS.index("exercise"): state == State.EXERCISE,
    }
    for trigger, on in active.items():
        rows = np.flatnonzero(catalog.trigger[apps] == trigger)
        if len(rows):
            share = 1.0 / len(rows)  # the user's apps of one trigger split its time
            routine[rows] += (folio.trigger_rate[rows, None] * share * SLOT_HOURS) * on[None, :]
    return routine


def arrivals(
    grid: TimeGrid,
    expected: np.ndarray,
    plan: DayPlan,
    folio: Portfolio,
    catalog: AppCatalog,
    rng: np.random.Generator,
) -> Arrivals:
    """Parents: the intensity (routine state, music, day plan, portfolio). Poisson process."""
    flat = np.cumsum(expected.ravel())
    total = flat[-1]
    count = rng.poisson(total)
    cell = np.minimum(np.searchsorted(flat, rng.random(count) * total, side="right"),
                      len(flat) - 1)
    row, slot = np.divmod(cell, grid.slots)
    seconds = (slot + rng.random(count)) * SLOT_SECONDS
    app = folio.apps[row].astype(np.int16)

    # conversations: messaging arrivals start threads, the first counts as position 0
    messaging = catalog.kind_of_app[app] == kind_code("messaging")
    starts = np.flatnonzero(messaging)
    follow_ups = rng.geometric(1.0 / (1.0 + folio.chattiness), len(starts)) - 1
    parent = np.repeat(starts, follow_ups)
    gaps = rng.exponential(FOLLOW_UP_GAP_SECONDS, len(parent))
    with_follow_ups = follow_ups > 0
    counts = follow_ups[with_follow_ups]
    first = np.r_[0, np.cumsum(counts)[:-1]]
    position = np.arange(len(parent)) - np.repeat(first, counts) + 1
    offset = np.cumsum(gaps)
    offset -= np.repeat(offset[first] - gaps[first], counts) if len(parent) else 0.0

    # alarms at wake-up
    p_alarm = np.where(plan.workday, folio.alarm_workday, folio.alarm_day_off)
    alarm_days = np.flatnonzero(rng.random(grid.days) < p_alarm)
    alarm_seconds = (alarm_days * 24 + plan.wake[alarm_days]) * 3600.0 - rng.uniform(
        0, 60, len(alarm_days))

    all_seconds = np.concatenate([seconds, seconds[parent] + offset, alarm_seconds])
    all_app = np.concatenate([app, app[parent], np.full(len(alarm_days), folio.clock_app)])
    all_position = np.concatenate([np.zeros(count, dtype=np.int64), position,
                                   np.zeros(len(alarm_days), dtype=np.int64)])
    thread = np.concatenate([np.where(messaging, np.arange(count), -1), parent,
                             np.full(len(alarm_days), -1)])
    is_alarm = np.r_[np.zeros(len(seconds) + len(parent), dtype=bool),
                     np.ones(len(alarm_days), dtype=bool)]
    keep = (all_seconds >= 0) & (all_seconds < grid.slots * SLOT_SECONDS)
    order = np.argsort(all_seconds[keep], kind="stable")
    kept = np.flatnonzero(keep)[order]
    new_index = np.full(len(all_seconds), -1)
    new_index[kept] = np.arange(len(kept))
    thread = thread[kept]
    thread = np.where(thread >= 0, new_index[np.maximum(thread, 0)], -1)
    return Arrivals(
        seconds=all_seconds[kept],
        app=all_app[kept],
        thread_position=all_position[kept].astype(np.int16),
        thread=thread,
        alarm=is_alarm[kept],
    )
