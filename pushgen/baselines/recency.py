"""A policy's memory of its own sends: how recently it sent a notification's app, subject and channel.

The learned models see no timestamps when they act, only contexts in time order, so they
count time in contexts: ``rows_per_day`` of the user's history (or of the public rows) turns
a number of contexts into days. In the history, where posting times are known, each logged
row's exposure to the rows before it with the same app, subject or channel (the sum of
exp(-age / ``RECENCY_DAYS``)) is a feature; its fitted weight is the penalty for repeats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines.greedy import KEYS, GreedyChooser, Recency
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog
from pushgen.model.exposure import keyed_exposure
from pushgen.model.feasibility import channel_of

RECENCY_DAYS = 1.0
DAY = np.timedelta64(1, "D")


def notification_keys(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """App, subject and channel of each notification (an (n, 7) matrix); an impossible one's
    channel is the spare last slot."""
    codes = {f: matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
    channel = channel_of(codes)
    return {"app": codes["postingApp"], "subject": codes["subject"],
            "channel": np.where(channel >= 0, channel, len(app_catalog().channels.names))}


def key_sizes() -> dict[str, int]:
    catalog = app_catalog()
    return {"app": len(catalog.apps), "subject": len(schemas.values("subject")),
            "channel": len(catalog.channels.names) + 1}


def history_exposure(frame: pd.DataFrame, matrix: np.ndarray) -> np.ndarray:
    """(rows, 3): sqrt of each logged row's exposure to the same user's earlier rows with the same
    app, subject and channel (``frame`` has ``user_id`` and ``posted_at``; ``matrix`` its
    notifications)."""
    if not len(frame):
        return np.zeros((0, len(KEYS)))
    posted = frame["posted_at"].to_numpy().astype("datetime64[ms]")
    days = (posted - posted.min()) / DAY
    order = np.argsort(days, kind="stable")
    user = frame["user_id"].to_numpy(dtype=np.int64)
    keys = notification_keys(matrix)
    out = np.zeros((len(frame), len(KEYS)))
    for m, key in enumerate(KEYS):
        combined = user * (int(keys[key].max()) + 1) + keys[key]
        out[order, m] = keyed_exposure(days[order], combined[order], RECENCY_DAYS)
    return np.sqrt(out)


def rows_per_day(frame: pd.DataFrame) -> float:
    """Logged notifications per user and day."""
    if not len(frame):
        return 1.0
    per_user = frame.groupby("user_id", observed=True)["posted_at"].agg(["min", "max", "size"])
    last, first = (per_user[k].to_numpy().astype("datetime64[ms]") for k in ("max", "min"))
    span = last - first
    days = (span / DAY).clip(min=1.0)
    return float(per_user["size"].sum() / days.sum())


def own_recency_chooser(candidates: np.ndarray, weights: np.ndarray) -> GreedyChooser:
    """A chooser over ``candidates`` that remembers its own sends, with ``weights`` (per key, the
    log-odds lost per sqrt(exposure); negative fitted weights count as 0), clock in days."""
    return GreedyChooser(notification_keys(candidates),
                         {k: max(0.0, float(w)) for k, w in zip(KEYS, weights, strict=True)},
                         Recency.empty(key_sizes(), dict.fromkeys(KEYS, RECENCY_DAYS)))
