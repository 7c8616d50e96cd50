"""The generator's user lived through its posts in one compiled pass (``lived``): the same steps as
``SimulatedUser.send`` and ``LongTermUser.deliver``, post after post."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from pushgen.model.catalog import app_catalog
from pushgen.model.compiled import Kernel
from pushgen.model.engagement import EngagementParameters, RowState
from pushgen.model.exposure import HABITUATION_KEYS, HABITUATION_TAUS, Exposure, interruption, key_sizes
from pushgen.model.long_term import REPEAT_WEIGHT, abandonable
from pushgen.model.simulated_user.formula import open_logit, p_open, penalty_weights
from pushgen.model.simulated_user.long_term import DAY_SECONDS


@dataclass(frozen=True)
class Lived:
    """What each post of a user came to (arrays over the posts, time-ordered).

    Attributes
    ----------
    fate : numpy.ndarray
        ``long_term.NOT_DELIVERED`` (its app or channel was off), ``DELIVERED``, or the event its
        delivery led to (``APP_OFF``, ``CHANNEL_OFF``, ``ABANDONED``).
    exposure : Exposure
        Fatigue and habituation the delivered posts before it left (0 where not delivered).
    p_open : numpy.ndarray
        P(open) (0 where not delivered).
    annoyance : numpy.ndarray
        The annoyance with its app just after it was delivered (0 where not delivered).
    """

    fate: np.ndarray
    exposure: Exposure
    p_open: np.ndarray
    annoyance: np.ndarray

    @property
    def delivered(self) -> np.ndarray:
        return self.fate >= 0


@Kernel
def lived_kernel(static: np.ndarray, seconds: np.ndarray, app: np.ndarray, subject: np.ndarray,
                 channel: np.ndarray, interrupts: np.ndarray, penalty: np.ndarray, taus: np.ndarray,
                 key_sizes: np.ndarray, weight: np.ndarray, context: np.ndarray, abandonable: np.ndarray,
                 draws: np.ndarray, constants: np.ndarray, lead: int, shift: float) -> tuple:
    """One pass in time order over posts (the first ``lead`` also as the week before, at their
    seconds, delivered and without hazards; then all at seconds + ``shift``).

    Returns each post's fate, exposure, logit (-inf where not delivered) and annoyance.
    ``penalty``: fatigue weight and habituation weights (app, subject, channel); ``taus``: fatigue's
    and the three keys' time constants, then annoyance's; ``constants``: tolerance, goodwill,
    disable rate, abandon rate, abandon ratio, channel share, repeat weight."""
    n = len(seconds)
    fate = np.zeros(n, dtype=np.int8)
    exposure = np.zeros((4, n))
    logits = np.full(n, -np.inf)
    annoyance = np.zeros(n)
    tolerance, goodwill, disable_rate, abandon_rate, ratio, channel_share, repeat = constants
    fatigue, fatigue_time = 0.0, 0.0
    total = np.zeros((3, key_sizes.max()))
    last = np.zeros((3, key_sizes.max()))
    annoy = np.zeros(key_sizes[0])
    annoy_time = np.zeros(key_sizes[0])
    app_off = np.zeros(key_sizes[0], dtype=np.bool_)
    channel_off = np.zeros(key_sizes[2], dtype=np.bool_)
    before = np.zeros(3)  # each post's exposure to its keys (one array for all: no allocation a post)
    for step in range(lead + n):
        i = step if step < lead else step - lead
        history = step < lead
        t = seconds[i] if history or shift == 0.0 else seconds[i] + shift
        a, c = app[i], channel[i]
        if not history and (app_off[a] or channel_off[c]):
            fate[i] = -1
            continue
        f = fatigue * np.exp(-(t - fatigue_time) / taus[0])
        keys = (a, subject[i], c)
        taken = penalty[0] * f  # added in formula.exposure_penalty's order: the judge's logit to the bit
        for j in range(3):
            k = keys[j]
            before[j] = total[j, k] * np.exp(-(t - last[j, k]) / taus[1 + j])
            taken = taken + penalty[1 + j] * np.sqrt(before[j])
        logit = static[i] - taken
        p = 1.0 / (1.0 + np.exp(-logit))
        fatigue, fatigue_time = f + interrupts[i], t
        for j in range(3):
            total[j, keys[j]], last[j, keys[j]] = before[j] + 1.0, t
        value = annoy[a] * np.exp(-(t - annoy_time[a]) / taus[4]) + weight[i] * (
            (1.0 - p) * (context[i] + repeat * min(1.0, before[1])) - goodwill * p)
        annoy[a], annoy_time[a] = value, t
        if history:
            continue
        exposure[0, i] = f
        exposure[1:, i] = before
        logits[i], annoyance[i] = logit, value
        over = value / tolerance - 1.0
        over_abandon = value / (tolerance * ratio) - 1.0
        if abandonable[a] and over_abandon > 0.0 and draws[1, i] < 1.0 - np.exp(-abandon_rate * over_abandon):
            fate[i] = 3
            app_off[a] = True
        elif over > 0.0 and draws[0, i] < 1.0 - np.exp(-disable_rate * over):
            if draws[2, i] < channel_share:
                fate[i] = 2
                channel_off[c] = True
            else:
                fate[i] = 1
                app_off[a] = True
    return fate, exposure, logits, annoyance


@functools.cache
def catalog_arrays() -> tuple[np.ndarray, np.ndarray]:
    """What ``lived_kernel`` takes of the catalog: the habituation keys' sizes and which apps can be
    abandoned (made once: the catalog is fixed)."""
    catalog = app_catalog()
    return np.array(list(key_sizes(len(catalog.channels.group)).values())), abandonable(catalog)


def lived(parameters: EngagementParameters, codes: dict[str, np.ndarray], channel: np.ndarray,
          row_state: RowState, seconds: np.ndarray, unwanted: tuple[np.ndarray, np.ndarray],
          draws: np.ndarray, lead: int = 0, shift_seconds: float = 0.0) -> Lived:
    """The generator's user (parameter row 0) through its time-ordered posts (``codes`` of their
    features, ``channel``, ``row_state``, posted at ``seconds``): ``lived_kernel`` with the
    notifications' ``long_term.unwanted_weights`` and the uniforms ``draws`` (3, posts: turn off,
    abandon, channel only)."""
    static = open_logit(parameters, np.zeros(len(seconds), dtype=np.int64), codes, row_state, None, channel)
    weights = penalty_weights(parameters, 0)
    constants = parameters.long_term
    sizes, apps_abandonable = catalog_arrays()
    fate, exposure, logits, annoyance = lived_kernel(
        static, np.asarray(seconds, dtype=np.float64), *(np.asarray(codes[k], dtype=np.int64)
                                                         for k in ("postingApp", "subject")),
        np.asarray(channel, dtype=np.int64), interruption(codes["priority"], codes["numberOfUpdates"]),
        np.array([weights[k] for k in ("fatigue", *HABITUATION_KEYS)]),
        np.array([parameters.fatigue_tau_seconds, *HABITUATION_TAUS.values(),
                  constants.annoyance_tau_days * DAY_SECONDS]), sizes,
        np.asarray(unwanted[0], dtype=np.float64), np.asarray(unwanted[1], dtype=np.float64),
        apps_abandonable, np.asarray(draws, dtype=np.float64),
        np.array([float(parameters.scalars["tolerance"][0]), constants.goodwill_per_open,
                  constants.disable_rate, constants.abandon_rate, constants.abandon_tolerance_ratio,
                  constants.channel_disable_share, REPEAT_WEIGHT]), int(lead), float(shift_seconds))
    return Lived(fate=fate, exposure=Exposure(*exposure), p_open=p_open(logits), annoyance=annoyance)
