"""``pushgen.data.describe``: the statistics of the published calibration figures, for any dataset.

``describe`` turns a notifications table (and optionally its users table) into plain,
JSON-ready numbers: rates are fractions, times are seconds, and a figure without data is
None. ``pushgen.data.describe_report`` lays the numbers out as tables with the published figure
beside each one.

Fatigue is not observable, so its proxy is the load: the number of the same user's
notifications posted in the 60 minutes before a row. Besides the open rate per load bucket,
the contrast "open rate above minus at/below the median load" is averaged over users (and
over user-app pairs), which keeps differences between users (and apps) out of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pushgen import schemas
from pushgen.data.arrow_numpy import to_numpy, viewable
from pushgen.data.calibration import calibration_summary
from pushgen.data.dataset import MANIFEST, DatasetError, first_line, read_table, table_path
from pushgen.data.describe_columns import Coded, TableColumns
from pushgen.data.describe_counts import CrossCounts
from pushgen.data.describe_engagement import engagement_stats, has_ground_truth
from pushgen.data.describe_time import (
    PERIOD_DAYS,
    Rows,
    counts_and_opens,
    distinct,
    fatigue_stats,
    group_medians,
    median_or_none,
    num_or_none,
    period_stats,
)
from pushgen.data.equal_rows import EqualRows
from pushgen.data.verify import verify_dataset
from pushgen.model.catalog import app_catalog
from pushgen.progress import stages

if TYPE_CHECKING:
    import pandas as pd

REQUIRED = ("user_id", "posted_at", *schemas.FEATURES, "action", "seenTime", "responseTime")
ASLEEP_HOURS = (1, 5)  # [01:00, 05:00): nearly everyone sleeps
QUICK_SECONDS = 600
TOP_APPS = 10
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MS_PER_DAY = 86_400_000
MINUTES_PER_DAY = 1_440
ONGOING_FLAG = "ongoing as a flag"
CLOCK_FEATURES = ("day", "time")  # the weekday and the time of day


def describe(notifications: pd.DataFrame | pa.Table, users: pd.DataFrame | pa.Table | None = None) -> dict:
    """The calibration statistics of a notifications table (see ``docs/calibration.md``), a pandas
    frame or an Arrow table in the dataset's layout.

    Days are the dataset's span, from the first to the last calendar day in ``posted_at``;
    users are those of ``users['user_id']`` (if given) together with those who have rows.
    """
    table = TableColumns(notifications)
    missing = [name for name in REQUIRED if name not in table.names]
    if missing:
        raise DatasetError(f"cannot describe the table: it has no column {missing[0]!r}")
    if len(table) == 0:
        raise DatasetError("cannot describe the table: it has no notifications")
    users = _user_columns(users)
    rows = columns_rows(table)
    by_user = UserRows.of(rows.user)
    first_day = int(rows.ms.min() // MS_PER_DAY)
    days = int(rows.day.max()) + 1
    last_day = first_day + days - 1
    population = _population(by_user.ids, users)
    calendar = np.arange(first_day, last_day + 1)
    apps = table.coded("postingApp")
    counts = _cross_counts(table, rows)
    kinds = _kinds_of_apps(apps.labels)
    by_kind = kinds.per_kind(*counts.per_value("postingApp"))
    return {
        "rows": len(table),
        "users": len(population),
        "days": days,
        "first_day": str(np.datetime64(first_day, "D")),
        "last_day": str(np.datetime64(last_day, "D")),
        "per_user_day": _volume(by_user, population, days),
        "hourly": _hourly(rows, counts),
        "weekday": _weekday(counts, len(population), (calendar + 3) % 7),
        "asleep": _asleep(rows, by_user, users),
        "open_rate": _open_rates(counts, by_user.open_rates(rows.opened), kinds, by_kind),
        "by_kind": _groups(kinds.labels, *by_kind, len(table)),
        "by_category": _groups(table.coded("category").labels, *counts.per_value("category"), len(table)),
        "top_apps": _top_apps(apps, counts),
        "ongoing": _groups(table.coded("ongoing").labels, *counts.per_value("ongoing"), len(table)),
        "ringer_mode": _seen_groups(table, "ringerMode", counts, rows.seen),
        "activity": _seen_groups(table, "activity", counts, rows.seen),
        "headphones_music": _headphones_music(counts),
        "timing": _timing(rows),
        "repetition": _repetition(table, by_user, rows.opened),
        "fatigue": fatigue_stats(rows, apps.codes),
        "periods": period_stats(*counts.per_value("period"), len(population), days),
    }


def table_rows(frame: pd.DataFrame | pa.Table) -> Rows:
    """The columns of a notifications table that the statistics read, as arrays."""
    return columns_rows(TableColumns(frame))


def columns_rows(table: TableColumns) -> Rows:
    ms = table.milliseconds("posted_at")
    day = ms // MS_PER_DAY
    first_day = int(day.min()) if len(ms) else 0
    time_of_day = day * MS_PER_DAY
    np.subtract(ms, time_of_day, out=time_of_day)
    hour = np.floor_divide(time_of_day, 3_600_000, out=time_of_day).astype(np.int8)
    day -= first_day
    weekdays = (np.arange(int(day.max()) + 1 if len(ms) else 0) + first_day + 3) % 7  # 1970-01-01: a Thursday
    return Rows(
        user=table.values("user_id"),
        ms=ms,
        day=day,
        hour=hour,
        weekday=weekdays.astype(np.int8)[day],
        opened=table.coded("action").equals("opened"),
        response=table.floats("responseTime"),
        seen=table.floats("seenTime"),
    )


@dataclass(frozen=True)
class UserRows:
    """The distinct users of the rows (sorted), each row's position among them and their row counts."""

    ids: np.ndarray
    index: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, user: np.ndarray) -> UserRows:
        ids, index = distinct(user)
        return cls(ids, index, np.bincount(index, minlength=len(ids)))

    def open_rates(self, opened: np.ndarray) -> np.ndarray:
        """Each user's share of ``opened`` rows, as a groupby's ``mean``."""
        return counts_and_opens(self.index, opened, len(self.ids))[1] / self.counts


