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
from pushgen.data.describe_long_term import long_term_truth
from pushgen.data.describe_report import TOP_APPS
from pushgen.data.describe_time import (
    MS_PER_DAY,
    Rows,
    fatigue_stats,
    kind_of_app,
    num_or_none,
    period_stats,
    rate,
    table_rows,
    tally,
)
from pushgen.data.folder_lock import hold, session
from pushgen.data.user_figures import asleep_stats
from pushgen.data.verify import verify_dataset
from pushgen.model.catalog import app_catalog
from pushgen.progress import stages

REQUIRED = ("user_id", "posted_at", *schemas.FEATURES, "action", "seenTime", "responseTime")
QUICK_SECONDS = 600


def describe(notifications: pd.DataFrame | pa.Table, users: pd.DataFrame | pa.Table | None = None) -> dict:
    """The calibration statistics of a notifications table (see ``docs/calibration.md``), a pandas
    frame or an Arrow table in the dataset's layout (read with the schema's dtypes).

    Days are the dataset's span, from the first to the last calendar day in ``posted_at``;
    users are those of ``users['user_id']`` (if given) together with those who have rows.
    """
    frame = _schema_frame(notifications)
    missing = [name for name in REQUIRED if name not in frame.columns]
    if missing:
        raise DatasetError(f"cannot describe the table: it has no column {missing[0]!r}")
    if len(frame) == 0:
        raise DatasetError("cannot describe the table: it has no notifications")
    users = None if users is None else _schema_frame(users)
    rows = table_rows(frame)
    per_user = pd.DataFrame({"user": rows.user, "opened": rows.opened}).groupby("user")["opened"].agg(
        ["size", "mean"])
    population = per_user.index.to_numpy()
    if users is not None and "user_id" in users:
        population = np.union1d(population, users["user_id"].to_numpy())
    first_day = int(rows.ms.min() // MS_PER_DAY)
    days = int(rows.day.max()) + 1
    apps = tally(frame["postingApp"], rows.opened)
    by_kind = apps.groupby([kind_of_app().get(app) for app in apps.index]).sum().reindex(
        app_catalog().kinds, fill_value=0)
    return {
        "rows": len(frame),
        "users": len(population),
        "days": days,
        "first_day": str(np.datetime64(first_day, "D")),
        "last_day": str(np.datetime64(first_day + days - 1, "D")),
        "per_user_day": _volume(per_user["size"].reindex(population, fill_value=0).to_numpy() / days),
        "hourly": _hourly(rows),
        "weekday": _weekday(rows, len(population), (np.arange(first_day, first_day + days) + 3) % 7),
        "asleep": asleep_stats(rows, users),
        "open_rate": _open_rates(frame, rows, per_user["mean"].to_numpy(), by_kind),
        "by_kind": _groups(by_kind, len(frame)),
        "by_category": _groups(tally(frame["category"], rows.opened), len(frame)),
        "top_apps": _top_apps(apps, len(frame)),
        "ongoing": _groups(tally(frame["ongoing"], rows.opened), len(frame)),
        "ringer_mode": _seen_groups(frame, "ringerMode", rows),
        "activity": _seen_groups(frame, "activity", rows),
        "headphones_music": _headphones_music(frame, rows.opened),
        "timing": _timing(rows),
        "repetition": _repetition(frame, rows, per_user["size"]),
        "fatigue": fatigue_stats(rows, frame["postingApp"].cat.codes.to_numpy()),
        "periods": period_stats(rows, len(population), days),
    }


def _schema_frame(table: pd.DataFrame | pa.Table) -> pd.DataFrame:
    """A table as pandas with the schema's dtypes, numbered 0.. ."""
    frame = table.to_pandas() if isinstance(table, pa.Table) else table
    return schemas.apply_dtypes(frame).reset_index(drop=True)


@dataclass(frozen=True)
class Described:
    """A dataset's statistics with the tables they were computed from."""

    stats: dict
    notifications: pd.DataFrame
    users: pd.DataFrame | None


@session()
def describe_path(path: Path) -> dict:
    """``describe`` of a dataset folder (or a folder or file holding a notifications table), with
    ``"calibration"``: each calibration figure against its target (``calibration_summary``)."""
    return describe_tables(path, calibration=True).stats


@session()
def describe_tables(path: Path, calibration: bool = False) -> Described:
    """``describe_path``'s statistics together with the tables read for them (with ``calibration``,
    the figures against their targets under ``"calibration"``)."""
    path = Path(path)
    hold(path)  # before looking: a folder being replaced is absent between two renames
    if path.is_file():
        frame = _read(path)
        stats = describe(frame)
        if calibration:
            stats["calibration"] = calibration_summary(stats, frame)
        return Described(stats, frame, None)
    if not path.is_dir():
        what = "is neither a folder nor a regular file" if path.exists() else "does not exist"
        raise DatasetError(f"{path} {what}; describe reads a dataset folder or a notifications table file")
    if (path / MANIFEST).is_file():
        manifest = verify_dataset(path)
        notifications, users = (table_path(path, name, manifest) for name in ("notifications", "users"))
    elif has_ground_truth(path):  # a dataset's folder, not a folder of plain tables
        raise DatasetError(f"{path} holds a dataset's ground truth but no {MANIFEST}: it is damaged")
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
            stats |= long_term_truth(path, frame)
        if calibration:
            begin("calibration figures")
            stats["calibration"] = calibration_summary(stats, frame, user_table)
    return Described(stats, frame, user_table)


def _read(path: Path) -> pd.DataFrame:
    if path.suffix not in (".parquet", ".csv") and not path.is_dir():
        raise DatasetError(f"{path} is not a Parquet or CSV table")
    try:
        return read_table(path)
    except DatasetError:  # it names the file already
        raise
    except (OSError, ValueError, pa.ArrowException) as error:
        raise DatasetError(f"cannot read {path}: {first_line(error)}") from None


def _volume(per_day: np.ndarray) -> dict:
    p10, median, p90 = np.percentile(per_day, [10, 50, 90])
    return {"mean": num_or_none(per_day.mean()), "median": num_or_none(median), "p10": num_or_none(p10),
            "p90": num_or_none(p90), "min": num_or_none(per_day.min()), "max": num_or_none(per_day.max())}


def _hourly(rows: Rows) -> dict:
    counts = tally(rows.hour, rows.opened, range(24))
    delay = pd.Series(rows.response).groupby(rows.hour).median().reindex(range(24))
    return {
        "share": [num_or_none(n / len(rows.hour)) for n in counts["n"]],
        "open_rate": [rate(opens, n) for n, opens in counts.itertuples(index=False)],
        "median_response_s": [num_or_none(d) for d in delay],
    }


def _weekday(rows: Rows, n_users: int, calendar_weekdays: np.ndarray) -> dict:
    counts = tally(rows.weekday, rows.opened, range(7))
    days_of = np.bincount(calendar_weekdays, minlength=7)

    def per_user_day(days: list[int]) -> float | None:
        calendar_days = n_users * days_of[days].sum()
        return num_or_none(counts["n"].iloc[days].sum() / calendar_days) if calendar_days else None

    def open_rate(days: list[int]) -> float | None:
        return rate(counts["opens"].iloc[days].sum(), counts["n"].iloc[days].sum())

    workdays, weekend = [0, 1, 2, 3, 4], [5, 6]
    return {
        "share": [num_or_none(n / counts["n"].sum()) for n in counts["n"]],
        "per_user_day": [per_user_day([d]) for d in range(7)],
        "open_rate": [open_rate([d]) for d in range(7)],
        "per_user_day_weekdays": per_user_day(workdays),
        "per_user_day_weekend": per_user_day(weekend),
        "open_rate_weekdays": open_rate(workdays),
        "open_rate_weekend": open_rate(weekend),
    }


def _seen_groups(frame: pd.DataFrame, name: str, rows: Rows) -> dict[str, dict]:
    """``_groups`` of column ``name`` with each value's median seenTime."""
    medians = pd.Series(rows.seen).groupby(frame[name], observed=False).median()
    return _groups(tally(frame[name], rows.opened), len(frame), medians)


def _groups(counts: pd.DataFrame, rows: int, medians: pd.Series | None = None) -> dict[str, dict]:
    """Rows, share (of all ``rows``) and open rate per value of ``counts`` (a ``tally``) that
    occurs, and the median seenTime."""
    out = {}
    for key, (n, opens) in zip(counts.index, counts.itertuples(index=False), strict=True):
        if n:
            out[str(key)] = {"n": int(n), "share": num_or_none(n / rows), "open_rate": rate(opens, n)}
            if medians is not None:
                out[str(key)]["median_seen_s"] = num_or_none(medians[key])
    return out


def _top_apps(apps: pd.DataFrame, rows: int) -> list[dict]:
    ranked = sorted(_groups(apps, rows).items(), key=lambda item: (-item[1]["n"], item[0]))[:TOP_APPS]
    return [{"app": app, "kind": kind_of_app().get(app), **values} for app, values in ranked]


def _open_rates(frame: pd.DataFrame, rows: Rows, per_user: np.ndarray, by_kind: pd.DataFrame) -> dict:
    opens, count = int(np.count_nonzero(rows.opened)), len(rows.opened)
    flag = tally(frame["ongoing"].to_numpy().astype(bool), rows.opened, [False, True])

    def kinds(chosen) -> float | None:
        return rate(by_kind.loc[chosen, "opens"].sum(), by_kind.loc[chosen, "n"].sum())

    return {
        "overall": num_or_none(opens / count),
        "users_min": num_or_none(per_user.min()),
        "users_median": _median(per_user),
        "users_max": num_or_none(per_user.max()),
        "messaging": kinds(by_kind.index == "messaging"),
        "other_kinds": kinds(by_kind.index != "messaging"),
        "system": kinds(by_kind.index == "system"),
        "ongoing": rate(flag.at[True, "opens"], flag.at[True, "n"]),
        "not_ongoing": rate(flag.at[False, "opens"], flag.at[False, "n"]),
        "dismissed_share": num_or_none((count - opens) / count),
    }


def _headphones_music(frame: pd.DataFrame, opened: np.ndarray) -> dict:
    listening = (frame["headphonesIn"].to_numpy().astype(bool) & frame["musicActive"].to_numpy().astype(bool))
    chat = (frame["category"] == "msg").to_numpy(dtype=bool)

    def figures(rows: np.ndarray) -> dict:
        n, chats = int(np.count_nonzero(rows)), np.count_nonzero(rows & chat)
        return {"n": n, "open_rate": rate(np.count_nonzero(rows & opened), n),
                "open_rate_msg": rate(np.count_nonzero(rows & chat & opened), chats)}

    return {"headphones_and_music": figures(listening), "otherwise": figures(~listening)}


def _timing(rows: Rows) -> dict:
    quick = rows.response <= QUICK_SECONDS
    return {
        "median_response_opened_s": _median(rows.response[rows.opened]),
        "median_response_s": _median(rows.response),
        "opened_within_10min": rate(np.count_nonzero(quick & rows.opened), np.count_nonzero(rows.opened)),
        "handled_within_10min": rate(np.count_nonzero(quick), len(quick)),
    }


def _median(values: np.ndarray) -> float | None:
    """``np.median`` of the values (None: no values, or a NaN among them)."""
    return num_or_none(np.median(values)) if len(values) else None


def _repetition(frame: pd.DataFrame, rows: Rows, per_user: pd.Series) -> dict:
    """Shares of rows equal to another row of the same user on all features (and the action)."""
    keys = [pd.Series(rows.user, name="user"), *(frame[name] for name in schemas.FEATURES)]
    groups = pd.Series(rows.opened).groupby(keys, observed=True, dropna=False, sort=False).agg(
        ["size", "sum"]).query("size > 1")
    size, opened = groups["size"].to_numpy(), groups["sum"].to_numpy()
    dismissed, count = size - opened, len(rows.opened)
    same_action = opened * (opened > 1) + dismissed * (dismissed > 1)
    repeated = groups["size"].groupby(level="user").sum().reindex(per_user.index, fill_value=0)
    return {
        "features": num_or_none(size.sum() / count),
        "features_and_action": num_or_none(same_action.sum() / count),
        "opposite_action": num_or_none(size[(opened > 0) & (dismissed > 0)].sum() / count),
        "users_max": num_or_none((repeated / per_user).max()),
    }
