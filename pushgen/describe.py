"""``pushgen.describe``: the statistics of the published calibration figures, for any dataset.

``describe`` turns a notifications table (and optionally its users table) into plain,
JSON-ready numbers: rates are fractions, times are seconds, and a figure without data is
None. ``sections`` lays the numbers out as tables with the published figure beside each one,
and ``format_description`` prints those tables as aligned plain text.

Fatigue is not observable, so its proxy is the load: the number of the same user's
notifications posted in the 60 minutes before a row. Besides the open rate per load bucket,
the contrast "open rate above minus at/below the median load" is averaged over users (and
over user-app pairs), which keeps differences between users (and apps) out of it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from pushgen import schemas
from pushgen.dataset import MANIFEST, DatasetError, first_line, read_table, table_path
from pushgen.describe_engagement import engagement_stats, has_ground_truth
from pushgen.model.catalog import app_catalog
from pushgen.text_tables import aligned_table
from pushgen.verify import verify_dataset

REQUIRED = ("user_id", "posted_at", *schemas.FEATURES, "action", "seenTime", "responseTime")
ASLEEP_HOURS = (1, 5)  # [01:00, 05:00): nearly everyone sleeps
QUICK_SECONDS = 600
FATIGUE_WINDOW_MINUTES = 60
FATIGUE_BUCKETS = ((0, 2), (3, 5), (6, 10), (11, None))
TOP_APPS = 10
PERIOD_DAYS = 28
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
    ms = frame["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    day_number = ms // MS_PER_DAY
    first_day, last_day = int(day_number.min()), int(day_number.max())
    days = last_day - first_day + 1
    rows = _Rows(
        user=frame["user_id"].to_numpy(),
        ms=ms,
        day=day_number - first_day,
        hour=(ms % MS_PER_DAY) // 3_600_000,
        weekday=(day_number + 3) % 7,  # 1970-01-01 was a Thursday
        opened=(frame["action"] == "opened").to_numpy(dtype=bool),
        response=frame["responseTime"].to_numpy(dtype=np.float64),
        seen=frame["seenTime"].to_numpy(dtype=np.float64),
    )
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
        "fatigue": _fatigue(rows, frame["postingApp"].astype("category").cat.codes.to_numpy()),
        "periods": _periods(rows, len(population), days),
    }


def describe_path(path: Path) -> dict:
    """``describe`` of a dataset folder (or a folder or file holding a notifications table)."""
    path = Path(path)
    if path.is_file():
        return describe(_read(path))
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
    frame = _read(notifications)
    stats = describe(frame, _read(users) if users.is_file() else None)
    if has_ground_truth(path):
        stats["engagement"] = engagement_stats(path, frame)
    return stats


def _read(path: Path) -> pd.DataFrame:
    if path.suffix not in (".parquet", ".csv") and not path.is_dir():
        raise DatasetError(f"{path} is not a Parquet or CSV table")
    try:
        return read_table(path)
    except (OSError, ValueError, pa.ArrowException) as error:
        reason = first_line(error)
        raise DatasetError(f"cannot read {path}: {reason}") from None


@dataclass(frozen=True)
class _Rows:
    user: np.ndarray
    ms: np.ndarray
    day: np.ndarray  # days since the first day
    hour: np.ndarray
    weekday: np.ndarray  # 0 = Monday
    opened: np.ndarray
    response: np.ndarray
    seen: np.ndarray


def _num(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def _mean(values: np.ndarray) -> float | None:
    return _num(values.mean()) if len(values) else None


def _median(values: np.ndarray) -> float | None:
    return _num(np.median(values)) if len(values) else None


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
    return {"mean": _num(per_day.mean()), "median": _num(median), "p10": _num(p10),
            "p90": _num(p90), "min": _num(per_day.min()), "max": _num(per_day.max())}


def _hourly(rows: _Rows) -> dict:
    counts = np.bincount(rows.hour, minlength=24)
    opened = np.bincount(rows.hour, weights=rows.opened, minlength=24)
    delay = pd.Series(rows.response).groupby(rows.hour).median().reindex(range(24))
    return {
        "share": [_num(c / len(rows.hour)) for c in counts],
        "open_rate": [_num(o / c) if c else None for o, c in zip(opened, counts, strict=True)],
        "median_response_s": [_num(d) for d in delay],
    }


def _weekday(rows: _Rows, n_users: int, calendar_weekdays: np.ndarray) -> dict:
    counts = np.bincount(rows.weekday, minlength=7)
    opened = np.bincount(rows.weekday, weights=rows.opened, minlength=7)
    days_of = np.bincount(calendar_weekdays, minlength=7)
    workday = np.arange(7) < 5

    def per_user_day(mask: np.ndarray) -> float | None:
        return _num(counts[mask].sum() / (n_users * days_of[mask].sum())) if days_of[mask].sum() else None

    def open_rate(mask: np.ndarray) -> float | None:
        return _num(opened[mask].sum() / counts[mask].sum()) if counts[mask].sum() else None

    return {
        "share": [_num(c / len(rows.weekday)) for c in counts],
        "per_user_day": [per_user_day(np.arange(7) == d) for d in range(7)],
        "open_rate": [open_rate(np.arange(7) == d) for d in range(7)],
        "per_user_day_weekdays": per_user_day(workday),
        "per_user_day_weekend": per_user_day(~workday),
        "open_rate_weekdays": open_rate(workday),
        "open_rate_weekend": open_rate(~workday),
    }


def _asleep(rows: _Rows, users: pd.DataFrame | None) -> dict:
    first, last = ASLEEP_HOURS
    out = {"hours": [first, last], "share": _mean((rows.hour >= first) & (rows.hour < last)),
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
        out["share_in_users_sleep"] = _mean(asleep)
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
    table = pd.DataFrame({"key": keys, "opened": opened})
    if seen is not None:
        table["seen"] = seen
    grouped = table.groupby("key", observed=True, sort=True)
    summary = grouped["opened"].agg(["size", "mean"])
    if seen is not None:
        summary["seen"] = grouped["seen"].median()
    out = {}
    for key, row in summary.iterrows():
        out[str(key)] = {"n": int(row["size"]), "share": _num(row["size"] / len(table)),
                         "open_rate": _num(row["mean"])}
        if seen is not None:
            out[str(key)]["median_seen_s"] = _num(row["seen"])
    return out


def _top_apps(apps: pd.Series, opened: np.ndarray) -> list[dict]:
    catalog = app_catalog()
    kind_of = dict(zip(catalog.apps, (catalog.kinds[k] for k in catalog.kind_of_app), strict=True))
    groups = _groups(apps, opened)
    ranked = sorted(groups.items(), key=lambda item: (-item[1]["n"], item[0]))[:TOP_APPS]
    return [{"app": app, "kind": kind_of.get(app), **values} for app, values in ranked]


def _open_rates(frame: pd.DataFrame, rows: _Rows) -> dict:
    per_user = pd.Series(rows.opened).groupby(rows.user).mean().to_numpy()
    kind = np.asarray(_kind_of(frame["postingApp"]).astype(object))
    ongoing = frame["ongoing"].to_numpy(dtype=bool)
    known = pd.notna(kind)
    return {
        "overall": _mean(rows.opened),
        "users_min": _num(per_user.min()),
        "users_median": _median(per_user),
        "users_max": _num(per_user.max()),
        "messaging": _mean(rows.opened[kind == "messaging"]),
        "other_kinds": _mean(rows.opened[known & (kind != "messaging")]),
        "system": _mean(rows.opened[kind == "system"]),
        "ongoing": _mean(rows.opened[ongoing]),
        "not_ongoing": _mean(rows.opened[~ongoing]),
        "dismissed_share": _mean(~rows.opened),
    }


def _headphones_music(frame: pd.DataFrame, opened: np.ndarray) -> dict:
    both = frame["headphonesIn"].to_numpy(dtype=bool) & frame["musicActive"].to_numpy(dtype=bool)
    chat = (frame["category"] == "msg").to_numpy(dtype=bool)
    return {
        name: {"n": int(mask.sum()), "open_rate": _mean(opened[mask]),
               "open_rate_msg": _mean(opened[mask & chat])}
        for name, mask in (("headphones_and_music", both), ("otherwise", ~both))
    }


def _timing(rows: _Rows) -> dict:
    quick = rows.response <= QUICK_SECONDS
    return {
        "median_response_opened_s": _median(rows.response[rows.opened]),
        "median_response_s": _median(rows.response),
        "opened_within_10min": _mean(quick[rows.opened]),
        "handled_within_10min": _mean(quick),
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
        "features": _mean(size > 1),
        "features_and_action": _mean(same_action > 1),
        "opposite_action": _mean((opens > 0) & (opens < size)),
        "users_max": _num(per_user.max()),
    }


def recent_load(user: np.ndarray, ms: np.ndarray, window_ms: int) -> np.ndarray:
    """Per row: the same user's notifications posted less than ``window_ms`` before it.

    Rows at the same instant count in table order (the earlier row is the preceding one).
    """
    order = np.lexsort((ms, user))
    user_rank = np.unique(user[order], return_inverse=True)[1].astype(np.int64)
    stride = int(ms.max() - ms.min()) + window_ms + 1
    key = user_rank * stride + (ms[order] - ms.min())
    preceding = np.arange(len(key)) - np.searchsorted(key, key - window_ms, side="right")
    load = np.empty(len(key), dtype=np.int64)
    load[order] = preceding
    return load


def _fatigue(rows: _Rows, app: np.ndarray) -> dict:
    load = recent_load(rows.user, rows.ms, FATIGUE_WINDOW_MINUTES * 60_000)
    buckets = {}
    for low, high in FATIGUE_BUCKETS:
        mask = (load >= low) & (load <= (high if high is not None else load.max()))
        label = f"{low}-{high}" if high is not None else f"{low}+"
        buckets[label] = {"n": int(mask.sum()), "share": _mean(mask), "open_rate": _mean(rows.opened[mask])}
    by_user, users = _contrast(load, rows.opened, [rows.user])
    by_user_app, groups = _contrast(load, rows.opened, [rows.user, app])
    return {
        "window_minutes": FATIGUE_WINDOW_MINUTES,
        "buckets": buckets,
        "within_user_contrast": by_user,
        "users_in_contrast": users,
        "within_user_app_contrast": by_user_app,
        "user_apps_in_contrast": groups,
    }


def _contrast(load: np.ndarray, opened: np.ndarray, keys: list[np.ndarray]) -> tuple[float | None, int]:
    """Mean over groups of open rate above minus at/below the group's median load."""
    names = [f"key{i}" for i in range(len(keys))]
    table = pd.DataFrame({**dict(zip(names, keys, strict=True)), "load": load, "opened": opened})
    table["above"] = load > table.groupby(names)["load"].transform("median").to_numpy()
    rates = (table.groupby([*names, "above"])["opened"].mean().unstack()
             .reindex(columns=[False, True]))
    difference = (rates[True] - rates[False]).dropna().to_numpy()
    return _mean(difference), len(difference)


