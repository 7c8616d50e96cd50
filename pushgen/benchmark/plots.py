"""The benchmark's figures (PNG, matplotlib's Agg backend; needs ``pushgen[plot]``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SMOOTHING = 5  # curve points per rolling mean
PNG_METADATA = {"Software": None}


def require_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'pushgen[plot]' (or pass --no-plots)") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def write_plots(board: pd.DataFrame, curves: pd.DataFrame, labels: dict[str, str],
                folder: Path) -> list[Path]:
    """learning_curves.png (task 2), open_rate.png and diversity.png; returns the files written."""
    plt = require_matplotlib()
    written = []
    if not curves.empty:
        written.append(_learning_curves(plt, curves, labels, folder / "learning_curves.png"))
    written.append(_bars(plt, board, labels, folder / "open_rate.png",
                         [("generated_open_rate", "open rate of generated notifications")],
                         reference="logged_open_rate"))
    written.append(_bars(plt, board, labels, folder / "diversity.png",
                         [("entropy", "entropy of opened generated notifications"),
                          ("distinct_ratio", "distinct values / distinct in the logged ones")]))
    return written


def _order(labels: dict[str, str], present) -> list[str]:
    return [name for name in labels if name in set(present)]


def _learning_curves(plt, curves: pd.DataFrame, labels: dict[str, str], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for name in _order(labels, curves["baseline"]):
        part = curves[curves["baseline"] == name]
        smooth = part["mean_reward"].rolling(SMOOTHING, min_periods=1).mean()
        style = "--" if name == "oracle" else "-"
        axes.plot(part["step"], smooth, style, label=labels[name], linewidth=1.5)
    users = int(curves["users"].iloc[0])
    axes.set_xlabel("step")
    axes.set_ylabel(f"mean reward (rolling, {SMOOTHING * int(curves['step'].iloc[0])} steps)")
    axes.set_title(f"Task 2 (cold start): reward over the steps, mean of {users} users")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120, metadata=PNG_METADATA)
    plt.close(figure)
    return path


def _bars(plt, board: pd.DataFrame, labels: dict[str, str], path: Path,
          panels: list[tuple[str, str]], reference: str | None = None) -> Path:
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
    return path
