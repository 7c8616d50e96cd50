"""Engagement parameters as plain tables (Parquet beside a dataset) and back.

- users: one row per user: the scalars, ``apps`` (the names of the apps the user has) and
  ``interactions`` (groups x situations, row-major in the orders of ``engagement_model.json``);
- weights: one row per (user, feature, value) with its weight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from pushgen import schemas
from pushgen.data.arrow_numpy import array, dictionary, lists, strings
from pushgen.model.engagement import FEATURES, SCALARS, EngagementParameters
from pushgen.model.long_term import LongTermConstants

if TYPE_CHECKING:
    import pandas as pd


def user_table(params: EngagementParameters) -> pa.Table:
    apps = schemas.values("postingApp")
    n_users = len(params.user_ids)
    return pa.table({
        "user_id": array(params.user_ids.astype(np.int32)),
        **{name: array(values, pa.float64()) for name, values in params.scalars.items()},
        "apps": lists(params.has_app.sum(axis=1),
                      strings(apps[i] for row in params.has_app for i in np.flatnonzero(row))),
        "interactions": lists(np.full(n_users, params.interactions[0].size if n_users else 0),
                              array(params.interactions.reshape(-1).astype(np.float64))),
    })


def weight_table(params: EngagementParameters) -> pa.Table:
    """Long table, user by user: one row per (user, feature, value) with its weight."""
    feature_codes = np.concatenate([np.full(len(schemas.values(f)), i, dtype=np.int8)
                                    for i, f in enumerate(FEATURES)])
    codes = np.concatenate([np.arange(len(schemas.values(f)), dtype=np.int16) for f in FEATURES])
    values = [str(v) for f in FEATURES for v in schemas.values(f)]
    matrix = np.concatenate([params.weights[f] for f in FEATURES], axis=1)
    n_users, width = matrix.shape
    return pa.table({
        "user_id": array(np.repeat(params.user_ids.astype(np.int32), width)),
        "feature": dictionary(np.tile(feature_codes, n_users), FEATURES, pa.int8()),
        "code": array(np.tile(codes, n_users)),
        "value": strings(values * n_users),
        "weight": array(matrix.ravel()),
    })


def from_frames(users: pd.DataFrame, weights: pd.DataFrame,
                constants: dict[str, Any]) -> EngagementParameters:
    import pandas as pd
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
    has_app = np.zeros((len(user_ids), len(app.listed())), dtype=np.bool_)
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
        long_term=LongTermConstants(**constants["long_term"]),
    )
