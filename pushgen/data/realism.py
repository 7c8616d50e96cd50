"""Day-level and structural figures of a notifications table: memory of days, phone-off days,
smoothness over the clock, app channels, what ``place`` carries, and the heavy-user tail."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pushgen.data.describe_time import MS_PER_DAY

if TYPE_CHECKING:
    import pandas as pd

HEAVY_PER_DAY = 150
CHANNEL_FIELDS = ["category", "priority", "visibility", "ongoing"]
MIN_APP_ROWS = 200
MIN_PLACE_SHARE = 0.01
CLOCK_HOURS = range(8, 24)


def daily_counts(notifications: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(users x days) notification counts over the table's calendar span, and each day's weekday."""
    ms = notifications["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    day = ms // MS_PER_DAY
    first = int(day.min())
    days = int(day.max()) - first + 1
    users, user = np.unique(notifications["user_id"].to_numpy(), return_inverse=True)
    counts = np.zeros((len(users), days))
    np.add.at(counts, (user, day - first), 1.0)
    return counts, (np.arange(first, first + days) + 3) % 7  # 1970-01-01 was a Thursday


def lag_autocorrelation(counts: np.ndarray, weekday: np.ndarray, lag: int = 1) -> np.ndarray:
    """Per user: the lag autocorrelation of daily counts less the user's weekday means."""
    residual = counts.copy()
    for d in range(7):
        on = weekday == d
        if on.any():
            residual[:, on] -= residual[:, on].mean(axis=1, keepdims=True)
    a, b = residual[:, :-lag], residual[:, lag:]
    denominator = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (a * b).sum(axis=1) / denominator, np.nan)


def largest_hour_step(values: pd.Series) -> float:
    """The largest ratio between adjacent hours of ``CLOCK_HOURS`` (values indexed by hour)."""
    series = values.reindex(list(CLOCK_HOURS)).to_numpy(dtype=np.float64)
    a, b = series[:-1], series[1:]
    ok = (a > 0) & (b > 0)
    return float(np.max(np.maximum(a[ok], b[ok]) / np.minimum(a[ok], b[ok]))) if ok.any() else float("nan")


def channel_coverage(notifications: pd.DataFrame) -> float:
    """The smallest, over apps with at least ``MIN_APP_ROWS`` rows, share of an app's rows in its
    three most common (category, priority, visibility, ongoing) combinations."""
    sizes = notifications.groupby(["postingApp", *CHANNEL_FIELDS], observed=True).size()
    counts = sizes[sizes > 0].rename("n").reset_index()[["postingApp", "n"]]
    counts = counts.sort_values(["postingApp", "n"], ascending=[True, False], kind="stable")
    by_app = counts.groupby("postingApp", observed=True)["n"]
    top = counts.groupby("postingApp", observed=True).head(3).groupby("postingApp", observed=True)["n"].sum()
    total = by_app.sum()
    shares = (top / total)[total >= MIN_APP_ROWS]
    return float(shares.min()) if len(shares) else float("nan")


def realism_figures(notifications: pd.DataFrame) -> dict[str, float]:
    import pandas as pd
    frame = notifications
    counts, weekday = daily_counts(frame)
    opened = (frame["action"] == "opened").to_numpy()
    hour = (frame["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64) % MS_PER_DAY) // 3_600_000
    by_hour = pd.DataFrame({"hour": hour, "opened": opened, "response": frame["responseTime"].to_numpy()})
    grouped = by_hour.groupby("hour")
    place = frame["place"].astype(str).to_numpy()
    places = pd.DataFrame({"place": place, "opened": opened}).groupby("place")["opened"].agg(["size", "mean"])
    common = places[places["size"] >= MIN_PLACE_SHARE * len(frame)]
    return {
        "heavy_users": float((counts.mean(axis=1) > HEAVY_PER_DAY).sum()),
        "lag1": float(np.nanmedian(lag_autocorrelation(counts, weekday, 1))),
        "lag2": float(np.nanmedian(lag_autocorrelation(counts, weekday, 2))),
        "phone_off_users": float((counts == 0).any(axis=1).mean()),
        "delay_step": largest_hour_step(grouped["response"].median()),
        "open_step": largest_hour_step(grouped["opened"].mean()),
        "channel_coverage": channel_coverage(frame),
        "place_other": float(np.mean(place == "TYPE_OTHER")),
        "place_spread": float(common["mean"].max() - common["mean"].min()) if len(common) > 1 else 0.0,
        "subjects": float(frame["subject"].nunique()),
    }
