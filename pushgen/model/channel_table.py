"""The channels of every app as arrays: what the generator samples and the judge checks.

Channel ``c`` (an index over all apps' channels) belongs to app ``app[c]`` and fixes its
notifications' ``category``, ``priority``, ``visibility`` and ``ongoing`` codes; ``subjects[c]``
and ``updates[c]`` mark the subjects and numberOfUpdates levels it may carry. ``lookup`` maps
(app, category, priority, visibility, ongoing) codes to the channel, -1 where no channel of the
app posts that combination.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.model.channels import GROUPS, KIND_CHANNELS

SIGNATURE = ("category", "priority", "visibility", "ongoing")


@dataclass(frozen=True)
class ChannelTable:
    names: tuple[str, ...]  # (C,) "app/channel"
    app: np.ndarray  # (C,) app code
    category: np.ndarray  # (C,) schema codes of the fixed fields
    priority: np.ndarray
    visibility: np.ndarray
    ongoing: np.ndarray
    group: np.ndarray  # (C,) index into channels.GROUPS
    triggered: np.ndarray  # (C,) bool
    share: np.ndarray  # (C,) share of the app's untriggered posts
    subjects: np.ndarray  # (C, n_subject) bool
    updates: np.ndarray  # (C, n_updates) bool
    usual_updates: np.ndarray  # (C,) code of the channel's usual numberOfUpdates level
    topic_weight: np.ndarray  # (C, n_subject) the app's mix over the channel's subjects
    of_app: np.ndarray  # (A, max channels) channel indices, -1 padded
    lookup: np.ndarray  # (A, n_category, n_priority, n_visibility, 2) channel or -1

    @cached_property
    def untriggered_cdf(self) -> np.ndarray:
        """(A, max channels) cumulative shares of each app's untriggered channels in ``of_app``
        order; an app that posts only when triggered: all on its first."""
        safe = np.maximum(self.of_app, 0)
        untriggered = np.where((self.of_app >= 0) & ~self.triggered[safe], self.share[safe], 0.0)
        untriggered[untriggered.sum(axis=1) == 0, 0] = 1.0
        return np.cumsum(untriggered, axis=1)

    @cached_property
    def triggered_channel(self) -> np.ndarray:
        """(A,) each app's triggered channel, -1 for none."""
        safe = np.maximum(self.of_app, 0)
        return np.where((self.of_app >= 0) & self.triggered[safe], safe, -1).max(axis=1)

    @cached_property
    def other_updates(self) -> np.ndarray:
        """(C, n_updates) the numberOfUpdates levels each channel carries besides its usual one."""
        others = self.updates.copy()
        others[np.arange(len(others)), self.usual_updates] = False
        return others

    @cached_property
    def has_other_updates(self) -> np.ndarray:
        """(C,) whether a channel carries a numberOfUpdates level besides its usual one."""
        return np.asarray(self.other_updates.any(axis=1))

    @cached_property
    def other_updates_cdf(self) -> np.ndarray:
        """(C, n_updates) cumulative weights of each channel's other numberOfUpdates levels (of all
        levels for a channel with none)."""
        has_others = self.has_other_updates[:, None]
        return np.cumsum(np.where(has_others, self.other_updates, True).astype(np.float64), axis=1)

    @cached_property
    def topics(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``topic_weight``'s nonzero entries, channel by channel: (C + 1,) where each channel's
        start, then their subjects (ascending within a channel) and weights."""
        nonzero = self.topic_weight != 0
        start = np.zeros(len(nonzero) + 1, dtype=np.int64)
        np.cumsum(nonzero.sum(axis=1), out=start[1:])
        return start, nonzero.nonzero()[1], self.topic_weight[nonzero]

    @cached_property
    def carries_every_update(self) -> np.ndarray:
        """(C,) whether a channel carries every numberOfUpdates level."""
        return np.asarray(self.updates.all(axis=1))

    def channel_of(self, codes: dict[str, np.ndarray]) -> np.ndarray:
        """Channel of each notification (arrays of schema codes), -1 for none of its app's."""
        return self.lookup[tuple(np.asarray(codes[f], dtype=np.int64)
                                 for f in ("postingApp", *SIGNATURE))]


def channel_table(kind_of_app: list[str], rng: np.random.Generator) -> ChannelTable:
    """Every app's channels, in app order; ``rng`` draws each app's mix over its subjects."""
    fields = {name: schemas.field(name) for name in (*SIGNATURE, "subject", "numberOfUpdates")}
    n_subject = len(fields["subject"].listed())
    n_updates = len(fields["numberOfUpdates"].listed())
    rows: list[dict[str, Any]] = []
    for app, kind in enumerate(kind_of_app):
        seen: set[tuple[int, ...]] = set()
        for channel in KIND_CHANNELS[kind]:
            signature = tuple(fields[f].code(getattr(channel, f)) for f in SIGNATURE)
            if signature in seen:
                raise RuntimeError(f"two channels of kind {kind!r} post the same {SIGNATURE}")
            seen.add(signature)
            subjects = np.zeros(n_subject, dtype=bool)
            subjects[[fields["subject"].code(s) for s in channel.subjects]] = True
            updates = np.zeros(n_updates, dtype=bool)
            updates[[fields["numberOfUpdates"].code(u) for u in channel.updates]] = True
            rows.append({
                "name": f"{schemas.values('postingApp')[app]}/{channel.name}", "app": app,
                **dict(zip(SIGNATURE, signature, strict=True)),
                "group": GROUPS.index(channel.group), "triggered": channel.triggered,
                "share": channel.share, "subjects": subjects, "updates": updates,
                "usual": fields["numberOfUpdates"].code(channel.updates[0]),
                "topics": subjects * rng.gamma(1.5, 1.0, n_subject),
            })
    n_apps = len(kind_of_app)
    app_of_row = np.array([r["app"] for r in rows], dtype=np.int64)
    width = int(np.bincount(app_of_row, minlength=n_apps).max())
    of_app = np.full((n_apps, width), -1, dtype=np.int64)
    lookup = np.full((n_apps, *(len(fields[f].listed()) for f in SIGNATURE)), -1, dtype=np.int64)
    for index, r in enumerate(rows):
        of_app[r["app"], np.argmax(of_app[r["app"]] < 0)] = index
        lookup[(r["app"], *(r[f] for f in SIGNATURE))] = index
    column = {name: np.array([r[name] for r in rows]) for name in ("group", "triggered", "share")}
    return ChannelTable(
        names=tuple(r["name"] for r in rows),
        app=app_of_row,
        **{f: np.array([r[f] for r in rows], dtype=np.int16) for f in SIGNATURE},
        group=column["group"].astype(np.int64),
        triggered=column["triggered"].astype(bool),
        share=column["share"].astype(np.float64),
        subjects=np.array([r["subjects"] for r in rows]),
        updates=np.array([r["updates"] for r in rows]),
        usual_updates=np.array([r["usual"] for r in rows], dtype=np.int16),
        topic_weight=np.array([r["topics"] for r in rows]),
        of_app=of_app,
        lookup=lookup,
    )
