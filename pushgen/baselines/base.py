"""The one interface of every decision pushgen asks of a model, and what the benchmark tells it.

A model is a ``Policy``: ``fit`` on the public history once, then ``act`` on observations and
``update`` with the simulated user's response to what it chose. Its uses:

- tasks 1 and 2 (``NotificationGeneration-v0``, the evaluator): ``Policy[Codes, Codes]``, a
  batch of contexts in, one notification per context out. Contexts and notifications are dicts
  of arrays of schema codes, one entry per feature (``pushgen.envs.spaces``: code ``i`` of a
  feature is ``pushgen.schemas.values(feature)[i]``);
- the selection task (``NotificationSelection-v0``): ``Policy[dict, int]``, an observation in,
  a candidate slot or hold out (``pushgen.baselines.selection``);
- the off-policy logging and target policies: ``Policy[Slates, numpy.ndarray]``, rounds in,
  each round's probability of every action out, sampled by the caller
  (``pushgen.ope.policies``).

The benchmark makes one policy per user with a factory ``make(setting) -> Policy``; the
``Setting`` carries the task, the user, a seed and the public data; ``setting.truth`` (the
simulated user) is given only to the oracle and the probes marked as reading it. The settings
of one run share ``shared``, where a policy may keep what is the same for every user (a
population model fitted once).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import pandas as pd

from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.model.engagement import EngagementParameters, RowTerms

Codes = dict[str, np.ndarray]
T = TypeVar("T")
Observation = TypeVar("Observation", contravariant=True)
Action = TypeVar("Action")
SettingT = TypeVar("SettingT", contravariant=True)
PolicyT = TypeVar("PolicyT", covariant=True)


@runtime_checkable
class Policy(Protocol[Observation, Action]):
    """A model of the decisions pushgen asks for: history in, one action per observation out.

    Every baseline implements it, and so can a model of one's own: ``run_policy`` benchmarks it,
    ``PolicyAgent`` steps it through an environment.

    Examples
    --------
    >>> from pushgen.baselines import RandomPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> data = task_data("pushgen-mini-v4", 2)
    >>> policy = RandomPolicy(make_setting(data, task=2, name="random", user=3))
    >>> contexts = {f: codes[:2] for f, codes in data.contexts.items()}
    >>> policy.fit(data.public.iloc[:0])                     # task 2: no history
    >>> notifications = policy.act(contexts)                # feature -> codes, one per context
    >>> policy.update(contexts, notifications, [True, False])  # the responses
    >>> sorted(notifications)[:2]
    ['category', 'numberOfUpdates']
    """

    def fit(self, history: pd.DataFrame) -> None:
        """Learn from logged rows (task 1: the user's train + validation; task 2 and the policies
        told their history at construction: nothing to do).

        ``history`` holds the context and notification features (schema dtypes) and ``action``.
        """

    def act(self, observation: Observation) -> Action:
        """The decision: e.g. context feature -> codes (n,) in, notification feature -> codes
        (n,) out (tasks 1 and 2)."""

    def update(self, observation: Observation, action: Action, opened: Any) -> None:
        """Feedback: whether the simulated user opened what ``action`` sent."""


class NoHistory:
    """A policy told what it needs when it is made: ``fit`` has nothing to learn."""

    def fit(self, history: pd.DataFrame) -> None:
        return None


@dataclass(frozen=True)
class Truth:
    """The simulated user behind one episode, for the policies that are *told* it (the oracle and
    the probes built on the true model; ``Baseline.reads_truth``). Never the logged actions.

    Rows are the episode's contexts in time order.

    Attributes
    ----------
    parameters : EngagementParameters
        The split's engagement parameters.
    parameter_row : int
        The user's row in ``parameters``.
    row_terms : RowTerms
        The row part of the logit of each context, and its situations.
    seconds : numpy.ndarray
        Each context's posting time, in seconds from the start of the test months.
    initial : dict of str to numpy.ndarray
        Each exposure key's exposures at the start (the state the history left).

    Examples
    --------
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v4", 1), 1, "oracle", 0, reads_truth=True)
    >>> truth = setting.truth
    >>> len(truth.seconds) > 0, truth.has_app.dtype
    (True, dtype('bool'))
    """

    parameters: EngagementParameters
    parameter_row: int
    row_terms: RowTerms
    seconds: np.ndarray
    initial: dict[str, np.ndarray]

    @property
    def has_app(self) -> np.ndarray:
        return self.parameters.has_app[self.parameter_row]


Bound = Callable[[Truth], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Setting:
    """What a policy is told about its episode.

    Attributes
    ----------
    task : int
        1 or 2.
    user_id : int
        The user whose episode it is.
    seed : numpy.random.SeedSequence
        The policy's own seed (``rng()`` gives its generator).
    pool : numpy.ndarray
        ``(n, 7)`` plausible notifications from the public task 1 training rows.
    public : pandas.DataFrame
        The task 1 training rows of every task 1 user.
    truth : Truth, optional
        The simulated user, only for the policies that read the true model.
    shared : dict
        The run's scratch space, shared by its users.

    Examples
    --------
    >>> from pushgen.benchmark import make_setting, task_data
    >>> setting = make_setting(task_data("pushgen-mini-v4", 2), task=2, name="mine", user=3)
    >>> bool(setting.public["user_id"].isin([3]).any())  # a cold-start user has no public history
    False
    """

    task: int
    user_id: int
    seed: np.random.SeedSequence
    pool: np.ndarray
    public: pd.DataFrame
    truth: Truth | None = None
    shared: dict = field(default_factory=dict)

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    def true_model(self, reader: str) -> Truth:
        """``truth``, or an error saying that ``reader`` needs it."""
        if self.truth is None:
            raise ValueError(f"{reader} reads the simulated user: make its setting with the truth "
                             "(run it as a baseline with reads_truth=True)")
        return self.truth


@dataclass(frozen=True)
class Baseline(Generic[SettingT, PolicyT]):
    """A leaderboard row: a policy (``make``) or a bound computed from the true model (``bound``).

    The rows of tasks 1 and 2 (``pushgen.baselines.BASELINES``), of the selection task
    (``SELECTION_BASELINES``) and of the long-horizon task (``HORIZON_BASELINES``).

    Attributes
    ----------
    name, label : str
        The row's short name and its description.
    make : callable, optional
        Makes the policy from the task's setting.
    bound : callable, optional
        Computes a bound from the simulated user (exactly one of ``make`` and ``bound``).
    tasks : tuple of int, default (1, 2)
        The tasks whose test users it runs on.
    reads_truth : bool, default False
        Told the simulated user: a yardstick, not a model.
    upper_bound : bool, default False
        Proven: no policy scores above it.

    Raises
    ------
    ValueError
        When it has both or neither of ``make`` and ``bound``, or a bound does not read the truth.

    Examples
    --------
    >>> from pushgen.baselines import BASELINES
    >>> oracle = BASELINES["oracle"]
    >>> oracle.reads_truth, oracle.upper_bound
    (True, False)
    """

    name: str
    label: str
    make: Callable[[SettingT], PolicyT] | None = None
    bound: Callable[[Any], Any] | None = None
    tasks: tuple[int, ...] = (1, 2)
    reads_truth: bool = False
    upper_bound: bool = False

    def __post_init__(self) -> None:
        if (self.make is None) == (self.bound is None):
            raise ValueError(f"baseline {self.name!r} needs exactly one of make and bound")
        if self.bound is not None and not self.reads_truth:
            raise ValueError(f"baseline {self.name!r}: a bound reads the true model")


def named_rows(*rows: Baseline[SettingT, PolicyT]) -> dict[str, Baseline[SettingT, PolicyT]]:
    """A registry: each row under its name, in the order given."""
    return {row.name: row for row in rows}


def fitted(history: pd.DataFrame, setting: Setting, key: str, fit: Callable[[pd.DataFrame], T]) -> T:
    """``fit(history)``; without history (task 2), ``fit(setting.public)``, once per run."""
    if len(history):
        return fit(history)
    if key not in setting.shared:
        setting.shared[key] = fit(setting.public)
    return setting.shared[key]


class StaticPolicy:
    """A policy that does not learn online: ``update`` does nothing."""

    def update(self, observation: Any, action: Any, opened: Any) -> None:
        return None


def as_matrix(notifications: Codes) -> np.ndarray:
    """Notification codes as an (n, 7) int64 matrix, columns in ``NOTIFICATION_FEATURES`` order."""
    return np.column_stack([np.asarray(notifications[f], dtype=np.int64)
                            for f in NOTIFICATION_FEATURES])


def as_codes(matrix: np.ndarray) -> Codes:
    """The inverse of ``as_matrix``."""
    return {f: np.ascontiguousarray(matrix[:, j]) for j, f in enumerate(NOTIFICATION_FEATURES)}


def batch_size(contexts: Codes) -> int:
    return len(contexts[CONTEXT_FEATURES[0]])
