"""Write a benchmark's results folder: text files that diff cleanly between versions, and plots.

    leaderboard.md    the leaderboard per task (Markdown)
    leaderboard.csv   the same numbers
    per_user.csv      every metric per task, baseline and user
    curves.csv        task 2: mean reward per 100 steps, averaged over users
    benchmark.json    split, fingerprint, mode, seed, tasks, baselines, versions
    timings.json      wall and decision times (they vary from run to run, so kept apart)
    *.png             learning_curves (task 2), open_rate, diversity
"""

from __future__ import annotations

import json
import math
import platform
from pathlib import Path

import pandas as pd

from pushgen._version import __version__
from pushgen.benchmark.run import Results
from pushgen.benchmark.summary import CONFIDENCE, leaderboard
from pushgen.dataset import atomic_folder

FLOAT = "%.6f"
TASK_TITLES = {1: "Task 1: offline (the user's history, then every test context at once)",
               2: "Task 2: online, cold start (no history; responses after every 50 contexts)"}
MD_COLUMNS = {  # column -> (heading, format)
    "generated_open_rate": ("open rate", "{:.3f}"),
    "logged_open_rate": ("logged open rate", "{:.3f}"),
    "entropy": ("entropy", "{:.3f}"),
    "distinct_ratio": ("distinct ratio", "{:.3f}"),
    "learning_quarter_gain": ("last - first quarter", "{:+.3f}"),
}


def write_results(results: Results, out: str | Path, force: bool = False,
                  plots: bool = True) -> Path:
    """Write the results folder ``out`` (refused if it exists, unless ``force``)."""
    out = Path(out)
    board = leaderboard(results.per_user, results.baselines)
    order = {name: i for i, name in enumerate(results.baselines)}
    per_user = results.per_user.sort_values(
        ["task", "baseline", "user_id"], key=lambda c: c.map(order) if c.name == "baseline" else c,
        kind="stable")
    with atomic_folder(out, force) as work:
        (work / "leaderboard.md").write_text(markdown(results, board))
        board.to_csv(work / "leaderboard.csv", index=False, float_format=FLOAT)
        per_user.to_csv(work / "per_user.csv", index=False, float_format=FLOAT)
        results.curves.to_csv(work / "curves.csv", index=False, float_format=FLOAT)
        (work / "benchmark.json").write_text(json.dumps(description(results), indent=1) + "\n")
        (work / "timings.json").write_text(json.dumps(
            {"machine": machine(), **results.timings}, indent=1) + "\n")
        if plots:
            from pushgen.benchmark.plots import write_plots

            write_plots(board, results.curves, results.baselines, work)
    return out


def description(results: Results) -> dict:
    return {
        "split": results.split,
        "fingerprint": results.fingerprint,
        "mode": results.mode,
        "seed": results.seed,
        "tasks": results.tasks,
        "baselines": results.baselines,
        "pushgen_version": __version__,
    }


def machine() -> dict:
    import os

    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count()}


def markdown(results: Results, board: pd.DataFrame) -> str:
    percent = f"{CONFIDENCE:.0%}"
    lines = [
        f"# Leaderboard: {results.split}",
        "",
        f"Split `{results.split}` (fingerprint `{results.fingerprint[:16]}`), reward mode "
        f"`{results.mode}`, seed {results.seed}. Mean reward: each user's mean reward per "
        f"context, averaged over the users, with the {percent} t-interval across users. "
        "The other columns are averages over users: the open rate of the generated "
        "notifications (the logged ones' beside it), the diversity of the opened generated "
        "notifications (normalised entropy and distinct-value ratio), and in task 2 the mean "
        "reward of the last quarter of the steps less that of the first.",
    ]
    for task in results.tasks:
        part = board[board["task"] == task]
        if part.empty:
            continue
        extra = [c for c in MD_COLUMNS if c in part and not (task == 1 and c.startswith("learning"))]
        header = ["rank", "baseline", "mean reward", f"{percent} interval",
                  *(MD_COLUMNS[c][0] for c in extra)]
        lines += ["", f"## {TASK_TITLES[task]}", "", _users(int(part["users"].iloc[0])), "",
                  "| " + " | ".join(header) + " |",
                  "|" + "|".join("---:" if i != 1 else "---" for i in range(len(header))) + "|"]
        for _, row in part.iterrows():
            cells = [str(row["rank"]), row["label"], f"{row['mean_reward']:.3f}",
                     _interval(row["ci_low"], row["ci_high"]),
                     *(_cell(MD_COLUMNS[c][1], row[c]) for c in extra)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _users(n: int) -> str:
    return f"{n} user{'s' * (n != 1)}."


def _cell(spec: str, value: float) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else spec.format(value)


def _interval(low: float, high: float) -> str:
    if math.isnan(low):
        return "-"
    return f"[{low:.3f}, {high:.3f}]"
