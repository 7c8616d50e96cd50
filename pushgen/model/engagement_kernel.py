"""Kernels of the engagement nodes: the hidden availability's daily AR(1) level, what each
notification adds per unit of each situation, the features' weights, and the open log-odds of rows
in one pass."""

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
def situation_effects(interactions: np.ndarray, rows: np.ndarray, group: np.ndarray,
                      by_priority: np.ndarray, priority: np.ndarray,
                      by_updates: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """effects[i, s] = interactions[rows[i], group[i], s] + by_priority[priority[i], s]
    + by_updates[updates[i], s], added in that order (the sum NumPy's broadcasting gives)."""
    situations = interactions.shape[2]
    effects = np.empty((len(rows), situations))
    for i in range(len(rows)):
        for s in range(situations):
            effects[i, s] = (interactions[rows[i], group[i], s] + by_priority[priority[i], s]
                             + by_updates[updates[i], s])
    return effects


@kernel
def feature_sums(start: np.ndarray, tables: tuple, rows: np.ndarray, codes: tuple) -> np.ndarray:
    """start[i] + tables[0][rows[i], codes[0][i]] + tables[1][rows[i], codes[1][i]] + ..., added in
    that order: each feature's weight of each row's user and value."""
    total = np.empty(len(start))
    for i in range(len(start)):
        r = rows[i]
        value = start[i]
        for f in range(len(tables)):
            value += tables[f][r, codes[f][i]]
        total[i] = value
    return total


@kernel
def open_logits(row_weights: np.ndarray, notification_weights: np.ndarray, rows: np.ndarray,
                state_weights: tuple, state: tuple, asleep: np.ndarray, situations: np.ndarray,
                interactions: np.ndarray, group_of_channel: np.ndarray, channel: np.ndarray,
                by_priority: np.ndarray, priority: np.ndarray, by_updates: np.ndarray, updates: np.ndarray,
                has_app: np.ndarray, app: np.ndarray, penalty_weights: tuple, exposures: tuple) -> np.ndarray:
    """The open log-odds of each row, -inf where its notification is not possible (no channel, or
    an app the user does not have), adding exactly as ``engagement.combine`` of the row terms, the
    notification terms and the exposure penalty does:

    row base = row_weights + amplitude[r] * attention + asleep_penalty[r] * asleep
               + novelty[r] * freshness + mood,
    ``state_weights`` = (amplitude, asleep_penalty, novelty) per user and
    ``state`` = (attention, freshness, mood) per row;
    interaction = sum over k of situations[i, k] * effect_k, effect_k = interactions[r, group, k]
    + by_priority[priority, k] + by_updates[updates, k], in the order NumPy's einsum adds a
    contiguous product in two lanes: even and odd k apart, eight k at a time (each block's last
    pair first), then the two lanes' sums added;
    penalty = fatigue_weight[r] * fatigue + sum over the habituation keys of
    habituation[r] * sqrt(exposure), ``penalty_weights`` = (fatigue_weight, habituation per key)
    and ``exposures`` = (fatigue, exposure per key);
    logit = row base + notification_weights + interaction - penalty.
    """
    amplitude, asleep_penalty, novelty = state_weights
    attention, freshness, mood = state
    n, width = situations.shape
    out = np.empty(n)
    for i in range(n):
        r = rows[i]
        c = channel[i]
        if c < 0 or not has_app[r, app[i]]:
            out[i] = -np.inf
            continue
        base = row_weights[i] + amplitude[r] * attention[i]
        base += asleep_penalty[r] * np.float64(asleep[i])
        base += novelty[r] * freshness[i]
        base += mood[i]
        s = situations[i]
        a = interactions[r, group_of_channel[c]]
        b = by_priority[priority[i]]
        u = by_updates[updates[i]]
        even = 0.0
        odd = 0.0
        k = 0
        while k + 8 <= width:
            for j in (6, 4, 2, 0):
                even = s[k + j] * (a[k + j] + b[k + j] + u[k + j]) + even
                odd = s[k + j + 1] * (a[k + j + 1] + b[k + j + 1] + u[k + j + 1]) + odd
            k += 8
        while k < width:
            even = s[k] * (a[k] + b[k] + u[k]) + even
            odd = (s[k + 1] * (a[k + 1] + b[k + 1] + u[k + 1]) if k + 1 < width else 0.0) + odd
            k += 2
        interaction = 0.0 + (even + odd)
        penalty = penalty_weights[0][r] * exposures[0][i]
        for key in range(1, len(exposures)):
            penalty = penalty + penalty_weights[key][r] * np.sqrt(exposures[key][i])
        out[i] = base + notification_weights[i] + interaction - penalty
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
