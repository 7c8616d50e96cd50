"""Engagement parameters as plain tables (Parquet beside a dataset) and back.

- users: one row per user: the scalars, ``apps`` (the names of the apps the user has) and
  ``interactions`` (groups x situations, row-major in the orders of ``engagement_model.json``);
- weights: one row per (user, feature, value) with its weight.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from pushgen import schemas
from pushgen.model.engagement import FEATURES, SCALARS, EngagementParameters


def user_table(params: EngagementParameters) -> pa.Table:
    apps = np.asarray(schemas.values("postingApp"), dtype=object)
    n_users = len(params.user_ids)
    return pa.table({
        "user_id": pa.array(params.user_ids.astype(np.int32)),
        **{name: pa.array(values, type=pa.float64()) for name, values in params.scalars.items()},
        "apps": pa.array([list(apps[row]) for row in params.has_app], type=pa.list_(pa.string())),
        "interactions": pa.array(list(params.interactions.reshape(n_users, -1)),
                                 type=pa.list_(pa.float64())),
    })


def weight_table(params: EngagementParameters) -> pa.Table:
    """Long table, user by user: one row per (user, feature, value) with its weight."""
    feature_codes = np.concatenate([np.full(len(schemas.values(f)), i, dtype=np.int8)
                                    for i, f in enumerate(FEATURES)])
    codes = np.concatenate([np.arange(len(schemas.values(f)), dtype=np.int16) for f in FEATURES])
    values = np.array([str(v) for f in FEATURES for v in schemas.values(f)], dtype=object)
    matrix = np.concatenate([params.weights[f] for f in FEATURES], axis=1)
    n_users, width = matrix.shape
    return pa.table({
        "user_id": pa.array(np.repeat(params.user_ids.astype(np.int32), width)),
        "feature": pa.DictionaryArray.from_arrays(np.tile(feature_codes, n_users), list(FEATURES)),
        "code": pa.array(np.tile(codes, n_users)),
        "value": pa.array(np.tile(values, n_users), type=pa.string()),
        "weight": pa.array(matrix.ravel()),
    })


def from_frames(users: pd.DataFrame, weights: pd.DataFrame, constants: dict) -> EngagementParameters:
    user_ids = users["user_id"].to_numpy()
    position = pd.Series(np.arange(len(user_ids)), index=user_ids)
    table = {}
    for f in FEATURES:
        part = weights[weights["feature"] == f]
        matrix = np.zeros((len(user_ids), len(schemas.values(f))))
        rows = position[part["user_id"].to_numpy()].to_numpy()
        matrix[rows, part["code"].to_numpy()] = part["weight"].to_numpy()
        table[f] = matrix
    app = schemas.field("postingApp")
    has_app = np.zeros((len(user_ids), len(app.values)), dtype=bool)
    for row, names in enumerate(users["apps"]):
        has_app[row, [app.code(name) for name in names]] = True
    shape = (len(user_ids), len(constants["groups"]), len(constants["situations"]))
    interactions = np.stack([np.asarray(v, dtype=np.float64) for v in users["interactions"]]) if len(
        user_ids) else np.zeros(shape)
    return EngagementParameters(
        user_ids=user_ids,
        weights=table,
        interactions=interactions.reshape(shape),
        scalars={s: users[s].to_numpy(dtype=np.float64) for s in SCALARS},
        has_app=has_app,
        fatigue_tau_seconds=float(constants["fatigue_tau_seconds"]),
        novelty_days=float(constants["novelty_days"]),
    )
