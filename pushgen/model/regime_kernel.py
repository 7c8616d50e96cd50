"""Kernel of ``regime.day_regime``: the Markov chain of the daily regime, one day after another."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
def markov_chain(first: np.ndarray, cumulative: np.ndarray, u: np.ndarray) -> np.ndarray:
    """States of a chain driven by uniforms ``u``: state[0] from the cumulative distribution
    ``first``, state[d] from row state[d - 1] of the cumulative transition matrix (the first
    state whose cumulative probability exceeds u, the last one if none does)."""
    days, last = len(u), cumulative.shape[1] - 1
    state = np.empty(days, dtype=np.int8)
    for d in range(days):
        row = first if d == 0 else cumulative[state[d - 1]]
        s = 0
        while s < last and row[s] < u[d]:
            s += 1
        state[d] = s
    return state
