"""The benchmark's figures (PNG, matplotlib's Agg backend; needs ``pushgen[plot]``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pushgen.data.layout import first_line
from pushgen.extras import install_line
from pushgen.text_tables import plural

SMOOTHING = 5  # curve points per rolling mean
PNG_METADATA = {"Software": None}


def matplotlib_or_error(alternative: str = ""):
    """The matplotlib module, or an ImportError naming the extra that installs it."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError(f"plots need matplotlib: {install_line('plot')}{alternative}") from None
    except ValueError as error:  # matplotlib refuses its settings, such as MPLBACKEND, on import
        raise ImportError(f"matplotlib cannot start: {first_line(error)[:200]} (pushgen draws with its Agg "
                          "backend: unset MPLBACKEND or set it to agg)") from None
    return matplotlib


def require_matplotlib(alternative: str = " (or pass --no-plots)"):
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    matplotlib_or_error(alternative).use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def write_plots(board: pd.DataFrame, curves: pd.DataFrame, labels: dict[str, str], folder: Path) -> None:
    """learning_curves.png (task 2), open_rate.png and diversity.png."""
    plt = require_matplotlib()
    if not curves.empty:
        learning_curves_figure(curves, labels).savefig(folder / "learning_curves.png", dpi=120,
                                                       metadata=PNG_METADATA)
    _bars(plt, board, labels, folder / "open_rate.png",
          [("generated_open_rate", "open rate of generated notifications")], reference="logged_open_rate")
    _bars(plt, board, labels, folder / "diversity.png",
          [("entropy", "entropy of opened generated notifications"),
           ("distinct_ratio", "distinct values / distinct in the logged ones"),
           ("useful_variety", "useful variety: distinct values that bring opens")])


def _order(labels: dict[str, str], present) -> list[str]:
    return [name for name in labels if name in set(present)]


def learning_curves_figure(curves: pd.DataFrame, labels: dict[str, str], columns: int = 4):
    """Task 2's learning curves as small multiples: one panel per baseline, its curve in colour over
    the others in grey, on shared axes, so that no curve hides another however many there are."""
    import matplotlib
    from matplotlib.figure import Figure

    names = _order(labels, curves["baseline"])
    rows = -(-len(names) // columns)
    figure = Figure(figsize=(2.6 * columns, 1.9 * rows + 0.6))
    axes = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    smooth = {name: _smoothed(curves[curves["baseline"] == name]) for name in names}
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (ax, name) in enumerate(zip(axes.flat, names, strict=False)):
        for other in names:
            if other != name:
                ax.plot(*smooth[other], color="0.82", linewidth=0.8)
        ax.plot(*smooth[name], color=colors[k % len(colors)], linewidth=1.8,
                linestyle="--" if name == "oracle" else "-")
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("mean reward", fontsize=8)
    for column in range(columns):
        lowest = axes[(len(names) - 1 - column) // columns, column] if column < len(names) else None
        if lowest is not None:
            lowest.xaxis.set_tick_params(labelbottom=True)
            lowest.set_xlabel("step", fontsize=8)
    users = int(curves["users"].iloc[0])
    window = SMOOTHING * int(curves["step"].iloc[0])
    figure.suptitle(f"Task 2 (cold start): reward over the steps, mean of {plural(users, 'user')} "
                    f"(rolling mean of {window} steps; grey: the other baselines)", fontsize=10)
    figure.tight_layout()
    return figure


def _smoothed(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return (part["step"].to_numpy(),
            part["mean_reward"].rolling(SMOOTHING, min_periods=1).mean().to_numpy())


def _bars(plt, board: pd.DataFrame, labels: dict[str, str], path: Path,
          panels: list[tuple[str, str]], reference: str | None = None) -> None:
    panels = [(column, title) for column, title in panels if column in board]  # older results lack some
    tasks = sorted(board["task"].unique())
    names = _order(labels, board["baseline"])
    figure, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 4.5), squeeze=False)
    width = 0.8 / len(tasks)
    x = np.arange(len(names))
    for ax, (column, title) in zip(axes[0], panels, strict=True):
        for k, task in enumerate(tasks):
            part = board[board["task"] == task].set_index("baseline").reindex(names)
            bars = ax.bar(x + (k - (len(tasks) - 1) / 2) * width, part[column], width,
                          label=f"task {task}")
            if reference is not None:
                logged = float(part[reference].mean())
                ax.axhline(logged, color=bars.patches[0].get_facecolor(), linestyle=":",
                           label=f"task {task}: logged notifications ({logged:.3f})")
        ax.set_xticks(x, names, rotation=30, ha="right")
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120, metadata=PNG_METADATA)
    plt.close(figure)
