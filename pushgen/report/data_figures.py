"""The figures of a dataset's (or a split's) rows: when notifications come, what is opened where,
the apps, the response times, how users differ, fatigue and habituation, context x content."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from pushgen.data.describe import MS_PER_DAY, QUICK_SECONDS, table_rows
from pushgen.data.describe_report import WEEKDAYS
from pushgen.data.describe_time import Rows, recent_load
from pushgen.report.sources import Source
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
REPEAT_WINDOW_HOURS = 24
REPEAT_BUCKETS = ((0, 0), (1, 2), (3, 5), (6, 10), (11, None))
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


def _categories(column: pd.Series) -> pd.Categorical:
    """A column as a categorical of the values it holds (cheap for a categorical column)."""
    return column.astype("category").cat.remove_unused_categories().to_numpy()


def _weekend_rows(view: View) -> np.ndarray:
    return view.rows.weekday >= 5


@styled
def calendar_figure(view: View):
    """Notifications per user on every day of the span, and on each weekday."""
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
    by_day.add_collection(PolyCollection(corners, facecolors=np.where(weekend, WEEKEND, WEEKDAY),
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
    """Notifications per user per hour and the open rate by hour, weekdays against weekends."""
    rows, weekend_days = view.rows, view.calendar_weekday >= 5
    figure = new_figure(11, 3.3)
    volume, rate = figure.subplots(1, 2)
    hours = np.arange(24)
    for name, mask, days, color in (("Mon-Fri", ~_weekend_rows(view), (~weekend_days).sum(), WEEKDAY),
                                    ("Sat-Sun", _weekend_rows(view), weekend_days.sum(), WEEKEND)):
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
    _legend_below(figure, rate, columns=3)
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


def _legend_below(figure, ax, columns: int = 2) -> None:
    legend_below(figure, *ax.get_legend_handles_labels(), columns=columns)


def _place_groups(view: View) -> dict[str, dict]:
    table = pd.DataFrame({"place": _categories(view.frame["place"]), "opened": view.rows.opened})
    summary = table.groupby("place", observed=True)["opened"].agg(["size", "mean"])
    summary = summary[summary["size"] >= MIN_PLACE_SHARE * len(table)]
    return {str(k): {"n": int(r["size"]), "share": r["size"] / len(table), "open_rate": float(r["mean"])}
            for k, r in summary.iterrows()}


@styled
def context_figure(view: View):
    """Open rate and share of notifications by place, activity and ringer mode."""
    figure = new_figure(11, 3.6)
    axes = figure.subplots(1, 3)
    overall = view.stats["open_rate"]["overall"]
    _group_panel(axes[0], _place_groups(view), "By place", overall)
    _group_panel(axes[1], view.stats["activity"], "By activity", overall)
    _group_panel(axes[2], view.stats["ringer_mode"], "By ringer mode", overall)
    _legend_below(figure, axes[2])
    return figure


@styled
def apps_figure(view: View):
    """The mix of kinds of app, categories and the most frequent apps, with their open rates."""
    figure = new_figure(11, 3.9)
    axes = figure.subplots(1, 3)
    overall = view.stats["open_rate"]["overall"]
    top = {a["app"]: a for a in view.stats["top_apps"]}
    _group_panel(axes[0], view.stats["by_kind"], "Kind of app", overall)
    _group_panel(axes[1], view.stats["by_category"], "Category", overall)
    _group_panel(axes[2], top, f"Top {len(top)} apps", overall)
    _legend_below(figure, axes[2])
    return figure


def _ecdf(ax, seconds: np.ndarray, label: str, color: str, style: str = "-") -> None:
    if not len(seconds):
        return
    levels = np.linspace(0, 1, ECDF_POINTS)
    ax.plot(np.maximum(np.quantile(seconds, levels), 1.0), levels, style, color=color, label=label,
            linewidth=1.6)


@styled
def response_figure(view: View):
    """How long notifications wait: time to action of opened and dismissed ones, time to being
    seen by ringer mode, and the median time to action by hour."""
    from matplotlib.ticker import NullLocator

    rows = view.rows
    figure = new_figure(11, 3.3)
    action, seen, hourly = figure.subplots(1, 3)
    _ecdf(action, rows.response[rows.opened], "opened", OPENED)
    _ecdf(action, rows.response[~rows.opened], "dismissed", DISMISSED)
    action.set_title("Time to action")
    ringer = np.asarray(_categories(view.frame["ringerMode"]))
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
    """How users differ: each user's volume and open rate, and their spread."""
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


