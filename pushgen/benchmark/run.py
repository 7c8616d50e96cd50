"""Run policies on every test user of a split's tasks and collect their per-user metrics."""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any, SupportsInt, cast

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from pushgen import schemas
from pushgen.baselines import BASELINES, Baseline, Factory, Setting, Truth
from pushgen.baselines.candidates import public_pool
from pushgen.benchmark.runner import CHUNK, Episodes, Run, bound_runs, play, users_of
from pushgen.benchmark.selection import SelectionResults, by_name, ranking_html, ranking_line, run_selection
from pushgen.benchmark.summary import curve, user_metrics
from pushgen.data.dataset import DatasetError
from pushgen.data.folder_lock import session
from pushgen.envs.spaces import CONTEXT_FEATURES
from pushgen.model.engagement import RowTerms
from pushgen.publishing.access import load_split
from pushgen.replay.parts import ReplayPart, load_part
from pushgen.replay.reference import apps_aware_reference
from pushgen.replay.rewards import DEFAULT_MODE, check_mode
from pushgen.splits import TASKS
from pushgen.text_tables import counted


class BenchmarkError(DatasetError):
    """A benchmark that cannot run as asked (the message says why)."""


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
    >>> results = pushgen.run_benchmark("pushgen-mini-v3", tasks=[2], baselines=["random", "bandit"])
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


def select_baselines(names: Iterable[str] | None) -> list[Baseline]:
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


