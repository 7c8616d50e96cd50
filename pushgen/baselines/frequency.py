"""Frequency baseline: the notification opened most often in similar contexts.

In task 2 (no history) it counts the public task 1 training rows instead: the population's
habits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size, fitted
from pushgen.baselines.candidates import distinct, notification_matrix, opened
from pushgen.envs.spaces import CONTEXT_FEATURES, frame_codes

# similar contexts, from the most specific to the least; the first level seen in the history wins
LEVELS: tuple[tuple[str, ...], ...] = (("weekend", "time", "place"), ("time", "place"), ("time",))
WEEKEND_CODES = np.isin(np.asarray(schemas.values("day")), (5, 6))


def context_key(variables: tuple[str, ...], contexts: Codes) -> np.ndarray:
    """One integer per context for the combination of ``variables``."""
    key = np.zeros(batch_size(contexts), dtype=np.int64)
    for name in variables:
        if name == "weekend":
            key = key * 2 + WEEKEND_CODES[np.asarray(contexts["day"])]
        else:
            key = key * len(schemas.values(name)) + np.asarray(contexts[name])
    return key


class ContextFrequencyPolicy(StaticPolicy):
    """The notification opened most often in similar contexts (same time block and place, and
    weekday or weekend); coarser contexts when a combination is new, then the most opened
    notification overall.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode (``pushgen.benchmark.make_setting``).
    levels : tuple of tuple of str
        The context features that make contexts similar, finest first.

    Examples
    --------
    >>> from functools import partial
    >>> from pushgen.baselines import ContextFrequencyPolicy
    >>> from pushgen.benchmark import run_policy
    >>> by_place = partial(ContextFrequencyPolicy, levels=(("place",),))  # similar: at the same place
    >>> [run] = run_policy("pushgen-mini-v4", 1, "frequency", by_place, users=[0])
    >>> len(run.reward)  # one notification per test context of user 0
    1363
    """

    def __init__(self, setting: Setting, levels: tuple[tuple[str, ...], ...] = LEVELS) -> None:
        self.setting = setting
        self.levels = levels
        self.tables: list[tuple[np.ndarray, np.ndarray]] = []
        self.fallback: np.ndarray | None = None

    def fit(self, history: pd.DataFrame) -> None:
        self.fallback, self.tables = fitted(history, self.setting,
                                            f"most opened notification by {self.levels}", self._count)

    def _count(self, rows: pd.DataFrame) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The most opened notification overall, and per level, context keys and their choices."""
        matrix = notification_matrix(rows)
        was_opened = opened(rows)
        if not was_opened.any():  # the most received notification (the first in code order on ties)
            unique, _, counts = distinct(matrix)
            return unique[int(np.argmax(counts))], []
        contexts = frame_codes(rows, CONTEXT_FEATURES)
        unique, inverse, counts = distinct(matrix[was_opened])
        tables = []
        for variables in self.levels:
            key = context_key(variables, contexts)[was_opened]
            pairs, pair_counts = np.unique(np.column_stack([key, inverse]), axis=0, return_counts=True)
            order = np.lexsort((pairs[:, 1], -pair_counts, pairs[:, 0]))
            first = np.r_[True, pairs[order][1:, 0] != pairs[order][:-1, 0]]
            top = pairs[order][first]
            tables.append((top[:, 0], unique[top[:, 1]]))
        return unique[int(np.argmax(counts))], tables

    def act(self, contexts: Codes) -> Codes:
        if self.fallback is None:
            raise RuntimeError("ContextFrequencyPolicy.act before fit: fit it on a history first")
        n = batch_size(contexts)
        out = np.tile(self.fallback, (n, 1))
        done = np.zeros(n, dtype=bool)
        for variables, (keys, choices) in zip(self.levels, self.tables, strict=False):
            key = context_key(variables, contexts)
            where = np.searchsorted(keys, key)
            found = ~done & (where < len(keys)) & (keys[np.minimum(where, len(keys) - 1)] == key)
            out[found] = choices[where[found]]
            done |= found
        return as_codes(out)
