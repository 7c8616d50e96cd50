"""Statistics of a notifications table over time: the rows as arrays, the load of the hour
before each row (the observable proxy of fatigue), and the open rate by period."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pushgen.model.catalog import app_catalog

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

FATIGUE_WINDOW_MINUTES = 60
FATIGUE_BUCKETS = ((0, 2), (3, 5), (6, 10), (11, None))
MS_PER_DAY = 86_400_000
PERIOD_DAYS = 28


@dataclass(frozen=True)
class Rows:
    """The columns of a notifications table that the statistics read, as arrays."""

    user: np.ndarray
    ms: np.ndarray
    day: np.ndarray  # days since the first day
    hour: np.ndarray
    weekday: np.ndarray  # 0 = Monday
    opened: np.ndarray
    response: np.ndarray
    seen: np.ndarray


def table_rows(frame: pd.DataFrame) -> Rows:
    """The rows of a notifications table (schema dtypes) as ``Rows``."""
    ms = frame["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    day = ms // MS_PER_DAY
    return Rows(
        user=frame["user_id"].to_numpy(),
        ms=ms,
        day=day - (day.min() if len(day) else 0),
        hour=(ms % MS_PER_DAY // 3_600_000).astype(np.int8),
        weekday=((day + 3) % 7).astype(np.int8),  # 1970-01-01 was a Thursday
        opened=(frame["action"] == "opened").to_numpy(dtype=bool),
        response=frame["responseTime"].to_numpy(dtype=np.float64),
        seen=frame["seenTime"].to_numpy(dtype=np.float64),
    )


def kind_of_app() -> dict[str, str]:
    """The kind of each app of the catalog, by app name."""
    catalog = app_catalog()
    return dict(zip(catalog.apps, (catalog.kinds[k] for k in catalog.kind_of_app), strict=True))


def num_or_none(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def tally(key: ArrayLike | pd.Series, opened: np.ndarray,
          values: range | list[bool] | None = None) -> pd.DataFrame:
    """Rows (``n``) and opened rows (``opens``) per value of ``key``: sorted (a categorical's
    values in their order), or exactly ``values``; missing keys are left out."""
    import pandas as pd  # the make process reads the constants above without pandas

    counted = (pd.DataFrame({"key": key, "opened": opened}).groupby("key", observed=False)
               .agg(n=("opened", "size"), opens=("opened", "sum")))
    return counted if values is None else counted.reindex(values, fill_value=0)


def rate(opens, n) -> float | None:
    return num_or_none(opens / n) if n else None


def recent_load(user: np.ndarray, ms: np.ndarray, window_ms: int) -> np.ndarray:
    """Per row: the same user's notifications posted less than ``window_ms`` before it.

    Rows at the same instant count in table order (the earlier row is the preceding one).
    """
    order = np.lexsort((ms, user))
    user_number = np.cumsum(np.r_[False, user[order][1:] != user[order][:-1]])
    stride = int(ms.max() - ms.min()) + window_ms + 1 if len(ms) else 1
    key = user_number * stride + (ms[order] - ms.min(initial=0))
    load = np.empty(len(key), dtype=np.int64)
    load[order] = np.arange(len(key)) - np.searchsorted(key, key - window_ms, side="right")
    return load


def contrast(load: np.ndarray, opened: np.ndarray, keys: list[np.ndarray],
             min_rows: int = 1) -> tuple[float | None, int]:
    """Mean over the groups of rows equal on ``keys`` (those of at least ``min_rows`` rows) of
    the open rate above minus at/below the group's median load, and how many groups had both."""
    import pandas as pd

    names = [f"key{i}" for i in range(len(keys))]
    table = pd.DataFrame({**dict(zip(names, keys, strict=True)), "load": load, "opened": opened})
    if min_rows > 1:
        table = table[table.groupby(names)["opened"].transform("size") >= min_rows]
    table["above"] = table["load"] > table.groupby(names)["load"].transform("median")
    rates = table.groupby([*names, "above"])["opened"].mean().unstack().reindex(columns=[False, True])
    difference = (rates[True] - rates[False]).dropna()
    return (float(difference.mean()) if len(difference) else None), len(difference)


def fatigue_stats(rows: Rows, app: np.ndarray) -> dict:
    """Open rate by the load of the hour before, and the load contrast within user (and app)."""
    load = recent_load(rows.user, rows.ms, FATIGUE_WINDOW_MINUTES * 60_000)
    bucket = np.searchsorted([low for low, _ in FATIGUE_BUCKETS[1:]], load, side="right")
    counts = tally(bucket, rows.opened, range(len(FATIGUE_BUCKETS)))
    buckets = {}
    for (low, high), (n, opens) in zip(FATIGUE_BUCKETS, counts.itertuples(index=False), strict=True):
        label = f"{low}-{high}" if high is not None else f"{low}+"
        buckets[label] = {"n": int(n), "share": num_or_none(n / len(load)), "open_rate": rate(opens, n)}
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


def period_stats(rows: Rows, n_users: int, days: int) -> list[dict]:
    """Rows, notifications per user and day and open rate in each period of ``PERIOD_DAYS`` days."""
    period = rows.day // PERIOD_DAYS
    out = []
    for p, (count, opens) in enumerate(tally(period, rows.opened, range(int(period.max()) + 1))
                                       .itertuples(index=False)):
        first, last = p * PERIOD_DAYS + 1, min((p + 1) * PERIOD_DAYS, days)
        out.append({"days": [first, last], "n": int(count),
                    "per_user_day": num_or_none(count / (n_users * (last - first + 1))),
                    "open_rate": rate(opens, count)})
    return out
