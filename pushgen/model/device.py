"""Dynamic device nodes: battery and charging, ringer mode, headphones and music.

Battery is a continuous state: it drains by the slot's use and charges while plugged in,
so consecutive slots (and a notification's posting and removal) never jump from full to
empty. Ringer mode, headphones and music keep one value per segment of the routine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen import schemas
from pushgen.model.device_kernel import charge_runs, slot_levels, slot_ringer, spending
from pushgen.model.habits import DeviceHabits
from pushgen.model.routine import DayPlan, State
from pushgen.model.sampling_kernel import state_runs
from pushgen.model.timegrid import SLOT_HOURS, TimeGrid

CHARGE_PERCENT_PER_HOUR = 55.0
# Battery use per awake hour relative to the user's habit, by routine state.
DRAIN_BY_STATE = np.array([0.15, 1.0, 1.3, 0.8, 1.1, 1.2, 1.5, 1.3])
MUSIC_DRAIN = 0.6
CHARGER_AT_HAND = np.isin(np.arange(8), (State.HOME, State.WORK, State.SLEEP))  # by routine state
LOW_BELOW, HIGH_FROM = 25.0, 70.0  # battery % thresholds of the batteryLevel labels
QUIET_UNTIL_HOUR = 6.0  # a quieted night lasts, at home, until this hour at least


@dataclass(frozen=True)
class Audio:
    headphones: np.ndarray  # (slots,) bool
    music: np.ndarray  # (slots,) bool


HEADPHONE_USE = np.array([0.0, 0.15, 1.0, 0.3, 0.5, 0.3, 1.0, 0.8])  # x habit, by state


def audio(state: np.ndarray, habits: DeviceHabits, rng: np.random.Generator) -> Audio:
    """Parents: routine state, device habits. headphones ~ Bernoulli per segment; music too."""
    segment, seg_state = state_runs(state)
    n = len(seg_state)
    plugged = rng.random(n) < habits.headphones * HEADPHONE_USE[seg_state]
    playing = np.where(
        plugged,
        rng.random(n) < habits.music_with_headphones,
        (rng.random(n) < habits.music_at_home) & (seg_state == int(State.HOME)),
    )
    return Audio(headphones=plugged[segment], music=playing[segment])


@dataclass(frozen=True)
class Battery:
    percent: np.ndarray  # (slots,) float, at each slot's start
    charging: np.ndarray  # (slots,) bool


def battery(grid: TimeGrid, state: np.ndarray, music: np.ndarray, plan: DayPlan, habits: DeviceHabits,
            rng: np.random.Generator) -> Battery:
    """Parents: routine state, music, the day plan, device habits; and its own last value.

    level[t+1] = level[t] - drain[t] while unplugged, + CHARGE_PERCENT_PER_HOUR while
    plugged (capped at 100, floored at 1). Plugged: overnight (~ Bernoulli(night_charge)
    per night), and a top-up of 1-2.5 h at the first slot at home, at work or in bed after
    the level falls below the user's threshold.
    """
    n = grid.slots
    drain_per_slot = habits.drain_per_hour * SLOT_HOURS
    spent, next_charger = spending(state, music, DRAIN_BY_STATE, MUSIC_DRAIN, drain_per_slot, CHARGER_AT_HAND)

    night = rng.random(grid.days) < habits.night_charge
    # whole slots clipped to [0, n] by maximum then minimum (np.clip's result, without its wrapper)
    bed_slot = np.minimum(np.maximum(
        np.round((np.arange(grid.days) * 24 + plan.bedtime) / SLOT_HOURS).astype(int), 0), n)
    next_wake = np.concatenate((plan.wake[1:], plan.wake[-1:]))  # the last night: its own day's wake-up
    wake_slot = np.minimum(np.maximum(
        np.round((np.arange(1, grid.days + 1) * 24 + next_wake) / SLOT_HOURS).astype(int), 0), n)
    topup_slots = np.round(rng.uniform(1.0, 2.5, grid.days * 4) / SLOT_HOURS).astype(int)
    per_slot_charge = CHARGE_PERCENT_PER_HOUR * SLOT_HOURS

    nights = night.nonzero()[0]
    starts_arr, levels, plugged = charge_runs(
        spent, next_charger, bed_slot[nights], wake_slot[nights], topup_slots, float(rng.uniform(50, 100)),
        float(habits.topup_threshold), per_slot_charge)
    percent, charging = slot_levels(spent, starts_arr, levels, plugged, per_slot_charge)
    return Battery(percent=percent, charging=charging)


# the batteryLevel labels: low below LOW_BELOW %, high from HIGH_FROM %, medium between
BATTERY_LEVEL_BOUNDS = np.array([LOW_BELOW, HIGH_FROM])
BATTERY_LEVEL_CODES = np.array([schemas.field("batteryLevel").code(level)
                                for level in ("low", "medium", "high")], dtype=np.int16)
VIBRATE, SILENT = (schemas.field("ringerMode").code(mode) for mode in ("vibrate", "silent"))


def ringer_mode(grid: TimeGrid, state: np.ndarray, habits: DeviceHabits, do_not_disturb: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state, device habits, the daily regime's do-not-disturb days. One mode
    per segment, and one quiet setting per night.

    At work: vibrate or silent with P(quiet_at_work), else the habit; elsewhere ~
    Categorical(habit). Nights: on a night the user quiets the phone (P(quiet_at_night)), silent
    (3 in 4) or vibrate while asleep and, at home, from midnight to ``QUIET_UNTIL_HOUR`` (a
    night-shift worker at work keeps the day's mode). Silent all through a do-not-disturb day.
    """
    segment, seg_state = state_runs(state)
    n = len(seg_state)
    mode = np.minimum(np.searchsorted(np.cumsum(habits.ringer), rng.random(n) * habits.ringer.sum()), 2)
    quieted = (seg_state == int(State.WORK)) & (rng.random(n) < habits.quiet_at_work)
    mode[quieted] = np.where(rng.random(n) < 0.7, VIBRATE, SILENT)[quieted]
    quiet_night = rng.random(grid.days + 1) < habits.quiet_at_night
    night_mode = np.where(rng.random(grid.days + 1) < 0.75, SILENT, VIBRATE)
    return slot_ringer(state, segment, mode, quiet_night, night_mode, do_not_disturb, grid.slots // grid.days,
                       SLOT_HOURS, QUIET_UNTIL_HOUR, int(State.SLEEP), int(State.HOME), SILENT)
