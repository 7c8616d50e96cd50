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


@kernel
def logged_decayed_sums(seconds: np.ndarray, priority: np.ndarray, updates: np.ndarray,
                        interruption_by_priority: np.ndarray, no_updates: int, update_interruption: float,
                        fatigue_tau_seconds: float, app: np.ndarray, subject: np.ndarray, channel: np.ndarray,
                        key_sizes: np.ndarray, habituation_tau_seconds: np.ndarray, lead: int, shift: float
                        ) -> np.ndarray:
    """(4, rows): ``keyed_decayed_sums`` of fatigue (one key, weighted by how much each row
    interrupts: ``interruption_by_priority[priority]``, times ``update_interruption`` for an update,
    ``updates`` not ``no_updates``) and of habituation to the app, the subject and the channel
    (weight 1, keys in [0, key_sizes)), in one pass: each sum the same floats as its own pass."""
    n = len(seconds)
    out = np.empty((4, n))
    fatigue_total, fatigue_last = 0.0, 0.0
    total = np.zeros((3, key_sizes.max()))
    last = np.zeros((3, key_sizes.max()))
    shifted = shift != 0.0
    for step in range(lead + n):
        i = step if step < lead else step - lead
        in_history = step < lead
        t = seconds[i] if in_history or not shifted else seconds[i] + shift
        weight = interruption_by_priority[priority[i]] * (
            update_interruption if updates[i] != no_updates else 1.0)
        value = fatigue_total * np.exp(-(t - fatigue_last) / fatigue_tau_seconds)
        if not in_history:
            out[0, i] = value
        fatigue_total, fatigue_last = value + weight, t
        for j in range(3):
            k = app[i] if j == 0 else (subject[i] if j == 1 else channel[i])
            value = total[j, k] * np.exp(-(t - last[j, k]) / habituation_tau_seconds[j])
            if not in_history:
                out[1 + j, i] = value
            total[j, k], last[j, k] = value + 1.0, t
    return out