def _periods(rows: _Rows, n_users: int, days: int) -> list[dict]:
    period = rows.day // PERIOD_DAYS
    counts = np.bincount(period)
    opened = np.bincount(period, weights=rows.opened)
    out = []
    for p, (count, opens) in enumerate(zip(counts, opened, strict=True)):
        first, last = p * PERIOD_DAYS + 1, min((p + 1) * PERIOD_DAYS, days)
        out.append({"days": [first, last], "n": int(count),
                     "per_user_day": _num(count / (n_users * (last - first + 1))),
                     "open_rate": _num(opens / count) if count else None})
    return out


# ---- report ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One table of the report: a title, column names, rows of text and an optional note."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def secs(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} s"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f} pts"


def _pair(*texts: str) -> str:
    return " / ".join(texts)


def sections(stats: dict) -> list[Section]:
    """The report's tables, in order, with the published figure beside each calibrated one."""
    engagement = _engagement_sections(stats["engagement"]) if "engagement" in stats else []
    return [_overview(stats), _key_figures(stats), _hour_section(stats), _weekday_section(stats),
            *_group_sections(stats), _fatigue_section(stats), _period_section(stats), *engagement]


def _engagement_sections(stats: dict) -> list[Section]:
    context = Section(
        "Context decides: content x situation effects",
        ("content", "situation", "effect (log-odds)", "rows", "open rate in it", "elsewhere"),
        tuple((o["group"], o["situation"], f"{o['effect']:+.2f}", f"{o['rows_in']:,}", pct(o["open_in"]),
               pct(o["open_out"])) for o in stats["observed"]),
        "effect: the population mean of the users' interaction weights (pushgen.model.situations); "
        "open rates: that content's notifications in the situation and elsewhere")
    habituation = Section(
        "Habituation: open rate by exposure to the notification's channel",
        ("exposure", "rows", "open rate"),
        tuple((f"{b['low']:g}-{b['high']:g}" if np.isfinite(b["high"]) else f"{b['low']:g}+",
               f"{b['rows']:,}", pct(b["open_rate"])) for b in stats["habituation"]),
        "exposure: earlier notifications of the same channel, each decaying over days "
        "(pushgen.model.exposure); busier channels are messaging, so compare within a user and channel: "
        f"open rate above minus at/below the median exposure {_points(stats['habituation_contrast'])}; "
        "published: the effect of a prompt shrinks with repetition, +66% at first, +14% averaged over "
        "weeks (Klasnja 2019)")
    return [context, habituation]


