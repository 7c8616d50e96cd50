"""Greedy choice with a memory of what was sent: the best candidate per context, less a penalty
for repeating the app, subject or channel of recent sends.

A ``Recency`` holds, per key (app, subject, channel), the exposure to earlier sends: the sum
over them of exp(-(t - t_j) / tau_key), read at clock ``t`` (any unit: seconds, days, steps).
A ``GreedyChooser`` then takes, in each context in turn, the candidate with the highest

    score[context, candidate] - sum over keys of weight_key * sqrt(exposure_key[candidate's key])

and adds it to the exposures. With the simulated user's own weights, time constants, scores
and starting exposures this is the oracle; the learned models use their own estimates and a
clock counted in contexts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KEYS = ("app", "subject", "channel")


@dataclass
class Recency:
    """Exposures per key as of ``clock``; ``taus`` are the keys' time constants."""

    exposure: dict[str, np.ndarray]
    taus: dict[str, float]
    clock: float = 0.0

    @classmethod
    def empty(cls, sizes: dict[str, int], taus: dict[str, float], clock: float = 0.0) -> Recency:
        return cls({k: np.zeros(sizes[k]) for k in KEYS}, dict(taus), clock)


class GreedyChooser:
    """Chooses among fixed candidates context after context, keeping the exposures it causes."""

    def __init__(self, keys: dict[str, np.ndarray], weights: dict[str, float], recency: Recency) -> None:
        """``keys[key]``: each candidate's app, subject and channel index; ``weights[key]`` >= 0:
        log-odds lost per unit of sqrt(exposure)."""
        negative = [k for k in KEYS if weights[k] < 0]
        if negative:
            raise ValueError(f"recency weights must be >= 0; {negative[0]} is {weights[negative[0]]}")
        self.keys = {k: np.asarray(keys[k], dtype=np.int64) for k in KEYS}
        self.weights = {k: float(weights[k]) for k in KEYS}
        self.recency = recency
        self.exposure_at_choice = np.zeros((0, len(KEYS)))  # of the last ``choose``: per row and key

    def choose(self, scores: np.ndarray, clock: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
        """Index of the chosen candidate for each row of ``scores`` (contexts x candidates), at
        clock times ``clock`` (non-decreasing, from the recency's clock on). ``noise`` (same
        shape) is added to the scores before choosing and does not count otherwise."""
        clock = np.asarray(clock, dtype=np.float64)
        n = len(clock)
        chosen = np.empty(n, dtype=np.int64)
        if n == 0:
            self.exposure_at_choice = np.zeros((0, len(KEYS)))
            return chosen
        active = [k for k in KEYS if self.weights[k] > 0]
        steps = np.diff(np.r_[self.recency.clock, clock])
        if (steps < 0).any():
            raise ValueError("clock times must not go back")
        decay = {k: np.exp(-steps / self.recency.taus[k]) for k in KEYS}
        exposure = self.recency.exposure
        keys = self.keys
        weights = self.weights
        total = scores if noise is None else scores + noise
        at_choice = np.empty((n, len(KEYS)))
        for i in range(n):
            value = total[i].copy()
            for k in KEYS:
                exposure[k] *= decay[k][i]
            for k in active:
                value -= (weights[k] * np.sqrt(exposure[k]))[keys[k]]
            j = int(np.argmax(value))
            chosen[i] = j
            for m, k in enumerate(KEYS):
                at_choice[i, m] = exposure[k][keys[k][j]]
                exposure[k][keys[k][j]] += 1.0
        self.recency.clock = float(clock[-1])
        self.exposure_at_choice = at_choice
        return chosen
