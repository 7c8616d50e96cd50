"""How much users differ, how quiet their nights are and what the timings tell: the figures of the
realism audit that read the users table beside the notifications (``docs/calibration.md``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from pushgen.data.describe_time import Rows

MS_PER_HOUR = 3_600_000
ASLEEP_HOURS = (1, 5)  # [01:00, 05:00): nearly everyone sleeps
MIN_USER_ROWS = 100
PROMPT_SECONDS = 60.0
LATE_SECONDS = 600.0
FIRST_WEEK_DAYS = 7
AUC_ROWS = 40_000
AUC_FOLDS = 5


def _hours(clock: pd.Series) -> np.ndarray:
    """Clock strings ``HH:MM`` as hours after midnight."""
    parts = clock.astype(str).str.split(":", expand=True).astype(float)
    return (parts[0] + parts[1] / 60.0).to_numpy()


def _clock_hour(notifications: pd.DataFrame) -> np.ndarray:
    ms = notifications["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    return (ms % (24 * MS_PER_HOUR)) / MS_PER_HOUR


def spread_figures(notifications: pd.DataFrame) -> dict[str, float]:
    """Per-user open rates and app portfolios: how much users differ."""
    opened = (notifications["action"] == "opened").to_numpy()
    user = notifications["user_id"].to_numpy()
    per_user = pd.DataFrame({"user": user, "opened": opened}).groupby("user")["opened"].agg(["size", "mean"])
    rates = per_user.loc[per_user["size"] >= MIN_USER_ROWS, "mean"]
    apps = notifications.groupby(["user_id", "postingApp"], observed=True).size()
    apps = apps[apps > 0]
    top_share = apps.groupby(level=0).max() / apps.groupby(level=0).sum()
    hour = _clock_hour(notifications).astype(np.int64)
    counts = pd.crosstab(user, hour).reindex(columns=range(24), fill_value=0)
    profile = counts.to_numpy(dtype=np.float64).copy()
    profile /= profile.sum(axis=1, keepdims=True)
    correlation = (np.corrcoef(profile)[np.triu_indices(len(profile), k=1)] if len(profile) > 1
                   else np.empty(0))
    return {
        "user_open_sd": float(rates.std(ddof=1)) if len(rates) > 1 else float("nan"),
        "user_open_min": float(rates.min()) if len(rates) else float("nan"),
        "user_open_max": float(rates.max()) if len(rates) else float("nan"),
        "top_app_share": float(top_share.median()),
        "top_app_above_half": float((top_share > 0.5).mean()),
        "hour_profile_correlation": float(np.nanmedian(correlation)) if len(correlation) else float("nan"),
    }


def chronotype_figures(users: pd.DataFrame) -> dict[str, float]:
    """Wake-up and bed times of the users table (``HH:MM`` on workdays)."""
    wake, bed = _hours(users["wake_time"]), _hours(users["bedtime"])
    after_one = (bed >= 1.0) & (bed < 12.0)
    return {"wake_span_hours": float(wake.max() - wake.min()), "bed_after_1am": float(after_one.mean())}


def night_figures(notifications: pd.DataFrame, users: pd.DataFrame) -> dict[str, float]:
    """Prompt opens in each user's core sleep (bedtime + 1 h to wake-up - 1 h, the users table's
    workday times), and the ringer in the small hours (0-6 h)."""
    hour = _clock_hour(notifications)
    table = users.set_index("user_id")
    rows = table.index.get_indexer(pd.Index(notifications["user_id"].to_numpy()))
    bed, wake = _hours(table["bedtime"])[rows] + 1.0, _hours(table["wake_time"])[rows] - 1.0
    since_bed = (hour - bed) % 24
    in_core = since_bed < (wake - bed) % 24
    opened = (notifications["action"] == "opened").to_numpy()
    prompt = opened & (notifications["responseTime"].to_numpy() <= PROMPT_SECONDS)
    small_hours = hour < 6.0
    quiet = notifications["ringerMode"].astype(str).isin(["silent", "vibrate"]).to_numpy()
    return {
        "core_sleep_prompt_opens": float((prompt & in_core).mean()),
        "core_sleep_share": float(in_core.mean()),
        "small_hours_quiet_ringer": float(quiet[small_hours].mean()) if small_hours.any() else float("nan"),
    }


def timing_figures(notifications: pd.DataFrame) -> dict[str, float]:
    """Delayed opens, and each user's open rate in the first week against the rest (the median
    over users: who is busy in which week does not move it)."""
    opened = (notifications["action"] == "opened").to_numpy()
    decision = notifications["decisionTime"].to_numpy()
    ms = notifications["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    first_week = ms < ms.min() + FIRST_WEEK_DAYS * 24 * MS_PER_HOUR
    rates = pd.DataFrame({"user": notifications["user_id"].to_numpy(), "first": first_week, "opened": opened})
    by_week = rates.groupby(["user", "first"])["opened"].mean().unstack()
    lift = (by_week[True] - by_week[False]).dropna() if by_week.shape[1] == 2 else pd.Series(dtype=float)
    return {
        "opened_decided_late": float((decision[opened] > LATE_SECONDS).mean()),
        "first_week_open_lift": float(lift.median()) if len(lift) else float("nan"),
    }


def timing_auc(notifications: pd.DataFrame, seed: int = 0) -> float:
    """ROC AUC of the action from seenTime, decisionTime and responseTime alone: a gradient-boosted
    model (scikit-learn), users held out (``AUC_FOLDS`` folds), on at most ``AUC_ROWS`` rows."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    rng = np.random.default_rng(seed)
    take = rng.choice(len(notifications), min(AUC_ROWS, len(notifications)), replace=False)
    rows = notifications.iloc[np.sort(take)]
    x = np.log1p(rows[["seenTime", "decisionTime", "responseTime"]].to_numpy(dtype=np.float64))
    y = (rows["action"] == "opened").to_numpy()
    groups = rows["user_id"].to_numpy()
    folds = min(AUC_FOLDS, len(np.unique(groups)))
    scores = np.zeros(len(y))
    with threadpool_limits(limits=1):  # small fits: threads cost more than they give
        for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
            model = HistGradientBoostingClassifier(max_iter=60, random_state=seed).fit(x[train], y[train])
            scores[test] = model.predict_proba(x[test])[:, 1]
    return float(roc_auc_score(y, scores))