def _overview(stats: dict) -> Section:
    return Section("Dataset", ("", ""), (
        ("notifications", f"{stats['rows']:,}"),
        ("users", f"{stats['users']:,}"),
        ("days", f"{stats['days']:,} ({stats['first_day']} to {stats['last_day']})"),
    ))


def _key_figures(stats: dict) -> Section:
    v, o, t = stats["per_user_day"], stats["open_rate"], stats["timing"]
    w, r, rep = stats["weekday"], stats["ringer_mode"], stats["repetition"]
    first, last = stats["asleep"]["hours"]
    periods = stats["periods"]
    contrast = stats["fatigue"]["within_user_contrast"]
    rows = [
        ("notifications/user/day, mean", num(v["mean"]),
         "63.5 mean (Pielot 2014); 60-80 (gym-push data)"),
        ("notifications/user/day, median", num(v["median"]), "56 median (Pielot 2018)"),
        ("notifications/user/day, p10 / p90", _pair(num(v["p10"]), num(v["p90"])),
         "light users near 15, heavy users above 150"),
        ("notifications/user/day, min / max", _pair(num(v["min"]), num(v["max"])),
         "EvalUMAP 2019 users: 10 / 83"),
        (f"posted {first:02d}:00-{last:02d}:00", pct(stats["asleep"]["share"]), "near zero while asleep"),
    ]
    if stats["asleep"]["share_in_users_sleep"] is not None:
        rows.append(("posted in the user's usual sleep", pct(stats["asleep"]["share_in_users_sleep"]),
                     "near zero while asleep"))
    rows += [
        ("notifications/user/day, weekdays / weekend",
         _pair(num(w["per_user_day_weekdays"]), num(w["per_user_day_weekend"])), "more on weekdays"),
        ("open rate, weekdays / weekend", _pair(pct(w["open_rate_weekdays"]), pct(w["open_rate_weekend"])),
         "more clicks on weekdays"),
        ("open rate, overall", pct(o["overall"]), "35-55%"),
        ("open rate across users, min / median / max",
         _pair(pct(o["users_min"]), pct(o["users_median"]), pct(o["users_max"])),
         "users differ (EvalUMAP 2019: 9% to 99%)"),
        ("open rate, messaging apps", pct(o["messaging"]), "about 65% (Pielot 2018)"),
        ("open rate, all other kinds of app", pct(o["other_kinds"]),
         "about 15-25% for email, social, non-social (Pielot 2018)"),
        ("open rate, system apps", pct(o["system"]), "far below the rest"),
        ("open rate, ongoing / not ongoing", _pair(pct(o["ongoing"]), pct(o["not_ongoing"])),
         "ongoing rarely opened"),
        ("dismissed (not opened)", pct(o["dismissed_share"]),
         "20-50% ignored entirely (Pradhan 2017)"),
        ("opened within 10 min (share of opened)", pct(t["opened_within_10min"]),
         "> 60% clicked within 10 min (Mehrotra 2015)"),
        ("handled within 10 min", pct(t["handled_within_10min"]), "most (Mehrotra 2015)"),
        ("median time to action, opened / all", _pair(secs(t["median_response_opened_s"]),
                                                       secs(t["median_response_s"])),
         "EvalUMAP 2019: 262 s (all)"),
        ("ringer at arrival, normal / silent / vibrate",
         _pair(*(pct(r.get(mode, {}).get("share", 0.0)) for mode in ("normal", "silent", "vibrate"))),
         "53% / 26% / 22% (Mehrotra 2016)"),
        ("rows repeating another row of the user", pct(rep["features"]),
         "EvalUMAP 2019: 43-95% per user (a defect)"),
        ("... with the same action / the opposite one",
         _pair(pct(rep["features_and_action"]), pct(rep["opposite_action"])), "low"),
        ("fatigue: open rate busier minus calmer, within user / user and app",
         _pair(_points(contrast), _points(stats["fatigue"]["within_user_app_contrast"])),
         "negative (Pielot 2014)"),
        (f"open rate, first / last period of {PERIOD_DAYS} days",
         _pair(pct(periods[0]["open_rate"]), pct(periods[-1]["open_rate"])),
         "novelty wears off over weeks (Klasnja 2019)"),
    ]
    return Section("Key figures", ("figure", "this dataset", "published"), tuple(rows))


