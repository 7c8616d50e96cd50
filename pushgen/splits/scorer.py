"""The scorer's side of a split: the answer key that models never read.

For each test part the model-facing table holds contexts only (``user_id``, ``context_id``,
``posted_at`` and the 11 context features; ``posted_at`` is not a feature but the moment the
notification would be delivered, so that a model knows how far apart two contexts are);
``scorer/<task>/test`` holds the row's ``notification_id`` (the key of its ground truth), the
logged notification, its action and timings, and ``scorer/ground_truth/`` the simulated user:
its parameters, each test row's hidden state, and ``initial_state``, the fatigue and
habituation each test user's earlier logged notifications leave at the start of the test months
(from which the environments follow the agent's own notifications).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pushgen import schemas
from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import EngagementParameters
from pushgen.model.feasibility import channel_of
from pushgen.model.simulated_user import received_exposure
from pushgen.model.timegrid import WEEK_BEFORE_SECONDS

if TYPE_CHECKING:
    import pandas as pd

SCORER = "scorer"
SCORER_TRUTH = f"{SCORER}/ground_truth"
CONTEXT_COLUMNS = ("user_id", "context_id", "posted_at", *schemas.CONTEXT_FEATURES)
ANSWER_COLUMNS = ("context_id", "notification_id", "user_id", "posted_at", *schemas.NOTIFICATION_FEATURES,
                  "action", "seenTime", "decisionTime", "responseTime")
MODEL_USER_COLUMNS = ("user_id", "name")


OFF_KEYS = ("app_off", "channel_off")  # initial_state keys: an app (or abandoned app), a channel, off


def turned_off_before(notifications: pa.Table, rows: pa.Table | None, users: np.ndarray,
                      at: np.datetime64) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per key of ``OFF_KEYS``: (user, app or channel code) of what each user of ``users`` turned off
    (or abandoned: the app) before ``at``, read from the ground truth's ``turned_off`` column."""
    found = {key: (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) for key in OFF_KEYS}
    if rows is None or "turned_off" not in rows.column_names:
        return found
    events = rows.filter(pc.not_equal(rows.column("turned_off").cast(pa.string()), "none"))
    ids = events.column("notification_id")
    posted = notifications.filter(pc.and_(pc.is_in(notifications.column("notification_id"), value_set=ids),
                                          pc.less(notifications.column("posted_at"),
                                                  pa.scalar(at, pa.timestamp("ms")))))
    posted = posted.filter(pc.is_in(posted.column("user_id"), value_set=pa.array(users, pa.int32())))
    if not len(posted):
        return found
    kind = dict(zip(np.asarray(events.column("notification_id")).tolist(),
                    events.column("turned_off").cast(pa.string()).to_pylist(), strict=True))
    features = list(schemas.NOTIFICATION_FEATURES)
    codes = schemas.frame_codes(schemas.apply_dtypes(posted.select(features).to_pandas()), features)
    channel_only = np.array([kind[i] == "channel_off" for i in np.asarray(posted.column("notification_id"))])
    user = np.asarray(posted.column("user_id")).astype(np.int64)
    return {"app_off": (user[~channel_only], codes["postingApp"][~channel_only].astype(np.int64)),
            "channel_off": (user[channel_only], channel_of(codes)[channel_only].astype(np.int64))}


def turn_off(parameters: EngagementParameters, rows: pd.DataFrame) -> None:
    """What each user turned off before the scored period (``OFF_KEYS`` rows of ``initial_state``)
    delivers nothing in it: such apps are no longer the user's, such channels are off."""
    known = np.isin(rows["user_id"].to_numpy(), parameters.user_ids)
    rows = rows[known]
    user_rows = parameters.rows(rows["user_id"].to_numpy())
    index = rows["index"].to_numpy()
    apps = (rows["key"] == "app_off").to_numpy()
    parameters.has_app[user_rows[apps], index[apps]] = False
    if (~apps).any():
        channel_on = parameters.channel_on if parameters.channel_on is not None else np.ones(
            (len(parameters.user_ids), len(app_catalog().channels.group)), dtype=bool)
        channel_on[user_rows[~apps], index[~apps]] = False
        parameters.channel_on = channel_on


def contexts_only(part: pa.Table) -> pa.Table:
    return part.select(list(CONTEXT_COLUMNS))


def answer_key(part: pa.Table) -> pa.Table:
    return part.select(list(ANSWER_COLUMNS))


def initial_state(notifications: pa.Table, users: np.ndarray, at: np.datetime64,
                  fatigue_tau_seconds: float, dataset_start: np.datetime64 | None = None,
                  rows: pa.Table | None = None) -> pa.Table:
    """Per user of ``users`` and key: the exposure the notifications before ``at`` leave at ``at``,
    with, given the dataset's first midnight, the week before it as the generator lives it
    (``pushgen.model.nodes.lived``: the first week's notifications, a week earlier); and, given the
    ground truth's ``rows``, what the user turned off before ``at`` (``turned_off_before``).

    Rows (user_id, key, index, value) with ``key`` one of fatigue, app, subject, channel (``index``
    the app, subject or channel code, 0 for fatigue; zero exposures are left out), or
    ``OFF_KEYS`` (value 1).
    """
    before = notifications.filter(pc.and_(
        pc.is_in(notifications.column("user_id"), value_set=pa.array(users, pa.int32())),
        pc.less(notifications.column("posted_at"), pa.scalar(at, pa.timestamp("ms")))))
    user = np.asarray(before.column("user_id")).astype(np.int64)
    age = (at.astype("datetime64[ms]").astype(np.int64)
           - np.asarray(before.column("posted_at")).astype("datetime64[ms]").astype(np.int64)) / 1000.0
    features = list(schemas.NOTIFICATION_FEATURES)
    codes = schemas.frame_codes(schemas.apply_dtypes(before.select(features).to_pandas()), features)
    if dataset_start is not None:
        since_start = age[0:0] if not len(age) else (
            (at - dataset_start).astype("timedelta64[ms]").astype(np.int64) / 1000.0 - age)
        echo = np.flatnonzero(since_start < WEEK_BEFORE_SECONDS)
        user, age = np.r_[user, user[echo]], np.r_[age, age[echo] + WEEK_BEFORE_SECONDS]
        codes = {name: np.r_[values, values[echo]] for name, values in codes.items()}
    received = received_exposure(age, codes, channel_of(codes), fatigue_tau_seconds)
    blocks: list[tuple[np.ndarray, str, np.ndarray, np.ndarray]] = []  # user_id, key, index, value
    for key, (index, amount) in received.items():
        pairs, inverse = np.unique(np.column_stack([user, index]), axis=0, return_inverse=True)
        value = np.bincount(inverse.ravel(), weights=amount, minlength=len(pairs))
        kept = value > 0
        blocks.append((pairs[kept, 0], key, pairs[kept, 1], value[kept]))
    for key, (event_user, index) in turned_off_before(notifications, rows, users, at).items():
        blocks.append((event_user, key, index, np.ones(len(index))))
    return pa.table({
        "user_id": pa.array(np.concatenate([b[0] for b in blocks]).astype(np.int32)),
        "key": pa.array(np.concatenate([np.full(len(b[2]), b[1]) for b in blocks]).astype(str)),
        "index": pa.array(np.concatenate([b[2] for b in blocks]).astype(np.int32)),
        "value": pa.array(np.concatenate([b[3] for b in blocks])),
    })
