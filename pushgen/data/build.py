"""``make_dataset``: a dataset folder from a recipe, streamed bucket by bucket from any engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa

from pushgen import stopping
from pushgen.data.capacity import check_fits
from pushgen.data.dataset import CARD, MANIFEST, atomic_folder
from pushgen.data.describe import describe as card_statistics
from pushgen.data.engines import buckets, is_partitioned
from pushgen.data.generator import Dataset, Recipe
from pushgen.data.outputs import sha256_file
from pushgen.data.writer import DatasetWriter, Tables, writing
from pushgen.model.engagement import EngagementParameters
from pushgen.progress import counter


def make_dataset(
    recipe: Recipe,
    out: Path,
    fmt: str = "parquet",
    force: bool = False,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    card: Callable[[Dataset, dict, dict], str] | None = None,
    progress: bool = False,
    bucket_users: int | None = None,
    partitioned: bool | None = None,
    describe: Callable[[Path], None] | None = None,
    report: Callable[[Path], Path] | None = None,
) -> dict:
    """Simulate ``recipe`` and write it at ``out``; returns the manifest.

    Memory stays bounded: buckets of users are written as they arrive, and a large dataset
    is partitioned (``partitioned=None``: decided by its size), its workers encoding one
    Parquet part per bucket. The card's statistics cover every user of a small dataset, and
    the first bucket's users of a large one. A dataset expected not to fit on the disk is refused
    before anything is written. ``describe``, if given, runs on the finished folder
    (manifest and card written) before it takes the place of ``out``. ``report``, if given, writes
    a file into the finished folder before the card; the manifest lists it and the card links it.
    """
    check_fits(recipe, Path(out), fmt)
    partitioned = (is_partitioned(recipe) if partitioned is None else partitioned) and fmt == "parquet"
    with atomic_folder(Path(out), force) as work, writing(
            DatasetWriter(work, fmt, partitioned)) as writer:
        described: list[Tables] = []  # every bucket of a small dataset; the first of a large one
        sampled = partitioned or is_partitioned(recipe)
        with counter(desc="pushgen", total=recipe.users, unit="user", drawn=progress) as advance:
            for bucket in buckets(recipe, jobs, engine, scheduler, bucket_users,
                                  encode=partitioned, fmt=fmt):
                stopping.check()
                writer.add(bucket)
                if bucket.tables is not None and not (sampled and described):
                    described.append(bucket.tables)
                advance(len(bucket.user_ids))
        dataset = _as_dataset(recipe, described) if card is not None and described else None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pushgen-closing") as closing:
            closed = closing.submit(writer.close, recipe)
            statistics = (card_statistics(dataset.notifications_arrow, dataset.users_arrow)
                          if dataset is not None else None)  # while the last files are written
            manifest = closed.result()
        if report is not None:
            manifest = list_file(work, manifest, report(work))
        if dataset is not None:
            (work / CARD).write_text(card(dataset, manifest, statistics))
        if describe is not None:
            describe(work)
    return manifest


def list_file(folder: Path, manifest: dict, path: Path) -> dict:
    """The manifest with the file ``path`` (inside ``folder``) listed, written back."""
    relative = Path(path).relative_to(folder).as_posix()
    files = {**manifest["files"], relative: {"bytes": path.stat().st_size, "sha256": sha256_file(path)}}
    manifest = {**manifest, "files": dict(sorted(files.items()))}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def _as_dataset(recipe: Recipe, parts: list[Tables]) -> Dataset:
    return Dataset(
        recipe=recipe,
        notifications_arrow=pa.concat_tables([t.notifications for t in parts]),
        users_arrow=pa.concat_tables([t.users for t in parts]),
        truth_rows_arrow=pa.concat_tables([t.truth_rows for t in parts]),
        parameters=EngagementParameters.concat([t.parameters for t in parts]),
    )
