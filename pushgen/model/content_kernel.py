"""Kernels of ``content.content``: each post's channel, the subject distributions of the user's
channels, the values a conversation's follow-ups take from its first message, and the
numberOfUpdates level a conversation's position sets."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
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


@Kernel
def weighted_cumulative(weight: np.ndarray, rows: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``np.cumsum(weight[rows] * scale[None, :], axis=1)``: the same products, summed in the same
    order, without the (rows, columns) products held in between."""
    out = np.empty((len(rows), weight.shape[1]))
    for i in range(len(rows)):
        total = 0.0
        for j in range(weight.shape[1]):
            total += weight[rows[i], j] * scale[j]
            out[i, j] = total
    return out


@Kernel
def thread_values(values: np.ndarray, thread_position: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """``values`` with each follow-up (position above 0) given the value at its ``thread`` row,
    as read before any is given."""
    out = values.copy()
    for i in range(len(values)):
        if thread_position[i] > 0:
            out[i] = values[thread[i]]
    return out


@Kernel
def count_updates(updates: np.ndarray, thread: np.ndarray, thread_position: np.ndarray, channel: np.ndarray,
                  carries_every_update: np.ndarray, steps: np.ndarray, levels: np.ndarray) -> None:
    """In place: each conversation row (``thread`` not -1) whose channel carries every level gets the
    level of its position, ``levels[number of steps at or below it]`` (``steps`` ascending)."""
    for i in range(len(updates)):
        if thread[i] >= 0 and carries_every_update[channel[i]]:
            level = 0
            while level < len(steps) and steps[level] <= thread_position[i]:
                level += 1
            updates[i] = levels[level]


@Kernel
def chosen_updates(channel: np.ndarray, other: np.ndarray, usual_updates: np.ndarray, has_others: np.ndarray,
                   keep_draws: np.ndarray, usual_share: float) -> np.ndarray:
    """Each post's numberOfUpdates code: its channel's usual one when the channel carries no other
    or the post's draw is below ``usual_share``, else the ``other`` one drawn for it."""
    levels = np.empty(len(channel), dtype=np.int16)
    for i in range(len(channel)):
        c = channel[i]
        levels[i] = usual_updates[c] if not has_others[c] or keep_draws[i] < usual_share else other[i]
    return levels
