"""Static user nodes: the latent habits a user keeps for the whole dataset.

Each function is one node family: its arguments are its parents and a random stream,
its result the sampled value. Distributions are named in the docstrings; their
parameters come from ``Priors``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from pushgen import schemas
from pushgen.model.catalog import VENDOR_SHARES
from pushgen.model.priors import Priors
from pushgen.model.sampling import choice, clipped, one_of


class Occupation(IntEnum):
    OFFICE = 0
    SHIFT = 1
    STUDENT = 2
    REMOTE = 3
    NOT_WORKING = 4


class Commute(IntEnum):
    CAR = 0
    TRANSIT = 1
    BICYCLE = 2
    WALK = 3


class Sleeper(IntEnum):
    USUAL = 0
    LATE = 1  # a night owl: up late, wakes late
    NIGHT_SHIFT = 2  # works evenings and nights, sleeps by day


@dataclass(frozen=True)
class Chronotype:
    wake_hour: float  # workday wake-up, hours after midnight
    sleep_hours: float
    weekend_delay: float  # later wake-up on days off, hours
    sleeper: Sleeper = Sleeper.USUAL


WAKE_RANGE = {Sleeper.USUAL: (4.5, 10.0), Sleeper.LATE: (8.0, 12.5), Sleeper.NIGHT_SHIFT: (11.5, 16.5)}


def chronotype(priors: Priors, rng: np.random.Generator) -> Chronotype:
    """Parents: none. sleeper ~ Categorical(usual, late, night shift); wake ~ N(the kind's mean,
    wake_hour_sd) within the kind's range; sleep ~ N in [5.5, 9.5]; delay ~ Gamma(2)."""
    usual = 1.0 - priors.late_sleeper_share - priors.night_shift_share
    shares = np.array([max(usual, 0.0), priors.late_sleeper_share, priors.night_shift_share])
    sleeper = Sleeper(choice(shares / shares.sum(), rng))
    mean = {Sleeper.USUAL: priors.wake_hour_mean, Sleeper.LATE: priors.late_wake_hour_mean,
            Sleeper.NIGHT_SHIFT: priors.night_shift_wake_hour_mean}[sleeper]
    return Chronotype(
        wake_hour=clipped(rng.normal(mean, priors.wake_hour_sd), *WAKE_RANGE[sleeper]),
        sleep_hours=clipped(rng.normal(priors.sleep_hours_mean, priors.sleep_hours_sd), 5.5, 9.5),
        weekend_delay=float(rng.gamma(2.0, priors.weekend_delay_mean / 2.0)),
        sleeper=sleeper,
    )


@dataclass(frozen=True)
class Schedule:
    occupation: Occupation
    workdays: np.ndarray  # (7,) bool, Monday first
    work_start: float  # hour
    work_hours: float
    commute: Commute
    commute_hours: float  # one way


def schedule(priors: Priors, chrono: Chronotype, rng: np.random.Generator) -> Schedule:
    """Parents: chronotype. occupation ~ Categorical (shift work for night-shift sleepers);
    start = wake + prep + commute; lengths ~ N."""
    occupation = Occupation(choice(priors.occupation_shares, rng))
    if chrono.sleeper == Sleeper.NIGHT_SHIFT:
        occupation = Occupation.SHIFT
    workdays = np.zeros(7, dtype=bool)
    if occupation == Occupation.SHIFT:
        workdays[rng.choice(7, size=5, replace=False)] = True
    elif occupation != Occupation.NOT_WORKING:
        workdays[:5] = True
    commute = Commute(choice(priors.commute_shares, rng))
    if occupation in (Occupation.REMOTE, Occupation.NOT_WORKING):
        commute_hours = 0.0
    else:
        commute_hours = clipped(rng.lognormal(np.log(priors.commute_minutes_median), 0.5), 5, 120) / 60
    work_hours = {Occupation.STUDENT: 6.0, Occupation.SHIFT: 8.5}.get(occupation, 8.5)
    return Schedule(
        occupation=occupation,
        workdays=workdays,
        work_start=float(chrono.wake_hour + rng.uniform(0.6, 1.4) + commute_hours),
        work_hours=clipped(rng.normal(work_hours, 0.6), 4.0, 10.5),
        commute=commute,
        commute_hours=commute_hours,
    )


@dataclass(frozen=True)
class Places:
    home: int  # place code
    work: int
    leisure: np.ndarray  # (n_place,) probabilities of an outing's place
    errand: np.ndarray  # (n_place,) probabilities of an errand's place