def _repeat_buckets(view: View) -> list[tuple[str, int, float]]:
    """Open rate by the user's notifications of the same app and subject in the preceding day."""
    frame, rows = view.frame, view.rows
    app = frame["postingApp"].astype("category").cat.codes.to_numpy(np.int64)
    subject = frame["subject"].astype("category").cat.codes.to_numpy(np.int64)
    key = (rows.user.astype(np.int64) * 10_000 + app) * 10_000 + subject
    load = recent_load(key, rows.ms, REPEAT_WINDOW_HOURS * 3_600_000)
    out = []
    for low, high in REPEAT_BUCKETS:
        mask = (load >= low) & (load <= (high if high is not None else load.max()))
        label = f"{low}" if high == low else (f"{low}-{high}" if high is not None else f"{low}+")
        out.append((label, int(mask.sum()), float(rows.opened[mask].mean()) if mask.any() else np.nan))
    return out


def _rate_bars(ax, labels: list[str], counts: list[int], rates: list[float], color: str) -> None:
    x = np.arange(len(labels))
    ax.bar(x, rates, color=color, alpha=0.85)
    for i, (n, r) in enumerate(zip(counts, rates, strict=True)):
        if r == r:
            ax.text(i, r, f"{r:.0%}\n{n:,}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, min(1.0, np.nanmax([*rates, 0.1]) * 1.3))
    percent_axis(ax.yaxis)
    ax.grid(axis="y", **GRID)


@styled
def fatigue_figure(view: View):
    """Fatigue (busier hours), habituation (repeats) and novelty (weeks since the start)."""
    fatigue = view.stats["fatigue"]
    figure = new_figure(11, 3.4)
    busy, repeats, weeks = figure.subplots(1, 3)
    buckets = fatigue["buckets"]
    _rate_bars(busy, list(buckets), [b["n"] for b in buckets.values()],
               [np.nan if b["open_rate"] is None else b["open_rate"] for b in buckets.values()], WEEKEND)
    contrast = fatigue["within_user_app_contrast"]
    busy.set_title("Fatigue")
    busy.set_xlabel(f"the user's notifications in the preceding {fatigue['window_minutes']} min")
    busy.set_ylabel("open rate")
    if contrast is not None:
        busy.set_ylim(0, busy.get_ylim()[1] * 1.15)  # room for the line above the bars' labels
        busy.text(0.02, 0.98, f"busier minus calmer, within user and app: {100 * contrast:+.1f} pts",
                  transform=busy.transAxes, fontsize=7, va="top")
    labels, counts, rates = zip(*_repeat_buckets(view), strict=True)
    _rate_bars(repeats, list(labels), list(counts), list(rates), OPENED)
    repeats.set_title("Habituation")
    repeats.set_xlabel(f"same app and subject in the preceding {REPEAT_WINDOW_HOURS} h")
    week = view.rows.day // 7
    counts_w = np.bincount(week)
    rate_w = np.bincount(week, weights=view.rows.opened) / np.maximum(counts_w, 1)
    weeks.plot(np.arange(1, len(counts_w) + 1), np.where(counts_w >= MIN_CELL_ROWS, rate_w, np.nan), "-o",
               color=WEEKDAY, markersize=3)
    weeks.set_title("Novelty: open rate by week")
    weeks.set_xlabel("week since the start")
    percent_axis(weeks.yaxis)
    weeks.grid(**GRID)
    return figure


@styled
def content_context_figure(view: View):
    """Open rate of each category in each activity (blank: fewer than 30 notifications)."""
    frame = view.frame
    table = pd.DataFrame({"category": _categories(frame["category"]),
                          "activity": _categories(frame["activity"]), "opened": view.rows.opened})
    grouped = table.groupby(["category", "activity"], observed=True)["opened"].agg(["size", "mean"])
    rates = grouped["mean"].where(grouped["size"] >= MIN_CELL_ROWS).unstack()
    order_rows = [c for c in table["category"].value_counts().index if c in rates.index]
    order_cols = [c for c in table["activity"].value_counts().index if c in rates.columns]
    rates = rates.reindex(index=order_rows, columns=order_cols).dropna(how="all").dropna(axis=1, how="all")
    order_rows, order_cols = list(rates.index), list(rates.columns)
    figure = new_figure(11, 0.32 * len(rates) + 1.6)
    ax = figure.subplots()
    if rates.empty:
        ax.text(0.5, 0.5, f"No category has {MIN_CELL_ROWS} notifications in one activity yet: too few rows",
                ha="center", va="center", transform=ax.transAxes, color=INK)
        ax.set_axis_off()
        return figure
    image = ax.imshow(rates.to_numpy(dtype=float), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(rates.to_numpy(dtype=float)):
        if value == value:
            ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=7,
                    color="white" if value < 0.6 else "black")
    ax.set_xticks(range(len(order_cols)), order_cols)
    ax.set_yticks(range(len(order_rows)), order_rows)
    ax.set_xlabel("activity (most frequent first)")
    ax.set_ylabel("category")
    ax.set_title("Open rate: content (category) x context (activity)")
    ax.spines[:].set_visible(False)
    colorbar = figure.colorbar(image, ax=ax, shrink=0.8)
    percent_axis(colorbar.ax.yaxis)
    return figure


@styled
def context_effects_figure(view: View):
    """With the ground truth: the content x situation pairs people report, their open rate in the
    situation against elsewhere, and the model's mean effect."""
    engagement = view.stats.get("engagement")
    if not engagement:
        return None
    observed = engagement["observed"]
    figure = new_figure(11, 0.32 * len(observed) + 1.4)
    ax, exposure = figure.subplots(1, 2, width_ratios=[2.2, 1])
    y = np.arange(len(observed))[::-1]
    for yi, o in zip(y, observed, strict=True):
        inside = np.nan if o["open_in"] is None else o["open_in"]
        outside = np.nan if o["open_out"] is None else o["open_out"]
        ax.plot([outside, inside], [yi, yi], color="0.75", linewidth=2, zorder=1)
    ax.scatter([np.nan if o["open_out"] is None else o["open_out"] for o in observed], y, color=DISMISSED,
               label="elsewhere", zorder=2, s=22)
    ax.scatter([np.nan if o["open_in"] is None else o["open_in"] for o in observed], y, color=OPENED,
               label="in the situation", zorder=3, s=22)
    ax.set_yticks(y, [f"{o['group']} in {o['situation']} ({o['effect']:+.2f})" for o in observed], fontsize=8)
    ax.set_title("Content in a situation against elsewhere (model effect, log-odds)")
    percent_axis(ax.xaxis)
    ax.set_xlabel("open rate")
    ax.grid(axis="x", **GRID)
    _legend_below(figure, ax)
    buckets = engagement["habituation"]
    labels = [f"{b['low']:g}-{b['high']:g}" if np.isfinite(b["high"]) else f"{b['low']:g}+" for b in buckets]
    _rate_bars(exposure, labels, [b["rows"] for b in buckets],
               [np.nan if b["open_rate"] is None else b["open_rate"] for b in buckets], OPENED)
    exposure.set_title("Habituation (ground truth)")
    exposure.set_xlabel("exposure to the notification's channel")
    return figure
