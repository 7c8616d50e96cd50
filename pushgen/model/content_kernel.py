"""Kernels of ``content.content``: each post's channel, and the values a conversation's
follow-ups take from its first message."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def post_channels(app: np.ndarray, pick: np.ndarray, of_app: np.ndarray, triggered_channel: np.ndarray,
                  alarm: np.ndarray, trigger_on: np.ndarray, trigger_draws: np.ndarray,
                  triggered_share: float) -> np.ndarray:
    """Each post's channel: its app's ``pick``-th channel (``of_app``), or the app's triggered
    channel (-1: none) for an alarm, or while the trigger lasts when its draw is below
    ``triggered_share``."""
    channel = np.empty(len(app), dtype=np.int64)
    for i in range(len(app)):
        triggered = triggered_channel[app[i]]
        if triggered >= 0 and (alarm[i] or (trigger_on[i] and trigger_draws[i] < triggered_share)):
            channel[i] = triggered
        else:
            channel[i] = of_app[app[i], pick[i]]
    return channel


@kernel
def thread_values(values: np.ndarray, thread_position: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """``values`` with each follow-up (position above 0) given the value at its ``thread`` row,
    as read before any is given."""
    out = values.copy()
    for i in range(len(values)):
        if thread_position[i] > 0:
            out[i] = values[thread[i]]
    return out
