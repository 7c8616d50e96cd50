"""Notification feature nodes: the channel an app posts through, and what it carries.

Parents: the posting app, whether the app's trigger lasts at posting (music for media
players, a commute or trip for travel apps, a workout for fitness apps; alarms at wake-up),
and the user's subject interests.

    channel ~ the app's triggered channel with P = TRIGGERED_SHARE while its trigger lasts,
              else Categorical(share of the app's untriggered channels)
    category, priority, visibility, ongoing = the channel's own (fixed)
    subject ~ Categorical over the channel's subjects, weight = app's topic mix x exp(log-interest)
    numberOfUpdates = the channel's usual level with P = USUAL_UPDATES, else uniform over its others

A conversation's follow-ups repeat its first message's channel and subject, with
numberOfUpdates counting the updates so far (0: none, 1-2: low, 3-5: medium, 6+: high).
"""

from __future__ import annotations

import numpy as np

from pushgen import schemas
from pushgen.model.arrivals import Arrivals
from pushgen.model.catalog import AppCatalog
from pushgen.model.channel_table import SIGNATURE, ChannelTable
from pushgen.model.content_kernel import (
    chosen_updates,
    count_updates,
    post_channels,
    sparse_codes,
    thread_values,
)
from pushgen.model.sampling import categorical_rows

UPDATE_STEPS = np.array([1, 3, 6])  # thread positions where none->low->medium->high
TRIGGERED_SHARE = 0.9
USUAL_UPDATES = 0.8
UPDATE_LEVELS = np.array([schemas.field("numberOfUpdates").code(v)
                          for v in ("none", "low", "medium", "high")])


def channels(arrivals: Arrivals, table: ChannelTable, trigger_on: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
    """Channel of every arrival (follow-ups take their conversation's)."""
    app = arrivals.app
    pick = categorical_rows(table.untriggered_cdf, app, rng)
    channel = post_channels(app, pick, table.of_app, table.triggered_channel, arrivals.alarm, trigger_on,
                            rng.random(len(app)), TRIGGERED_SHARE)
    return thread_values(channel, arrivals.thread_position, arrivals.thread)


def subjects(table: ChannelTable, user_channels: np.ndarray, row: np.ndarray, log_interest: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
    """Subject of each post, its channel ``user_channels[row]``: P(subject | channel, user) = topic
    mix x exp(log-interest), drawn as ``categorical_rows`` draws from those cumulative rows (from
    the channels' few subjects: ``content_kernel.sparse_codes``)."""
    start, subject, weight = table.topics
    return sparse_codes(start, subject, weight, user_channels, np.exp(log_interest), rng.random(len(row)),
                        row, table.topic_weight.shape[1])


def content(arrivals: Arrivals, catalog: AppCatalog, log_interest: np.ndarray, trigger_on: np.ndarray,
            rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Schema codes of the 7 notification features for every arrival."""
    table = catalog.channels
    channel = channels(arrivals, table, trigger_on, rng)
    used = np.zeros(len(table.group), dtype=bool)
    used[channel] = True  # np.unique(channel, return_inverse=True), without sorting the posts
    user_channels, row = used.nonzero()[0], (np.cumsum(used) - 1)[channel]
    subject = subjects(table, user_channels, row, log_interest, rng)
    codes = {"postingApp": arrivals.app.copy(), "subject": subject}
    codes.update({f: getattr(table, f)[channel] for f in SIGNATURE})
    codes["numberOfUpdates"] = _updates(table, channel, rng)
    codes["subject"] = thread_values(codes["subject"], arrivals.thread_position, arrivals.thread)
    count_updates(codes["numberOfUpdates"], arrivals.thread, arrivals.thread_position, channel,
                  table.carries_every_update, UPDATE_STEPS, UPDATE_LEVELS)
    return {name: codes[name].astype(np.int16, copy=False) for name in schemas.NOTIFICATION_FEATURES}


def _updates(table: ChannelTable, channel: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    other = categorical_rows(table.other_updates_cdf, channel, rng)
    keep_draws = rng.random(len(channel))
    return chosen_updates(channel, other, table.usual_updates, table.has_other_updates, keep_draws,
                          USUAL_UPDATES)
