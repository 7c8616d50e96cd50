"""Write a benchmark's results folder: text files that diff cleanly between versions, and plots.

    leaderboard.md    the leaderboard per task (Markdown)
    leaderboard.csv   the same numbers
    per_user.csv      every metric per task, baseline and user
    curves.csv        task 2: mean reward per 100 steps, averaged over users
    selection.csv     the selection task (when run): every metric per selection baseline and user
    benchmark.json    split, fingerprint, mode, seed, tasks, baselines, versions, sha256 of the files
    timings.json      wall and decision times (they vary from run to run, so kept apart)
    *.png             learning_curves (task 2), open_rate, diversity
"""

from __future__ import annotations

import json
import math
import platform
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen._version import __version__
from pushgen.benchmark.run import Results
from pushgen.benchmark.selection import SELECTION_REFERENCE, SelectionResults, selection_board
from pushgen.benchmark.summary import leaderboard
from pushgen.data.dataset import atomic_folder
from pushgen.data.outputs import file_listing
from pushgen.replay.metrics import CONFIDENCE, HEADINGS
from pushgen.text_tables import markdown_table, plural

FLOAT = "%.6f"
TASK_TITLES = {1: "Task 1: offline (the user's history, then every test context at once)",
               2: "Task 2: online, cold start (no history; responses after every 50 contexts)"}
MD_COLUMNS = {  # column -> (heading, format)
    column: (HEADINGS[column], spec) for column, spec in (
        ("generated_open_rate", "{:.3f}"), ("logged_open_rate", "{:.3f}"), ("impossible_share", "{:.3f}"),
        ("entropy", "{:.3f}"), ("distinct_ratio", "{:.3f}"), ("useful_variety", "{:.3f}"),
        ("over_reference", "{:+.3f}"))
}
BOUND_MARK = "**[upper bound]**"
TRUTH_MARK = "*"


def write_results(results: Results, out: str | Path, force: bool = False,
                  plots: bool = True) -> Path:
    """Write the results folder ``out`` (refused if it exists, unless ``force``).

    Parameters
    ----------
    results : Results
        What ``run_benchmark`` measured.
    out : str or pathlib.Path
        The folder to write.
    force : bool, default False
        Replace ``out`` if it is a pushgen output.
    plots : bool, default True
        Draw the PNG plots (matplotlib).

    Returns
    -------
    pathlib.Path
        ``out``, holding ``leaderboard.md``, ``leaderboard.csv``, ``per_user.csv`` and the rest.

    Raises
    ------
    BenchmarkError
        When ``out`` exists (without ``force``).

    Examples
    --------
    >>> import pushgen
    >>> from pushgen.benchmark import write_results
    >>> results = pushgen.run_benchmark("pushgen-mini-v4", tasks=[2], baselines=["random"])
    >>> (write_results(results, "results", plots=False) / "leaderboard.md").is_file()
    True
    """
    out = Path(out)
    board = leaderboard(results.per_user, results.baselines, results.marks)
    order = {name: i for i, name in enumerate(results.baselines)}
    per_user = results.per_user.sort_values(
        ["task", "baseline", "user_id"], key=lambda c: c.map(order) if c.name == "baseline" else c,
        kind="stable")
    with atomic_folder(out, force) as work:
        (work / "leaderboard.md").write_text(markdown(results, board))
        board.to_csv(work / "leaderboard.csv", index=False, float_format=FLOAT)
        per_user.to_csv(work / "per_user.csv", index=False, float_format=FLOAT)
        results.curves.to_csv(work / "curves.csv", index=False, float_format=FLOAT)
        if results.selection is not None:
            results.selection.per_user.to_csv(work / "selection.csv", index=False, float_format=FLOAT)
        (work / "timings.json").write_text(json.dumps(
            {"machine": machine(), **results.timings}, indent=1) + "\n")
        if plots:
            from pushgen.benchmark.plots import write_plots

            write_plots(board, results.curves, results.baselines, work)
        files = file_listing(work, exclude=("timings.json",))  # timings vary from run to run
        (work / "benchmark.json").write_text(json.dumps({**description(results), "files": files},
                                                        indent=1) + "\n")
    return out


