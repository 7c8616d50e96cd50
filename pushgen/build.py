"""``make_dataset``: a dataset folder from a recipe, streamed bucket by bucket from any engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tqdm.auto import tqdm

from pushgen.dataset import CARD, DatasetWriter, atomic_folder
from pushgen.engines import buckets, is_partitioned
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
    bucket_users: int | None = None,
    partitioned: bool | None = None,
) -> dict:
    """Simulate ``recipe`` and write it at ``out``; returns the manifest.

    Memory stays bounded: buckets of users are written as they arrive, and a large dataset
    is partitioned (``partitioned=None``: decided by its size), its workers encoding one
    Parquet part per bucket. The card's statistics cover the first bucket's users.
    """
    if partitioned is None:
        partitioned = is_partitioned(recipe)
    partitioned = partitioned and fmt == "parquet"
    with atomic_folder(Path(out), force) as work:
        writer = DatasetWriter(work, fmt, partitioned)
        sample: Dataset | None = None
        with tqdm(total=recipe.users, unit="user", disable=not progress, desc="pushgen") as bar:
            for bucket in buckets(recipe, jobs, engine, scheduler, bucket_users,
                                  encode=partitioned, fmt=fmt):
                writer.add(bucket)
                if sample is None and bucket.tables is not None:
                    t = bucket.tables
                    sample = Dataset(recipe, t.notifications, t.users, t.truth_rows, t.parameters)
                bar.update(len(bucket.user_ids))
        manifest = writer.close(recipe)
        if card is not None and sample is not None:
            (work / CARD).write_text(card(sample, manifest))
    return manifest
