"""Rotations: probes with no model and no context, cycling through the user's best notifications
of its history, one per context, whatever the context.

- ``RotationPolicy`` ranks the distinct notifications of the history by how often they were
  opened (ties: the more often received, then code order) and keeps the first ``size``: it
  favours the most received ones, habituated and mediocre.
- ``RateRotationPolicy`` ranks them by their open rate smoothed towards the user's own
  (``(opens + a * rate) / (received + a)``), with the prior strength ``a`` and the number kept
  chosen on the history's last ``VALIDATION_DAYS`` (ranked on the rows before them, scored by
  the logged open rate of the kept notifications in them), then ranked on the whole history.
  The strongest cheap probe: a model that reads the context must score clearly above it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size
from pushgen.baselines.candidates import notification_matrix, opened, ranked
from pushgen.baselines.fixed import BestFixedOverallPolicy

ROTATION_SIZE = 45
VALIDATION_DAYS = 21
PRIOR_STRENGTHS = (1.0, 3.0, 10.0, 30.0)
SIZES = (5, 10, 20, 45)
MIN_VALIDATION_ROWS = 20  # a choice scored on fewer logged rows is not considered


class RotationPolicy(StaticPolicy):
    """The user's ``size`` most opened history notifications, in turn (the overall best fixed
    notification without history).

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode (``pushgen.benchmark.make_setting``).
    size : int, default 45
        How many notifications take turns.

    Examples
    --------
    >>> from pushgen.baselines import RotationPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> data = task_data("pushgen-mini-v4", 1)
    >>> policy = RotationPolicy(make_setting(data, task=1, name="rotation", user=0), size=3)
    >>> policy.fit(data.histories[0])                      # the user's history
    >>> apps = policy.act({f: codes[:6] for f, codes in data.contexts.items()})["postingApp"]
    >>> bool((apps[:3] == apps[3:]).all())                  # three notifications in turn
    True
    """

    def __init__(self, setting: Setting, size: int = ROTATION_SIZE) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1; got {size}")
        self.size = size
        self.fallback = BestFixedOverallPolicy(setting).choice[None, :]
        self.cycle = self.fallback
        self.answered = 0

    def fit(self, history: pd.DataFrame) -> None:
        self.cycle = ranked(history, self.size) if len(history) else self.fallback
        self.answered = 0

    def act(self, contexts: Codes) -> Codes:
        n = batch_size(contexts)
        turn = (self.answered + np.arange(n)) % len(self.cycle)
        self.answered += n
        return as_codes(self.cycle[turn])


def tuned(history: pd.DataFrame) -> tuple[int, float]:
    """The (size, prior strength) whose ranking of the rows before the last ``VALIDATION_DAYS``
    keeps the notifications most opened in them (default: the largest size, the middle prior)."""
    posted = pd.to_datetime(history["posted_at"])
    late = (posted >= posted.max() - pd.Timedelta(days=VALIDATION_DAYS)).to_numpy()
    choice, best = (SIZES[-1], PRIOR_STRENGTHS[1]), -1.0
    if late.all() or not late.any():
        return choice
    early, matrix, was_opened = history[~late], notification_matrix(history[late]), opened(history[late])
    for size in SIZES:
        for strength in PRIOR_STRENGTHS:
            kept = ranked(early, size, strength)
            hit = (matrix[:, None, :] == kept[None, :, :]).all(axis=2).any(axis=1)
            if hit.sum() >= MIN_VALIDATION_ROWS and was_opened[hit].mean() > best:
                choice, best = (size, strength), float(was_opened[hit].mean())
    return choice


class RateRotationPolicy(RotationPolicy):
    """The user's best smoothed-open-rate history notifications, in turn (see the module)."""

    def fit(self, history: pd.DataFrame) -> None:
        if not len(history):
            super().fit(history)
            return
        self.size, strength = tuned(history)
        self.cycle = ranked(history, self.size, strength)
        self.answered = 0
