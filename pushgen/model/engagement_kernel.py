"""Kernels of the engagement nodes: the hidden availability's daily AR(1) level, and what each
notification adds per unit of each situation."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def autoregression(shocks: np.ndarray, persistence: float) -> np.ndarray:
    """level[0] = shocks[0], level[d] = shocks[d] + persistence * level[d - 1]."""
    level = np.empty(len(shocks))
    previous = 0.0
    for d in range(len(shocks)):
        previous = shocks[d] + persistence * previous
        level[d] = previous
    return level


@kernel
def situation_effects(interactions: np.ndarray, rows: np.ndarray, group: np.ndarray,
                      by_priority: np.ndarray, priority: np.ndarray,
                      by_updates: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """effects[i, s] = interactions[rows[i], group[i], s] + by_priority[priority[i], s]
    + by_updates[updates[i], s], added in that order (the sum NumPy's broadcasting gives)."""
    situations = interactions.shape[2]
    effects = np.empty((len(rows), situations))
    for i in range(len(rows)):
        for s in range(situations):
            effects[i, s] = (interactions[rows[i], group[i], s] + by_priority[priority[i], s]
                             + by_updates[updates[i], s])
    return effects
