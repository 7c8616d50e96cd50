"""Arrow tables from simulated users: the column layout of every pushgen dataset."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pushgen import schemas
from pushgen.model.engagement import EngagementParameters
from pushgen.model.exposure import EXPOSURE_FIELDS
from pushgen.model.routine import State
from pushgen.model.user import UserData

ID_STRIDE = 10_000_000  # notification_id = user_id * ID_STRIDE + the user's row number
ROUTINE_STATES = tuple(s.name.lower() for s in State)


def dictionary(codes: np.ndarray, values: tuple) -> pa.DictionaryArray:
    """A dictionary column whose dictionary is the full value set (``codes`` index it)."""
    return pa.DictionaryArray.from_arrays(
        pa.array(codes.astype(np.int16), type=pa.int16()),
        pa.array([str(v) for v in values], type=pa.string()),
    )


def feature_column(name: str, codes: np.ndarray) -> pa.Array:
    f = schemas.field(name)
    if f.is_categorical:
        return dictionary(codes, f.values)
    values = np.asarray(f.values)[codes]
    return pa.array(values.astype(f.pandas_dtype()), type=f.arrow_type())


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
    posted_ms = (start_seconds * 1000 + np.floor(seconds * 1000)).astype(np.int64)
    columns: dict[str, pa.Array] = {
        "user_id": pa.array(np.repeat(user_ids, counts).astype(np.int32)),
        "notification_id": pa.array(notification_ids(user_ids, counts)),
        "posted_at": pa.array(posted_ms.astype("datetime64[ms]")),
    }
    for name in schemas.FEATURES:
        columns[name] = feature_column(name, np.concatenate([u.codes[name] for u in users]))
    opened = np.concatenate([u.opened for u in users])
    action = schemas.field("action")
    columns["action"] = dictionary(
        np.where(opened, action.code("opened"), action.code("dismissed")), action.values)
    seen = np.concatenate([u.timings.seen for u in users])
    decision = np.concatenate([u.timings.decision for u in users])
    columns["seenTime"] = pa.array(seen.astype(np.float32))
    columns["decisionTime"] = pa.array(decision.astype(np.float32))
    columns["responseTime"] = pa.array((seen + decision).astype(np.float32))
    return pa.table(columns)


def truth_rows_table(users: list[UserData]) -> pa.Table:
    """Per notification: the dynamic state and random draw behind its action."""
    counts = np.array([len(u.seconds) for u in users], dtype=np.int64)
    user_ids = np.array([u.user_id for u in users], dtype=np.int64)

    def cat(attribute: str) -> np.ndarray:
        return np.concatenate([getattr(u.state, attribute) for u in users])

    def exposed(attribute: str) -> np.ndarray:
        return np.concatenate([getattr(u.exposure, attribute) for u in users]).astype(np.float32)

    return pa.table({
        "notification_id": pa.array(notification_ids(user_ids, counts)),
        "user_id": pa.array(np.repeat(user_ids, counts).astype(np.int32)),
        "hour": pa.array(cat("hour").astype(np.float32)),
        "days": pa.array(cat("days").astype(np.float32)),
        "asleep": pa.array(cat("asleep")),
        "mood": pa.array(cat("mood").astype(np.float32)),
        **{f"exposure_{name}": pa.array(exposed(name)) for name in EXPOSURE_FIELDS},
        "routine_state": dictionary(np.concatenate([u.routine_state for u in users]),
                                    ROUTINE_STATES),
        "draw": pa.array(np.concatenate([u.draw for u in users]).astype(np.float32)),
        "p_open": pa.array(np.concatenate([u.p_open for u in users])),
    })


def users_table(users: list[UserData], names: list[str]) -> pa.Table:
    summary = {key: [u.summary[key] for u in users] for key in users[0].summary}
    return pa.table({
        "user_id": pa.array([u.user_id for u in users], type=pa.int32()),
        "name": pa.array(names, type=pa.string()),
        **{key: pa.array(values) for key, values in summary.items()},
    })


def parameters_of(users: list[UserData]) -> EngagementParameters:
    return EngagementParameters.concat([u.parameters for u in users])
