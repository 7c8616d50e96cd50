"""``make_dataset``: a dataset folder from a recipe, streamed bucket by bucket from any engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tqdm.auto import tqdm

from pushgen.dataset import CARD, DatasetWriter, atomic_folder
from pushgen.engines import BUCKET_USERS, Bucket, bucket_ids, buckets
from pushgen.generate import Dataset, Recipe


def make_dataset(
    recipe: Recipe,
    out: Path,
    fmt: str = "parquet",
    force: bool = False,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    card: Callable[[Dataset, dict], str] | None = None,
    progress: bool = False,
    bucket_users: int = BUCKET_USERS,
) -> dict:
    """Simulate ``recipe`` and write it at ``out``; returns the manifest.

    Memory stays bounded: buckets of users are written as they arrive (a dataset of more
    than one bucket is partitioned, one Parquet part per bucket). The card's statistics
    cover the first bucket's users.
    """
    partitioned = len(bucket_ids(recipe, bucket_users)) > 1
    with atomic_folder(Path(out), force) as work:
        writer = DatasetWriter(work, fmt, partitioned)
        sample: Dataset | None = None
        with tqdm(total=recipe.users, unit="user", disable=not progress, desc="pushgen") as bar:
            for bucket in buckets(recipe, jobs, engine, scheduler, bucket_users):
                writer.add(bucket.notifications, bucket.users, bucket.truth_rows, bucket.parameters)
                sample = sample or _as_dataset(recipe, bucket)
                bar.update(len(bucket.user_ids))
        manifest = writer.close(recipe)
        if card is not None and sample is not None:
            (work / CARD).write_text(card(sample, manifest))
    return manifest


def _as_dataset(recipe: Recipe, bucket: Bucket) -> Dataset:
    return Dataset(recipe=recipe, notifications_arrow=bucket.notifications,
                   users_arrow=bucket.users, truth_rows_arrow=bucket.truth_rows,
                   parameters=bucket.parameters)
