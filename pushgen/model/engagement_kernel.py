"""Kernels of the engagement nodes: the hidden availability's daily AR(1) level, each post's row
state, the arguments of the attention cycle and the novelty, and the open log-odds of rows in one
pass."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def autoregression(shocks: np.ndarray, persistence: float) -> np.ndarray:
    """level[0] = shocks[0], level[d] = shocks[d] + persistence * level[d - 1]."""
    level = np.empty(len(shocks))
    previous = 0.0
    for d in range(len(shocks)):
        previous = shocks[d] + persistence * previous
        level[d] = previous
    return level


@kernel
def state_exponents(hour: np.ndarray, days: np.ndarray, attention_peak: np.ndarray, rows: np.ndarray,
                    novelty_days: float) -> np.ndarray:
    """(2, rows): the attention cycle's cosine argument 2 pi (hour - attention_peak[rows]) / 24 and
    the novelty's exponent -days / novelty_days."""
    out = np.empty((2, len(hour)))
    for i in range(len(hour)):
        out[0, i] = 2 * np.pi * (hour[i] - attention_peak[rows[i]]) / 24
        out[1, i] = -days[i] / novelty_days
    return out


@kernel
def open_logits(rows: np.ndarray, user_terms: tuple, context_tables: tuple, context_codes: tuple,
                notification_tables: tuple, notification_codes: tuple, cycle: np.ndarray, asleep: np.ndarray,
                mood: np.ndarray, curves: np.ndarray, indicators: tuple, situation_codes: tuple,
                interactions: np.ndarray, group_of_channel: np.ndarray, channel: np.ndarray,
                by_priority: np.ndarray, by_updates: np.ndarray, effect_codes: tuple, has_app: np.ndarray,
                exposures: tuple) -> np.ndarray:
    """The open log-odds of each row, -inf where its notification is not possible (no channel, or
    an app the user does not have), each float added exactly as ``simulated_user.combine`` adds the
    row terms, the notification terms and the exposure penalty:

    row base = intercept + the context features' weights, in order, + amplitude * cos(cycle[0])
               + asleep_penalty * asleep + novelty * exp(cycle[1]) + mood
    notification base = the notification features' weights, in order
    situations: ``situations.situations`` of ``curves`` (``situations.clock_curves``)
               and ``indicators`` (per-code tables of day,
               activity, ringer mode and listening) at ``situation_codes`` (day, activity,
               ringerMode, headphonesIn, musicActive)
    interaction = sum over k of situation_k * (interactions[r, group, k] + by_priority[priority, k]
               + by_updates[updates, k]), ``effect_codes`` = (priority, numberOfUpdates, postingApp),
               over the 10 situations, added as NumPy's einsum adds a contiguous product: in two
               lanes (even and odd k), eight k at a time, each block's last pair first, then the
               two lanes' sums
    penalty = fatigue_weight * fatigue + sum over the habituation keys of habituation * sqrt(exposure)
    logit = row base + notification base + interaction - penalty

    ``user_terms`` = (intercept, attention_amplitude, asleep_penalty, novelty, fatigue_weight,
    habituation per key: app, subject, channel) per user, ``cycle`` = (cos, exp) of
    ``state_exponents``, ``exposures`` = (fatigue, exposure per key) per row.
    """
    intercept, amplitude, asleep_penalty, novelty, fatigue_weight, by_app, by_subject, by_channel = user_terms
    fatigue, app_exposure, subject_exposure, channel_exposure = exposures
    by_day, by_activity, silent, listening = indicators
    day, activity, ringer, headphones, music = situation_codes
    priority, updates, app = effect_codes
    n = len(rows)
    out = np.empty(n)
    for i in range(n):
        r = rows[i]
        c = channel[i]
        if c < 0 or not has_app[r, app[i]]:
            out[i] = -np.inf
            continue
        base = intercept[r]
        for f in range(len(context_tables)):
            base += context_tables[f][r, context_codes[f][i]]
        base += amplitude[r] * cycle[0, i]
        base += asleep_penalty[r] * np.float64(asleep[i])
        base += novelty[r] * cycle[1, i]
        base += mood[i]
        notification = 0.0
        for f in range(len(notification_tables)):
            notification += notification_tables[f][r, notification_codes[f][i]]
        s0 = curves[0, i]
        s1 = by_day[day[i], 0] * curves[1, i] * curves[2, i]
        s2 = curves[3, i] * curves[4, i]
        s3 = 1.0 - curves[5, i] * curves[4, i]
        s4 = by_day[day[i], 1]
        s5 = by_activity[activity[i], 0]
        s6 = by_activity[activity[i], 1]
        s7 = by_activity[activity[i], 2]
        s8 = silent[ringer[i]]
        s9 = listening[headphones[i], music[i]]
        a = interactions[r, group_of_channel[c]]
        b = by_priority[priority[i]]
        u = by_updates[updates[i]]
        even = s6 * (a[6] + b[6] + u[6]) + 0.0
        odd = s7 * (a[7] + b[7] + u[7]) + 0.0
        even = s4 * (a[4] + b[4] + u[4]) + even
        odd = s5 * (a[5] + b[5] + u[5]) + odd
        even = s2 * (a[2] + b[2] + u[2]) + even
        odd = s3 * (a[3] + b[3] + u[3]) + odd
        even = s0 * (a[0] + b[0] + u[0]) + even
        odd = s1 * (a[1] + b[1] + u[1]) + odd
        even = s8 * (a[8] + b[8] + u[8]) + even
        odd = s9 * (a[9] + b[9] + u[9]) + odd
        interaction = 0.0 + (even + odd)
        penalty = fatigue_weight[r] * fatigue[i]
        penalty = penalty + by_app[r] * np.sqrt(app_exposure[i])
        penalty = penalty + by_subject[r] * np.sqrt(subject_exposure[i])
        penalty = penalty + by_channel[r] * np.sqrt(channel_exposure[i])
        out[i] = base + notification + interaction - penalty
    return out


@kernel
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