@dataclass(frozen=True)
class Described:
    """A dataset's statistics with the tables they were computed from."""

    stats: dict
    notifications: pd.DataFrame
    users: pd.DataFrame | None


def describe_path(path: Path) -> dict:
    """``describe`` of a dataset folder (or a folder or file holding a notifications table), with
    ``"calibration"``: each calibration figure against its target (``calibration_summary``)."""
    described = describe_tables(path, calibration=True)
    return described.stats


def describe_tables(path: Path, calibration: bool = False) -> Described:
    """``describe_path``'s statistics together with the tables read for them (with ``calibration``,
    the figures against their targets under ``"calibration"``)."""
    path = Path(path)
    if path.is_file():
        frame = _read(path)
        stats = describe(frame)
        if calibration:
            stats["calibration"] = calibration_summary(stats, frame)
        return Described(stats, frame, None)
    if not path.is_dir():
        raise DatasetError(f"{path} does not exist")
    if (path / MANIFEST).is_file():
        manifest = verify_dataset(path)
        notifications = table_path(path, "notifications", manifest)
        users = table_path(path, "users", manifest)
    else:
        notifications = next((p for p in (path / "notifications.parquet", path / "notifications.csv")
                              if p.is_file()), path / "notifications.parquet")
        users = notifications.with_stem("users")
    if not notifications.exists():
        raise DatasetError(f"{path} is not a pushgen dataset: no {notifications.name}")
    truth = has_ground_truth(path)
    with stages("describe", 2 + truth + calibration) as begin:
        begin("reading the tables")
        frame = _read(notifications)
        user_table = _read(users) if users.is_file() else None
        begin("statistics")
        stats = describe(frame, user_table)
        if truth:
            begin("engagement (ground truth)")
            stats["engagement"] = engagement_stats(path, frame)
        if calibration:
            begin("calibration figures")
            stats["calibration"] = calibration_summary(stats, frame)
    return Described(stats, frame, user_table)


def _read(path: Path) -> pd.DataFrame:
    if path.suffix not in (".parquet", ".csv") and not path.is_dir():
        raise DatasetError(f"{path} is not a Parquet or CSV table")
    try:
        return read_table(path)
    except (OSError, ValueError, pa.ArrowException) as error:
        reason = first_line(error)
        raise DatasetError(f"cannot read {path}: {reason}") from None


