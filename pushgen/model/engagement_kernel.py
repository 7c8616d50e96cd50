"""Kernels of the engagement nodes: the hidden availability's daily AR(1) level."""

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
