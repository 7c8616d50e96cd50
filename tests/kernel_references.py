"""Plain numpy (and scipy) versions of the model's compiled kernels: what each kernel must
compute, for the property tests and ``scripts/bench_kernels.py``."""

from __future__ import annotations

import itertools

import numpy as np

CHUNK = 600.0  # time constants per chunk of the cumulative sums (exp(600) is finite)
KEY_GAP = 60.0  # time constants between two keys' timelines


def stacked_search(stacked: np.ndarray, keys: np.ndarray, rows: np.ndarray, width: int) -> np.ndarray:
    """One sorted search over the whole stacked array (whatever the keys' rows), keys sorted
    first for the cache."""
    order = np.argsort(keys)
    flat = np.empty(len(keys), dtype=np.int64)
    flat[order] = np.searchsorted(stacked, keys[order], side="right")
    return flat


def keyed_decayed_sums(seconds: np.ndarray, keys: np.ndarray, n_keys: int, tau_seconds: float,
                       weights: np.ndarray, lead: int = 0, shift: float = 0.0) -> np.ndarray:
    """Exclusive cumulative sums of exp(t / tau) along the keys' timelines laid end to end,
    ``KEY_GAP`` time constants apart, referenced to chunks of ``CHUNK`` time constants; the
    history of ``lead`` rows laid before the rows as whole arrays."""
    if lead or shift:
        history = np.concatenate([seconds[:lead], seconds + shift])
        return keyed_decayed_sums(history, np.concatenate([keys[:lead], keys]), n_keys, tau_seconds,
                                  np.concatenate([weights[:lead], weights]))[lead:]
    n = len(seconds)
    if n == 0:
        return np.zeros(0)
    order = np.argsort(keys, kind="stable")
    k, x, w = keys[order], np.asarray(seconds, dtype=np.float64)[order] / tau_seconds, weights[order]
    first = np.r_[True, k[1:] != k[:-1]]
    group = np.cumsum(first) - 1
    x = x - x[first][group]
    last = np.r_[first[1:], True]
    offset = np.r_[0.0, np.cumsum(x[last] + KEY_GAP)[:-1]]
    timeline = x + offset[group]
    chunk = np.floor(timeline / CHUNK).astype(np.int64)
    bounds = np.r_[0, np.flatnonzero(np.diff(chunk)) + 1, n]
    out = np.empty(n)
    carry, previous = 0.0, chunk[0]
    for a, b in itertools.pairwise(bounds):
        c = chunk[a]
        carry *= np.exp(-CHUNK * (c - previous))
        local = timeline[a:b] - c * CHUNK
        grown = np.exp(local) * w[a:b]
        before = carry + np.cumsum(grown) - grown
        out[a:b] = before * np.exp(-local)
        carry, previous = carry + grown.sum(), c
    result = np.empty(n)
    result[order] = out
    return result


