"""``building``, ``make_dataset``: a dataset folder from a recipe, streamed bucket by bucket."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from pushgen import stopping
from pushgen.data.capacity import check_fits
from pushgen.data.dataset import MANIFEST, atomic_folder
from pushgen.data.engines import buckets, is_partitioned
from pushgen.data.generator import Dataset, Recipe
from pushgen.data.outputs import sha256_file
from pushgen.data.writer import DatasetWriter, Tables, writing
from pushgen.model.engagement import EngagementParameters
from pushgen.progress import counter


@dataclass
class Built:
    """A dataset written into its temporary folder, before the folder takes the place of its output.

    Attributes
    ----------
    folder : Path
        The temporary folder: every table and the manifest are in it.
    manifest : dict
        The manifest written in ``folder``.
    sample : Dataset
        The users a card describes: every user of a small dataset, the first bucket's of a large one.
    """

    folder: Path
    manifest: dict[str, Any]
    sample: Dataset

    def add_file(self, path: Path) -> None:
        """List ``path``, a file written into ``folder``, in the manifest, and write it back."""
        entry = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        files = {**self.manifest["files"], Path(path).relative_to(self.folder).as_posix(): entry}
        self.manifest = {**self.manifest, "files": dict(sorted(files.items()))}
        (self.folder / MANIFEST).write_text(json.dumps(self.manifest, indent=1) + "\n")


@contextlib.contextmanager
def building(
    recipe: Recipe,
    out: Path,
    fmt: str = "parquet",
    force: bool = False,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    progress: bool = False,
    bucket_users: int | None = None,
    partitioned: bool | None = None,
) -> Iterator[Built]:
    """Simulate ``recipe`` and write it into a temporary folder that becomes ``out`` when the block
    ends without an error (whatever the block adds to it, such as a card, comes with it); if the
    block fails, nothing is written.

    Memory stays bounded: buckets of users are written as they arrive, and a large dataset
    is partitioned (``partitioned=None``: decided by its size), its workers encoding one
    Parquet part per bucket. A dataset expected not to fit on the disk is refused before
    anything is written.
    """
    check_fits(recipe, Path(out), fmt)
    partitioned = (is_partitioned(recipe) if partitioned is None else partitioned) and fmt == "parquet"
    with atomic_folder(Path(out), force) as work:
        with writing(DatasetWriter(work, fmt, partitioned)) as writer:
            described: list[Tables] = []  # every bucket of a small dataset; the first of a large one
            sampled = partitioned or is_partitioned(recipe)
            with counter(desc="pushgen", total=recipe.users, unit="user", drawn=progress) as advance:
                for bucket in buckets(recipe, jobs, engine, scheduler, bucket_users, encode=partitioned):
                    stopping.check()
                    writer.add(bucket)
                    if bucket.tables is not None and not (sampled and described):
                        described.append(bucket.tables)
                    advance(len(bucket.user_ids))
            manifest = writer.close(recipe)
        yield Built(work, manifest, _as_dataset(recipe, described))


def make_dataset(recipe: Recipe, out: Path, **options: Any) -> Path:
    """Simulate ``recipe`` and write it as the folder ``out`` (``building``'s options); returns ``out``."""
    with building(recipe, out, **options):
        pass
    return Path(out)


def _as_dataset(recipe: Recipe, parts: list[Tables]) -> Dataset:
    return Dataset(
        recipe=recipe,
        notifications_arrow=pa.concat_tables([t.notifications for t in parts]),
        users_arrow=pa.concat_tables([t.users for t in parts]),
        truth_rows_arrow=pa.concat_tables([t.truth_rows for t in parts]),
        parameters=EngagementParameters.concat([t.parameters for t in parts]),
    )
