"""Kernels of the engagement nodes: the hidden availability's daily AR(1) level, each post's row
state, the arguments of the attention cycle and the novelty, and the open log-odds: each row's part
(``row_logits``), then notifications in their rows (``notification_logits``)."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

# the columns of priority and numberOfUpdates in schemas.NOTIFICATION_FEATURES order (a kernel
# module reads no schema; tests/test_kernels.py checks them)
PRIORITY, UPDATES = 4, 2


@Kernel
def autoregression(shocks: np.ndarray, persistence: float) -> np.ndarray:
    """level[0] = shocks[0], level[d] = shocks[d] + persistence * level[d - 1]."""
    level = np.empty(len(shocks))
    previous = 0.0
    for d in range(len(shocks)):
        previous = shocks[d] + persistence * previous
        level[d] = previous
    return level


@Kernel
def state_exponents(hour: np.ndarray, days: np.ndarray, attention_peak: np.ndarray, rows: np.ndarray,
                    novelty_days: float) -> np.ndarray:
    """(2, rows): the attention cycle's cosine argument 2 pi (hour - attention_peak[rows]) / 24 and
    the novelty's exponent -days / novelty_days."""
    out = np.empty((2, len(hour)))
    for i in range(len(hour)):
        out[0, i] = 2 * np.pi * (hour[i] - attention_peak[rows[i]]) / 24
        out[1, i] = -days[i] / novelty_days
    return out


