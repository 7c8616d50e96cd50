"""Statistics of a notifications table over time: the rows as arrays, the load of the hour
before each row (the observable proxy of fatigue), and the open rate by period."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FATIGUE_WINDOW_MINUTES = 60
FATIGUE_BUCKETS = ((0, 2), (3, 5), (6, 10), (11, None))
PERIOD_DAYS = 28


@dataclass(frozen=True)
class Rows:
    user: np.ndarray
    ms: np.ndarray
    day: np.ndarray  # days since the first day
    hour: np.ndarray
    weekday: np.ndarray  # 0 = Monday
    opened: np.ndarray
    response: np.ndarray
    seen: np.ndarray


def num_or_none(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def mean_or_none(values: np.ndarray) -> float | None:
    return num_or_none(values.mean()) if len(values) else None


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and each value's position among them (``np.unique(values,
    return_inverse=True)``); integers spanning no more than a few times their count are ranked by
    counting, not sorting."""
    values = np.asarray(values).reshape(-1)
    if len(values) and values.dtype.kind in "iub" and np.all(values[1:] >= values[:-1]):  # in order
        starts = np.r_[0, np.flatnonzero(values[1:] != values[:-1]) + 1]
        return values[starts], np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(values)]))
    if len(values) and values.dtype.kind in "iub":
        low = int(values.min())
        span = int(values.max()) - low + 1
        if span <= 4 * len(values) + 1024:
            present = np.zeros(span, dtype=bool)
            offsets = values.astype(np.int64) - low
            present[offsets] = True
            uniques = (np.flatnonzero(present) + low).astype(values.dtype)
            return uniques, (np.cumsum(present) - 1)[offsets]
    uniques, inverse = np.unique(values, return_inverse=True)
    return uniques, inverse.reshape(-1).astype(np.int64)