def description(results: Results) -> dict:
    return {
        "split": results.split,
        "fingerprint": results.fingerprint,
        "mode": results.mode,
        "seed": results.seed,
        "tasks": results.tasks,
        "baselines": results.baselines,
        "upper_bounds": [name for name, mark in results.marks.items() if mark.get("upper_bound")],
        "uses_true_model": [name for name, mark in results.marks.items() if mark.get("uses_true_model")],
        **({"selection": {"baselines": results.selection.labels, "k": results.selection.k,
                          "candidate_seed": results.selection.candidate_seed, "cost": results.selection.cost}}
           if results.selection is not None else {}),
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
        "Paired: each row's per-user differences from the task's reference row (named in the "
        f"heading), their mean with its {percent} t-interval and the paired t-test's p; tier: "
        "a row starts a new tier when a paired test separates it from the row above (the "
        "interval of their per-user differences excludes 0), so rows that share a tier are "
        "not told apart by these users. "
        "The other columns are averages over users: the open rate of the generated "
        "notifications (the logged ones' beside it), the share of impossible notifications "
        "(no app of the user posts them; never opened; the EvalUMAP tasks' only way to hold), "
        "the diversity of the opened possible generated notifications (normalised entropy and "
        "distinct-value ratio, capped at 1) and the useful variety (the distinct ratio of the "
        "values whose notifications bring, above the user's logged open rate, at least 1% of "
        "the logged opens: sprinkling rare values cannot raise it), and in task 2 the mean per "
        "step of the reward less that of the reference without feedback (the best public "
        "notification the user's apps post) on the same contexts (0 for the reference; doing "
        "worse at any step, early ones included, can only lower it). The online task is ranked "
        "by its reward over the whole episode; no column measures learning, which only the reward "
        "curve shows (learning_curves.png): a slope or an early-to-late gain is raised by "
        "failing on purpose early.",
        "",
        f"{TRUTH_MARK} reads the simulated user (a yardstick, not a model). {BOUND_MARK} a "
        "provable upper bound: no policy, and no search over notifications, can score above it.",
    ]
    for task in results.tasks:
        part = board[board["task"] == task]
        if part.empty:
            continue
        extra = [c for c in MD_COLUMNS if c in part and not (task == 1 and c == "over_reference")]
        reference = str(part["paired_reference"].iloc[0]) if "paired_reference" in part else ""
        paired = [f"vs {reference}, paired {percent}", "p"] if reference else []
        header = ["rank", "tier", "baseline", HEADINGS["mean_reward"], f"{percent} interval", *paired,
                  *(MD_COLUMNS[c][0] for c in extra)]
        rows = [[str(row["rank"]), str(row["tier"]), _label(row), f"{row['mean_reward']:.3f}",
                 _interval(row["ci_low"], row["ci_high"]),
                 *(_paired(row) if reference else []),
                 *(_cell(MD_COLUMNS[c][1], row[c]) for c in extra)] for _, row in part.iterrows()]
        lines += ["", f"## {TASK_TITLES[task]}", "", f"{plural(int(part['users'].iloc[0]), 'user')}.", "",
                  markdown_table(header, rows, right=[i != 2 for i in range(len(header))]),
                  *gaps(part)]
    if results.selection is not None:
        lines += selection_markdown(results.selection)
    return "\n".join(lines) + "\n"


def selection_markdown(results: SelectionResults) -> list[str]:
    """The leaderboard section of the selection task (Markdown lines)."""
    board = selection_board(results)
    header = ["rank", "baseline", "mean reward", "95% interval", f"vs {SELECTION_REFERENCE}, paired 95%",
              "send rate", "P(open) of sends"]
    rows = []
    for _, row in board.iterrows():
        versus = "-"
        if row["baseline"] != SELECTION_REFERENCE and not np.isnan(row["paired_difference"]):
            versus = f"{row['paired_difference']:+.3f}"
            if not np.isnan(row["paired_low"]):
                versus += f" [{row['paired_low']:+.3f}, {row['paired_high']:+.3f}]"
        rows.append([str(row["rank"]), _label(row), f"{row['mean_reward']:.3f}",
                     _interval(row["ci_low"], row["ci_high"]), versus, f"{row['send_rate']:.3f}",
                     f"{row['sent_p_open']:.3f}"])
    users = int(board["users"].iloc[0]) if len(board) else 0
    title = (f"## Selection: pushgen/NotificationSelection-v0 (K = {results.k}, candidate seed "
             f"{results.candidate_seed}, cost {results.cost:g} per send; task {results.task}'s test users)")
    return ["", title, "",
            f"{plural(users, 'user')}, whole episodes. Mean reward: P(open) of what is sent "
            "less the cost, per context (0 for a hold), averaged over users.", "",
            markdown_table(header, rows, right=[i != 1 for i in range(len(header))])]


PROBES = ("rotation", "rate-rotation")  # rows that probe the benchmark, not models to beat


def gaps(board: pd.DataFrame) -> list[str]:
    """The gaps the benchmark stands on, quoted under a task's table: what the context is worth
    (the oracle over its context-blind self and over the best fixed notification per user),
    and how far the context-free probe falls below the best model."""
    score = dict(zip(board["baseline"], board["mean_reward"], strict=True))
    said = []
    if "oracle" in score and "context-blind-oracle" in score:
        worth = score["oracle"] - score["context-blind-oracle"]
        fixed = (f", and {score['oracle'] - score['best-fixed-user']:.3f} over the best fixed "
                 "notification per user" if "best-fixed-user" in score else "")
        said.append(f"The context is worth {worth:.3f}: the oracle's lead over the oracle blind to "
                    f"the context{fixed}.")
    truth = board["uses_true_model"] if "uses_true_model" in board else pd.Series(False, index=board.index)
    models = board[~truth.astype(bool) & ~board["baseline"].isin(PROBES)]
    for probe in PROBES:
        if probe in score and len(models):
            best = models.iloc[int(np.argmax(models["mean_reward"].to_numpy()))]
            said.append(f"The context-free probe `{probe}` scores {best['mean_reward'] - score[probe]:.3f} "
                        f"below the best model, `{best['baseline']}`.")
    return ["", " ".join(said)] if said else []


def _paired(row: pd.Series) -> list[str]:
    """The paired comparison's cells: the mean per-user difference with its interval, and p."""
    if row["baseline"] == row["paired_reference"] or math.isnan(row["paired_difference"]):
        return ["-", "-"]
    interval = "" if math.isnan(row["paired_low"]) else f" {_interval(row['paired_low'], row['paired_high'])}"
    return [f"{row['paired_difference']:+.3f}{interval}", _cell("{:.2g}", row["paired_p"])]


def _label(row: pd.Series) -> str:
    label = str(row["label"])
    if row.get("uses_true_model", False):
        label += f" {TRUTH_MARK}"
    if row.get("upper_bound", False):
        label += f" {BOUND_MARK}"
    return label


def _cell(spec: str, value: float) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else spec.format(value)


def _interval(low: float, high: float) -> str:
    if math.isnan(low):
        return "-"
    return f"[{low:.3f}, {high:.3f}]"
