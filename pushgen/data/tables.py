"""Arrow tables from simulated users: the column layout of every pushgen dataset."""

from __future__ import annotations

from functools import cache

import numpy as np
import pyarrow as pa

from pushgen import schemas
from pushgen.data.arrow_numpy import NUMPY_DTYPES, array, dictionary, strings
from pushgen.model.engagement import EngagementParameters
from pushgen.model.exposure import EXPOSURE_FIELDS
from pushgen.model.long_term import EVENTS
from pushgen.model.routine import State
from pushgen.model.user import UserData

ID_STRIDE = 10_000_000  # notification_id = user_id * ID_STRIDE + the user's row number
ROUTINE_STATES = tuple(s.name.lower() for s in State)
TURNED_OFF = ("none", *EVENTS)  # what a notification's arrival led to


def feature_column(name: str, codes: np.ndarray) -> pa.Array:
    f = schemas.field(name)
    if f.is_categorical:
        return dictionary(codes, value_strings(f.listed()))
    return array(np.asarray(f.values, dtype=NUMPY_DTYPES[f.arrow_type()])[codes])


@cache
def value_strings(values: tuple) -> pa.StringArray:
    """A value set's strings as an Arrow array, built once (a dictionary column's dictionary)."""
    return strings(str(v) for v in values)


def notification_ids(user_ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    within = np.arange(counts.sum()) - np.repeat(starts, counts)
    return np.repeat(user_ids.astype(np.int64) * ID_STRIDE, counts) + within


def notifications_table(users: list[UserData], start_seconds: int) -> pa.Table:
    counts = np.array([len(u.seconds) for u in users], dtype=np.int64)
    user_ids = np.array([u.user_id for u in users], dtype=np.int64)
    if counts.size and counts.max() >= ID_STRIDE:
        raise ValueError(f"a user has {counts.max()} notifications; at most {ID_STRIDE - 1}")
    seconds = np.concatenate([u.seconds for u in users])
    milliseconds = np.multiply(seconds, 1000)
    np.floor(milliseconds, out=milliseconds)
    np.add(milliseconds, start_seconds * 1000, out=milliseconds)
    columns: dict[str, pa.Array] = {
        "user_id": array(np.repeat(user_ids.astype(np.int32), counts)),
        "notification_id": array(notification_ids(user_ids, counts)),
        "posted_at": array(milliseconds.astype(np.int64).view("datetime64[ms]")),
    }
    for name in schemas.FEATURES:
        columns[name] = feature_column(name, np.concatenate([u.codes[name] for u in users]))
    opened = np.concatenate([u.opened for u in users])
    action = schemas.field("action")
    columns["action"] = dictionary(
        np.where(opened, action.code("opened"), action.code("dismissed")), value_strings(action.values))
    seen = np.concatenate([u.timings.seen for u in users])
    decision = np.concatenate([u.timings.decision for u in users])
    columns["seenTime"] = array(seen.astype(np.float32))
    columns["decisionTime"] = array(decision.astype(np.float32))
    columns["responseTime"] = array((seen + decision).astype(np.float32))
    return pa.table(columns)


def truth_rows_table(users: list[UserData]) -> pa.Table:
    """Per notification: the dynamic state and random draw behind its action."""
    counts = np.array([len(u.seconds) for u in users], dtype=np.int64)
    user_ids = np.array([u.user_id for u in users], dtype=np.int64)

    def cat(attribute: str, dtype: type | None = None) -> np.ndarray:
        return np.concatenate([getattr(u.state, attribute) for u in users], dtype=dtype)

    def exposed(attribute: str) -> np.ndarray:
        return np.concatenate([getattr(u.exposure, attribute) for u in users], dtype=np.float32)

    return pa.table({
        "notification_id": array(notification_ids(user_ids, counts)),
        "user_id": array(np.repeat(user_ids.astype(np.int32), counts)),
        "hour": array(cat("hour", np.float32)),
        "days": array(cat("days", np.float32)),
        "asleep": array(cat("asleep")),
        "mood": array(cat("mood", np.float32)),
        **{f"exposure_{name}": array(exposed(name)) for name in EXPOSURE_FIELDS},
        "routine_state": dictionary(np.concatenate([u.routine_state for u in users]),
                                    value_strings(ROUTINE_STATES)),
        "draw": array(np.concatenate([u.draw for u in users], dtype=np.float32)),
        "p_open": array(np.concatenate([u.p_open for u in users])),
        "annoyance": array(np.concatenate([u.annoyance for u in users], dtype=np.float32)),
        "turned_off": dictionary(np.concatenate([u.turned_off for u in users]), value_strings(TURNED_OFF)),
    })


def users_table(users: list[UserData], names: list[str]) -> pa.Table:
    summary = {key: [u.summary[key] for u in users] for key in users[0].summary}
    return pa.table({
        "user_id": array(np.array([u.user_id for u in users], dtype=np.int32)),
        "name": strings(names),
        **{key: _summary_column(values) for key, values in summary.items()},
    })


def parameters_of(users: list[UserData]) -> EngagementParameters:
    return EngagementParameters.concat([u.parameters for u in users])


def _summary_column(values: list) -> pa.Array:
    """A column of the users' summaries: strings, whole numbers (int64) or numbers (double)."""
    if all(isinstance(v, str) for v in values):
        return strings(values)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        return array(np.array(values, dtype=np.int64))
    return array(np.array(values, dtype=np.float64))
