"""Dynamic notification arrivals: an inhomogeneous Poisson process per app over the slots.

Routine intensity of app a in slot t of day d (expected count):

    rate[a] * days * volume[d] * shape[a, t] / sum_t shape[a, t]
    shape[a, t] = rhythm[a](hour) * (asleep[a] if sleeping) * (weekend[a] * user factor if day off)

where ``volume`` is the daily regime's (``pushgen.model.regime``: 0 on a phone-off day, when
nothing arrives at all)
    rhythm[a](h) = 0.25 + sum_k height[a, k] * exp(-0.5 * (circular distance(h, peak[a, k]) / 1.5)^2)

plus a triggered intensity ``trigger_rate[a] / n * slot hours`` while the app's trigger lasts
(music playing, commuting or travelling, a workout), where n is the number of the user's apps
with that trigger (they share its time). Messaging apps post conversations: each
arrival opens a thread of 1 + Geometric follow-ups (mean = the user's chattiness) spaced by
Exponential gaps. The clock posts an alarm at wake-up on days the user sets one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen.model.arrivals_kernel import all_posts, rhythm_exponents, rhythm_sums, thinned_slots, time_order
from pushgen.model.catalog import TRIGGERS, AppCatalog, kind_code
from pushgen.model.portfolio import Portfolio
from pushgen.model.routine import DayPlan, State
from pushgen.model.sampling import categorical_rows, poisson_counts
from pushgen.model.timegrid import SLOT_HOURS, SLOT_SECONDS, TimeGrid

RHYTHM_FLOOR = 0.25
RHYTHM_WIDTH_HOURS = 1.5
FOLLOW_UP_GAP_SECONDS = 75.0
SLOT_START_HOURS = np.arange(0, 24, SLOT_HOURS)


@dataclass(frozen=True)
class Arrivals:
    seconds: np.ndarray  # float64, since the grid's first midnight, sorted
    app: np.ndarray  # int64 app code
    thread_position: np.ndarray  # int16, 0 for the first message of a conversation
    thread: np.ndarray  # int64, the row's conversation (its first row's index); -1 for none
    alarm: np.ndarray  # bool
    slot: np.ndarray  # int64, the arrival's slot of the time grid
    hour: np.ndarray  # float64, hours since the arrival's midnight


def rhythm(folio: Portfolio) -> np.ndarray:
    """(n_apps, slots per day): each app's daily rhythm for this user."""
    bells = rhythm_exponents(SLOT_START_HOURS, np.asarray(folio.peaks, dtype=np.float64), RHYTHM_WIDTH_HOURS)
    np.exp(bells, out=bells)
    return rhythm_sums(RHYTHM_FLOOR, np.asarray(folio.peak_heights, dtype=np.float64), bells)


