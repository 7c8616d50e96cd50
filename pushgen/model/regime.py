"""The daily regime: a hidden state per day with a memory of the days before.

    regime[0] ~ Categorical(stationary distribution of the user's chain)
    regime[d] | regime[d-1] ~ Categorical(transition[regime[d-1]])
    transition[s] ~ Dirichlet(REGIME_CONCENTRATION * BASE_TRANSITION[s])   (per user)
    phone_off[d] ~ Bernoulli(off_rate),  off_rate ~ Gamma(0.5, phone_off_days_per_year / 365 / 0.5)
    do_not_disturb[d] ~ Bernoulli(dnd_rate), dnd_rate ~ Gamma(0.5, dnd_days_per_year / 365 / 0.5)

Parents: the user's lifestyle (how often it is away) and the calendar. A busy day brings more
notifications and less attention; a quiet day fewer and more; an away day (a trip or days
off) is no workday, with a trip at its edges, fewer notifications and less attention. On a
phone-off day nothing arrives; on a do-not-disturb day the ringer is silent all day and
attention is low. ``volume`` multiplies every app's routine rate that day and ``attention``
adds to the day's hidden availability (the engagement model's mood).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from pushgen.model.habits import Lifestyle
from pushgen.model.priors import Priors
from pushgen.model.regime_kernel import markov_chain
from pushgen.model.sampling import dirichlet_rows


class Regime(IntEnum):
    BUSY = 0
    USUAL = 1
    QUIET = 2
    AWAY = 3


# Mean transition probabilities between days (rows: from; the away column is set per user).
BASE_TRANSITION = np.array([
    [0.55, 0.40, 0.05, 0.0],
    [0.12, 0.78, 0.10, 0.0],
    [0.05, 0.40, 0.55, 0.0],
    [0.05, 0.15, 0.0, 0.80],
])
AWAY_SPELL_DAYS = 5.0  # mean length of a spell away: sets P(away -> away) = 1 - 1 / 5
REGIME_CONCENTRATION = 30.0  # how closely each user's transitions follow the base
VOLUME = np.array([1.7, 1.07, 0.6, 0.75])  # routine notifications, by regime
ATTENTION = np.array([-0.3, 0.0, 0.2, -0.35])  # added to the day's availability (log-odds)
WEEKEND_ATTENTION = -0.25  # fewer clicks on weekends
DO_NOT_DISTURB_ATTENTION = -0.8
RATE_SHAPE = 0.5  # Gamma shape of the users' phone-off and do-not-disturb rates: many never


@dataclass(frozen=True)
class DayRegime:
    """Per-day nodes (arrays of length ``days``)."""

    state: np.ndarray  # int8 Regime
    phone_off: np.ndarray  # bool
    do_not_disturb: np.ndarray  # bool
    volume: np.ndarray  # multiplier of the routine arrival rate (0 on phone-off days)
    attention: np.ndarray  # added to the day's hidden availability

    @property
    def away(self) -> np.ndarray:
        return self.state == int(Regime.AWAY)


def transition_matrix(priors: Priors, life: Lifestyle, rng: np.random.Generator) -> np.ndarray:
    """The user's day-to-day transition matrix: Dirichlet rows around ``BASE_TRANSITION``, with
    the chance of leaving for a spell away set by the user's share of weeks away."""
    base = BASE_TRANSITION.copy()
    stay = 1.0 - 1.0 / AWAY_SPELL_DAYS
    base[Regime.AWAY] *= (1.0 - stay) / base[Regime.AWAY, :Regime.AWAY].sum()
    base[Regime.AWAY, Regime.AWAY] = stay
    # P(leave) so that the chain spends about the user's share of days away
    share = min(life.vacation_week_share, 0.5)
    leave = share / ((1.0 - share) * AWAY_SPELL_DAYS)
    base[:Regime.AWAY, Regime.AWAY] = leave
    base[:Regime.AWAY, :Regime.AWAY] *= (1.0 - leave) / base[:Regime.AWAY, :Regime.AWAY].sum(axis=1,
                                                                                              keepdims=True)
    return dirichlet_rows(REGIME_CONCENTRATION * base + 1e-3, rng)


def stationary(transition: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eig(transition.T)
    p = np.abs(np.real(vectors[:, np.argmin(np.abs(values - 1.0))]))
    return p / p.sum()


def day_regime(days: int, weekday: np.ndarray, priors: Priors, life: Lifestyle,
               rng: np.random.Generator) -> DayRegime:
    """Parents: lifestyle, weekday. The Markov chain and the Bernoulli days of the docstring."""
    transition = transition_matrix(priors, life, rng)
    cumulative = np.cumsum(transition, axis=1)
    u = rng.random(days)
    state = markov_chain(np.cumsum(stationary(transition)), cumulative, u)
    off_rate = rng.gamma(RATE_SHAPE, priors.phone_off_days_per_year / 365.0 / RATE_SHAPE)
    dnd_rate = rng.gamma(RATE_SHAPE, priors.do_not_disturb_days_per_year / 365.0 / RATE_SHAPE)
    phone_off = rng.random(days) < off_rate
    do_not_disturb = (rng.random(days) < dnd_rate) & ~phone_off
    return DayRegime(
        state=state,
        phone_off=phone_off,
        do_not_disturb=do_not_disturb,
        volume=np.where(phone_off, 0.0, VOLUME[state]),
        attention=(ATTENTION[state] + WEEKEND_ATTENTION * (np.asarray(weekday) >= 5)
                   + DO_NOT_DISTURB_ATTENTION * do_not_disturb),
    )
