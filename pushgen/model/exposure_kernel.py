"""Kernel of ``exposure.keyed_exposure``: one pass in time order, one decaying sum per key."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def keyed_decayed_sums(seconds: np.ndarray, keys: np.ndarray, n_keys: int, tau_seconds: float,
                       weights: np.ndarray, lead: int, shift: float) -> np.ndarray:
    """For each row i (``seconds`` ascending), sum over earlier rows j with keys[j] == keys[i] of
    weights[j] * exp(-(t_i - t_j) / tau_seconds); keys in [0, n_keys).

    The rows come at t = seconds + shift (t = seconds if shift is 0), after their first ``lead``
    rows came at t = seconds: a history that repeats them.

    Each key's sum is kept as of its last row and decayed to the next one, the recurrence
    S_i = (S_prev + w_prev) * exp(-(t_i - t_prev) / tau), so every term stays in [0, sum of w].
    """
    n = len(seconds)
    out = np.empty(n)
    total = np.zeros(n_keys)
    last = np.zeros(n_keys)
    for i in range(lead):
        k = keys[i]
        t = seconds[i]
        total[k] = total[k] * np.exp(-(t - last[k]) / tau_seconds) + weights[i]
        last[k] = t
    shifted = shift != 0.0
    for i in range(n):
        k = keys[i]
        t = seconds[i] + shift if shifted else seconds[i]
        value = total[k] * np.exp(-(t - last[k]) / tau_seconds)
        out[i] = value
        total[k] = value + weights[i]
        last[k] = t
    return out