def _bar(share: float | None, scale: float) -> str:
    return "" if not share else "#" * max(1, round(share / scale * 20))


def _hour_section(stats: dict) -> Section:
    h = stats["hourly"]
    top = max(s for s in h["share"] if s is not None)
    rows = tuple(
        (f"{hour:02d}", pct(h["share"][hour]), pct(h["open_rate"][hour]),
         secs(h["median_response_s"][hour]), _bar(h["share"][hour], top))
        for hour in range(24)
    )
    return Section("By clock hour", ("hour", "share", "open rate", "median to action", ""), rows,
                   "published: most arrive late morning and late afternoon; 20-23 h fewer, with the "
                   "shortest delays (Stach 2024)")


def _weekday_section(stats: dict) -> Section:
    w = stats["weekday"]
    rows = tuple((WEEKDAYS[d], num(w["per_user_day"][d]), pct(w["share"][d]), pct(w["open_rate"][d]))
                 for d in range(7))
    return Section("By weekday", ("day", "per user/day", "share", "open rate"), rows,
                   "published: more notifications and more clicks on weekdays")


def _group_rows(groups: dict[str, dict], seen: bool = False) -> tuple[tuple[str, ...], ...]:
    return tuple(
        (key, f"{g['n']:,}", pct(g["share"]), pct(g["open_rate"]),
         *((secs(g["median_seen_s"]),) if seen else ()))
        for key, g in groups.items()
    )


