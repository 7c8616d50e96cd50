"""Timing nodes: seconds until a notification is seen, and from seen to the user's action.

seenTime: asleep at posting -> the time until wake-up + LogNormal(median 40 s); awake ->
LogNormal(median = the user's median x ringer x routine x priority x evening factors, sd 1.1),
the evening factor a smooth dip of the clock (``evening_factor``).
decisionTime: opened -> at once (LogNormal(median 4 s, sd 0.8)), or with the user's P(delayed
open) later (LogNormal(median delayed_open_minutes, sd 1.3): read in a pause, an email answered
in the evening); dismissed -> swiped away (LogNormal(median 3 s)) with the user's P(swipe), else
left until cleared (LogNormal(median 40 min, sd 1.0)). responseTime = seenTime + decisionTime.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.model.priors import Priors
from pushgen.model.routine import State
from pushgen.model.timings_kernel import branch_exponents, evening_exponents, seen_seconds

RINGER_FACTOR = {"vibrate": 0.7, "normal": 1.0, "silent": 3.0}
STATE_FACTOR = np.array([1.0, 1.5, 0.6, 1.2, 0.9, 1.1, 2.5, 0.9])  # by routine state
EVENING_FACTOR = 0.55  # at 23:30 the phone is most at hand: delays are shortest ...
EVENING_PEAK_HOUR, EVENING_WIDTH_HOURS = 23.5, 2.5  # ... a smooth dip around it
PRIORITY_FACTOR = {"max": 0.5, "high": 0.75, "default": 1.0, "low": 1.6, "min": 3.0,
                   "unknown": 1.2}


def _by_code(name: str, factors: dict[Any, float]) -> np.ndarray:
    f = schemas.field(name)
    return np.array([factors[v] for v in f.listed()])


RINGER_BY_CODE = _by_code("ringerMode", RINGER_FACTOR)
PRIORITY_BY_CODE = _by_code("priority", PRIORITY_FACTOR)


@dataclass(frozen=True)
class AttentionHabits:
    seen_median: float  # seconds until seen, before the ringer/routine/priority/evening factors
    swipe_share: float  # P(a dismissed notification is swiped away rather than left)
    delayed_share: float = 0.0  # P(an opened notification is opened long after it was seen)
    delayed_seconds: float = 2100.0  # median delay of such opens


def attention_habits(priors: Priors, rng: np.random.Generator) -> AttentionHabits:
    """Static node, parents: none. median ~ prior x LogNormal(0, 0.5); swipe share ~ Beta(3, 3);
    delayed-open share ~ Beta(mean delayed_open_share, strength 4)."""
    mean = priors.delayed_open_share
    delayed = float(rng.beta(4 * mean, 4 * (1 - mean))) if 0 < mean < 1 else mean
    return AttentionHabits(seen_median=priors.seen_seconds_median * rng.lognormal(0.0, 0.5),
                           swipe_share=float(rng.beta(3, 3)), delayed_share=delayed,
                           delayed_seconds=priors.delayed_open_minutes * 60.0)


def evening_factor(hour: np.ndarray) -> np.ndarray:
    """Multiplier of the time until seen over the clock: 1 by day, ``EVENING_FACTOR`` at
    ``EVENING_PEAK_HOUR``, a Gaussian dip (circular hours) with no step anywhere."""
    hours = np.asarray(hour, dtype=np.float64)
    dip = evening_exponents(hours.ravel(), EVENING_PEAK_HOUR, EVENING_WIDTH_HOURS)
    np.exp(dip, out=dip)
    np.multiply(1.0 - EVENING_FACTOR, dip, out=dip)
    return np.subtract(1.0, dip, out=dip).reshape(hours.shape)


@dataclass(frozen=True)
class Timings:
    seen: np.ndarray
    decision: np.ndarray


def timings(opened: np.ndarray, ringer: np.ndarray, priority: np.ndarray, state: np.ndarray,
            seconds_to_wake: np.ndarray, hour: np.ndarray, habits: AttentionHabits,
            rng: np.random.Generator) -> Timings:
    """Parents: action, ringer mode, priority, routine state, clock hour, time until wake-up,
    attention habits."""
    n = len(opened)
    asleep = state == int(State.SLEEP)
    # one standard normal per row and quantity; each branch scales it to its own LogNormal
    z_seen, z_decision = rng.standard_normal(n), rng.standard_normal(n)
    later = rng.random(n)
    seen_exponent, decision_exponent, decision_median = branch_exponents(
        asleep, opened, later, z_seen, z_decision, habits.swipe_share, habits.delayed_share,
        habits.delayed_seconds)
    seen = seen_seconds(asleep, seconds_to_wake, habits.seen_median, RINGER_BY_CODE, ringer, PRIORITY_BY_CODE,
                        priority, STATE_FACTOR, state, evening_factor(hour), np.exp(seen_exponent))
    return Timings(seen=seen, decision=decision_median * np.exp(decision_exponent))
