"""Kernels of the exposures: ``exposure.logged_exposure`` (one pass in time order, one decaying sum per
key) and what a batch of users holds and receives (``simulated_user.SimulatedUsers``)."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
def logged_decayed_sums(seconds: np.ndarray, priority: np.ndarray, updates: np.ndarray,
                        interruption_by_priority: np.ndarray, no_updates: int, update_interruption: float,
                        fatigue_tau_seconds: float, app: np.ndarray, subject: np.ndarray, channel: np.ndarray,
                        key_sizes: np.ndarray, habituation_tau_seconds: np.ndarray, lead: int, shift: float
                        ) -> np.ndarray:
    """(4, rows): ``exposure.keyed_exposure`` of fatigue (one key, weighted by how much each row
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


@Kernel
def received_exposures(value: np.ndarray, time: np.ndarray, cells: np.ndarray, t: np.ndarray, tau: np.ndarray,
                       interrupts: np.ndarray, reaches: np.ndarray, with_channel: np.ndarray) -> np.ndarray:
    """(n, 4): notification i's user's fatigue and exposure to its app, subject and channel at
    ``t[i]``, each stored as ``value`` at ``time`` at flat position ``cells[i, k]`` and decaying with
    time constant ``tau[k]``: value * exp(-(t - time) / tau). Then each notification that
    ``reaches`` its user is added, as of ``t[i]``: ``interrupts[i]`` to fatigue and one unit to
    each key (not to the channel where not ``with_channel[i]``). Every exposure is read before
    any is written."""
    n = len(t)
    out = np.empty((n, 4))
    for i in range(n):
        for k in range(4):
            c = cells[i, k]
            out[i, k] = value[c] * np.exp(-(t[i] - time[c]) / tau[k])
    for i in range(n):
        if reaches[i]:
            for k in range(4 if with_channel[i] else 3):
                c = cells[i, k]
                value[c] = out[i, k] + (interrupts[i] if k == 0 else 1.0)
                time[c] = t[i]
    return out