def _group_sections(stats: dict) -> list[Section]:
    head = ("rows", "share", "open rate")
    hm = stats["headphones_music"]
    return [
        Section("By kind of app", ("kind", *head), _group_rows(stats["by_kind"]),
                "published: messaging about 65%, other kinds about 15-25% (Pielot 2018)"),
        Section("By category", ("category", *head), _group_rows(stats["by_category"])),
        Section(f"Top {TOP_APPS} apps", ("app", "kind", "share", "open rate"), tuple(
            (a["app"], a["kind"] or "-", pct(a["share"]), pct(a["open_rate"])) for a in stats["top_apps"])),
        Section("By ongoing", ("ongoing", *head), _group_rows(stats["ongoing"]),
                "published: ongoing notifications are rarely opened"),
        Section("By ringer mode", ("ringerMode", *head, "median to seen"),
                _group_rows(stats["ringer_mode"], seen=True),
                "published: sound ~53%, silent ~26%, vibrate ~22%; seen fastest in vibrate, slowest "
                "in silent (Mehrotra 2016)"),
        Section("By activity", ("activity", *head, "median to seen"),
                _group_rows(stats["activity"], seen=True),
                "published: vehicle and running lower the open rate; seen fastest when commuting"),
        Section("Headphones and music", ("", "rows", "open rate", "open rate, msg"), tuple(
            (name.replace("_", " "), f"{g['n']:,}", pct(g["open_rate"]), pct(g["open_rate_msg"]))
            for name, g in hm.items()),
                "published: headphones with music and messaging raise the open rate"),
    ]


