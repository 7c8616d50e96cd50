"""The engagement model's context effects and habituation, as ``pushgen describe`` shows them.

For a dataset with its ground truth: the population's content x situation effects (mean over
the users of their interaction weights, log-odds), the open rates that show them in the data
(a content group in a situation against the same group elsewhere), and the open rate by how
often the user had seen the notification's channel (habituation).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.dataset import read_parameters, truth_path
from pushgen.data.describe_time import contrast
from pushgen.model.catalog import app_catalog
from pushgen.model.channels import GROUPS
from pushgen.model.feasibility import channel_of
from pushgen.model.situations import SITUATIONS, situations

if TYPE_CHECKING:
    import pandas as pd

# (group, situation) pairs people report, shown with their open rates in the data
REPORTED = (("work", "work hours"), ("work", "night"), ("social", "evening"),
            ("entertainment", "evening"), ("news", "morning"), ("navigation", "vehicle"),
            ("playback", "listening"), ("fitness", "exercise"), ("chat", "night"), ("call", "night"),
            ("promotion", "work hours"))
MIN_PAIR_ROWS = 20
EXPOSURE_BUCKETS = (0.0, 1.0, 4.0, 16.0, np.inf)


def engagement_stats(folder: Path, notifications: pd.DataFrame) -> dict[str, Any]:
    """Context effects and habituation of a dataset folder with ``ground_truth/``."""
    params = read_parameters(folder)
    mean = params.interactions.mean(axis=0)
    codes = schemas.frame_codes(notifications, schemas.FEATURES)
    rows = pq.read_table(truth_path(folder, "engagement_rows"),
                         columns=["notification_id", "hour", "exposure_channel"]).to_pandas()
    rows = rows.set_index("notification_id").reindex(notifications["notification_id"].to_numpy())
    active = situations(codes, rows["hour"].to_numpy(np.float64)) > 0.5
    group = app_catalog().channels.group[np.maximum(channel_of(codes), 0)]
    opened = (notifications["action"] == "opened").to_numpy()
    observed = []
    for g, s in REPORTED:
        in_group = group == GROUPS.index(g)
        inside = in_group & active[:, SITUATIONS.index(s)]
        outside = in_group & ~active[:, SITUATIONS.index(s)]
        observed.append({
            "group": g, "situation": s, "effect": float(mean[GROUPS.index(g), SITUATIONS.index(s)]),
            "rows_in": int(inside.sum()), "open_in": _rate(opened, inside),
            "open_out": _rate(opened, outside),
        })
    exposure = rows["exposure_channel"].to_numpy(np.float64)
    buckets = []
    for low, high in itertools.pairwise(EXPOSURE_BUCKETS):
        mask = (exposure >= low) & (exposure < high)
        buckets.append({"low": low, "high": high, "rows": int(mask.sum()), "open_rate": _rate(opened, mask)})
    pair = notifications["user_id"].to_numpy(np.int64) * 100_000 + channel_of(codes)
    return {
        "habituation_contrast": contrast(exposure, opened, [pair], MIN_PAIR_ROWS)[0],
        "interactions": {g: {s: float(mean[i, j]) for j, s in enumerate(SITUATIONS)}
                         for i, g in enumerate(GROUPS)},
        "observed": observed,
        "habituation": buckets,
    }


def _rate(opened: np.ndarray, mask: np.ndarray) -> float | None:
    return float(opened[mask].mean()) if mask.any() else None


def has_ground_truth(folder: Path) -> bool:
    return truth_path(Path(folder), "engagement_users").exists()
