"""Play one policy, or one leaderboard row, on the test users of a task."""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from pushgen.baselines import Baseline, Factory, Policy, Setting
from pushgen.baselines.answers import checked_policy
from pushgen.benchmark.runner import CHUNK, Run, bound_runs, play
from pushgen.benchmark.task_inputs import TaskData, task_data
from pushgen.checks import quoted, whole_number
from pushgen.replay.rewards import DEFAULT_MODE, check_mode


def seed_for(seed: int, name: str, task: int, user: int) -> np.random.SeedSequence:
    """The seed of one policy for one user: independent of the other users and policies."""
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()), task, user))


def check_run(name: object, make: object, seed: object, chunk: object) -> None:
    """``run_policy``'s own arguments, each refused in one line naming what is allowed."""
    if not isinstance(name, str):
        raise TypeError(f"name is the policy's name, a str (it seeds its random numbers); got {quoted(name)}")
    if not callable(make):
        raise TypeError(f"make is a factory: make(setting) gives a user's policy (a class or a "
                        f"function); got {quoted(make)}")
    whole_number("seed", seed, 0)
    whole_number("chunk", chunk, 1)


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
    >>> setting = make_setting(task_data("pushgen-mini-v4", 1), task=1, name="mine", user=0)
    >>> setting.user_id, setting.pool.shape[1], setting.truth is None
    (0, 7, True)
    """
    return Setting(task=task, user_id=user, seed=seed_for(seed, name, task, user), pool=data.pool,
                   public=data.public, truth=data.truth(user) if reads_truth else None,
                   shared={} if shared is None else shared)


def run_policy(split: str | Path | TaskData, task: int, name: str, make: Factory,
               mode: str = DEFAULT_MODE, seed: int = 0, users: Iterable[int] | int | None = None,
               on_user: Callable[[], None] | None = None, shared: dict | None = None,
               chunk: int = CHUNK, reads_truth: bool = False) -> list[Run]:
    """Run the policy ``make(setting)`` makes, one per user, on each test user of task ``task``.

    How to benchmark a model of your own: ``make`` builds a ``pushgen.baselines.Policy`` (``fit``,
    ``act``, ``update``) from what the policy is told about the user's episode.

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
    users : iterable of int, or int, optional
        Some of the task's test users (or one user's id); by default all.
    on_user : callable, optional
        Called after each user.
    shared : dict, optional
        The settings' scratch space (default: a new one).
    chunk : int, default 50
        Task 2: the policy hears the responses after every ``chunk`` contexts (1: after each, as
        in the environment).
    reads_truth : bool, default False
        Tell the policy the simulated user (for yardsticks, not models).

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
    >>> runs = run_policy("pushgen-mini-v4", task=2, name="first", make=FirstOfThePool)
    >>> [run.user_id for run in runs], len(runs[0].reward) > 0
    ([3], True)
    """
    check_mode(mode)
    check_run(name, make, seed, chunk)
    data = split if isinstance(split, TaskData) else task_data(split, task)
    shared = {} if shared is None else shared
    episodes = data.episodes(users)
    with single_threaded_blas():
        policies = {}
        for user in episodes.users:
            made = make(make_setting(data, task, name, user, seed, shared, reads_truth))
            policies[user] = checked_policy(made, user)
        return play(policies, episodes, data.history, task, mode, chunk, on_user)


def run_baseline(data: TaskData, task: int, baseline: Baseline[Setting, Policy], mode: str = DEFAULT_MODE,
                 seed: int = 0, users: Iterable[int] | int | None = None,
                 on_user: Callable[[], None] | None = None, shared: dict | None = None) -> list[Run]:
    """One leaderboard row's runs: a policy played through the episodes, or a bound.

    Parameters
    ----------
    data : TaskData
        The task's data (``task_data``).
    task : int
        The task of ``data``, 1 or 2.
    baseline : Baseline
        The leaderboard row (``pushgen.baselines.BASELINES``).
    mode : str, default "expected"
        As for ``run_policy``.
    seed : int, default 0
        As for ``run_policy``.
    users : iterable of int, optional
        As for ``run_policy``.
    on_user : callable, optional
        As for ``run_policy``.
    shared : dict, optional
        As for ``run_policy``.

    Returns
    -------
    list of Run
        One per user.

    Examples
    --------
    >>> from pushgen.baselines import BASELINES
    >>> from pushgen.benchmark import run_baseline, task_data
    >>> runs = run_baseline(task_data("pushgen-mini-v4", 1), 1, BASELINES["upper-bound"])
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