def seed_for(seed: int, name: str, task: int, user: int) -> np.random.SeedSequence:
    """The seed of one policy for one user: independent of the other users and policies."""
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()), task, user))


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """One BLAS thread: the models' many small matrix operations run faster without threads."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@dataclass
class TaskData:
    """What the runs of one task read: the test part (the scorer's side), the contexts the
    policies are shown (from the model-facing test part), histories and the public rows.

    Attributes
    ----------
    part : ReplayPart
        The test part, the scorer's side.
    contexts : dict of str to numpy.ndarray
        Each context feature's codes per row of the part, from the contexts-only test part.
    public : pandas.DataFrame
        The task 1 training rows of every task 1 user.
    pool : numpy.ndarray
        ``(n, 7)`` plausible notifications from the public rows.
    histories : dict of int to pandas.DataFrame
        Task 1: each user's train and validation rows.
    reference : dict of str to numpy.ndarray, optional
        Task 2: the reference without feedback's notifications, per row of the part.

    Examples
    --------
    >>> from pushgen.benchmark import task_data
    >>> data = task_data("pushgen-mini-v3", 2)
    >>> data.users, data.histories
    ([3], {})
    """

    part: ReplayPart
    contexts: dict[str, np.ndarray]  # per part row, from the contexts-only test part
    public: pd.DataFrame  # task 1 training rows of every task 1 user
    pool: np.ndarray
    histories: dict[int, pd.DataFrame]
    reference: dict[str, np.ndarray] | None  # task 2: the reference without feedback, per part row
    _truths: dict[int, Truth] = field(default_factory=dict, repr=False)

    @property
    def users(self) -> list[int]:
        return [int(u) for u in self.part.users]

    def history(self, user: int) -> pd.DataFrame:
        return self.histories.get(user, self.public.iloc[0:0])

    def episodes(self, users: Iterable[int] | None = None) -> Episodes:
        return Episodes(self.part, users_of(self.part, None if users is None else list(users)),
                        self.contexts, self.reference)

    def truth(self, user: int) -> Truth:
        """The simulated user behind ``user``'s episode (for the baselines that read it)."""
        if user not in self._truths:
            part = self.part
            rows = part.rows_of(user)
            index = part.user_index(user)
            self._truths[user] = Truth(
                parameters=part.test_parameters,
                parameter_row=int(part.test_parameters.rows(np.array([user]))[0]),
                row_terms=RowTerms(part.row_terms.base[rows], part.row_terms.situations[rows]),
                seconds=part.seconds[rows],
                initial={key: value[index] for key, value in part.test_truth.initial.items()},
            )
        return self._truths[user]


def task_data(split: str | Path, task: int) -> TaskData:
    """What the runs of task ``task`` read: the test part, the contexts shown, the histories.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    task : int
        1 or 2.

    Returns
    -------
    TaskData
        ``contexts`` (feature -> codes of every test context), ``histories`` (task 1: user ->
        the user's train and validation rows), ``public`` and ``pool`` (the public history and
        its notifications).

    Raises
    ------
    BenchmarkError
        When ``task`` is not 1 or 2.

    Examples
    --------
    >>> from pushgen.benchmark import task_data
    >>> data = task_data("pushgen-mini-v3", 1)
    >>> sorted(data.histories), len(data.contexts["place"]) > 0
    ([0, 1, 2], True)
    """
    if task not in TASKS:
        raise BenchmarkError(f"task must be 1 or 2; got {task!r}")
    offline = load_split(split, 1)
    histories: dict[int, pd.DataFrame] = {}
    if task == 1:
        rows = pd.concat([offline.train, offline.validation], ignore_index=True)
        rows = rows.sort_values(["user_id", "posted_at", "notification_id"], kind="stable")
        histories = {int(cast(SupportsInt, u)): g.reset_index(drop=True)  # a group key is Hashable to pandas
                     for u, g in rows.groupby("user_id", sort=True, observed=True)}
    part = load_part(split, task, "test")
    test = offline.test if task == 1 else load_split(split, 2).test
    contexts = public_contexts(test, part)
    reference = None
    if task == 2:
        reference = apps_aware_reference(part.folder, part.test_parameters.has_app[part.parameter_rows])
    return TaskData(part=part, contexts=contexts, public=offline.train, pool=public_pool(offline.train),
                    histories=histories, reference=reference)


def public_contexts(test: pd.DataFrame, part: ReplayPart) -> dict[str, np.ndarray]:
    """The context codes of the model-facing test part, in the order of the part's rows."""
    position = pd.Index(test["context_id"].to_numpy()).get_indexer(part.context_ids)
    if (position < 0).any():
        raise DatasetError(f"{part.label}: context {part.context_ids[position < 0][0]} is missing "
                           "from the contexts-only test part")
    codes = schemas.frame_codes(test, CONTEXT_FEATURES)
    contexts = {f: codes[f][position] for f in CONTEXT_FEATURES}
    if any(not np.array_equal(contexts[f], part.codes[f]) for f in CONTEXT_FEATURES):
        raise DatasetError(f"{part.label}: the contexts-only test part disagrees with the scorer's")
    return contexts


def make_setting(data: TaskData, task: int, name: str, user: int, seed: int = 0,
                 shared: dict | None = None, reads_truth: bool = False) -> Setting:
    """What the policy ``name`` is told about ``user``'s episode of task ``task``; the simulated
    user only with ``reads_truth``.

    Parameters
    ----------
    data : TaskData
        The task's data (``task_data``).
    task : int
        1 or 2.
    name : str
        The policy's name; it seeds the policy's random numbers.
    user : int
        A test user of the task.
    seed : int, default 0
        The run's seed.
    shared : dict, optional
        The run's scratch space, shared by its users.
    reads_truth : bool, default False
        Tell the policy the simulated user (a yardstick, not a model).

    Returns
    -------
    Setting
        What the policy is made from.

    Examples
    --------
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v3", 1), task=1, name="mine", user=0)
    >>> setting.user_id, setting.pool.shape[1], setting.truth is None
    (0, 7, True)
    """
    return Setting(task=task, user_id=user, seed=seed_for(seed, name, task, user), pool=data.pool,
                   public=data.public, truth=data.truth(user) if reads_truth else None,
                   shared={} if shared is None else shared)


def run_policy(split: str | Path | TaskData, task: int, name: str, make: Factory,
               mode: str = DEFAULT_MODE, seed: int = 0, users: Iterable[int] | None = None,
               on_user: Callable[[], None] | None = None, shared: dict | None = None,
               chunk: int = CHUNK, reads_truth: bool = False) -> list[Run]:
    """Run the policy ``make(setting)`` makes, one per user, on each test user of task ``task``.

    How to benchmark a model of your own: ``make`` builds a ``pushgen.baselines.Policy`` (``fit``,
    ``act``, ``update``) from what the policy is told about the user's episode.

    ``name`` seeds the policy's random numbers; ``on_user`` is called after each user;
    ``shared`` is the settings' scratch space (default: a new one); in task 2 the policy hears
    the responses after every ``chunk`` contexts (1: after each, as in the environment);
    ``reads_truth`` tells the policy the simulated user (for yardsticks, not models).

    Parameters
    ----------
    split : str, pathlib.Path or TaskData
        A standard split's name, a split folder, or a task's data already read.
    task : int
        1 or 2.
    name : str
        The policy's name; it seeds the policy's random numbers.
    make : Factory
        ``make(setting)`` gives the user's policy.
    mode : str, default "expected"
        ``"expected"`` or ``"sampled"`` rewards.
    seed : int, default 0
        The seed of the policies' random numbers.
    users : iterable of int, optional
        Some of the task's test users; by default all.
    on_user : callable, optional
        Called after each user.
    shared : dict, optional
        The settings' scratch space.
    chunk : int, default 50
        Task 2: contexts between feedbacks.
    reads_truth : bool, default False
        Tell the policy the simulated user.

    Returns
    -------
    list of Run
        One per user: the generated notifications, the rewards and the timings, in time order.

    Raises
    ------
    PolicyError
        When the policy answers with something that is not a batch of valid notification codes.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.benchmark import run_policy
    >>> from pushgen.envs.spaces import NOTIFICATION_FEATURES
    >>> class FirstOfThePool:  # always the first notification of the public history's pool
    ...     def __init__(self, setting):
    ...         self.notification = setting.pool[0]
    ...     def fit(self, history):
    ...         pass
    ...     def act(self, contexts):
    ...         n = len(next(iter(contexts.values())))
    ...         return {f: np.full(n, code) for f, code in zip(NOTIFICATION_FEATURES, self.notification)}
    ...     def update(self, contexts, notifications, opened):
    ...         pass
    >>> runs = run_policy("pushgen-mini-v3", task=2, name="first", make=FirstOfThePool)
    >>> [run.user_id for run in runs], len(runs[0].reward) > 0
    ([3], True)
    """
    check_mode(mode)
    data = split if isinstance(split, TaskData) else task_data(split, task)
    shared = {} if shared is None else shared
    episodes = data.episodes(users)
    with single_threaded_blas():
        policies = {user: make(make_setting(data, task, name, user, seed, shared, reads_truth))
                    for user in episodes.users}
        return play(policies, episodes, data.history, task, mode, chunk, on_user)


def run_baseline(data: TaskData, task: int, baseline: Baseline, mode: str = DEFAULT_MODE, seed: int = 0,
                 users: Iterable[int] | None = None, on_user: Callable[[], None] | None = None,
                 shared: dict | None = None) -> list[Run]:
    """One leaderboard row's runs: a policy played through the episodes, or a bound.

    Parameters
    ----------
    data : TaskData
        The task's data (``task_data``).
    task : int
        1 or 2.
    baseline : Baseline
        The leaderboard row (``pushgen.baselines.BASELINES``).
    mode : str, default "expected"
        ``"expected"`` or ``"sampled"`` rewards.
    seed : int, default 0
        The run's seed.
    users : iterable of int, optional
        Some of the task's test users; by default all.
    on_user : callable, optional
        Called after each user.
    shared : dict, optional
        The settings' scratch space.

    Returns
    -------
    list of Run
        One per user.

    Examples
    --------
    >>> from pushgen.baselines import BASELINES
    >>> from pushgen.benchmark import run_baseline, task_data
    >>> runs = run_baseline(task_data("pushgen-mini-v3", 1), 1, BASELINES["upper-bound"])
    >>> [run.user_id for run in runs]
    [0, 1, 2]
    """
    if baseline.make is not None:
        return run_policy(data, task, baseline.name, baseline.make, mode, seed, users, on_user, shared,
                          reads_truth=baseline.reads_truth)
    assert baseline.bound is not None, "a baseline has a make or a bound"
    runs = bound_runs(baseline.bound, data.episodes(users), data.truth, mode)
    if on_user is not None:
        for _ in runs:
            on_user()
    return runs


@session()
def run_benchmark(split: str | Path, tasks: Iterable[int] | None = None,
                  baselines: Iterable[str] | None = None, mode: str = DEFAULT_MODE, seed: int = 0,
                  progress: bool = False, selection: Iterable[str] | None = ()) -> Results:
    """Run the named baselines (default: all) on the tasks (default: those with test users), and
    the named selection baselines (``None``: all; default none) on task 2's test users.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    tasks : iterable of int, optional
        Some of 1 and 2; by default every task with test users.
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
    >>> results = pushgen.run_benchmark("pushgen-mini-v3", tasks=[2], baselines=["random"])
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
    if selection is None or list(selection):
        if 2 not in tasks:
            raise BenchmarkError("the selection task plays task 2's test users: add task 2")
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


def _tasks(description: dict, tasks: Iterable[int] | None) -> list[int]:
    """The tasks to run: those asked for, each of which must have test users."""
    parts = description.get("parts", {})
    has_users = {task: bool(parts.get(f"task{task}/test", {}).get("users", [True])) for task in TASKS}
    if tasks is None:
        return [task for task in TASKS if has_users[task]]
    chosen = sorted(set(tasks))
    for task in chosen:
        if task not in TASKS:
            raise BenchmarkError(f"task must be 1 or 2; got {task!r}")
        if not has_users[task]:
            raise BenchmarkError(f"split {description.get('name')} has no task {task} test users"
                                 + (" (it holds no cold-start users)" if task == 2 else ""))
    return chosen


def _timing(runs: list[Run], seconds: float) -> dict[str, float]:
    decisions = np.concatenate([r.decision_seconds for r in runs]) if runs else np.zeros(1)
    return {
        "wall_seconds": round(seconds, 3),
        "fit_seconds": round(sum(r.fit_seconds for r in runs), 3),
        "decision_ms_p50": round(float(np.median(decisions)) * 1000, 4),
        "decision_ms_p95": round(float(np.percentile(decisions, 95)) * 1000, 4),
    }