def _user_columns(users: pd.DataFrame | pa.Table | None) -> dict[str, np.ndarray] | None:
    """The users table's columns as NumPy arrays (text as objects)."""
    if users is None:
        return None
    if isinstance(users, pa.Table):
        return {name: to_numpy(column) if viewable(column) else np.array(column.to_pylist(), dtype=object)
                for name, column in zip(users.column_names, users.columns, strict=True)}
    return {name: users[name].to_numpy() for name in users.columns}


def _population(ids: np.ndarray, users: dict[str, np.ndarray] | None) -> np.ndarray:
    if users is not None and "user_id" in users:
        ids = np.union1d(ids, users["user_id"])
    return ids


def _volume(by_user: UserRows, population: np.ndarray, days: int) -> dict:
    per_user = np.zeros(len(population))
    per_user[np.searchsorted(population, by_user.ids)] = by_user.counts
    per_day = per_user / days
    p10, median, p90 = np.percentile(per_day, [10, 50, 90])
    return {"mean": num_or_none(per_day.mean()), "median": num_or_none(median), "p10": num_or_none(p10),
            "p90": num_or_none(p90), "min": num_or_none(per_day.min()), "max": num_or_none(per_day.max())}


def _hourly(rows: Rows, by_value: CrossCounts) -> dict:
    counts, opened = by_value.per_value("hour")
    delay = group_medians(rows.hour, rows.response, 24)
    return {
        "share": [num_or_none(c / len(rows.hour)) for c in counts],
        "open_rate": [num_or_none(o / c) if c else None for o, c in zip(opened, counts, strict=True)],
        "median_response_s": [num_or_none(d) for d in delay],
    }


def _weekday(by_value: CrossCounts, n_users: int, calendar_weekdays: np.ndarray) -> dict:
    counts, opened = by_value.per_value("weekday")
    days_of = np.bincount(calendar_weekdays, minlength=7)
    workday = np.arange(7) < 5

    def per_user_day(mask: np.ndarray) -> float | None:
        if not days_of[mask].sum():
            return None
        return num_or_none(counts[mask].sum() / (n_users * days_of[mask].sum()))

    def open_rate(mask: np.ndarray) -> float | None:
        return num_or_none(opened[mask].sum() / counts[mask].sum()) if counts[mask].sum() else None

    return {
        "share": [num_or_none(c / counts.sum()) for c in counts],
        "per_user_day": [per_user_day(np.arange(7) == d) for d in range(7)],
        "open_rate": [open_rate(np.arange(7) == d) for d in range(7)],
        "per_user_day_weekdays": per_user_day(workday),
        "per_user_day_weekend": per_user_day(~workday),
        "open_rate_weekdays": open_rate(workday),
        "open_rate_weekend": open_rate(~workday),
    }


def _asleep(rows: Rows, by_user: UserRows, users: dict[str, np.ndarray] | None) -> dict:
    first, last = ASLEEP_HOURS
    in_hours = np.count_nonzero((rows.hour >= first) & (rows.hour < last))
    out = {"hours": [first, last], "share": _share(in_hours, len(rows.hour)), "share_in_users_sleep": None}
    window = _sleep_window(users)
    if window is not None:
        where = _positions(users["user_id"], by_user.ids)  # per distinct user
        bed, wake = (times[np.maximum(where, 0)] for times in window)
        known = (where >= 0)[by_user.index]
        minute = rows.ms % MS_PER_DAY
        np.floor_divide(minute, 60_000, out=minute)
        if MINUTES_PER_DAY * len(bed) <= 4 * len(minute) + (1 << 20):  # each user's sleep by minute
            minute *= len(bed)
            minute += by_user.index
            asleep = _sleeping(np.arange(MINUTES_PER_DAY)[:, None], bed, wake).reshape(-1)[minute]
        else:
            asleep = _sleeping(minute, bed[by_user.index], wake[by_user.index])
        asleep = asleep if known.all() else asleep[known]
        out["share_in_users_sleep"] = _share(np.count_nonzero(asleep), len(asleep))
    return out


def _sleeping(minute: np.ndarray, bed: np.ndarray, wake: np.ndarray) -> np.ndarray:
    return np.where(bed > wake, (minute >= bed) | (minute < wake), (minute >= bed) & (minute < wake))