def dense_rank(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct values (``np.unique(values, return_inverse=True)[1]``)."""
    return distinct(values)[1]


def group_medians(group: np.ndarray | None, values: np.ndarray, groups: int) -> np.ndarray:
    """The median of ``values`` in each of ``groups`` groups numbered 0.. (``group`` None: one group
    of all values), NaN values left out (NaN: a group without values), as a pandas groupby's
    ``median`` gives it.

    No group is sorted: rows are counted into buckets by group and the leading bits of their value,
    and only the rows of the buckets that hold a group's middle values are sorted."""
    values = np.asarray(values, dtype=np.float64)
    valid = ~np.isnan(values)
    if not valid.all():
        values = values[valid]
        group = group[valid] if group is not None else None
    bits = sortable_bits(values)
    lowest = bits.min() if len(bits) else np.uint64(0)
    span = int(bits.max()) - int(lowest) if len(bits) else 0
    radix = max(1, min(16, (len(values) // (4 * groups)).bit_length()))
    bucket = bits - lowest
    bucket >>= np.uint64(max(0, span.bit_length() - radix))
    if group is not None:
        high = group.astype(np.uint64)
        high <<= np.uint64(radix)
        bucket |= high
    bucket = bucket.view(np.int64)
    sizes = np.bincount(bucket, minlength=groups << radix)
    ends = np.cumsum(sizes)
    count = ends[(1 << radix) - 1::1 << radix] - np.r_[0, ends[(1 << radix) - 1:-1:1 << radix]]
    first = np.cumsum(count) - count
    has = count > 0
    middle = np.concatenate([(first + (count - 1) // 2)[has], (first + count // 2)[has]])
    wanted = np.searchsorted(ends, middle, side="right")
    chosen = np.zeros(len(sizes), dtype=bool)
    chosen[wanted] = True
    rows = np.flatnonzero(chosen[bucket])
    rows = rows[np.lexsort((bits[rows], bucket[rows]))]
    chosen_buckets = np.flatnonzero(chosen)
    chosen_starts = np.cumsum(sizes[chosen_buckets]) - sizes[chosen_buckets]
    within = middle - (ends[wanted] - sizes[wanted])
    low, high = np.split(values[rows[chosen_starts[np.searchsorted(chosen_buckets, wanted)] + within]], 2)
    medians = np.full(groups, np.nan)
    medians[has] = np.where(count[has] % 2 == 1, low, (low + high) / 2)  # as np.median
    return medians


def median_or_none(values: np.ndarray) -> float | None:
    """``np.median`` of the values (None: no values, or a NaN among them)."""
    if not len(values) or np.isnan(values).any():
        return None
    return num_or_none(group_medians(None, values, 1)[0])


def counts_and_opens(key: np.ndarray, opened: np.ndarray, keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and opened rows for each key 0..keys-1, by one count of ``key * 2 + opened``."""
    index = np.multiply(key, 2, dtype=np.intp)
    index += opened
    both = np.bincount(index, minlength=2 * keys).reshape(-1, 2)
    return both.sum(axis=1), both[:, 1]


def sortable_bits(values: np.ndarray) -> np.ndarray:
    """Float64 values as unsigned integers in the same order."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    if not np.signbit(values).any():
        return bits
    negative = (bits >> np.uint64(63)).astype(bool)
    return bits ^ np.where(negative, np.uint64(0xFFFF_FFFF_FFFF_FFFF), np.uint64(1 << 63))


def recent_load(user: np.ndarray, ms: np.ndarray, window_ms: int) -> np.ndarray:
    """Per row: the same user's notifications posted less than ``window_ms`` before it.

    Rows at the same instant count in table order (the earlier row is the preceding one).
    """
    stride = int(ms.max() - ms.min()) + window_ms + 1 if len(ms) else 1
    order = None  # first try the rows' own order: (user, time), as a dataset's rows are
    key = _user_time_key(user, ms, stride) if np.all(user[1:] >= user[:-1]) else None
    if key is None or np.any(key[1:] < key[:-1]):
        order = np.lexsort((ms, user))
        key = _user_time_key(user[order], ms[order], stride)
    preceding = np.searchsorted(key, key - window_ms, side="right")
    np.subtract(np.arange(len(key)), preceding, out=preceding)
    if order is None:
        return preceding.astype(np.int64, copy=False)
    load = np.empty(len(key), dtype=np.int64)
    load[order] = preceding
    return load


def _user_time_key(user: np.ndarray, ms: np.ndarray, stride: int) -> np.ndarray:
    """For rows ordered by user: the user's number times ``stride`` plus the time since the first."""
    key = np.zeros(len(ms), dtype=np.int64)
    np.cumsum(user[1:] != user[:-1], out=key[1:])
    key *= stride
    key += ms
    key -= ms.min(initial=0)
    return key


def fatigue_stats(rows: Rows, app: np.ndarray) -> dict:
    load = recent_load(rows.user, rows.ms, FATIGUE_WINDOW_MINUTES * 60_000)
    per_load = counts_and_opens(load, rows.opened, int(load.max(initial=0)) + 1)
    starts = [low for low, _ in FATIGUE_BUCKETS]
    counts, opens = (np.add.reduceat(np.r_[per_level, np.zeros(starts[-1], dtype=np.int64)], starts)
                     for per_level in per_load)  # padded: every bucket's first level exists
    buckets = {}
    for (low, high), n, opened in zip(FATIGUE_BUCKETS, counts, opens, strict=True):
        label = f"{low}-{high}" if high is not None else f"{low}+"
        buckets[label] = {"n": int(n), "share": num_or_none(n / len(load)),
                          "open_rate": num_or_none(opened / n) if n else None}
    user = dense_rank(rows.user)
    by_user, users = group_contrast(load, rows.opened, user)
    app_codes = app.astype(np.int64) - int(app.min(initial=0))  # ordered as their ranks
    user_app = dense_rank(user * (int(app_codes.max(initial=0)) + 1) + app_codes)
    by_user_app, groups = group_contrast(load, rows.opened, user_app)
    return {
        "window_minutes": FATIGUE_WINDOW_MINUTES,
        "buckets": buckets,
        "within_user_contrast": by_user,
        "users_in_contrast": users,
        "within_user_app_contrast": by_user_app,
        "user_apps_in_contrast": groups,
    }


def contrast(load: np.ndarray, opened: np.ndarray, keys: list[np.ndarray]) -> tuple[float | None, int]:
    """Mean over groups of open rate above minus at/below the group's median load."""
    return group_contrast(load, opened, group_numbers(keys))


def group_numbers(keys: list[np.ndarray]) -> np.ndarray:
    """Rows numbered by their keys' combination, in the order of the keys (as a sorted groupby
    numbers its groups)."""
    group = dense_rank(keys[0])
    for key in keys[1:]:
        index = dense_rank(key)
        group *= int(index.max(initial=0)) + 1
        group += index
        group = dense_rank(group)
    return group


def group_contrast(load: np.ndarray, opened: np.ndarray, group: np.ndarray) -> tuple[float | None, int]:
    """``contrast`` within the groups numbered 0.. by ``group``."""
    load = np.asarray(load)
    opened = np.asarray(opened, dtype=bool)
    groups = int(group.max()) + 1 if len(group) else 0
    lowest, highest = (int(load.min()), int(load.max())) if len(load) else (0, 0)
    levels = highest - lowest + 1
    if load.dtype.kind in "iu" and groups * levels <= 4 * len(load) + 1024:
        count, n_above, opens, opens_above = _level_counts(load, opened, group, groups, lowest, levels)
    else:
        count, n_above, opens, opens_above = _row_counts(load, opened, group)
    both = (n_above > 0) & (n_above < count)
    difference = (opens_above[both] / n_above[both]
                  - (opens[both] - opens_above[both]) / (count[both] - n_above[both]))
    return mean_or_none(difference), len(difference)


def _level_counts(load: np.ndarray, opened: np.ndarray, group: np.ndarray, groups: int, lowest: int,
                  levels: int) -> tuple[np.ndarray, ...]:
    """Rows, rows above the median load, opened rows and opened rows above it per group, from one
    count of the rows by group, load and action."""
    cell = group * levels
    cell += load.astype(np.int64, copy=False)
    if lowest:
        cell -= lowest
    cell *= 2
    cell += opened
    by_level = np.bincount(cell, minlength=2 * groups * levels).reshape(groups, levels, 2)
    rows, opens = by_level.sum(axis=2), by_level[:, :, 1]
    count = rows.sum(axis=1)
    first = np.cumsum(count) - count
    ends = np.cumsum(rows.reshape(-1))
    start = np.arange(groups) * levels - lowest
    low, high = (np.searchsorted(ends, first + k, side="right") - start
                 for k in ((count - 1) // 2, count // 2))
    above = np.arange(lowest, lowest + levels)[None, :] > ((low + high) / 2.0)[:, None]
    return count, (rows * above).sum(axis=1), opens.sum(axis=1), (opens * above).sum(axis=1)


def _row_counts(load: np.ndarray, opened: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_level_counts`` by sorting the rows, for loads of any kind."""
    count = np.bincount(group)
    first = np.cumsum(count) - count
    ordered = load[np.lexsort((load, group))]
    median = (ordered[first + (count - 1) // 2] + ordered[first + count // 2]) / 2.0
    above = load > median[group]
    n_above = np.bincount(group, weights=above, minlength=len(count))
    opens_above = np.bincount(group, weights=opened & above, minlength=len(count))
    opens = np.bincount(group, weights=opened, minlength=len(count))
    return count, n_above, opens, opens_above


def period_stats(counts: np.ndarray, opened: np.ndarray, n_users: int, days: int) -> list[dict]:
    """Rows, notifications per user and day and open rate in each period of ``PERIOD_DAYS`` days,
    from each period's rows and opened rows."""
    out = []
    for p, (count, opens) in enumerate(zip(counts, opened, strict=True)):
        first, last = p * PERIOD_DAYS + 1, min((p + 1) * PERIOD_DAYS, days)
        out.append({"days": [first, last], "n": int(count),
                     "per_user_day": num_or_none(count / (n_users * (last - first + 1))),
                     "open_rate": num_or_none(opens / count) if count else None})
    return out
