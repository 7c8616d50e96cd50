"""What the runs of one task read: the test part, the contexts the policies are shown, the histories."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import SupportsInt, cast

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines import Truth
from pushgen.baselines.candidates import public_pool
from pushgen.benchmark.runner import Episodes, users_of
from pushgen.data.dataset import DatasetError
from pushgen.envs.spaces import CONTEXT_FEATURES
from pushgen.model.engagement import RowTerms
from pushgen.publishing.access import load_split
from pushgen.replay.parts import ReplayPart, load_part
from pushgen.replay.reference import apps_aware_reference
from pushgen.splits import task_number


class BenchmarkError(DatasetError):
    """A benchmark that cannot run as asked (the message says why)."""


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
    >>> data = task_data("pushgen-mini-v4", 2)
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

    def episodes(self, users: Iterable[int] | int | None = None) -> Episodes:
        """The episodes of ``users`` (one user's id, some ids, or None: every test user)."""
        chosen = None if users is None else [users] if isinstance(users, int | np.integer) else list(users)
        return Episodes(self.part, users_of(self.part, chosen), self.contexts, self.reference)

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
    >>> data = task_data("pushgen-mini-v4", 1)
    >>> sorted(data.histories), len(data.contexts["place"]) > 0
    ([0, 1, 2], True)
    """
    task = task_number(task, BenchmarkError)
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
