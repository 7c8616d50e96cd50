"""The figures of how engagement depends on what came before and on the situation: fatigue,
habituation (within user) and novelty, content x context, and the ground truth's context effects."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.data.calibration import TOLERANCE_SURVEY
from pushgen.data.describe_time import recent_load
from pushgen.model.long_term import BAND_NAMES
from pushgen.report.data_figures import MIN_CELL_ROWS, View, as_categories, legend_below_axis
from pushgen.report.style import (
    DISMISSED,
    GRID,
    INK,
    OPENED,
    WEEKDAY,
    WEEKEND,
    new_figure,
    percent_axis,
    styled,
)

REPEAT_WINDOW_HOURS = 24
REPEAT_BUCKETS = ((0, 0), (1, 2), (3, 5), (6, 10), (11, None))


def _repeat_buckets(view: View) -> list[tuple[str, int, float]]:
    """By the user's notifications of the same app and subject in the preceding day: the open rate
    minus that of the same user, app and subject over all their rows (within user: users who get
    many repeats open more, which a pooled rate would show as habituation running backwards)."""
    frame, rows = view.frame, view.rows
    app = frame["postingApp"].astype("category").cat.codes.to_numpy(np.int64)
    subject = frame["subject"].astype("category").cat.codes.to_numpy(np.int64)
    key = (rows.user.astype(np.int64) * 10_000 + app) * 10_000 + subject
    load = recent_load(key, rows.ms, REPEAT_WINDOW_HOURS * 3_600_000)
    _, group = np.unique(key, return_inverse=True)
    opened = rows.opened.astype(np.float64)
    shift = opened - (np.bincount(group, weights=opened) / np.bincount(group))[group]
    out = []
    for low, high in REPEAT_BUCKETS:
        mask = (load >= low) & (load <= (high if high is not None else load.max()))
        label = f"{low}" if high == low else (f"{low}-{high}" if high is not None else f"{low}+")
        out.append((label, int(mask.sum()), float(shift[mask].mean()) if mask.any() else np.nan))
    return out


def _shift_bars(ax, labels: list[str], counts: list[int], shifts: list[float]) -> None:
    """Bars of differences in open rate (percentage points) around zero, labelled with their rows."""
    x = np.arange(len(labels))
    points = 100 * np.asarray(shifts, dtype=float)
    ax.bar(x, points, color=np.where(points < 0, DISMISSED, OPENED), alpha=0.85)
    for i, (n, p) in enumerate(zip(counts, points, strict=True)):
        if p == p:
            ax.text(i, p, f"{p:+.1f}\n{n:,}", ha="center", va="bottom" if p >= 0 else "top", fontsize=7)
    ax.axhline(0, color=INK, linewidth=0.6)
    reach = max(float(np.nanmax(np.abs(points), initial=1.0)) * 1.4, 1.0)
    ax.set_ylim(-reach, reach)
    ax.set_xticks(x, labels)
    ax.grid(axis="y", **GRID)


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
    """Fatigue, habituation and novelty

    Open rate by how many notifications the user had in the preceding hour (fatigue), by how many of
    the same app and subject the user had in the preceding day (habituation, within user: the open
    rate minus the same user's for that app and subject, since users with more repeats differ in
    other ways too), and by week since the start (novelty).
    """
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
    labels, counts, shifts = zip(*_repeat_buckets(view), strict=True)
    _shift_bars(repeats, list(labels), list(counts), list(shifts))
    repeats.set_title("Habituation, within user")
    repeats.set_xlabel(f"same app and subject in the preceding {REPEAT_WINDOW_HOURS} h")
    repeats.set_ylabel("open rate minus the user's own for the app and subject (pts)", fontsize=7)
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
    """Content x context

    The open rate of each category of notification in each activity of the user; a blank cell has
    fewer than 30 notifications.
    """
    frame = view.frame
    table = pd.DataFrame({"category": as_categories(frame["category"]),
                          "activity": as_categories(frame["activity"]), "opened": view.rows.opened})
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
    ax.set_title(f"Open rate: content (category) x context (activity); blank: fewer than {MIN_CELL_ROWS} "
                 "notifications")
    ax.spines[:].set_visible(False)
    colorbar = figure.colorbar(image, ax=ax, shrink=0.8)
    percent_axis(colorbar.ax.yaxis)
    return figure


@styled
def context_effects_figure(view: View):
    """Context effects and habituation in the ground truth

    For the content x situation pairs people report: the open rate in the situation against the same
    content elsewhere, with the population's mean interaction weight; and the open rate by the
    ground truth's exposure to the notification's channel.
    """
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
    legend_below_axis(figure, ax)
    buckets = engagement["habituation"]
    labels = [f"{b['low']:g}-{b['high']:g}" if np.isfinite(b["high"]) else f"{b['low']:g}+" for b in buckets]
    _rate_bars(exposure, labels, [b["rows"] for b in buckets],
               [np.nan if b["open_rate"] is None else b["open_rate"] for b in buckets], OPENED)
    exposure.set_title("Habituation (ground truth), pooled over users")
    exposure.set_xlabel("exposure to the notification's channel")
    within = engagement.get("habituation_contrast")
    if within is not None:
        exposure.set_ylim(0, exposure.get_ylim()[1] * 1.15)
        exposure.text(0.02, 0.98, f"within user and channel, more minus less exposed: {100 * within:+.1f}"
                      " pts",
                      transform=exposure.transAxes, fontsize=7, va="top",
                      color=DISMISSED if within < 0 else INK)
    return figure


@styled
def long_term_figure(view: View):
    """Apps turned off or abandoned in the ground truth

    The share of user-app pairs whose notifications (or one of their channels) the user turned off,
    or whose app the user abandoned, by kind of app, by the pair's notifications a week until then
    and by its open rate; and the share of users whose tolerance (unwanted notifications a week from
    one app) lies in each band of the Localytics 2017 survey (diamonds: the survey's shares).
    """
    stats = view.stats.get("long_term")
    if not stats:
        return None
    figure = new_figure(11, 3.2)
    kinds, volume, opened, tolerance = figure.subplots(1, 4, width_ratios=[0.8, 1.2, 1.2, 1.2])
    groups = {"messaging": stats["by_kind"]["messaging"], "promotional": stats["by_kind"]["promotional"]}
    for ax, title, bands in ((kinds, "By kind of app", [{"band": k, **g} for k, g in groups.items()]),
                             (volume, "By notifications a week", stats["by_volume"]),
                             (opened, "By open rate", stats["by_open_rate"])):
        _rate_bars(ax, [b["band"].replace(" a week", "").replace("more than ", ">") for b in bands],
                   [b["pairs"] for b in bands],
                   [np.nan if b["turned_off"] is None else b["turned_off"] for b in bands], DISMISSED)
        ax.set_title(title)
        ax.tick_params(axis="x", labelsize=7)
    kinds.set_ylabel("user-app pairs turned off")
    x = np.arange(len(BAND_NAMES))
    shares = [np.nan if s is None else s for s in stats["tolerance_bands"]]
    tolerance.bar(x, shares, color=OPENED, alpha=0.85, label="users here")
    tolerance.scatter(x, TOLERANCE_SURVEY, color=INK, marker="D", s=18, zorder=3, label="survey")
    tolerance.set_xticks(x, ["1", "2-5", "6-10", ">10"])
    tolerance.set_title("Tolerance a week")
    percent_axis(tolerance.yaxis)
    tolerance.grid(axis="y", **GRID)
    legend_below_axis(figure, tolerance)
    return figure
