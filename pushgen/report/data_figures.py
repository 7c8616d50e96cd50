"""The figures of a dataset's (or a split's) rows: when notifications come, what is opened where,
the apps, the response times, how users differ (fatigue, habituation and content x context:
``pushgen.report.engagement_figures``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from pushgen.data.describe import MS_PER_DAY, QUICK_SECONDS, table_rows
from pushgen.data.describe_report import WEEKDAYS
from pushgen.data.describe_time import Rows
from pushgen.report.sources import Benchmark, Source
from pushgen.report.style import (
    DISMISSED,
    GRID,
    INK,
    OPENED,
    SHARE,
    WEEKDAY,
    WEEKEND,
    legend_below,
    new_figure,
    percent_axis,
    styled,
)

MIN_PLACE_SHARE = 0.01
MIN_CELL_ROWS = 30
ECDF_POINTS = 200
DURATION_TICKS = {1: "1 s", 60: "1 min", 600: "10 min", 3_600: "1 h", 86_400: "1 d"}


@dataclass
class View:
    """A source's rows as arrays, computed once for all the figures."""

    source: Source

    @cached_property
    def frame(self) -> pd.DataFrame:
        assert self.source.notifications is not None
        return self.source.notifications

    @cached_property
    def stats(self) -> dict:
        assert self.source.stats is not None
        return self.source.stats

    @cached_property
    def benchmark(self) -> Benchmark:
        assert self.source.benchmark is not None
        return self.source.benchmark

    @cached_property
    def rows(self) -> Rows:
        return table_rows(self.frame)

    @cached_property
    def calendar_weekday(self) -> np.ndarray:
        first = int(self.rows.ms.min() // MS_PER_DAY)
        return (first + np.arange(self.stats["days"]) + 3) % 7  # 1970-01-01 was a Thursday

    @cached_property
    def per_user(self) -> pd.DataFrame:
        table = pd.DataFrame({"user": self.rows.user, "opened": self.rows.opened})
        out = table.groupby("user")["opened"].agg(["size", "mean"])
        return pd.DataFrame({"per_day": out["size"] / self.stats["days"], "open_rate": out["mean"]})


def as_categories(column: pd.Series) -> np.ndarray:
    """The values of a column as an object array (cheap for a categorical column)."""
    return column.astype("category").cat.remove_unused_categories().to_numpy()


@styled
def calendar_figure(view: View):
    """Notifications per day

    Every day of the span (weekends orange) and the mean of each weekday, per user.
    """
    days = view.stats["days"]
    per_day = np.bincount(view.rows.day, minlength=days) / view.stats["users"]
    weekend = view.calendar_weekday >= 5
    dates = np.datetime64(view.stats["first_day"]) + np.arange(days)
    figure = new_figure(11, 3.2)
    by_day, by_weekday = figure.subplots(1, 2, width_ratios=[3.2, 1])
    from matplotlib.collections import PolyCollection
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
    from matplotlib.patches import Patch

    left = date2num(dates) - 0.4
    corners = np.stack([np.stack([left, left, left + 0.8, left + 0.8], axis=1),
                        np.stack([np.zeros(days), per_day, per_day, np.zeros(days)], axis=1)], axis=2)
    by_day.add_collection(PolyCollection(list(corners), facecolors=np.where(weekend, WEEKEND, WEEKDAY),
                                         linewidths=0))  # one artist for every day's bar
    by_day.xaxis_date()
    by_day.set_xlim(left[0] - 1, left[-1] + 2)
    by_day.set_title("Notifications per user per day")
    by_day.set_ylabel("per user")

    locator = AutoDateLocator()
    by_day.xaxis.set_major_locator(locator)
    by_day.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    by_day.legend(handles=[Patch(color=WEEKDAY, label="Mon-Fri"), Patch(color=WEEKEND, label="Sat-Sun")],
                  loc="upper right", fontsize=8, frameon=False, ncols=2)
    by_day.set_ylim(0, max(per_day.max(), 1e-9) * 1.2)  # the legend sits above the tallest day
    by_day.grid(axis="y", **GRID)
    values = [v or 0.0 for v in view.stats["weekday"]["per_user_day"]]
    by_weekday.bar(WEEKDAYS, values, color=[WEEKDAY] * 5 + [WEEKEND] * 2)
    by_weekday.set_title("By weekday")
    by_weekday.grid(axis="y", **GRID)
    return figure


@styled
def hours_figure(view: View):
    """Notifications and open rate by hour

    Per user and hour on weekdays and on weekends, and the open rate of the notifications posted in
    each hour (hours with fewer than 30 notifications left out).
    """
    rows, weekend_days = view.rows, view.calendar_weekday >= 5
    weekend = rows.weekday >= 5
    figure = new_figure(11, 3.3)
    volume, rate = figure.subplots(1, 2)
    hours = np.arange(24)
    for name, mask, days, color in (("Mon-Fri", ~weekend, (~weekend_days).sum(), WEEKDAY),
                                    ("Sat-Sun", weekend, weekend_days.sum(), WEEKEND)):
        if not days:
            continue
        counts = np.bincount(rows.hour[mask], minlength=24)
        opened = np.bincount(rows.hour[mask], weights=rows.opened[mask], minlength=24)
        volume.plot(hours, counts / (view.stats["users"] * days), "-o", color=color, markersize=3, label=name)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate.plot(hours, np.where(counts >= MIN_CELL_ROWS, opened / counts, np.nan), "-o", color=color,
                      markersize=3, label=name)
    volume.set_title("Notifications per user per hour")
    volume.set_ylabel("per user and hour")
    rate.set_title("Open rate by hour of posting")
    percent_axis(rate.yaxis)
    overall = view.stats["open_rate"]["overall"]
    if overall is not None:
        rate.axhline(overall, color=INK, linestyle=":", linewidth=1, label=f"all hours {overall:.0%}")
    for ax in (volume, rate):
        ax.set_xticks(range(0, 25, 3))
        ax.set_xlim(-0.5, 23.5)
        ax.set_xlabel("hour of the day")
        ax.grid(**GRID)
    legend_below_axis(figure, rate, columns=3)
    return figure


def _group_panel(ax, groups: dict[str, dict], title: str, overall: float | None) -> None:
    """Open rate (dot) and share of notifications (bar) per value, largest share first."""
    items = sorted(groups.items(), key=lambda item: -item[1]["n"])
    names = [name for name, _ in items][::-1]
    y = np.arange(len(names))
    ax.barh(y, [g["share"] or 0.0 for _, g in items][::-1], color=SHARE, label="share of notifications")
    ax.plot([g["open_rate"] if g["open_rate"] is not None else np.nan for _, g in items][::-1], y, "D",
            color=OPENED, markersize=5, label="open rate")
    if overall is not None:
        ax.axvline(overall, color=INK, linestyle=":", linewidth=1)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlim(0, 1)
    percent_axis(ax.xaxis)
    ax.set_title(title)
    ax.grid(axis="x", **GRID)


def legend_below_axis(figure, ax, columns: int = 2) -> None:
    handles, labels = ax.get_legend_handles_labels()
    legend_below(figure, handles, labels, columns=columns)


def _place_groups(view: View) -> dict[str, dict]:
    table = pd.DataFrame({"place": as_categories(view.frame["place"]), "opened": view.rows.opened})
    summary = table.groupby("place", observed=True)["opened"].agg(["size", "mean"])
    summary = summary[summary["size"] >= MIN_PLACE_SHARE * len(table)]
    return {str(k): {"n": int(r["size"]), "share": r["size"] / len(table), "open_rate": float(r["mean"])}
            for k, r in summary.iterrows()}


@styled
def context_figure(view: View):
    """Open rate by place, activity and ringer mode

    Bars: the share of notifications posted in each context; diamonds: their open rate; dotted line:
    the overall open rate. Places with under 1% of the notifications are left out.
    """
    figure = new_figure(11, 3.6)
    axes = figure.subplots(1, 3)
    overall = view.stats["open_rate"]["overall"]
    _group_panel(axes[0], _place_groups(view), "By place", overall)
    _group_panel(axes[1], view.stats["activity"], "By activity", overall)
    _group_panel(axes[2], view.stats["ringer_mode"], "By ringer mode", overall)
    legend_below_axis(figure, axes[2])
    return figure


@styled
def apps_figure(view: View):
    """Apps and categories

    The mix of kinds of app, categories and the most frequent apps, with the open rate of each.
    """
    figure = new_figure(11, 3.9)
    axes = figure.subplots(1, 3)
    overall = view.stats["open_rate"]["overall"]
    top = {a["app"]: a for a in view.stats["top_apps"]}
    _group_panel(axes[0], view.stats["by_kind"], "Kind of app", overall)
    _group_panel(axes[1], view.stats["by_category"], "Category", overall)
    _group_panel(axes[2], top, f"Top {len(top)} apps", overall)
    legend_below_axis(figure, axes[2])
    return figure


def _ecdf(ax, seconds: np.ndarray, label: str, color: str, style: str = "-") -> None:
    if not len(seconds):
        return
    levels = np.linspace(0, 1, ECDF_POINTS)
    ax.plot(np.maximum(np.quantile(seconds, levels), 1.0), levels, style, color=color, label=label,
            linewidth=1.6)


@styled
def response_figure(view: View):
    """Response times

    Cumulative distributions: the time from posting to the user's action (opened or dismissed) and
    to the notification being seen, by ringer mode; and the median time to action by hour.
    """
    from matplotlib.ticker import NullLocator

    rows = view.rows
    figure = new_figure(11, 3.3)
    action, seen, hourly = figure.subplots(1, 3)
    _ecdf(action, rows.response[rows.opened], "opened", OPENED)
    _ecdf(action, rows.response[~rows.opened], "dismissed", DISMISSED)
    action.set_title("Time to action")
    ringer = np.asarray(as_categories(view.frame["ringerMode"]))
    for mode, color in zip(("normal", "vibrate", "silent"), (WEEKDAY, OPENED, WEEKEND), strict=True):
        _ecdf(seen, rows.seen[ringer == mode], mode, color)
    seen.set_title("Time to seen, by ringer mode")
    for ax in (action, seen):
        ax.set_xscale("log")
        ax.set_xticks(list(DURATION_TICKS), list(DURATION_TICKS.values()))  # plain text: no mathtext
        ax.xaxis.set_minor_locator(NullLocator())
        ax.axvline(QUICK_SECONDS, color=INK, linestyle=":", linewidth=1)
        ax.set_xlabel("time since posting (log scale; dotted: 10 min)")
        ax.set_ylabel("share of notifications within")
        percent_axis(ax.yaxis)
        ax.grid(**GRID)
        ax.legend(fontsize=8, frameon=False, loc="upper left")
    medians = [np.nan if m is None else m / 60 for m in view.stats["hourly"]["median_response_s"]]
    hourly.bar(np.arange(24), medians, color=SHARE, edgecolor=WEEKDAY, linewidth=0.5)
    hourly.set_title("Median time to action by hour")
    hourly.set_xlabel("hour of posting")
    hourly.set_ylabel("minutes")
    hourly.set_xticks(range(0, 25, 3))
    hourly.grid(axis="y", **GRID)
    return figure


@styled
def users_figure(view: View):
    """How users differ

    Each user's notifications per day and open rate, and their spread over the users.
    """
    from matplotlib.ticker import MaxNLocator

    per_user = view.per_user
    figure = new_figure(11, 3.3)
    scatter, rates, volumes = figure.subplots(1, 3)
    scatter.scatter(per_user["per_day"], per_user["open_rate"], s=14, color=WEEKDAY, alpha=0.7,
                    edgecolor="white", linewidth=0.4)
    scatter.set_xlabel("notifications per day")
    scatter.set_ylabel("open rate")
    scatter.set_title(f"Each of {len(per_user):,} users")
    percent_axis(scatter.yaxis)
    bins = min(30, max(5, len(per_user) // 3))
    rates.hist(per_user["open_rate"], bins=bins, range=(0, 1), color=OPENED, alpha=0.85)
    rates.set_xlabel("open rate")
    rates.set_title(f"Open rate per user (median {per_user['open_rate'].median():.0%}, dotted)")
    percent_axis(rates.xaxis)
    volumes.hist(per_user["per_day"], bins=bins, color=WEEKDAY, alpha=0.85)
    volumes.set_xlabel("notifications per day")
    volumes.set_title(f"Volume per user (median {per_user['per_day'].median():.1f}, dotted)")
    for ax, values in ((rates, per_user["open_rate"]), (volumes, per_user["per_day"])):
        ax.axvline(float(np.median(values)), color=INK, linestyle=":", linewidth=1)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("users")
    for ax in (scatter, rates, volumes):
        ax.grid(**GRID)
    return figure
