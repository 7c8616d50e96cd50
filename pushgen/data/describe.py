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

import numpy as np
import pandas as pd
import pyarrow as pa

from pushgen import schemas
from pushgen.data.calibration import calibration_summary
from pushgen.data.dataset import MANIFEST, DatasetError, first_line, read_table, table_path
from pushgen.data.describe_engagement import engagement_stats, has_ground_truth
from pushgen.data.describe_time import (
    Rows,
    fatigue_stats,
    group_medians,
    mean_or_none,
    median_or_none,
    num_or_none,
    period_stats,
)
from pushgen.data.verify import verify_dataset
from pushgen.model.catalog import app_catalog
from pushgen.progress import stages

REQUIRED = ("user_id", "posted_at", *schemas.FEATURES, "action", "seenTime", "responseTime")
ASLEEP_HOURS = (1, 5)  # [01:00, 05:00): nearly everyone sleeps
QUICK_SECONDS = 600
TOP_APPS = 10
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MS_PER_DAY = 86_400_000


def describe(notifications: pd.DataFrame, users: pd.DataFrame | None = None) -> dict:
    """The calibration statistics of a notifications table (see ``docs/calibration.md``).

    Days are the dataset's span, from the first to the last calendar day in ``posted_at``;
    users are those of ``users['user_id']`` (if given) together with those who have rows.
    """
    frame = notifications
    missing = [name for name in REQUIRED if name not in frame.columns]
    if missing:
        raise DatasetError(f"cannot describe the table: it has no column {missing[0]!r}")
    if len(frame) == 0:
        raise DatasetError("cannot describe the table: it has no notifications")
    rows = table_rows(frame)
    first_day = int(rows.ms.min() // MS_PER_DAY)
    days = int(rows.day.max()) + 1
    last_day = first_day + days - 1
    population = _population(rows.user, users)
    calendar = np.arange(first_day, last_day + 1)
    return {
        "rows": len(frame),
        "users": len(population),
        "days": days,
        "first_day": str(np.datetime64(first_day, "D")),
        "last_day": str(np.datetime64(last_day, "D")),
        "per_user_day": _volume(rows.user, population, days),
        "hourly": _hourly(rows),
        "weekday": _weekday(rows, len(population), (calendar + 3) % 7),
        "asleep": _asleep(rows, users),
        "open_rate": _open_rates(frame, rows),
        "by_kind": _groups(_kind_of(frame["postingApp"]), rows.opened),
        "by_category": _groups(frame["category"], rows.opened),
        "top_apps": _top_apps(frame["postingApp"], rows.opened),
        "ongoing": _groups(frame["ongoing"], rows.opened),
        "ringer_mode": _groups(frame["ringerMode"], rows.opened, rows.seen),
        "activity": _groups(frame["activity"], rows.opened, rows.seen),
        "headphones_music": _headphones_music(frame, rows.opened),
        "timing": _timing(rows),
        "repetition": _repetition(frame, rows.user, rows.opened),
        "fatigue": fatigue_stats(rows, frame["postingApp"].astype("category").cat.codes.to_numpy()),
        "periods": period_stats(rows, len(population), days),
    }


def table_rows(frame: pd.DataFrame) -> Rows:
    """The columns of a notifications table that the statistics read, as arrays."""
    ms = frame["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    day_number = ms // MS_PER_DAY
    return Rows(
        user=frame["user_id"].to_numpy(),
        ms=ms,
        day=day_number - day_number.min(),
        hour=(ms % MS_PER_DAY) // 3_600_000,
        weekday=(day_number + 3) % 7,  # 1970-01-01 was a Thursday
        opened=(frame["action"] == "opened").to_numpy(dtype=bool),
        response=frame["responseTime"].to_numpy(dtype=np.float64),
        seen=frame["seenTime"].to_numpy(dtype=np.float64),
    )


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


def _population(user: np.ndarray, users: pd.DataFrame | None) -> np.ndarray:
    ids = np.unique(user)
    if users is not None and "user_id" in users:
        ids = np.union1d(ids, users["user_id"].to_numpy())
    return ids


def _volume(user: np.ndarray, population: np.ndarray, days: int) -> dict:
    ids, counts = np.unique(user, return_counts=True)
    per_user = np.zeros(len(population))
    per_user[np.searchsorted(population, ids)] = counts
    per_day = per_user / days
    p10, median, p90 = np.percentile(per_day, [10, 50, 90])
    return {"mean": num_or_none(per_day.mean()), "median": num_or_none(median), "p10": num_or_none(p10),
            "p90": num_or_none(p90), "min": num_or_none(per_day.min()), "max": num_or_none(per_day.max())}


def _hourly(rows: Rows) -> dict:
    counts = np.bincount(rows.hour, minlength=24)
    opened = np.bincount(rows.hour, weights=rows.opened, minlength=24)
    delay = group_medians(rows.hour, rows.response, 24)
    return {
        "share": [num_or_none(c / len(rows.hour)) for c in counts],
        "open_rate": [num_or_none(o / c) if c else None for o, c in zip(opened, counts, strict=True)],
        "median_response_s": [num_or_none(d) for d in delay],
    }


def _weekday(rows: Rows, n_users: int, calendar_weekdays: np.ndarray) -> dict:
    counts = np.bincount(rows.weekday, minlength=7)
    opened = np.bincount(rows.weekday, weights=rows.opened, minlength=7)
    days_of = np.bincount(calendar_weekdays, minlength=7)
    workday = np.arange(7) < 5

    def per_user_day(mask: np.ndarray) -> float | None:
        if not days_of[mask].sum():
            return None
        return num_or_none(counts[mask].sum() / (n_users * days_of[mask].sum()))

    def open_rate(mask: np.ndarray) -> float | None:
        return num_or_none(opened[mask].sum() / counts[mask].sum()) if counts[mask].sum() else None

    return {
        "share": [num_or_none(c / len(rows.weekday)) for c in counts],
        "per_user_day": [per_user_day(np.arange(7) == d) for d in range(7)],
        "open_rate": [open_rate(np.arange(7) == d) for d in range(7)],
        "per_user_day_weekdays": per_user_day(workday),
        "per_user_day_weekend": per_user_day(~workday),
        "open_rate_weekdays": open_rate(workday),
        "open_rate_weekend": open_rate(~workday),
    }


def _asleep(rows: Rows, users: pd.DataFrame | None) -> dict:
    first, last = ASLEEP_HOURS
    out = {"hours": [first, last], "share": mean_or_none((rows.hour >= first) & (rows.hour < last)),
           "share_in_users_sleep": None}
    window = _sleep_window(users)
    if window is not None:
        bed, wake = window
        index = pd.Index(users["user_id"].to_numpy())
        where = index.get_indexer(rows.user)
        known = where >= 0
        minute = (rows.ms[known] % MS_PER_DAY) // 60_000
        bed, wake = bed[where[known]], wake[where[known]]
        asleep = np.where(bed > wake, (minute >= bed) | (minute < wake),
                          (minute >= bed) & (minute < wake))
        out["share_in_users_sleep"] = mean_or_none(asleep)
    return out


def _sleep_window(users: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Each user's usual bedtime and wake time in minutes after midnight, if the table has them."""
    if users is None or not {"user_id", "bedtime", "wake_time"} <= set(users.columns):
        return None
    try:
        return tuple(_minutes(users[name]) for name in ("bedtime", "wake_time"))
    except (ValueError, TypeError, AttributeError):
        return None


def _minutes(clock: pd.Series) -> np.ndarray:
    parts = clock.astype(str).str.split(":", n=2, expand=True)
    return parts[0].astype(int).to_numpy() * 60 + parts[1].astype(int).to_numpy()


def _positions(values: pd.Series, allowed) -> np.ndarray:
    """Each value's position in ``allowed`` (-1: not there), looked up once per distinct value."""
    column = values.astype("category")
    lookup = np.append(pd.Index(list(allowed)).get_indexer(column.cat.categories), -1)
    return lookup[column.cat.codes.to_numpy()]


def _kind_of(apps: pd.Series) -> pd.Categorical:
    catalog = app_catalog()
    codes = _positions(apps, catalog.apps)
    kind = np.where(codes >= 0, catalog.kind_of_app[codes], -1)
    return pd.Categorical.from_codes(kind, categories=list(catalog.kinds))


def _groups(keys, opened: np.ndarray, seen: np.ndarray | None = None) -> dict[str, dict]:
    """Rows, share and open rate per value (in value-set order), and the median seenTime."""
    codes, values = pd.factorize(keys, sort=True)  # a categorical's values in their set's order
    known = codes >= 0
    size = np.bincount(codes[known], minlength=len(values))
    opens = np.bincount(codes[known], weights=np.asarray(opened)[known], minlength=len(values))
    medians = group_medians(codes[known], seen[known], len(values)) if seen is not None else None
    out = {}
    for code, key in enumerate(values):
        if not size[code]:
            continue
        out[str(key)] = {"n": int(size[code]), "share": num_or_none(size[code] / len(codes)),
                         "open_rate": num_or_none(opens[code] / size[code])}
        if medians is not None:
            out[str(key)]["median_seen_s"] = num_or_none(medians[code])
    return out


def _top_apps(apps: pd.Series, opened: np.ndarray) -> list[dict]:
    catalog = app_catalog()
    kind_of = dict(zip(catalog.apps, (catalog.kinds[k] for k in catalog.kind_of_app), strict=True))
    groups = _groups(apps, opened)
    ranked = sorted(groups.items(), key=lambda item: (-item[1]["n"], item[0]))[:TOP_APPS]
    return [{"app": app, "kind": kind_of.get(app), **values} for app, values in ranked]


def _open_rates(frame: pd.DataFrame, rows: Rows) -> dict:
    per_user = pd.Series(rows.opened).groupby(rows.user).mean().to_numpy()
    kind_of = _kind_of(frame["postingApp"])
    kinds, codes = list(kind_of.categories), np.asarray(kind_of.codes)
    kind = {name: codes == kinds.index(name) if name in kinds else np.zeros(len(codes), dtype=bool)
            for name in ("messaging", "system")}
    ongoing = frame["ongoing"].to_numpy(dtype=bool)
    known = codes >= 0
    return {
        "overall": mean_or_none(rows.opened),
        "users_min": num_or_none(per_user.min()),
        "users_median": median_or_none(per_user),
        "users_max": num_or_none(per_user.max()),
        "messaging": mean_or_none(rows.opened[kind["messaging"]]),
        "other_kinds": mean_or_none(rows.opened[known & ~kind["messaging"]]),
        "system": mean_or_none(rows.opened[kind["system"]]),
        "ongoing": mean_or_none(rows.opened[ongoing]),
        "not_ongoing": mean_or_none(rows.opened[~ongoing]),
        "dismissed_share": mean_or_none(~rows.opened),
    }


def _headphones_music(frame: pd.DataFrame, opened: np.ndarray) -> dict:
    both = frame["headphonesIn"].to_numpy(dtype=bool) & frame["musicActive"].to_numpy(dtype=bool)
    chat = (frame["category"] == "msg").to_numpy(dtype=bool)
    return {
        name: {"n": int(mask.sum()), "open_rate": mean_or_none(opened[mask]),
               "open_rate_msg": mean_or_none(opened[mask & chat])}
        for name, mask in (("headphones_and_music", both), ("otherwise", ~both))
    }


def _timing(rows: Rows) -> dict:
    quick = rows.response <= QUICK_SECONDS
    return {
        "median_response_opened_s": median_or_none(rows.response[rows.opened]),
        "median_response_s": median_or_none(rows.response),
        "opened_within_10min": mean_or_none(quick[rows.opened]),
        "handled_within_10min": mean_or_none(quick),
    }


def _repetition(frame: pd.DataFrame, user: np.ndarray, opened: np.ndarray) -> dict:
    """Shares of rows equal to another row of the same user on all features (and the action)."""
    hashed = pd.util.hash_pandas_object(frame[["user_id", *schemas.FEATURES]], index=False)
    group = pd.factorize(hashed.to_numpy())[0]
    size = np.bincount(group)[group]
    opens = np.bincount(group, weights=opened)[group]
    same_action = np.where(opened, opens, size - opens)
    per_user = pd.Series(size > 1).groupby(user).mean()
    return {
        "features": mean_or_none(size > 1),
        "features_and_action": mean_or_none(same_action > 1),
        "opposite_action": mean_or_none((opens > 0) & (opens < size)),
        "users_max": num_or_none(per_user.max()),
    }


