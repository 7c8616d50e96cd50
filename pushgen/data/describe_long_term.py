"""Apps turned off and abandoned (model 4), as ``pushgen describe`` shows them.

From a dataset's ground truth: ``engagement_rows``' ``turned_off`` (what each notification's arrival
led to) and ``engagement_users``' ``tolerance``. A user's app counts as turned off once the user
turned its notifications off, one of its channels off, or abandoned it; the user's apps are those
that posted to the user. Weekly volume and open rate are those of a (user, app) pair over the
notifications it delivered, per week until it was turned off (or the dataset's end).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from pushgen.data.dataset import truth_path
from pushgen.data.describe_time import MS_PER_DAY, kind_of_app, num_or_none
from pushgen.model.catalog import app_catalog
from pushgen.model.long_term import BAND_NAMES, TOLERANCE_BAND_EDGES, tolerance_band

if TYPE_CHECKING:
    from pathlib import Path

    from pushgen.data.generator import Dataset

MONTH_DAYS = 30  # "after 3 months": 90 days after the dataset's first day
PROMOTIONAL_KINDS = ("news", "shopping_food", "games", "video")
OPEN_RATE_EDGES = (0.0, 0.1, 0.3, 0.6, 1.0)
MIN_PAIRS = 10  # a band or kind with fewer pairs has no share


def long_term_stats(notifications: pd.DataFrame, turned_off: np.ndarray,
                    tolerance: np.ndarray) -> dict[str, Any]:
    """Turning off and abandoning in a dataset: ``notifications`` (``user_id``, ``postingApp``,
    ``posted_at``, ``action``), ``turned_off`` of each of its rows (none, app_off, channel_off,
    abandoned) and every user's ``tolerance``.

    Returns
    -------
    dict
        ``apps_off_3_months`` and ``apps_off_6_months`` (the mean over users of the share of
        their apps turned off by then; None past the dataset's end), ``by_kind`` (kind -> pairs
        and share turned off, with ``promotional``), ``by_volume`` and ``by_open_rate`` (bands),
        ``volume_contrast`` (share turned off above 5 a week minus at most 5),
        ``open_rate_contrast`` (below 30% minus 30% and above) and ``tolerance_bands`` (share of
        users in each survey band).
    """
    ms = notifications["posted_at"].to_numpy().astype("datetime64[ms]").astype(np.int64)
    day = (ms - ms.min() // MS_PER_DAY * MS_PER_DAY) / MS_PER_DAY
    frame = pd.DataFrame({
        "user": notifications["user_id"].to_numpy(),
        "app": notifications["postingApp"].astype(str).to_numpy(),
        "day": day, "opened": (notifications["action"] == "opened").to_numpy(dtype=bool),
        "off_day": np.where(np.asarray(turned_off).astype(str) != "none", day, np.inf)})
    pairs = frame.groupby(["user", "app"], sort=False).agg(
        first=("day", "min"), rows=("day", "size"), opens=("opened", "sum"), off=("off_day", "min"))
    span = float(np.floor(day.max())) + 1.0
    pairs["turned_off"] = np.isfinite(pairs["off"])
    weeks = np.maximum(np.minimum(pairs["off"], span), 1.0) / 7.0
    pairs["per_week"] = pairs["rows"] / weeks
    pairs["open_rate"] = pairs["opens"] / pairs["rows"]
    kinds = kind_of_app()
    pairs["kind"] = [kinds.get(app, "") for app in pairs.index.get_level_values("app")]
    volume = tolerance_band(pairs["per_week"].to_numpy())
    opened = np.searchsorted(np.asarray(OPEN_RATE_EDGES[1:-1]), pairs["open_rate"].to_numpy(), side="right")
    return {
        **{f"apps_off_{months}_months": _apps_off(pairs, months * MONTH_DAYS) if months * MONTH_DAYS <= span
           else None for months in (3, 6)},
        "by_kind": {**{kind: _share(pairs, pairs["kind"] == kind) for kind in app_catalog().kinds},
                    "promotional": _share(pairs, pairs["kind"].isin(PROMOTIONAL_KINDS))},
        "by_volume": [{"band": name, **_share(pairs, volume == b)} for b, name in enumerate(BAND_NAMES)],
        "by_open_rate": [{"band": f"{low:.0%}-{high:.0%}", **_share(pairs, opened == b)}
                         for b, (low, high) in enumerate(itertools.pairwise(OPEN_RATE_EDGES))],
        "volume_contrast": _contrast(pairs, volume >= 2),
        "open_rate_contrast": _contrast(pairs, pairs["open_rate"].to_numpy() < 0.3),
        "tolerance_bands": [num_or_none(np.mean(tolerance_band(np.asarray(tolerance)) == b))
                            for b in range(len(TOLERANCE_BAND_EDGES) - 1)],
    }


def long_term_truth(folder: Path, notifications: pd.DataFrame) -> dict[str, Any]:
    """``{"long_term": long_term_stats}`` of a dataset folder with ``ground_truth/`` ({} when its
    ground truth has no long-term state: a dataset of an engagement model before 4)."""
    rows, users = truth_path(folder, "engagement_rows"), truth_path(folder, "engagement_users")
    # a large dataset's rows are a folder of parts, which read_schema cannot open
    has_state = "turned_off" in pq.ParquetDataset(rows).schema.names
    if not has_state or "tolerance" not in pq.read_schema(users).names:
        return {}
    turned_off = pq.read_table(rows, columns=["notification_id", "turned_off"]).to_pandas()
    tolerance = pq.read_table(users, columns=["tolerance"]).column("tolerance").to_numpy()
    return {"long_term": long_term_stats(notifications, _aligned(turned_off, notifications), tolerance)}


def dataset_long_term(dataset: Dataset) -> dict[str, Any]:
    """``long_term_stats`` of a generated ``Dataset`` (its ground truth in memory)."""
    notifications = dataset.notifications
    return long_term_stats(notifications, _aligned(dataset.truth_rows, notifications),
                           dataset.parameters.scalars["tolerance"])


def _aligned(truth_rows: pd.DataFrame, notifications: pd.DataFrame) -> np.ndarray:
    """``turned_off`` of the ground-truth rows in the order of ``notifications``."""
    return truth_rows.set_index("notification_id")["turned_off"].astype(str).reindex(
        notifications["notification_id"].to_numpy()).to_numpy()


def _apps_off(pairs: pd.DataFrame, day: float) -> float | None:
    """The mean over users of the share of their apps (that had posted by ``day``) turned off by then."""
    posted = pairs[pairs["first"] < day]
    return num_or_none((posted["off"] < day).groupby(level="user").mean().mean())


def _share(pairs: pd.DataFrame, chosen: np.ndarray | pd.Series) -> dict[str, Any]:
    chosen = np.asarray(chosen, dtype=bool)
    n = int(chosen.sum())
    return {"pairs": n, "turned_off": num_or_none(pairs["turned_off"].to_numpy()[chosen].mean())
            if n >= MIN_PAIRS else None}


def _contrast(pairs: pd.DataFrame, chosen: np.ndarray) -> float | None:
    """Share turned off among the ``chosen`` pairs minus among the others (None: too few of either)."""
    inside, outside = _share(pairs, chosen)["turned_off"], _share(pairs, ~chosen)["turned_off"]
    return None if inside is None or outside is None else inside - outside
