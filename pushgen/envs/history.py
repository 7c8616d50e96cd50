"""The engagement history of a generation episode: columnar buffers that grow by one row a step.

``info["history"]`` of ``pushgen/NotificationGeneration-v0`` is one ``History`` per episode
(a new one at each reset), filled in place: reading it copies nothing. Its columns, each
with one entry per step taken so far:

    context_ids          context_id of the step's context
    context_codes        feature -> codes of the context
    notification_codes   feature -> codes of the generated notification
    opened               the simulated user's response to it (drawn from the episode's outcome entropy)
    reward               the step's reward (per the environment's mode)
    p_open               P(open) of the generated notification (NaN in sampled mode: not shown)
    decision_seconds     time the model took between receiving the context and answering

``frame()`` decodes it into a pandas frame (the union of context and notification features
plus ``action``), and ``save(path)`` writes it as Parquet: the recording format of a task 2
run that ``pushgen evaluate --task 2`` reads (columns ``step, user_id, context_id``, the
context and notification features as schema values, ``action, reward, p_open,
decision_seconds``, and for a History made by the environment ``run_entropy, run_digest``: the
run's digest, ``pushgen.replay.run_digest``, which the evaluator checks).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen.envs.spaces import ACTION_VALUES, DISMISSED, NOTIFICATION_FEATURES, OPENED, codes_frame
from pushgen.replay.run_digest import DIGEST, ENTROPY, chain

COMPARED = ("_notification", "_opened", "_reward", "_p_open")


class _Filled:
    """A column of a ``History``: the steps so far of the buffer it names (a view, not a copy)."""

    def __init__(self, buffer: str) -> None:
        self.buffer = buffer

    def __get__(self, history: History, owner: type | None = None) -> np.ndarray:
        return getattr(history, self.buffer)[: history.size]


class History:
    """One episode's steps so far; equality compares the simulated content, not the timings.

    The generation environment fills one in place (``info["history"]``); ``frame()`` gives the
    steps as a table and ``save(path)`` writes the recording that ``pushgen evaluate --task 2``
    scores.

    Parameters
    ----------
    user_id : int
        The user whose episode it is.
    context_ids : numpy.ndarray
        The episode's context ids, in time order.
    context_codes : dict of str to numpy.ndarray
        Each context feature's codes, one per context.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen
    >>> env = gym.make("pushgen/NotificationGeneration-v0", split="pushgen-mini-v4", user=0)
    >>> observation, info = env.reset(seed=0)
    >>> _ = env.step(env.action_space.sample())
    >>> history = info["history"]
    >>> len(history), list(history.frame().columns[:3])
    (1, ['step', 'user_id', 'context_id'])
    """

    def __init__(self, user_id: int, context_ids: np.ndarray,
                 context_codes: dict[str, np.ndarray], fingerprint: str = "",
                 entropy: int | None = None) -> None:
        n = len(context_ids)
        self.user_id = user_id
        self.fingerprint, self.entropy = fingerprint, entropy  # of the run's digest; None: none
        self.size = 0
        self._context_ids = context_ids
        self._context_codes = context_codes
        self._notification = np.zeros((n, len(NOTIFICATION_FEATURES)), dtype=np.int16)
        self._opened = np.zeros(n, dtype=bool)
        self._reward = np.zeros(n, dtype=np.float64)
        self._p_open = np.zeros(n, dtype=np.float64)
        self._seconds = np.zeros(n, dtype=np.float64)

    def append(self, codes: tuple[int, ...] | list[int], opened: bool, reward: float,
               p_open: float, seconds: float) -> None:
        k = self.size
        self._notification[k] = codes
        self._opened[k] = opened
        self._reward[k] = reward
        self._p_open[k] = p_open
        self._seconds[k] = seconds
        self.size = k + 1

    def __len__(self) -> int:
        return self.size

    context_ids = _Filled("_context_ids")
    opened = _Filled("_opened")
    reward = _Filled("_reward")
    p_open = _Filled("_p_open")
    decision_seconds = _Filled("_seconds")

    @property
    def context_codes(self) -> dict[str, np.ndarray]:
        return {f: c[: self.size] for f, c in self._context_codes.items()}

    @property
    def notification_codes(self) -> dict[str, np.ndarray]:
        return {f: self._notification[: self.size, j] for j, f in enumerate(NOTIFICATION_FEATURES)}

    def frame(self) -> pd.DataFrame:
        """The steps so far as a frame of schema values (the recording format's columns)."""
        head = pd.DataFrame({
            "step": np.arange(self.size, dtype=np.int32),
            "user_id": np.full(self.size, self.user_id, dtype=np.int32),
            "context_id": self.context_ids,
        })
        features = codes_frame({**self.context_codes, **self.notification_codes})
        tail = pd.DataFrame({
            "action": pd.Categorical.from_codes(np.where(self.opened, OPENED, DISMISSED),
                                                categories=pd.Index(ACTION_VALUES)),
            "reward": self.reward,
            "p_open": self.p_open,
            "decision_seconds": self.decision_seconds,
        })
        if self.entropy is not None:
            matrix = np.column_stack(list(self.notification_codes.values())).reshape(self.size, -1)
            tail[ENTROPY] = str(self.entropy)
            tail[DIGEST] = chain(self.fingerprint, self.user_id, self.entropy, self.context_ids, matrix,
                                 self.opened)
        return pd.concat([head, features, tail], axis=1)

    def save(self, path: str | Path) -> Path:
        """Write the recording (Parquet) to ``path``."""
        path = Path(path)
        pq.write_table(pa.Table.from_pandas(self.frame(), preserve_index=False), path)
        return path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, History):
            return NotImplemented
        k = self.size
        return (self.user_id == other.user_id and k == other.size
                and np.array_equal(self.context_ids, other.context_ids)
                and all(np.array_equal(getattr(self, name)[:k], getattr(other, name)[:k], equal_nan=True)
                        for name in COMPARED))

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict:
        """Pickle only the steps taken (a snapshot: it cannot grow after unpickling)."""
        k = self.size
        state = dict(self.__dict__)
        state["_context_ids"] = self._context_ids[:k].copy()
        state["_context_codes"] = {f: c[:k].copy() for f, c in self._context_codes.items()}
        for name in (*COMPARED, "_seconds"):
            state[name] = getattr(self, name)[:k].copy()
        return state

    def __repr__(self) -> str:
        return f"History(user_id={self.user_id}, steps={self.size}, total_reward={self.reward.sum():g})"
