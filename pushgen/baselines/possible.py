"""Every possible notification: each app's channels with each subject and numberOfUpdates level
they carry (``pushgen.model.channels`` documents them per kind of app).

The catalog is public: it says what an app *could* post, not what a user has.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog
from pushgen.model.channel_table import SIGNATURE


@cache
def catalog_notifications() -> tuple[np.ndarray, np.ndarray]:
    """(every possible notification as an (n, 7) code matrix, the channel of each), by channel."""
    table = app_catalog().channels
    fixed = {"postingApp": table.app, **{f: getattr(table, f) for f in SIGNATURE}}
    blocks, channels = [], []
    for channel in range(len(table.names)):
        subject, updates = np.meshgrid(np.flatnonzero(table.subjects[channel]),
                                       np.flatnonzero(table.updates[channel]), indexing="ij")
        n = subject.size
        columns = {f: np.full(n, int(fixed[f][channel])) for f in fixed}
        columns.update(subject=subject.ravel(), numberOfUpdates=updates.ravel())
        blocks.append(np.column_stack([columns[f] for f in NOTIFICATION_FEATURES]))
        channels.append(np.full(n, channel))
    matrix = np.concatenate(blocks).astype(np.int64)
    matrix.setflags(write=False)
    channel_of = np.concatenate(channels).astype(np.int64)
    channel_of.setflags(write=False)
    return matrix, channel_of


def possible_notifications(apps: np.ndarray, channels_on: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray]:
    """The possible notifications of the apps ``apps`` (a boolean mask over app codes, or codes)
    on the channels still on (``channels_on``, a mask over channel codes; None: all), and their
    channels."""
    matrix, channel = catalog_notifications()
    apps = np.asarray(apps)
    owned = apps if apps.dtype == bool else np.isin(np.arange(len(app_catalog().apps)), apps)
    keep = owned[matrix[:, NOTIFICATION_FEATURES.index("postingApp")]]
    if channels_on is not None:
        keep &= np.asarray(channels_on, dtype=bool)[channel]
    return matrix[keep], channel[keep]