def _fatigue_section(stats: dict) -> Section:
    f = stats["fatigue"]
    rows = tuple((label, f"{b['n']:,}", pct(b["share"]), pct(b["open_rate"]))
                 for label, b in f["buckets"].items())
    return Section(
        f"Fatigue: the user's notifications in the preceding {f['window_minutes']} min",
        ("count", "rows", "share", "open rate"), rows,
        "open rate above minus at/below the median count, averaged within user: "
        f"{_points(f['within_user_contrast'])} ({f['users_in_contrast']} users); within user and "
        f"app: {_points(f['within_user_app_contrast'])} ({f['user_apps_in_contrast']} pairs); "
        "published: more notifications go with more negative feelings (Pielot 2014)")


def _period_section(stats: dict) -> Section:
    rows = tuple((f"{p['days'][0]}-{p['days'][1]}", f"{p['n']:,}", num(p["per_user_day"]),
                  pct(p["open_rate"])) for p in stats["periods"])
    return Section(f"By {PERIOD_DAYS}-day period", ("days", "rows", "per user/day", "open rate"), rows,
                   "published: the effect of a prompt shrinks over weeks (Klasnja 2019)")


NUMBER = re.compile(r"[+-]?\d")


def right_aligned(section: Section) -> list[bool]:
    """Which columns hold numbers (every column but the first whose cells all start with one)."""
    return [i > 0 and all(NUMBER.match(row[i]) or row[i] in ("", "-") for row in section.rows)
            for i in range(len(section.header))]


def render_text(section: Section) -> str:
    """A section as an aligned plain-text table (columns of numbers right-aligned)."""
    right = right_aligned(section)
    lines = [section.title, "=" * len(section.title)]
    if any(section.header):
        header, *rows = aligned_table(section.header, section.rows, right)
        table = [section.header, *section.rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(section.header))]
        lines += [header, "  ".join("-" * w for w in widths), *rows]
    elif section.rows:
        lines += aligned_table(section.rows[0], section.rows[1:], right)
    if section.note:
        lines.append(section.note)
    return "\n".join(lines)


def format_description(stats: dict) -> str:
    """The statistics as a plain-text report, the published figure beside each calibrated one."""
    return "\n\n".join(render_text(s) for s in sections(stats)) + "\n"