WORK_PLACES = {
    Occupation.OFFICE: ("TYPE_ACCOUNTING", "TYPE_BANK"),
    Occupation.SHIFT: ("TYPE_BAKERY", "TYPE_BAR", "TYPE_AIRPORT", "TYPE_AMUSEMENT_PARK",
                       "TYPE_AQUARIUM", "TYPE_ART_GALLERY", "TYPE_BANK"),
    Occupation.STUDENT: ("TYPE_ART_GALLERY",),
    Occupation.REMOTE: ("TYPE_OTHER",),
    Occupation.NOT_WORKING: ("TYPE_OTHER",),
}
LEISURE_PLACES = ("TYPE_BAR", "TYPE_AMUSEMENT_PARK", "TYPE_AQUARIUM", "TYPE_ART_GALLERY",
                  "TYPE_BAKERY")
ERRAND_PLACES = ("TYPE_ATM", "TYPE_BANK", "TYPE_BAKERY")


@functools.cache
def _place_codes(options: tuple[str, ...]) -> list[int]:
    place = schemas.field("place")
    return [place.code(o) for o in options]


def places(sched: Schedule, rng: np.random.Generator) -> Places:
    """Parents: schedule. work ~ Uniform over the occupation's places; tastes ~ Dirichlet."""
    place = schemas.field("place")
    remote = sched.occupation in (Occupation.REMOTE, Occupation.NOT_WORKING)

    def taste(options: tuple[str, ...], concentration: float) -> np.ndarray:
        p = np.zeros(len(place.listed()))
        p[_place_codes(options)] = rng.dirichlet(np.full(len(options), concentration))
        return p

    home = place.code("TYPE_OTHER")
    return Places(
        home=home,
        work=home if remote else place.code(one_of(WORK_PLACES[sched.occupation], rng)),
        leisure=taste(LEISURE_PLACES, 0.6),
        errand=taste(ERRAND_PLACES, 1.0),
    )


@dataclass(frozen=True)
class Lifestyle:
    outings_per_week: float
    exercise_per_week: float
    exercise_running: bool  # else cycling
    exercise_morning: bool  # else evening
    vacation_week_share: float


def lifestyle(priors: Priors, rng: np.random.Generator) -> Lifestyle:
    """Parents: none. rates ~ Gamma around the priors' means; kinds ~ Bernoulli."""
    return Lifestyle(
        outings_per_week=float(rng.gamma(2.0, priors.outings_per_week / 2.0)),
        exercise_per_week=float(rng.gamma(1.2, priors.exercise_per_week / 1.2)),
        exercise_running=bool(rng.random() < 0.6),
        exercise_morning=bool(rng.random() < 0.35),
        vacation_week_share=float(priors.vacation_weeks_per_year / 52 * rng.uniform(0.5, 1.5)),
    )


@dataclass(frozen=True)
class DeviceHabits:
    vendor: int  # index into catalog.VENDORS
    night_charge: float  # P(charges overnight on a given night)
    topup_threshold: float  # battery % at which the user looks for a charger
    drain_per_hour: float  # battery % per awake hour
    headphones: float  # P(headphones in on a commute or workout)
    music_with_headphones: float
    music_at_home: float
    ringer: np.ndarray  # (3,) habitual P(vibrate, normal, silent)
    quiet_at_work: float  # P(ringer turned to vibrate/silent at work)
    quiet_at_night: float  # P(ringer turned to silent/vibrate for the night)


def device_habits(priors: Priors, rng: np.random.Generator) -> DeviceHabits:
    """Parents: none. vendor ~ Categorical; shares ~ Beta; ringer habit ~ Dirichlet."""

    def beta(mean: float, strength: float = 4.0) -> float:
        return float(rng.beta(mean * strength, (1 - mean) * strength))

    shares = np.asarray(priors.ringer_shares)
    return DeviceHabits(
        vendor=choice(VENDOR_SHARES, rng),
        night_charge=beta(priors.night_charge_share),
        topup_threshold=float(rng.uniform(15, 35)),
        drain_per_hour=float(priors.drain_percent_per_hour * rng.lognormal(0, 0.25)),
        headphones=beta(priors.headphone_share, 2.0),
        music_with_headphones=beta(0.75),
        music_at_home=beta(0.05, 10.0),
        ringer=rng.dirichlet(shares * priors.ringer_concentration + 0.05),
        quiet_at_work=beta(0.4, 2.0),
        quiet_at_night=beta(priors.night_quiet_share, 2.0),
    )