def _positions(known: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` first is in ``known`` (-1: nowhere)."""
    if not len(known):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(known, kind="stable")
    at = order[np.minimum(np.searchsorted(known, wanted, sorter=order), len(known) - 1)]
    return np.where(known[at] == wanted, at, -1)


def _sleep_window(users: dict[str, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Each user's usual bedtime and wake time in minutes after midnight, if the table has them."""
    if users is None or not {"user_id", "bedtime", "wake_time"} <= set(users):
        return None
    try:
        return tuple(_minutes(users[name]) for name in ("bedtime", "wake_time"))
    except (ValueError, TypeError, AttributeError):
        return None


def _minutes(clock: np.ndarray) -> np.ndarray:
    hours_minutes = (str(value).split(":", 2)[:2] for value in clock)
    return np.array([int(hours) * 60 + int(minutes) for hours, minutes in hours_minutes], dtype=np.int64)


@dataclass(frozen=True)
class AppKinds:
    """The catalog's kinds and the kind of each app label (-1: an app outside the catalog)."""

    labels: tuple[str, ...]
    of_app: np.ndarray

    def code_of(self, kind: str) -> int:
        return self.labels.index(kind) if kind in self.labels else -1

    def per_kind(self, rows: np.ndarray, opened: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows and opened rows per kind, from the rows and opened rows per app."""
        known = self.of_app >= 0
        return tuple(np.bincount(self.of_app[known], weights=per_app[known], minlength=len(self.labels))
                     .astype(np.int64) for per_app in (rows, opened))  # integers below 2**53: exact


def _kinds_of_apps(apps: tuple) -> AppKinds:
    catalog = app_catalog()
    position_of = {app: position for position, app in enumerate(catalog.apps)}
    positions = np.array([position_of.get(label, -1) for label in apps], dtype=np.int64)
    return AppKinds(tuple(catalog.kinds), np.where(positions >= 0, catalog.kind_of_app[positions], -1))


def _cross_counts(table: TableColumns, rows: Rows) -> CrossCounts:
    """Rows and opens per value of the grouped columns, the ongoing flag (unless the column is
    boolean: then its own values), the listening state
    (0: neither headphones with music nor a message, 1: a message, 2: headphones with music,
    3: both), the clock hour, the weekday, the period and the app."""
    listening = (table.flags("headphonesIn") & table.flags("musicActive")).view(np.int8) * 2
    listening += table.coded("category").equals("msg")
    columns = {name: (table.coded(name).codes, len(table.coded(name).labels))
               for name in ("category", "ongoing", "ringerMode", "activity")}
    columns |= {"listening": (listening, 4), "hour": (rows.hour, 24), "weekday": (rows.weekday, 7)}
    if not table.is_boolean("ongoing"):
        columns[ONGOING_FLAG] = (table.flags("ongoing"), 2)
    period = rows.day // PERIOD_DAYS
    columns["period"] = (period, int(period.max()) + 1)
    apps = table.coded("postingApp")
    columns["postingApp"] = (apps.codes, len(apps.labels))
    return CrossCounts.of(columns, rows.opened)


def _seen_groups(table: TableColumns, name: str, counts: CrossCounts, seen: np.ndarray) -> dict[str, dict]:
    """``_groups`` of column ``name`` with each value's median seenTime."""
    keys = table.coded(name)
    known = keys.codes >= 0
    codes, seen_known = (keys.codes, seen) if known.all() else (keys.codes[known], seen[known])
    medians = group_medians(codes, seen_known, len(keys.labels))
    return _groups(keys.labels, *counts.per_value(name), len(keys.codes), medians)


def _groups(labels: tuple, size: np.ndarray, opens: np.ndarray, rows: int,
            medians: np.ndarray | None = None) -> dict[str, dict]:
    """Rows, share (of all ``rows``) and open rate per value (in value-set order), and the median
    seenTime, from each value's rows and opens."""
    out = {}
    for code, key in enumerate(labels):
        if not size[code]:
            continue
        out[str(key)] = {"n": int(size[code]), "share": num_or_none(size[code] / rows),
                         "open_rate": num_or_none(opens[code] / size[code])}
        if medians is not None:
            out[str(key)]["median_seen_s"] = num_or_none(medians[code])
    return out


def _top_apps(apps: Coded, by_value: CrossCounts) -> list[dict]:
    catalog = app_catalog()
    kind_of = dict(zip(catalog.apps, (catalog.kinds[k] for k in catalog.kind_of_app), strict=True))
    groups = _groups(apps.labels, *by_value.per_value("postingApp"), len(apps.codes))
    ranked = sorted(groups.items(), key=lambda item: (-item[1]["n"], item[0]))[:TOP_APPS]
    return [{"app": app, "kind": kind_of.get(app), **values} for app, values in ranked]


def _open_rates(counts: CrossCounts, per_user: np.ndarray, kinds: AppKinds,
                by_kind: tuple[np.ndarray, np.ndarray]) -> dict:
    rows, opens = counts.total()
    by_flag = counts.per_value(ONGOING_FLAG if ONGOING_FLAG in counts.names else "ongoing")
    messaging, system = kinds.code_of("messaging"), kinds.code_of("system")

    def rate(kind_codes: list[int]) -> float | None:
        n = sum(int(by_kind[0][k]) for k in kind_codes)
        return num_or_none(sum(int(by_kind[1][k]) for k in kind_codes) / n) if n else None

    def flag_rate(flag: int) -> float | None:
        return num_or_none(by_flag[1][flag] / by_flag[0][flag]) if by_flag[0][flag] else None

    return {
        "overall": num_or_none(opens / rows),
        "users_min": num_or_none(per_user.min()),
        "users_median": median_or_none(per_user),
        "users_max": num_or_none(per_user.max()),
        "messaging": rate([messaging] if messaging >= 0 else []),
        "other_kinds": rate([k for k in range(len(kinds.labels)) if k != messaging]),
        "system": rate([system] if system >= 0 else []),
        "ongoing": flag_rate(1),
        "not_ongoing": flag_rate(0),
        "dismissed_share": num_or_none((rows - opens) / rows),
    }


def _headphones_music(counts: CrossCounts) -> dict:
    size, opens = counts.per_value("listening")  # by 2 * (headphones and music) + (a message)

    def figures(plain: int, chat: int) -> dict:
        n = int(size[plain] + size[chat])
        return {"n": n, "open_rate": num_or_none((opens[plain] + opens[chat]) / n) if n else None,
                "open_rate_msg": num_or_none(opens[chat] / size[chat]) if size[chat] else None}

    return {"headphones_and_music": figures(2, 3), "otherwise": figures(0, 1)}


def _timing(rows: Rows) -> dict:
    quick = rows.response <= QUICK_SECONDS
    opened = np.count_nonzero(rows.opened)
    return {
        "median_response_opened_s": median_or_none(rows.response[rows.opened]),
        "median_response_s": median_or_none(rows.response),
        "opened_within_10min": _share(np.count_nonzero(quick & rows.opened), opened),
        "handled_within_10min": _share(np.count_nonzero(quick), len(quick)),
    }


def _share(count: int, total: int) -> float | None:
    """``count / total`` as the mean of ``total`` flags of which ``count`` are set (None: no flags)."""
    return count / total if total else None


def _repetition(table: TableColumns, by_user: UserRows, opened: np.ndarray) -> dict:
    """Shares of rows equal to another row of the same user on all features (and the action)."""
    # The clock features lead the packed keys: a user's rows come in time order, so their keys come
    # partly in order, which the stable sort gains from.
    names = sorted(schemas.FEATURES, key=lambda name: name not in CLOCK_FEATURES)
    features = [table.equality_codes(name) for name in names]
    groups = EqualRows.of(by_user.index, len(by_user.ids), features, opened)
    dismissed = groups.size - groups.flagged
    same_action = groups.flagged * (groups.flagged > 1) + dismissed * (dismissed > 1)
    per_user = np.bincount(groups.user, weights=groups.size, minlength=len(by_user.ids))
    rows = len(opened)
    return {
        "features": num_or_none(groups.size.sum() / rows),
        "features_and_action": num_or_none(same_action.sum() / rows),
        "opposite_action": num_or_none(groups.size[(groups.flagged > 0) & (dismissed > 0)].sum() / rows),
        "users_max": num_or_none((per_user / by_user.counts).max()),
    }
