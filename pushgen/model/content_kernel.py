"""Kernels of ``content.content``: each post's channel, the subjects drawn from the user's
channels' distributions, the values a conversation's follow-ups take from its first message, and the
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
def sparse_codes(start: np.ndarray, column: np.ndarray, weight: np.ndarray, chosen: np.ndarray,
                 scale: np.ndarray, uniforms: np.ndarray, rows: np.ndarray, width: int) -> np.ndarray:
    """``sampling_kernel.categorical_codes(weighted_cumulative(dense, chosen, scale), uniforms, rows)``,
    where row c of the (n, ``width``) ``dense`` weights holds ``weight[k]`` in column ``column[k]``
    for k in ``start[c]:start[c + 1]`` (columns ascending) and zeros elsewhere, for finite ``scale``.

    A zero weight adds nothing to a running sum, so only a row's entries are summed; a draw's
    code is the column of the first entry whose running sum, normalised, plus the row is above
    the key (uniform plus row), as the dense search counts the values at or below it, and
    ``width - 1`` when none is. A row of total 0 gives code 0, as its NaN values do there.
    The entries at or below a key are counted, not searched: a row has a few (every row as
    many as the longest, the rest inf).
    """
    entries = start[chosen + 1] - start[chosen]
    longest = entries.max() if len(chosen) else 0
    bound = np.full((len(chosen), longest), np.inf)  # a row's values, then inf: never at or below a key
    total = np.zeros(len(chosen))
    for r in range(len(chosen)):
        offset = start[chosen[r]]
        running = 0.0
        for k in range(entries[r]):
            running += weight[offset + k] * scale[column[offset + k]]
            bound[r, k] = running
        total[r] = running
        for k in range(entries[r]):
            bound[r, k] = bound[r, k] / running + r
    codes = np.empty(len(uniforms), dtype=np.int16)
    for i in range(len(uniforms)):
        r = rows[i]
        key = uniforms[i] + r
        below = 0  # the first entry above the key: one past those at or below it
        for k in range(longest):
            below += bound[r, k] <= key
        if total[r] == 0:
            codes[i] = 0
        elif below == entries[r]:
            codes[i] = width - 1
        else:
            codes[i] = column[start[chosen[r]] + below]
    return codes


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