def charge_runs(spent: np.ndarray, next_charger: np.ndarray, night_start: np.ndarray, night_end: np.ndarray,
                topup_slots: np.ndarray, start_level: float, topup_threshold: float,
                per_slot_charge: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The charge events walked in Python, one scalar search per unplugged run."""
    n = len(spent) - 1
    starts, levels, plugged = [], [], []
    t, level, topups = 0, start_level, 0
    nights = iter(zip(night_start, night_end, strict=True))
    n_start, n_end = next(nights, (n, n))
    while t < n:
        while n_end <= t:
            n_start, n_end = next(nights, (n, n))
        starts.append(t)
        levels.append(level)
        if n_start <= t:
            plugged.append(True)
            level = min(100.0, level + per_slot_charge * (n_end - t))
            t = n_end
            continue
        plugged.append(False)
        low = int(np.searchsorted(spent, spent[t] + level - topup_threshold, side="right"))
        topup = next_charger[min(low, n - 1)] if low < n else n
        stop = min(topup, n_start, n)
        level = max(1.0, level - (spent[stop] - spent[t]))
        t = stop
        if t == topup and t < n_start and t < n:
            length = topup_slots[topups % len(topup_slots)]
            topups += 1
            starts.append(t)
            levels.append(level)
            plugged.append(True)
            end = min(t + length, n_start, n)
            level = min(100.0, level + per_slot_charge * (end - t))
            t = end
    return np.array(starts, dtype=np.int64), np.array(levels, dtype=np.float64), np.array(plugged, dtype=bool)


def markov_chain(first: np.ndarray, cumulative: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The chain walked in Python, one scalar search per day."""
    last = cumulative.shape[1] - 1
    state = np.empty(len(u), dtype=np.int8)
    if len(u):
        state[0] = min(int(np.searchsorted(first, u[0])), last)
    for d in range(1, len(u)):
        state[d] = min(int(np.searchsorted(cumulative[state[d - 1]], u[d])), last)
    return state


def autoregression(shocks: np.ndarray, persistence: float) -> np.ndarray:
    """The AR(1) level as scipy's linear filter computes it."""
    from scipy.signal import lfilter

    return lfilter([1.0], [1.0, -persistence], shocks)


def situation_effects(interactions: np.ndarray, rows: np.ndarray, group: np.ndarray,
                      by_priority: np.ndarray, priority: np.ndarray,
                      by_updates: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """What each notification adds per unit of each situation, as NumPy's broadcasting adds it."""
    return interactions[rows, group] + by_priority[priority] + by_updates[updates]


def _stored(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float32).astype(np.float64)


def row_states(seconds: np.ndarray, slot: np.ndarray, slots_per_day: int, day_level: np.ndarray,
               day_attention: np.ndarray, shift: np.ndarray, segment: np.ndarray, state: np.ndarray,
               sleep: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The row state as whole-array expressions, the floats rounded to float32."""
    day = slot // slots_per_day
    return (_stored((seconds % 86400) / 3600.0), _stored(seconds / 86400.0), state[slot] == sleep,
            _stored(day_level[day] + day_attention[day] + shift[segment[slot]]))


def feature_sums(start: np.ndarray, tables: tuple, rows: np.ndarray, codes: tuple) -> np.ndarray:
    """One whole-array gather and addition per feature."""
    total = start.copy()
    for table, code in zip(tables, codes, strict=True):
        total += table[rows, code]
    return total


def state_exponents(hour: np.ndarray, days: np.ndarray, attention_peak: np.ndarray, rows: np.ndarray,
                    novelty_days: float) -> np.ndarray:
    """The cycle's cosine argument and the novelty's exponent as whole-array expressions."""
    return np.stack([2 * np.pi * (hour - attention_peak[rows]) / 24, -days / novelty_days])


def open_logits(rows: np.ndarray, user_terms: tuple, context_tables: tuple, context_codes: tuple,
                notification_tables: tuple, notification_codes: tuple, cycle: np.ndarray, asleep: np.ndarray,
                mood: np.ndarray, curves: np.ndarray, indicators: tuple, situation_codes: tuple,
                interactions: np.ndarray, group_of_channel: np.ndarray, channel: np.ndarray,
                by_priority: np.ndarray, by_updates: np.ndarray, effect_codes: tuple, has_app: np.ndarray,
                exposures: tuple) -> np.ndarray:
    """The row terms, the notification terms and the exposure penalty as whole arrays, combined as
    ``engagement.combine`` does (the situation interaction through NumPy's einsum)."""
    intercept, amplitude, asleep_penalty, novelty, fatigue_weight, *habituation = user_terms
    base = feature_sums(intercept[rows], context_tables, rows, context_codes)
    base += amplitude[rows] * cycle[0]
    base += asleep_penalty[rows] * asleep
    base += novelty[rows] * cycle[1]
    base += mood
    notification = feature_sums(np.zeros(len(rows)), notification_tables, rows, notification_codes)
    by_day, by_activity, silent, listening = indicators
    day, activity, ringer, headphones, music = situation_codes
    situations = situation_columns(curves, by_day, day, by_activity, activity, silent, ringer, listening,
                                   headphones, music)
    priority, updates, app = effect_codes
    group = group_of_channel[np.maximum(channel, 0)]
    per_situation = interactions[rows, group] + by_priority[priority] + by_updates[updates]
    penalty = fatigue_weight[rows] * exposures[0]
    for weight, exposure in zip(habituation, exposures[1:], strict=True):
        penalty = penalty + weight[rows] * np.sqrt(exposure)
    interaction = np.einsum("...k,...k->...", situations, per_situation)
    logit = base + notification + interaction - penalty
    return np.where((channel >= 0) & has_app[rows, app], logit, -np.inf)


def clock_exponents(hour: np.ndarray, morning_peak: float, morning_width: float, edge_hours: np.ndarray,
                    edge_widths: np.ndarray, rising: np.ndarray) -> np.ndarray:
    """The clock curves' exponents as whole-array expressions."""
    edges = [-((hour - at) / width) if up else -((at - hour) / width)
             for at, width, up in zip(edge_hours, edge_widths, rising, strict=True)]
    return np.stack([-0.5 * ((hour - morning_peak) / morning_width) ** 2, *edges])


def situation_columns(curves: np.ndarray, by_day: np.ndarray, day: np.ndarray, by_activity: np.ndarray,
                      activity: np.ndarray, silent: np.ndarray, ringer: np.ndarray, listening: np.ndarray,
                      headphones: np.ndarray, music: np.ndarray) -> np.ndarray:
    """The situations as whole columns."""
    work_starts, work_ends, evening_starts, day_ends, night_ends = curves[1:6]
    return np.column_stack([
        curves[0], by_day[day, 0] * work_starts * work_ends, evening_starts * day_ends,
        1.0 - night_ends * day_ends, by_day[day, 1], by_activity[activity], silent[ringer],
        listening[headphones, music],
    ])
