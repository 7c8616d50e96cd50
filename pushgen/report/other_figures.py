"""The calibration figure (every calibration figure beside its target), a split's parts over time
and a benchmark run's leaderboard, per-user scores and learning curves."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pushgen.benchmark.plots import learning_curves_figure
from pushgen.data.calibration import checks, summary, verdict_line
from pushgen.report.data_figures import View
from pushgen.report.style import (
    DISMISSED,
    GRID,
    HOLDS,
    INK,
    MISSES,
    OPENED,
    TARGET,
    WEEKDAY,
    WEEKEND,
    legend_below,
    new_figure,
    styled,
)
from pushgen.text_tables import plural

REACH = 0.75  # how far beyond its target range a value is drawn (in target widths)
PART_COLORS = {"task1/train": WEEKDAY, "task1/validation": OPENED, "task1/test": WEEKEND,
               "task2/test": "#9b59b6"}


@styled
def calibration_figure(view: View):
    """Calibration against published figures

    Each row is one figure of docs/calibration.md on its own scale: the green band is its target
    range, the dot its value here. A red cross (or a red arrow when far outside) and a red name mark
    a miss. The same figures and ranges as scripts/calibration_over_seeds.py; small datasets miss
    some by chance.
    """
    from matplotlib.patches import Rectangle

    found = checks(view.stats)
    figure = new_figure(11, 0.3 * len(found) + 1.0)
    ax = figure.subplots()
    for row, check in enumerate(found):
        y = len(found) - 1 - row
        ax.add_patch(Rectangle((0, y - 0.38), 1, 0.76, color=TARGET, zorder=1))
        figure_ = check.figure
        if check.value is None:
            ax.text(0.5, y, "not measurable here", ha="center", va="center", fontsize=7, color="0.5")
            verdict, color = "-", "0.5"
        else:
            width = figure_.high - figure_.low
            where = (check.value - figure_.low) / width if width else 0.5
            shown = float(np.clip(where, -REACH, 1 + REACH))
            holds = bool(check.holds)
            color = HOLDS if holds else MISSES
            marker = "o" if holds else ("X" if shown == where else ("<" if where < 0 else ">"))
            ax.plot(shown, y, marker, color=color, markersize=7 if holds else 9, zorder=3)
            verdict = figure_.show(check.value) + ("" if holds else "  MISSES")
        ax.text(1 + REACH + 0.3, y, f"{verdict}", va="center", fontsize=8, color=color,
                fontweight="normal" if color != MISSES else "bold")
        ax.text(1 + REACH + 1.25, y, f"target {figure_.range_text}: {figure_.target}", va="center",
                fontsize=7, color=INK)
    names = [c.figure.name for c in found]
    ax.set_yticks(range(len(found)), names[::-1], fontsize=8)
    for label, check in zip(ax.get_yticklabels(), found[::-1], strict=True):
        if check.holds is False:
            label.set_color(MISSES)
            label.set_fontweight("bold")
    ax.set_xlim(-REACH - 0.1, 1 + REACH + 3.4)
    ax.set_ylim(-0.7, len(found) - 0.3)
    ax.set_xticks([0, 1], ["low end", "high end"], fontsize=7)
    ax.spines[["left", "bottom"]].set_visible(False)
    ax.tick_params(axis="y", length=0)
    ax.set_title(verdict_line(summary(found), named=False), loc="left")
    return figure


def monday_of(days: np.ndarray) -> np.ndarray:
    """The Monday starting the week of each ``datetime64[D]`` day (1970-01-01 was a Thursday)."""
    return days - (days.astype(np.int64) + 3) % 7


def weekly_rows(parts: pd.DataFrame, test_span: tuple | None) -> tuple[pd.DataFrame, set[str]]:
    """Rows per part and week (index: each week's Monday), and the parts without dates, whose rows
    are spread evenly over the days of ``test_span``."""
    weeks: dict[str, pd.Series] = {}
    undated: set[str] = set()
    for name in [p for p in PART_COLORS if p in set(parts["part"])]:
        times = parts.loc[parts["part"] == name, "posted_at"]
        if times.notna().all():
            weeks[name] = pd.Series(monday_of(times.to_numpy().astype("datetime64[D]"))).value_counts()
        elif test_span is not None:
            days = np.arange(*(np.datetime64(t, "D") for t in test_span))
            weeks[name] = pd.Series(monday_of(days)).value_counts() * (len(times) / len(days))
            undated.add(name)
    return pd.DataFrame(weeks).fillna(0.0).sort_index(), undated


@styled
def split_figure(view: View):
    """The split's parts

    Rows per week in each part: the notifications of the history parts and the contexts of the test
    parts (hatched where a part carries no dates: its contexts spread evenly over the test months),
    and the rows and users of each part. The figures below describe the history parts; the test
    parts' answers stay with the scorer.
    """
    figure = new_figure(11, 3.2)
    weekly, sizes = figure.subplots(1, 2, width_ratios=[2.4, 1])
    parts = view.source.parts
    assert parts is not None
    counts, undated = weekly_rows(parts, view.source.test_span)
    starts = counts.index.to_numpy().astype("datetime64[D]")
    below = np.zeros(len(counts))
    for name in counts.columns:
        spread = name in undated
        weekly.bar(starts, counts[name].to_numpy(), width=6.5, bottom=below, align="edge",
                   color="white" if spread else PART_COLORS[name], edgecolor=PART_COLORS[name],
                   hatch="///" if spread else None, linewidth=0.8 if spread else 0,
                   label=f"{name} (no dates: spread evenly)" if spread else name)
        below += counts[name].to_numpy()
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    locator = AutoDateLocator()
    weekly.xaxis.set_major_locator(locator)
    weekly.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    weekly.set_title("Rows per week, by part (weeks from Monday)")
    weekly.set_ylabel("rows")
    weekly.set_ylim(0, below.max() * 1.35 if len(below) else 1)  # room for the legend above the bars
    weekly.legend(fontsize=8, frameon=False, ncols=2, loc="upper left")
    weekly.grid(axis="y", **GRID)
    names = [p for p in PART_COLORS if p in set(parts["part"])]
    rows = [int((parts["part"] == n).sum()) for n in names]
    users = [parts.loc[parts["part"] == n, "user_id"].nunique() for n in names]
    y = np.arange(len(names))[::-1]
    sizes.barh(y, rows, color=[PART_COLORS[n] for n in names])
    for yi, n_rows, n_users in zip(y, rows, users, strict=True):
        sizes.text(n_rows, yi, f" {n_rows:,} rows, {plural(n_users, 'user')}", va="center",
                   fontsize=7)
    sizes.set_yticks(y, names)
    sizes.set_xlim(0, max(rows) * 1.9)
    sizes.set_title("Size of each part")
    sizes.grid(axis="x", **GRID)
    return figure


PANEL_KEYS = ("section", "task")  # a results table's columns that split it into panels, when present


def panels(table: pd.DataFrame) -> list[tuple[tuple, str, pd.DataFrame]]:
    """``table`` split by its section and task columns (those it has), in the file's order:
    (key, title, rows) per panel."""
    keys = [k for k in PANEL_KEYS if k in table]
    if not keys:
        return [((), "", table)]
    out = []
    for key, part in table.groupby(keys, sort=False, dropna=False):
        values: tuple[Any, ...] = key if isinstance(key, tuple) else (key,)
        title = ", ".join(str(v) if k == "section" else f"task {v}"
                          for k, v in zip(keys, values, strict=True) if not pd.isna(v))
        out.append((values, title[:1].upper() + title[1:], part))
    return out


def ranked(board: pd.DataFrame) -> pd.DataFrame:
    """A leaderboard panel best first: by its rank where it has one, else by mean reward."""
    if "rank" in board:
        return board.sort_values("rank", kind="stable")
    return board.sort_values("mean_reward", ascending=False, kind="stable")


def _panel_grid(count: int, rows_per_panel: int):
    columns = min(count, 2)
    grid_rows = -(-count // columns)
    figure = new_figure(11, grid_rows * (0.3 * rows_per_panel + 1.1) + 0.4)
    axes = list(figure.subplots(grid_rows, columns, squeeze=False).flat)
    for ax in axes[count:]:
        ax.set_visible(False)
    return figure, axes


def _mark(row: pd.Series) -> str:
    return (str(row["baseline"]) + " *" * bool(row.get("uses_true_model", False))
            + " [bound]" * bool(row.get("upper_bound", False)))


def with_marks(name: str, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the marks of the rows that read the simulated user or are upper bounds: the
    selection section's table (``selection.csv``) names its baselines without them."""
    if name != "selection" or "uses_true_model" in table:
        return table
    from pushgen.baselines.selection import SELECTION_BASELINES

    known = table["baseline"].map(SELECTION_BASELINES.get)
    return table.assign(uses_true_model=[b is not None and b.reads_truth for b in known],
                        upper_bound=[b is not None and b.upper_bound for b in known])


def leaderboard_figures(view: View) -> list[tuple[str, object]]:
    """Leaderboard

    Mean reward per context, each user's mean averaged over the users, with the 95% t-interval
    across users; a panel per section and task of leaderboard.csv. Orange squares (*) read the
    simulated user: yardsticks, not models; [bound] is a provable upper bound.
    """
    benchmark = view.benchmark
    ranking = {f"{name}.csv": with_marks(name, table) for name, table in benchmark.other_tables.items()
               if {"baseline", "mean_reward"} <= set(table) and len(table)}
    tables = {"": benchmark.leaderboard, **ranking}
    return [(title, leaderboard_figure(table)) for title, table in tables.items()]


@styled
def leaderboard_figure(board: pd.DataFrame):
    """Mean reward with its 95% interval across users (where the table has one), a panel per
    section and task of the leaderboard ``board``, best first."""
    groups = panels(board)
    figure, axes = _panel_grid(len(groups), max(len(part) for _, _, part in groups))
    for ax, (_, title, part) in zip(axes, groups, strict=False):
        part = ranked(part)
        y = np.arange(len(part))[::-1]
        flags = part["uses_true_model"] if "uses_true_model" in part else pd.Series(False, index=part.index)
        truth = flags.fillna(False).astype(bool).to_numpy()
        if {"ci_low", "ci_high"} <= set(part):
            low = (part["mean_reward"] - part["ci_low"]).fillna(0).clip(lower=0).to_numpy()
            high = (part["ci_high"] - part["mean_reward"]).fillna(0).clip(lower=0).to_numpy()
            ax.errorbar(part["mean_reward"], y, xerr=[low, high], fmt="none", ecolor="0.55", capsize=3)
        ax.scatter(part["mean_reward"][~truth], y[~truth], color=WEEKDAY, zorder=3, label="model / baseline")
        ax.scatter(part["mean_reward"][truth], y[truth], color=WEEKEND, marker="s", zorder=3,
                   label="reads the simulated user *")
        for yi, value in zip(y, part["mean_reward"], strict=True):
            ax.annotate(f"{value:.3f}", (value, yi), xytext=(0, 6), textcoords="offset points",
                        fontsize=7, ha="center")
        ax.set_yticks(y, [_mark(r) for _, r in part.iterrows()], fontsize=8)
        ax.axvline(0, color=INK, linewidth=0.6)
        ax.set_title(f"{title}: mean reward, 95% interval across users" if title else "Mean reward")
        ax.set_xlabel("mean reward per context")
        ax.grid(axis="x", **GRID)
    handles = {label: h for ax in axes for h, label in zip(*ax.get_legend_handles_labels(), strict=True)}
    legend_below(figure, list(handles.values()), list(handles))
    return figure


@styled
def per_user_figure(view: View):
    """Per-user scores

    Every user's mean reward under each baseline; the bar is the mean over the users.
    """
    benchmark = view.benchmark
    per_user = benchmark.per_user
    if per_user is None or per_user.empty or not {"baseline", "mean_reward"} <= set(per_user):
        return None
    board = {key: list(ranked(part)["baseline"]) for key, _, part in panels(benchmark.leaderboard)}
    groups = panels(per_user)
    figure, axes = _panel_grid(len(groups), max(part["baseline"].nunique() for _, _, part in groups))
    rng = np.random.default_rng(0)  # jitter only: the same picture every time
    for ax, (key, title, part) in zip(axes, groups, strict=False):
        means = part.groupby("baseline", sort=False)["mean_reward"].mean().sort_values(ascending=False)
        order = [b for b in board.get(key, []) if b in means.index]
        order += [b for b in means.index if b not in order]
        for k, name in enumerate(order):
            values = part.loc[part["baseline"] == name, "mean_reward"].dropna().to_numpy()
            y = len(order) - 1 - k
            ax.scatter(values, y + rng.uniform(-0.22, 0.22, len(values)), s=9, color=WEEKDAY, alpha=0.6,
                       linewidth=0)
            if len(values):
                ax.plot([values.mean()] * 2, [y - 0.35, y + 0.35], color=INK, linewidth=1.6)
        ax.set_yticks(range(len(order)), order[::-1], fontsize=8)
        ax.axvline(0, color=DISMISSED, linewidth=0.6)
        users = part["user_id"].nunique() if "user_id" in part else None
        who = "each user" if users is None else f"each of {plural(users, 'user')}"
        ax.set_title(f"{title + ': ' if title else ''}mean reward of {who}")
        ax.set_xlabel("mean reward per context")
        ax.grid(axis="x", **GRID)
    return figure


@styled
def curves_figures(view: View) -> list[tuple[str, object]]:
    """Learning curves

    One panel per baseline on shared axes: its curve in colour, the others in grey.
    """
    curves = view.benchmark.curves
    if curves is None or curves.empty or not {"baseline", "step", "mean_reward"} <= set(curves):
        return []
    out = []
    for _, title, part in panels(curves):
        figure = learning_curves_figure(part.assign(users=part.get("users", 0)), view.benchmark.labels)
        if title:
            figure.suptitle(f"{title}: {figure.get_suptitle().split(': ', 1)[-1]}", fontsize=10)
        out.append((title, figure))
    return out