def user_figures(notifications: pd.DataFrame, users: pd.DataFrame | None) -> dict[str, float]:
    """Every figure of this module but the AUC (which needs scikit-learn: ``timing_auc``)."""
    figures = {**spread_figures(notifications), **timing_figures(notifications)}
    if users is not None and {"wake_time", "bedtime"} <= set(users.columns):
        figures.update(chronotype_figures(users))
        figures.update(night_figures(notifications, users))
    return figures


def asleep_stats(rows: Rows, users: pd.DataFrame | None) -> dict[str, Any]:
    """The share of rows posted in ``ASLEEP_HOURS`` and (with ``users``) in each user's own
    sleep (None: no users table with bedtimes and wake times)."""
    first, last = ASLEEP_HOURS
    in_hours = np.count_nonzero((rows.hour >= first) & (rows.hour < last))
    out = {"hours": [first, last], "share": in_hours / len(rows.hour), "share_in_users_sleep": None}
    window = _sleep_window(users)
    if window is not None:
        where = window.index.get_indexer(pd.Index(rows.user))
        known = where >= 0
        bed, wake = (window[name].to_numpy()[where[known]] for name in ("bedtime", "wake_time"))
        minute = rows.ms[known] % (24 * MS_PER_HOUR) // 60_000
        asleep = np.where(bed > wake, (minute >= bed) | (minute < wake), (minute >= bed) & (minute < wake))
        out["share_in_users_sleep"] = np.count_nonzero(asleep) / len(asleep) if len(asleep) else None
    return out


def _sleep_window(users: pd.DataFrame | None) -> pd.DataFrame | None:
    """Each user's usual bedtime and wake time in minutes after midnight (the first row of each
    user), if the table has them."""
    if users is None or not {"user_id", "bedtime", "wake_time"} <= set(users.columns):
        return None
    first = users.drop_duplicates("user_id").set_index("user_id")
    try:
        return pd.DataFrame({name: _minutes(first[name]) for name in ("bedtime", "wake_time")},
                            index=first.index)
    except (ValueError, TypeError):
        return None


def _minutes(clock: pd.Series) -> np.ndarray:
    hours_minutes = (str(value).split(":", 2)[:2] for value in clock)
    return np.array([int(hours) * 60 + int(minutes) for hours, minutes in hours_minutes], dtype=np.int64)
