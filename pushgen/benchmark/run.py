"""Run the baselines on every test user of a split's tasks and collect their per-user metrics."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from pushgen.baselines import BASELINES, Baseline, Policy, Setting
from pushgen.benchmark.policy_runs import run_baseline
from pushgen.benchmark.runner import Run
from pushgen.benchmark.selection import SelectionResults, by_name, ranking_html, ranking_line, run_selection
from pushgen.benchmark.summary import curve, user_metrics
from pushgen.benchmark.task_inputs import BenchmarkError, task_data
from pushgen.data.folder_lock import session
from pushgen.publishing.access import load_split
from pushgen.replay.rewards import DEFAULT_MODE, check_mode
from pushgen.splits import TASKS, task_number
from pushgen.splits.spec import no_test_users
from pushgen.text_tables import counted


@dataclass(repr=False)
class Results:
    """Everything a benchmark measured; ``pushgen.benchmark.report`` writes it out.

    Attributes
    ----------
    split, fingerprint, mode : str
        The split, its content fingerprint and the reward mode.
    seed : int
        The run's seed.
    tasks : list of int
        The tasks run.
    baselines : dict of str to str
        Each baseline's name and label.
    per_user : pandas.DataFrame
        Every metric per task, baseline and user.
    curves : pandas.DataFrame
        Task 2: the mean reward per 100 steps, averaged over the users.
    marks : dict
        Each baseline's ``uses_true_model`` and ``upper_bound``.
    timings : dict
        Wall, fitting and decision times.
    selection : SelectionResults, optional
        The selection task's section.

    Examples
    --------
    >>> import pushgen
    >>> results = pushgen.run_benchmark("pushgen-mini-v4", tasks=[2], baselines=["random", "bandit"])
    >>> results.tasks, sorted(results.baselines)
    ([2], ['bandit', 'random'])
    """

    split: str
    fingerprint: str
    mode: str
    seed: int
    tasks: list[int]
    baselines: dict[str, str]  # name -> label
    per_user: pd.DataFrame  # task, baseline, user_id, metrics
    curves: pd.DataFrame  # task 2: task, baseline, step, mean_reward, users
    marks: dict[str, dict[str, bool]] = field(default_factory=dict)  # name -> uses_true_model, upper_bound
    timings: dict = field(default_factory=dict)
    selection: SelectionResults | None = None  # the selection task's section

    def _title(self) -> str:
        tasks = ("task " if len(self.tasks) == 1 else "tasks ") + ", ".join(str(t) for t in self.tasks)
        return (f"Results split {self.split}, mode {self.mode}, seed {self.seed}: {tasks}, "
                f"{counted(len(self.baselines), 'baseline')}")

    def __repr__(self) -> str:
        by_task: list[tuple[Any, pd.DataFrame]] = (list(self.per_user.groupby("task", observed=True))
                                                   if len(self.per_user) else [])
        best = "; ".join(f"task {task}: {ranking_line(group)}" for task, group in by_task) or "no runs"
        selection = "; .selection" if self.selection is not None else ""
        return f"<{self._title()}\n {best}; .per_user, .curves{selection}>"

    def _repr_html_(self) -> str:
        return ranking_html(self.per_user, self._title(), keys=("task",))


def select_baselines(names: Iterable[str] | None) -> list[Baseline[Setting, Policy]]:
    """Baselines by name, in ``BASELINES`` order; ``BenchmarkError`` lists the valid names.

    Parameters
    ----------
    names : iterable of str or None
        Baseline names; None for all.

    Returns
    -------
    list of Baseline
        The leaderboard rows, in ``BASELINES`` order.

    Raises
    ------
    BenchmarkError
        When a name is unknown (the message lists the valid names).

    Examples
    --------
    >>> from pushgen.benchmark import select_baselines
    >>> [b.name for b in select_baselines(["oracle", "random"])]  # in BASELINES order
    ['random', 'oracle']
    """
    return by_name(names, BASELINES, "baseline", BenchmarkError)


@session()
def run_benchmark(split: str | Path, tasks: Iterable[int] | int | None = None,
                  baselines: Iterable[str] | None = None, mode: str = DEFAULT_MODE, seed: int = 0,
                  progress: bool = False, selection: Iterable[str] | None = ()) -> Results:
    """Run the named baselines (default: all) on the tasks (default: those with test users), and
    the named selection baselines (``None``: all; default none) on task 2's test users.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    tasks : iterable of int, or int, optional
        Some of 1 and 2 (or one of them alone); by default every task with test users.
    baselines : iterable of str, optional
        Baseline names (``pushgen.baselines.BASELINES``); by default all.
    mode : str, default "expected"
        ``"expected"`` or ``"sampled"`` rewards.
    seed : int, default 0
        The seed of the baselines' own randomness.
    progress : bool, default False
        Draw progress bars on stderr.
    selection : iterable of str, optional
        Selection baselines to run; ``None`` for all, by default none.

    Returns
    -------
    Results
        Per-user results, learning curves and timings; ``pushgen.benchmark.write_results``
        writes them as the results folder.

    Raises
    ------
    BenchmarkError
        When a task, baseline or mode is unknown, or a needed extra is missing.

    Examples
    --------
    >>> import pushgen
    >>> results = pushgen.run_benchmark("pushgen-mini-v4", tasks=[2], baselines=["random"])
    >>> sorted(set(results.per_user["baseline"]))
    ['random']
    """
    try:
        mode = check_mode(mode)
    except ValueError as error:
        raise BenchmarkError(str(error)) from None
    chosen = select_baselines(baselines)
    description = load_split(split, 1).description
    tasks = _tasks(description, tasks)
    selection = None if selection is None else list(selection)
    if (selection is None or selection) and 2 not in tasks:  # refused before any baseline runs
        raise BenchmarkError("the selection task plays task 2's test users: " + (
            "add task 2" if 2 in _tasks(description, None)
            else no_test_users(str(description.get("name")), 2)))
    rows: list[dict[str, Any]] = []
    curves: list[pd.DataFrame] = []
    timings: dict[str, float | dict[str, float]] = {}
    started = perf_counter()
    for task in tasks:
        data = task_data(split, task)
        shared: dict = {}
        with tqdm(total=len(data.users) * len(chosen), desc=f"task {task}", unit="user",
                  disable=not progress, leave=False) as bar:
            for baseline in chosen:
                if task not in baseline.tasks:
                    bar.update(len(data.users))
                    continue
                bar.set_postfix_str(baseline.name)
                began = perf_counter()
                runs = run_baseline(data, task, baseline, mode, seed, on_user=bar.update, shared=shared)
                timings[f"task{task}/{baseline.name}"] = _timing(runs, perf_counter() - began)
                rows += [{"task": task, "baseline": baseline.name, "user_id": run.user_id,
                          **user_metrics(run, mode, task)} for run in runs]
                if task == 2:
                    curves.append(curve(runs).assign(task=task, baseline=baseline.name))
    chosen_selection = None
    if selection is None or selection:
        began = perf_counter()
        chosen_selection = run_selection(split, selection, task=2, seed=seed)
        timings["selection"] = {"wall_seconds": round(perf_counter() - began, 3)}
    timings["total_seconds"] = round(perf_counter() - started, 3)
    columns = ["task", "baseline", "step", "mean_reward", "users"]
    return Results(
        split="-".join(str(v) for v in (description.get("name"), description.get("version")) if v),
        fingerprint=description.get("fingerprint", ""),
        mode=mode,
        seed=seed,
        tasks=tasks,
        baselines={b.name: b.label for b in chosen},
        marks={b.name: {"uses_true_model": b.reads_truth, "upper_bound": b.upper_bound} for b in chosen},
        per_user=pd.DataFrame(rows),
        curves=pd.concat(curves, ignore_index=True)[columns] if curves else pd.DataFrame(columns=columns),
        timings=timings,
        selection=chosen_selection,
    )


def _tasks(description: dict, tasks: Iterable[int] | int | None) -> list[int]:
    """The tasks to run: those asked for, each of which must have test users."""
    parts = description.get("parts", {})
    has_users = {task: bool(parts.get(f"task{task}/test", {}).get("users", [True])) for task in TASKS}
    if tasks is None:
        return [task for task in TASKS if has_users[task]]
    asked = list(tasks) if isinstance(tasks, Iterable) else [tasks]  # one task alone: run_benchmark(s, 2)
    if not asked:
        raise BenchmarkError("tasks is empty; give 1, 2, both, or None for those with test users")
    chosen = sorted({task_number(task, BenchmarkError) for task in asked})
    for task in chosen:
        if not has_users[task]:
            raise BenchmarkError(no_test_users(str(description.get("name")), task))
    return chosen


def _timing(runs: list[Run], seconds: float) -> dict[str, float]:
    decisions = np.concatenate([r.decision_seconds for r in runs]) if runs else np.zeros(1)
    return {
        "wall_seconds": round(seconds, 3),
        "fit_seconds": round(sum(r.fit_seconds for r in runs), 3),
        "decision_ms_p50": round(float(np.median(decisions)) * 1000, 4),
        "decision_ms_p95": round(float(np.percentile(decisions, 95)) * 1000, 4),
    }
