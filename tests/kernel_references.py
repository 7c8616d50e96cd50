"""Plain numpy (and scipy) versions of the model's compiled kernels: what each kernel must
compute, for the property tests and ``scripts/bench_kernels.py``."""

from __future__ import annotations

import itertools

import numpy as np

CHUNK = 600.0  # time constants per chunk of the cumulative sums (exp(600) is finite)
KEY_GAP = 60.0  # time constants between two keys' timelines


def categorical_codes(cdf: np.ndarray, uniforms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """One sorted search over the normalised rows stacked end to end (whatever the keys' rows)."""
    width = cdf.shape[1]
    stacked = (cdf / cdf[:, -1:] + np.arange(len(cdf))[:, None]).ravel()
    flat = np.searchsorted(stacked, uniforms + rows, side="right")
    return np.minimum(flat - rows * width, width - 1).astype(np.int16)


def thinned_slots(day: np.ndarray, slot_of_day: np.ndarray, row: np.ndarray, sleeping: np.ndarray,
                  asleep_factor: np.ndarray, keep_draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The flat slots, then one mask of the kept proposals."""
    slot = day.astype(np.int64) * sleeping.shape[1] + slot_of_day
    keep = np.where(sleeping.ravel()[slot] > 0, keep_draws < asleep_factor[row], True)
    return slot[keep], row[keep]


def all_posts(seconds: np.ndarray, app: np.ndarray, messaging: np.ndarray, follow_ups: np.ndarray,
              gaps: np.ndarray, alarm_seconds: np.ndarray, clock_app: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The follow-ups through np.repeat and cumulative sums, the three parts concatenated."""
    count, n_alarms = len(seconds), len(alarm_seconds)
    parent = np.repeat(np.flatnonzero(messaging), follow_ups)
    counts = follow_ups[follow_ups > 0]
    first = np.cumsum(counts) - counts
    position = np.arange(len(parent)) - np.repeat(first, counts) + 1
    offset = np.cumsum(gaps)
    offset -= np.repeat(offset[first] - gaps[first], counts) if len(parent) else 0.0
    return (np.concatenate([seconds, seconds[parent] + offset, alarm_seconds]),
            np.concatenate([app, app[parent], np.full(n_alarms, clock_app)]),
            np.concatenate([np.zeros(count, dtype=np.int64), position, np.zeros(n_alarms, dtype=np.int64)]
                           ).astype(np.int16),
            np.concatenate([np.where(messaging, np.arange(count), -1), parent, np.full(n_alarms, -1)]),
            np.r_[np.zeros(count + len(parent), dtype=bool), np.ones(n_alarms, dtype=bool)])


def time_order(seconds: np.ndarray, thread: np.ndarray, volume: np.ndarray, slot_seconds: float,
               slots_per_day: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kept posts through a mask and one stable sort, their threads through an index map."""
    keep = (seconds >= 0) & (seconds < len(volume) * slots_per_day * slot_seconds)
    keep[keep] = volume[(seconds[keep] // 86400).astype(np.int64)] > 0
    kept = np.flatnonzero(keep)[np.argsort(seconds[keep], kind="stable")]
    new_index = np.full(len(seconds), -1)
    new_index[kept] = np.arange(len(kept))
    kept_thread = thread[kept]
    kept_thread = np.where(kept_thread >= 0, new_index[np.maximum(kept_thread, 0)], -1)
    return (kept, (seconds[kept] // slot_seconds).astype(np.int64), (seconds[kept] % 86400) / 3600.0,
            kept_thread)


def slot_states(slots_per_day: int, slot_hours: float, commute_hours: float, wake: np.ndarray,
                bedtime: np.ndarray, workday: np.ndarray, leave: np.ndarray, work_end: np.ndarray,
                home_again: np.ndarray, errand_start: np.ndarray, outing_start: np.ndarray,
                outing_end: np.ndarray, exercise_start: np.ndarray, trip_start: np.ndarray) -> np.ndarray:
    """Every plan item as a mask over the slots, the first that covers a slot chosen by np.select."""
    d = np.repeat(np.arange(len(wake)), slots_per_day)
    h = np.tile(np.arange(slots_per_day) * slot_hours, len(wake))
    previous_bedtime = np.concatenate(([bedtime[0] - 24], bedtime[:-1]))[d] - 24
    previous_outing_end = np.concatenate(([np.nan], outing_end[:-1]))[d] - 24
    asleep = (h >= bedtime[d]) | ((h < wake[d]) & (h >= previous_bedtime))
    commuting = workday[d] & (((h >= leave[d]) & (h < leave[d] + commute_hours))
                              | ((h >= work_end[d]) & (h < home_again[d])))
    working = workday[d] & (h >= leave[d] + commute_hours) & (h < work_end[d])
    errand = (h >= errand_start[d]) & (h < errand_start[d] + 0.5)
    outing = ((h >= outing_start[d]) & (h < outing_end[d])) | (h < previous_outing_end)
    exercise = (h >= exercise_start[d]) & (h < exercise_start[d] + 0.75)
    travel = (h >= trip_start[d]) & (h < trip_start[d] + 3.0)
    return np.select([asleep, travel, commuting, working & ~errand, exercise, outing, errand],
                     [0, 7, 2, 3, 6, 5, 4], default=1).astype(np.int8)


def slot_places(state: np.ndarray, slots_per_day: int, slot_hours: float, outing_end: np.ndarray,
                errand_place: np.ndarray, outing_place: np.ndarray, home: int, work: int,
                airport: int) -> np.ndarray:
    """The place of each state through np.select, the outing's day through a mask."""
    d = np.arange(len(state)) // slots_per_day
    h = (np.arange(len(state)) % slots_per_day) * slot_hours
    previous_outing_end = np.concatenate(([np.nan], outing_end[:-1]))[d] - 24
    outing_day = np.where(h < previous_outing_end, np.maximum(d - 1, 0), d)
    chosen = np.select([state == 3, state == 4, state == 5, state == 7],
                       [work, errand_place[d], outing_place[outing_day], airport], default=home)
    return chosen.astype(np.int16)


def branch_exponents(asleep: np.ndarray, opened: np.ndarray, later: np.ndarray, z_seen: np.ndarray,
                     z_decision: np.ndarray, swipe_share: float, delayed_share: float, delayed_seconds: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every branch computed for every row, one picked by np.where."""
    decision = [np.where(later < delayed_share, 1.3 * z_decision, 0.8 * z_decision),
                np.where(later < swipe_share, 0.7 * z_decision, 1.0 * z_decision)]
    median = [np.where(later < delayed_share, delayed_seconds, 4.0),
              np.where(later < swipe_share, 3.0, 2400.0)]
    return (np.where(asleep, 0.8 * z_seen, 1.1 * z_seen), np.where(opened, *decision),
            np.where(opened, *median))


def seen_seconds(asleep: np.ndarray, seconds_to_wake: np.ndarray, seen_median: float,
                 ringer_factor: np.ndarray, ringer: np.ndarray, priority_factor: np.ndarray,
                 priority: np.ndarray, state_factor: np.ndarray, state: np.ndarray, evening: np.ndarray,
                 spread: np.ndarray) -> np.ndarray:
    """Both branches for every row, one picked by np.where."""
    median = seen_median * ringer_factor[ringer] * priority_factor[priority] * state_factor[state] * evening
    return np.where(asleep, seconds_to_wake + 40.0 * spread, median * spread)


def post_channels(app: np.ndarray, pick: np.ndarray, of_app: np.ndarray, triggered_channel: np.ndarray,
                  alarm: np.ndarray, trigger_on: np.ndarray, trigger_draws: np.ndarray,
                  triggered_share: float) -> np.ndarray:
    """The picked and the triggered channel of every post, one chosen by np.where."""
    triggered = triggered_channel[app]
    use_trigger = (triggered >= 0) & (alarm | (trigger_on & (trigger_draws < triggered_share)))
    return np.where(use_trigger, triggered, of_app[app, pick])


def thread_values(values: np.ndarray, thread_position: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """One fancy-indexed assignment over the follow-ups."""
    out = values.copy()
    follow_up = thread_position > 0
    out[follow_up] = out[thread[follow_up]]
    return out


def context_codes(slot: np.ndarray, slots_per_day: int, place: np.ndarray, activity: np.ndarray,
                  noise: np.ndarray, proximity: np.ndarray, ringer: np.ndarray, percent: np.ndarray,
                  level_bounds: np.ndarray, level_codes: np.ndarray, charging: np.ndarray,
                  headphones: np.ndarray, music: np.ndarray, flag_codes: np.ndarray,
                  weekday_of_day: np.ndarray, hour: np.ndarray, time_block: np.ndarray) -> np.ndarray:
    """Every per-slot array read at the slots, the battery level and the flags through masks and
    np.where, stacked."""
    at_slot = percent[slot]
    level = np.full(len(slot), level_codes[1])
    level[at_slot < level_bounds[0]] = level_codes[0]
    level[at_slot >= level_bounds[1]] = level_codes[2]
    flags = [np.where(flag[slot], codes[1], codes[0])
             for flag, codes in zip((charging, headphones, music), flag_codes, strict=True)]
    rows = [place[slot], activity[slot], noise[slot], proximity[slot], ringer[slot], level, *flags,
            weekday_of_day[slot // slots_per_day], time_block[hour.astype(np.int64)]]
    return np.stack(rows).astype(np.int16)


def seconds_to_wake(slot: np.ndarray, hour: np.ndarray, seconds: np.ndarray, wake: np.ndarray,
                    slots_per_day: int) -> np.ndarray:
    """The day after a post's wake-up hour through a mask, the wake-up's second through a gather."""
    day = slot // slots_per_day
    after_wake = day + (hour >= wake[day])
    wake_seconds = (after_wake * 24.0 + wake[np.minimum(after_wake, len(wake) - 1)]) * 3600
    return np.maximum(wake_seconds - seconds, 0.0)


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


def next_true(mask: np.ndarray) -> np.ndarray:
    """Index of the first True at or after each position (len(mask) when none)."""
    positions = np.where(mask, np.arange(len(mask)), len(mask))
    return np.minimum.accumulate(positions[::-1])[::-1]


def spending(state: np.ndarray, music: np.ndarray, drain_by_state: np.ndarray, music_drain: float,
             drain_per_slot: float, charger_by_state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A cumulative sum of the slots' drain, and a reversed running minimum of the charger slots."""
    drain = drain_per_slot * (drain_by_state[state] + music_drain * music)
    return np.concatenate(([0.0], np.cumsum(drain))), next_true(charger_by_state[state])


def slot_levels(spent: np.ndarray, starts: np.ndarray, levels: np.ndarray, plugged: np.ndarray,
                per_slot_charge: float) -> tuple[np.ndarray, np.ndarray]:
    """Each slot's run through np.repeat, both levels computed for every slot."""
    n = len(spent) - 1
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
    since = np.arange(n) - starts[run]
    charging = plugged[run]
    percent = np.where(charging, np.minimum(100.0, levels[run] + per_slot_charge * since),
                       np.maximum(1.0, levels[run] - (spent[:n] - spent[starts[run]])))
    return percent, charging


def slot_ringer(state: np.ndarray, segment: np.ndarray, segment_mode: np.ndarray, quiet_night: np.ndarray,
                night_mode: np.ndarray, do_not_disturb: np.ndarray, slots_per_day: int, slot_hours: float,
                quiet_until_hour: float, sleep: int, home: int, silent: int) -> np.ndarray:
    """The slots' days, hours and nights (noon to noon) as arrays, the modes chosen by np.where."""
    day = np.repeat(np.arange(len(state) // slots_per_day), slots_per_day)
    hour = np.tile(np.arange(slots_per_day) * slot_hours, len(state) // slots_per_day)
    night = ((day * 24 + hour + 12) // 24).astype(np.int64)
    small_hours = (hour < quiet_until_hour) & (state == home)
    quieted = quiet_night[night] & ((state == sleep) | small_hours)
    mode = np.where(quieted, night_mode[night], segment_mode[segment])
    return np.where(do_not_disturb[day], silent, mode).astype(np.int16)


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


def row_logits(rows: np.ndarray, user_terms: tuple, context_tables: tuple, context_codes: tuple,
               cycle: np.ndarray, asleep: np.ndarray, mood: np.ndarray, curves: np.ndarray, indicators: tuple,
               situation_codes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The row terms as whole arrays, as ``engagement.row_terms`` adds them."""
    intercept, amplitude, asleep_penalty, novelty = user_terms
    base = feature_sums(intercept[rows], context_tables, rows, context_codes)
    base += amplitude[rows] * cycle[0]
    base += asleep_penalty[rows] * asleep
    base += novelty[rows] * cycle[1]
    base += mood
    by_day, by_activity, silent, listening = indicators
    day, activity, ringer, headphones, music = situation_codes
    situations = situation_columns(curves, by_day, day, by_activity, activity, silent, ringer, listening,
                                   headphones, music)
    return base, situations.reshape(len(rows), 10)


def notification_logits(base: np.ndarray, situations: np.ndarray, rows: np.ndarray, tables: tuple,
                        codes: np.ndarray, interactions: np.ndarray, group_of_channel: np.ndarray,
                        channel: np.ndarray, by_priority: np.ndarray, by_updates: np.ndarray,
                        possible: np.ndarray, penalty_terms: tuple, exposures: np.ndarray) -> np.ndarray:
    """The notification terms and the exposure penalty as whole arrays, combined as
    ``simulated_user.combine`` does (the situation interaction through NumPy's einsum)."""
    fatigue_weight, *habituation = penalty_terms
    notification = feature_sums(np.zeros(len(rows)), tables, rows, tuple(codes.T))
    group = group_of_channel[np.maximum(channel, 0)]
    per_situation = interactions[rows, group] + by_priority[codes[:, 4]] + by_updates[codes[:, 2]]
    penalty = fatigue_weight[rows] * exposures[:, 0]
    for key, weight in enumerate(habituation, start=1):
        penalty = penalty + weight[rows] * np.sqrt(exposures[:, key])
    interaction = np.einsum("...k,...k->...", situations, per_situation)
    logit = base + notification + interaction - penalty
    return np.where(possible, logit, -np.inf)


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


def sequence_states(entropies: np.ndarray, n_words64: int) -> np.ndarray:
    """NumPy's own SeedSequence of each row's words (no spawn key: its assembled entropy is the words)."""
    return np.array([np.random.SeedSequence([int(word) for word in row]).generate_state(n_words64, np.uint64)
                     for row in entropies], dtype=np.uint64).reshape(len(entropies), n_words64)


def state_runs(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A mask of the changes, its running count, and the values where it is set."""
    change = np.empty(len(state), dtype=bool)
    change[:1] = True
    np.not_equal(state[1:], state[:-1], out=change[1:])
    return np.cumsum(change) - 1, state[change]


def trigger_lasts(app: np.ndarray, slot: np.ndarray, trigger_of_app: np.ndarray, state: np.ndarray,
                  music: np.ndarray, triggers: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Nested whole-array choices by trigger."""
    trigger, at_slot = trigger_of_app[app], state[slot]
    commuting = (at_slot == states[0]) | (at_slot == states[1])
    exercising = (trigger == triggers[2]) & (at_slot == states[2])
    not_music = np.where(trigger == triggers[1], commuting, exercising)
    return np.where(trigger == triggers[0], music[slot], not_music)


def logged_decayed_sums(seconds: np.ndarray, priority: np.ndarray, updates: np.ndarray,
                        interruption_by_priority: np.ndarray, no_updates: int, update_interruption: float,
                        fatigue_tau_seconds: float, app: np.ndarray, subject: np.ndarray, channel: np.ndarray,
                        key_sizes: np.ndarray, habituation_tau_seconds: np.ndarray, lead: int, shift: float
                        ) -> np.ndarray:
    """The interruptions as whole arrays, then one ``keyed_decayed_sums`` per sum."""
    update_factor = np.where(updates != no_updates, update_interruption, 1.0)
    interrupts = interruption_by_priority[priority] * update_factor
    alone = np.zeros(len(seconds), dtype=np.int64)
    once = np.ones(len(seconds))
    sums = [keyed_decayed_sums(seconds, alone, 1, fatigue_tau_seconds, interrupts, lead, shift)]
    for keys, size, tau in zip((app, subject, channel), key_sizes, habituation_tau_seconds, strict=True):
        sums.append(keyed_decayed_sums(seconds, keys.astype(np.int64), int(size), tau, once, lead, shift))
    return np.array(sums).reshape(4, len(seconds))


def evening_exponents(hour: np.ndarray, peak_hour: float, width_hours: float) -> np.ndarray:
    """The circular distance and the Gaussian exponent as whole arrays."""
    distance = np.abs(hour - peak_hour)
    distance = np.minimum(distance, 24.0 - distance)
    return -0.5 * (distance / width_hours) ** 2


def rhythm_exponents(hours: np.ndarray, peaks: np.ndarray, width_hours: float) -> np.ndarray:
    """The circular distances and the Gaussian exponents as one broadcast."""
    distance = np.abs(hours[None, None, :] - peaks[:, :, None])
    distance = np.minimum(distance, 24 - distance)
    return -0.5 * (distance / width_hours) ** 2


def rhythm_sums(floor: float, heights: np.ndarray, bells: np.ndarray) -> np.ndarray:
    """NumPy's nansum over the peaks."""
    return floor + np.nansum(heights[:, :, None] * bells, axis=1)


def count_updates(updates: np.ndarray, thread: np.ndarray, thread_position: np.ndarray, channel: np.ndarray,
                  carries_every_update: np.ndarray, steps: np.ndarray, levels: np.ndarray) -> None:
    """The conversation rows through a mask, their levels through one sorted search."""
    in_thread = np.flatnonzero((thread >= 0) & carries_every_update[channel])
    updates[in_thread] = levels[np.searchsorted(steps, thread_position[in_thread], side="right")]


def chosen_updates(channel: np.ndarray, other: np.ndarray, usual_updates: np.ndarray, has_others: np.ndarray,
                   keep_draws: np.ndarray, usual_share: float) -> np.ndarray:
    """A mask of the usual levels, then one choice."""
    keep_usual = ~has_others[channel] | (keep_draws < usual_share)
    return np.where(keep_usual, usual_updates[channel], other).astype(np.int16)


def weighted_cumulative(weight: np.ndarray, rows: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The products as a whole array, then NumPy's running sum along each row."""
    return np.cumsum(weight[rows] * scale[None, :], axis=1)


def received_exposures(value: np.ndarray, time: np.ndarray, cells: np.ndarray, t: np.ndarray, tau: np.ndarray,
                       interrupts: np.ndarray, reaches: np.ndarray, with_channel: np.ndarray) -> np.ndarray:
    """Every cell read as a whole array, then the reached notifications' cells written at once."""
    out = value[cells] * np.exp(-(t[:, None] - time[cells]) / tau)
    added = out + np.where(np.arange(4) == 0, interrupts[:, None], 1.0)
    written = reaches[:, None] & ((np.arange(4) < 3) | with_channel[:, None])
    value[cells[written]] = added[written]
    time[cells[written]] = np.broadcast_to(t[:, None], cells.shape)[written]
    return out
