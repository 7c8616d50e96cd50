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


def median_or_none(values: np.ndarray) -> float | None:
    return num_or_none(np.median(values)) if len(values) else None


def dense_rank(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct values (``np.unique(values, return_inverse=True)[1]``);
    integers spanning no more than a few times their count are ranked by counting, not sorting."""
    values = np.asarray(values).reshape(-1)
    if len(values) and values.dtype.kind in "iub":
        low = int(values.min())
        span = int(values.max()) - low + 1
        if span <= 4 * len(values) + 1024:
            present = np.zeros(span, dtype=bool)
            offsets = values.astype(np.int64) - low
            present[offsets] = True
            return (np.cumsum(present) - 1)[offsets]
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)


def group_medians(group: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """The median of ``values`` in each of ``groups`` groups numbered 0.., NaN values left out
    (NaN: a group without values), as a pandas groupby's ``median`` gives it."""
    valid = ~np.isnan(values)
    group, values = group[valid], values[valid]
    small = group.astype(np.int16) if groups <= np.iinfo(np.int16).max else group  # radix-sorted
    by_group = values[np.argsort(small, kind="stable")]
    ends = np.cumsum(np.bincount(group, minlength=groups))
    return np.array([np.median(by_group[end - count:end]) if count else np.nan
                     for end, count in zip(ends, np.diff(np.r_[0, ends]), strict=True)])


def recent_load(user: np.ndarray, ms: np.ndarray, window_ms: int) -> np.ndarray:
    """Per row: the same user's notifications posted less than ``window_ms`` before it.

    Rows at the same instant count in table order (the earlier row is the preceding one).
    """
    same_user = user[1:] == user[:-1]
    if np.all((user[1:] > user[:-1]) | (same_user & (ms[1:] >= ms[:-1]))):
        order = None  # already in (user, time) order, as a dataset's rows are
        user_rank = np.r_[0, np.cumsum(~same_user)].astype(np.int64)
        user_ms = ms
    else:
        order = np.lexsort((ms, user))
        user_rank = dense_rank(user[order])
        user_ms = ms[order]
    stride = int(ms.max() - ms.min()) + window_ms + 1
    key = user_rank * stride + (user_ms - ms.min())
    preceding = np.arange(len(key)) - np.searchsorted(key, key - window_ms, side="right")
    if order is None:
        return preceding.astype(np.int64)
    load = np.empty(len(key), dtype=np.int64)
    load[order] = preceding
    return load


def fatigue_stats(rows: Rows, app: np.ndarray) -> dict:
    load = recent_load(rows.user, rows.ms, FATIGUE_WINDOW_MINUTES * 60_000)
    buckets = {}
    for low, high in FATIGUE_BUCKETS:
        mask = (load >= low) & (load <= (high if high is not None else load.max()))
        label = f"{low}-{high}" if high is not None else f"{low}+"
        buckets[label] = {"n": int(mask.sum()), "share": mean_or_none(mask),
                          "open_rate": mean_or_none(rows.opened[mask])}
    by_user, users = contrast(load, rows.opened, [rows.user])
    by_user_app, groups = contrast(load, rows.opened, [rows.user, app])
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
    group = np.zeros(len(load), dtype=np.int64)
    for key in keys:  # groups numbered in the order of their keys, as a sorted groupby numbers them
        index = dense_rank(key)
        group = group * (int(index.max(initial=0)) + 1) + index
    group = dense_rank(group)
    load = np.asarray(load)
    opened = np.asarray(opened, dtype=bool)
    count = np.bincount(group)
    first = np.cumsum(count) - count
    if len(load) and load.min() >= 0:  # each group's loads in ascending order, by one sort of one key
        levels = int(load.max()) + 1
        ordered = np.sort(group * levels + load) % levels
    else:
        ordered = load[np.lexsort((load, group))]
    median = (ordered[first + (count - 1) // 2] + ordered[first + count // 2]) / 2.0
    above = load > median[group]
    n_above = np.bincount(group, weights=above, minlength=len(count))
    opens_above = np.bincount(group, weights=opened & above, minlength=len(count))
    opens = np.bincount(group, weights=opened, minlength=len(count))
    both = (n_above > 0) & (n_above < count)
    difference = (opens_above[both] / n_above[both]
                  - (opens[both] - opens_above[both]) / (count[both] - n_above[both]))
    return mean_or_none(difference), len(difference)


def period_stats(rows: Rows, n_users: int, days: int) -> list[dict]:
    period = rows.day // PERIOD_DAYS
    counts = np.bincount(period)
    opened = np.bincount(period, weights=rows.opened)
    out = []
    for p, (count, opens) in enumerate(zip(counts, opened, strict=True)):
        first, last = p * PERIOD_DAYS + 1, min((p + 1) * PERIOD_DAYS, days)
        out.append({"days": [first, last], "n": int(count),
                     "per_user_day": num_or_none(count / (n_users * (last - first + 1))),
                     "open_rate": num_or_none(opens / count) if count else None})
    return out