@Kernel
def row_logits(rows: np.ndarray, user_terms: tuple, context_tables: tuple, context_codes: tuple,
               cycle: np.ndarray, asleep: np.ndarray, mood: np.ndarray, curves: np.ndarray, indicators: tuple,
               situation_codes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Each row's part of the open log-odds and its situations (``engagement.row_terms``):

    row base = intercept + the context features' weights, in order, + amplitude * cos(cycle[0])
               + asleep_penalty * asleep + novelty * exp(cycle[1]) + mood
    situations: ``situations.situations`` of ``curves`` (``situations.clock_curves``) and
               ``indicators`` (per-code tables of day, activity, ringer mode and listening) at
               ``situation_codes`` (day, activity, ringerMode, headphonesIn, musicActive)

    ``user_terms`` = (intercept, attention_amplitude, asleep_penalty, novelty) per user, ``cycle``
    = (cos, exp) of ``state_exponents``.
    """
    intercept, amplitude, asleep_penalty, novelty = user_terms
    by_day, by_activity, silent, listening = indicators
    day, activity, ringer, headphones, music = situation_codes
    n = len(rows)
    base = np.empty(n)
    situations = np.empty((n, 10))
    for i in range(n):
        r = rows[i]
        total = intercept[r]
        for f in range(len(context_tables)):
            total += context_tables[f][r, context_codes[f][i]]
        total += amplitude[r] * cycle[0, i]
        total += asleep_penalty[r] * np.float64(asleep[i])
        total += novelty[r] * cycle[1, i]
        base[i] = total + mood[i]
        s = situations[i]
        s[0] = curves[0, i]
        s[1] = by_day[day[i], 0] * curves[1, i] * curves[2, i]
        s[2] = curves[3, i] * curves[4, i]
        s[3] = 1.0 - curves[5, i] * curves[4, i]
        s[4] = by_day[day[i], 1]
        s[5] = by_activity[activity[i], 0]
        s[6] = by_activity[activity[i], 1]
        s[7] = by_activity[activity[i], 2]
        s[8] = silent[ringer[i]]
        s[9] = listening[headphones[i], music[i]]
    return base, situations


@Kernel
def notification_logits(base: np.ndarray, situations: np.ndarray, rows: np.ndarray, tables: tuple,
                        codes: np.ndarray, interactions: np.ndarray, group_of_channel: np.ndarray,
                        channel: np.ndarray, by_priority: np.ndarray, by_updates: np.ndarray,
                        possible: np.ndarray, penalty_terms: tuple, exposures: np.ndarray) -> np.ndarray:
    """The open log-odds of notifications ``codes`` (rows of the 7 notification features' codes,
    in ``schemas.NOTIFICATION_FEATURES`` order) in rows of row part ``base`` and ``situations``
    (``row_logits``), -inf where not ``possible``, each float added exactly as
    ``simulated_user.combine`` adds the row terms, the notification terms and the exposure penalty:

    notification base = the notification features' weights (``tables``), in order
    interaction = sum over k of situation_k * (interactions[r, group, k] + by_priority[priority, k]
               + by_updates[updates, k]) over the 10 situations, added as NumPy's einsum adds a
               contiguous product: in two lanes (even and odd k), eight k at a time, each block's
               last pair first, then the two lanes' sums
    penalty = fatigue_weight * fatigue + sum over the habituation keys of habituation * sqrt(exposure)
    logit = row base + notification base + interaction - penalty

    ``penalty_terms`` = (fatigue_weight, habituation per key: app, subject, channel) per user,
    ``exposures`` = (rows, 4): fatigue and the exposure per key.
    """
    fatigue_weight, by_app, by_subject, by_channel = penalty_terms
    n = len(rows)
    out = np.empty(n)
    for i in range(n):
        if not possible[i]:
            out[i] = -np.inf
            continue
        r = rows[i]
        notification = 0.0
        for f in range(len(tables)):
            notification += tables[f][r, codes[i, f]]
        s = situations[i]
        a = interactions[r, group_of_channel[channel[i]]]
        b = by_priority[codes[i, PRIORITY]]
        u = by_updates[codes[i, UPDATES]]
        even = s[6] * (a[6] + b[6] + u[6]) + 0.0
        odd = s[7] * (a[7] + b[7] + u[7]) + 0.0
        even = s[4] * (a[4] + b[4] + u[4]) + even
        odd = s[5] * (a[5] + b[5] + u[5]) + odd
        even = s[2] * (a[2] + b[2] + u[2]) + even
        odd = s[3] * (a[3] + b[3] + u[3]) + odd
        even = s[0] * (a[0] + b[0] + u[0]) + even
        odd = s[1] * (a[1] + b[1] + u[1]) + odd
        even = s[8] * (a[8] + b[8] + u[8]) + even
        odd = s[9] * (a[9] + b[9] + u[9]) + odd
        interaction = 0.0 + (even + odd)
        penalty = fatigue_weight[r] * exposures[i, 0]
        penalty = penalty + by_app[r] * np.sqrt(exposures[i, 1])
        penalty = penalty + by_subject[r] * np.sqrt(exposures[i, 2])
        penalty = penalty + by_channel[r] * np.sqrt(exposures[i, 3])
        out[i] = base[i] + notification + interaction - penalty
    return out


@Kernel
def row_states(seconds: np.ndarray, slot: np.ndarray, slots_per_day: int, day_level: np.ndarray,
               day_attention: np.ndarray, shift: np.ndarray, segment: np.ndarray, state: np.ndarray,
               sleep: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's (hour, days, asleep, mood) at ``seconds`` (``slot`` = seconds // slot length, so
    that day = slot // slots_per_day = seconds // 86400), the floats rounded to float32 as stored:
    hour = (seconds % 86400) / 3600, days = seconds / 86400, asleep = state[slot] == sleep,
    mood = day_level[day] + day_attention[day] + shift[segment[slot]].

    seconds % 86400 is taken as seconds - 86400 day, the same float (the difference is exact).
    """
    n = len(seconds)
    hour = np.empty(n)
    days = np.empty(n)
    asleep = np.empty(n, dtype=np.bool_)
    mood = np.empty(n)
    for i in range(n):
        t = seconds[i]
        s = slot[i]
        day = s // slots_per_day
        hour[i] = np.float64(np.float32((t - day * 86400.0) / 3600.0))
        days[i] = np.float64(np.float32(t / 86400.0))
        asleep[i] = state[s] == sleep
        mood[i] = np.float64(np.float32(day_level[day] + day_attention[day] + shift[segment[s]]))
    return hour, days, asleep, mood