def routine_arrivals(grid: TimeGrid, state: np.ndarray, plan: DayPlan, volume: np.ndarray, folio: Portfolio,
                     catalog: AppCatalog, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Slot and portfolio row of each routine arrival.

    Thinning: proposals from the intensity without the sleep factor (day x rhythm factorise),
    each kept with probability asleep[a] in sleeping slots, which leaves exactly the
    Poisson process of the module docstring. Its normaliser sum_t shape[a, t] comes from
    two small matrix products instead of an apps x slots array.
    """
    apps = folio.apps
    per_day = rhythm(folio)  # (A, K)
    sleeping = (state == int(State.SLEEP)).reshape(grid.days, -1).astype(np.float64)  # (D, K)
    usual_factor = np.where(~plan.workday[None, :], catalog.weekend[apps, None] * folio.weekend_factor,
                            1.0)  # (A, D)
    day_factor = usual_factor * volume[None, :]
    asleep_factor = catalog.asleep[apps]
    # einsum, not BLAS: the same sums in the same order on every machine
    awake_mass = np.einsum("ak,dk->ad", per_day, 1.0 - sleeping)
    asleep_mass = np.einsum("ak,dk->ad", per_day, sleeping)
    usual_mass = usual_factor * (awake_mass + asleep_factor[:, None] * asleep_mass)
    # the rate is the app's on a usual day; the daily regime's volume scales each day
    scale = folio.daily_rate * grid.days / usual_mass.sum(axis=1)
    proposals = rng.poisson(scale * per_day.sum(axis=1) * day_factor.sum(axis=1))
    row = np.repeat(np.arange(len(apps)), proposals)
    day = categorical_rows(np.cumsum(day_factor, axis=1), row, rng)
    slot_of_day = categorical_rows(np.cumsum(per_day, axis=1), row, rng)
    return thinned_slots(day, slot_of_day, row, sleeping, asleep_factor, rng.random(len(row)))


def triggered_arrivals(grid: TimeGrid, state: np.ndarray, music: np.ndarray, phone_on: np.ndarray,
                       folio: Portfolio, catalog: AppCatalog,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Slot and portfolio row of arrivals caused by music, commuting/travel or a workout."""
    lasting = {
        "music": lambda: music,
        "commute": lambda: (state == int(State.COMMUTE)) | (state == int(State.TRAVEL)),
        "exercise": lambda: state == int(State.EXERCISE),
    }
    app_trigger = catalog.trigger[folio.apps]
    slots, rows = [], []
    for trigger, during in lasting.items():
        members = (app_trigger == TRIGGERS.index(trigger)).nonzero()[0]
        if not len(members):
            continue
        on_slots = (during() & phone_on).nonzero()[0]
        if not len(on_slots):
            continue
        # the user's apps of one trigger split its time
        counts = poisson_counts(folio.trigger_rate[members] / len(members) * SLOT_HOURS * len(on_slots), rng)
        rows.append(np.repeat(members, counts))
        slots.append(on_slots[rng.integers(0, len(on_slots), counts.sum())])
    if not slots:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(slots), np.concatenate(rows)


def arrivals(grid: TimeGrid, state: np.ndarray, music: np.ndarray, plan: DayPlan, volume: np.ndarray,
             folio: Portfolio, catalog: AppCatalog, rng: np.random.Generator) -> Arrivals:
    """Parents: routine state, music, day plan, the daily regime's volume, portfolio. The Poisson
    process above; nothing arrives on a day of volume 0 (the phone is off)."""
    phone_on = np.repeat(volume > 0, grid.slots // grid.days)
    routine_slot, routine_row = routine_arrivals(grid, state, plan, volume, folio, catalog, rng)
    trigger_slot, trigger_row = triggered_arrivals(grid, state, music, phone_on, folio, catalog, rng)
    slot = np.concatenate([routine_slot, trigger_slot])
    row = np.concatenate([routine_row, trigger_row])
    count = len(slot)
    seconds = (slot + rng.random(count)) * SLOT_SECONDS
    app = folio.apps[row].astype(np.int16)

    # conversations: messaging arrivals start threads, the first counts as position 0
    messaging = catalog.kind_of_app[app] == kind_code("messaging")
    follow_ups = rng.geometric(1.0 / (1.0 + folio.chattiness), np.count_nonzero(messaging)) - 1
    gaps = rng.exponential(FOLLOW_UP_GAP_SECONDS, follow_ups.sum())

    p_alarm = np.where(plan.workday, folio.alarm_workday, folio.alarm_day_off) * (volume > 0)
    alarm_days = (rng.random(grid.days) < p_alarm).nonzero()[0]
    alarm_seconds = (alarm_days * 24 + plan.wake[alarm_days]) * 3600.0 - rng.uniform(
        0, 60, len(alarm_days))

    all_seconds, all_app, all_position, thread, is_alarm = all_posts(
        seconds, app, messaging, follow_ups, gaps, alarm_seconds, folio.clock_app)
    kept, slot, hour, thread = time_order(all_seconds, thread, volume, float(SLOT_SECONDS),
                                          grid.slots // grid.days)
    return Arrivals(
        seconds=all_seconds[kept],
        app=all_app[kept],
        thread_position=all_position[kept],
        thread=thread,
        alarm=is_alarm[kept],
        slot=slot,
        hour=hour,
    )
