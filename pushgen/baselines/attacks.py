"""Attacks on the benchmark's yardsticks: policies built to game a metric, not to score.

- ``impossible_notification``: a notification no app posts (its fields belong to no channel):
  P(open) = 0 for every user, and it leaves the simulated user's state as it was, so sending
  it is the EvalUMAP tasks' only way to hold. It stays a legal, scored answer.
- ``SabotagedPolicy``: another policy that sends the impossible notification in its first
  ``first`` contexts (and hears nothing of them), then plays normally: doing badly early on
  purpose, which a learning metric must not reward.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines.base import Codes, Policy, as_codes, as_matrix, batch_size
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.feasibility import channel_of


@lru_cache(maxsize=1)
def impossible_notification() -> np.ndarray:
    """(7,) codes of the first notification, in code order of the subject, that no channel posts."""
    subjects = np.arange(len(schemas.values("subject")))
    rows = np.zeros((len(subjects), len(NOTIFICATION_FEATURES)), dtype=np.int64)
    rows[:, NOTIFICATION_FEATURES.index("subject")] = subjects
    never = np.flatnonzero(channel_of(as_codes(rows)) < 0)
    if not len(never):
        raise RuntimeError("every subject has a channel of the first app: no impossible notification found")
    return rows[never[0]]


class SabotagedPolicy:
    """``inner``, except that its first ``first`` contexts get the impossible notification."""

    def __init__(self, inner: Policy, first: int) -> None:
        self.inner = inner
        self.first = max(int(first), 0)
        self.answered = 0
        self.played_from = 0  # of the last batch: where the inner policy's notifications start

    def fit(self, history: pd.DataFrame) -> None:
        self.inner.fit(history)

    def act(self, contexts: Codes) -> Codes:
        n = batch_size(contexts)
        sabotaged = np.minimum(np.maximum(self.first - self.answered, 0), n)
        self.answered += n
        out = np.tile(impossible_notification(), (n, 1))
        if sabotaged < n:
            rest = {f: np.asarray(c)[sabotaged:] for f, c in contexts.items()}
            played = self.inner.act(rest)
            out[sabotaged:] = as_matrix(played)
        self.played_from = sabotaged
        return as_codes(out)

    def update(self, contexts: Codes, notifications: Codes, opened: np.ndarray) -> None:
        start = self.played_from
        if start < len(opened):
            self.inner.update({f: np.asarray(c)[start:] for f, c in contexts.items()},
                              {f: np.asarray(c)[start:] for f, c in notifications.items()},
                              np.asarray(opened)[start:])
