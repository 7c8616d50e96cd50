"""Cheap probes of the selection task: what a participant tries first, with no context at all.

``AppCategoryCounter`` counts, for the one user it plays, the opens and sends of each
(app, category) pair it sends, and sends the candidate whose pair has the best optimistic open
rate: the rate smoothed towards the public open rate of the pair's category (``PRIOR_SENDS``
sends' worth), plus ``bonus / sqrt(1 + sends)``. It never reads the context; a learner that
does must score above it for the context to be shown to be learned.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.baselines.base import NoHistory
from pushgen.baselines.selection_online import APP, CATEGORY, SelectionSetting, candidates_of

PRIOR_SENDS = 2.0


class AppCategoryCounter(NoHistory):
    """Per-user open counts of (app, category) pairs, optimistic (see the module's docstring)."""

    def __init__(self, setting: SelectionSetting, bonus: float = 0.1) -> None:
        n_categories = len(schemas.values("category"))
        rows, opens = setting.public.counts_by(setting.public.notifications[:, CATEGORY], n_categories)
        self.prior = np.where(rows > 0, opens / np.maximum(rows, 1.0), setting.public.open_rate)
        self.bonus = bonus
        self.counts: dict[tuple[int, int], tuple[float, float]] = {}
        self._pairs: list[tuple[int, int]] = []

    def act(self, observation: dict[str, Any]) -> int:
        candidates, _ = candidates_of(observation)
        self._pairs = list(zip(candidates[:, APP].tolist(), candidates[:, CATEGORY].tolist(), strict=True))
        score = np.empty(len(self._pairs))
        for j, (app, category) in enumerate(self._pairs):
            sends, opens = self.counts.get((app, category), (0.0, 0.0))
            rate = (opens + PRIOR_SENDS * self.prior[category]) / (sends + PRIOR_SENDS)
            score[j] = rate + self.bonus / np.sqrt(1.0 + sends)
        return int(np.argmax(score))

    def update(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        sends, opens = self.counts.get(self._pairs[action], (0.0, 0.0))
        self.counts[self._pairs[action]] = (sends + 1.0, opens + float(opened))


__all__ = ["AppCategoryCounter"]
