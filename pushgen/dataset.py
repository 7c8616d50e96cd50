"""Dataset folders: write atomically, read back with schema dtypes, checksum, fingerprint.

Layout of a dataset folder::

    notifications.parquet          one row per notification (or .csv with format="csv")
    users.parquet                  one row per user: pseudonym and habit summary
    ground_truth/                  the simulated user: what decided every action
        engagement_model.json      formula constants of pushgen.model.engagement
        engagement_users.parquet   per-user scalar parameters
        engagement_weights.parquet per (user, feature, value) weights
        engagement_rows.parquet    per notification: dynamic state, random draw, P(open)
    manifest.json                  version, recipe, row counts, sha256 of every file
    README.md                      dataset card
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen._version import __version__
from pushgen.generate import Dataset, Recipe
from pushgen.model.engagement import EngagementParameters

FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"
CARD = "README.md"
TRUTH = "ground_truth"
MODEL_FILE = f"{TRUTH}/engagement_model.json"
KEY_DTYPES = {"user_id": "int32", "notification_id": "int64", "context_id": "int64"}
PARQUET_OPTIONS = {"compression": "zstd", "use_dictionary": True}


class DatasetError(ValueError):
    """A dataset folder or output path that cannot be used (message says why)."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(table: pa.Table) -> str:
    """sha256 of a table's content (names, types and values), independent of file format.

    Dictionary columns count by their values, so re-encoding cannot change the fingerprint.
    """
    digest = hashlib.sha256()
    for name in table.column_names:
        column = table.column(name).combine_chunks() if table.num_rows else table.column(name)
        if pa.types.is_dictionary(column.type) or pa.types.is_large_string(column.type):
            column = column.cast(pa.string())
        digest.update(name.encode() + b"\0" + str(column.type).encode() + b"\0")
        if pa.types.is_string(column.type):
            _, offsets, data = column.buffers()
            ends = np.frombuffer(offsets, dtype=np.int32)[column.offset : column.offset + len(column) + 1]
            digest.update(np.diff(ends).tobytes())
            digest.update(memoryview(data)[ends[0] : ends[-1]] if data is not None else b"")
        else:
            values = column.to_numpy(zero_copy_only=False)
            digest.update(np.ascontiguousarray(values).view(np.uint8).tobytes())
    return digest.hexdigest()


def write_table(table: pa.Table, path: Path, fmt: str) -> Path:
    if fmt == "parquet":
        target = path.with_suffix(".parquet")
        pq.write_table(table, target, **PARQUET_OPTIONS)
    else:
        target = path.with_suffix(".csv")
        plain = pa.table({
            name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
            for name, col in zip(table.column_names, table.columns, strict=True)
        })
        pacsv.write_csv(plain, target)
    return target


def read_table(path: Path) -> pd.DataFrame:
    """A table file (Parquet or CSV) as pandas, schema columns with their schema dtypes."""
    if path.suffix == ".parquet":
        frame = pq.read_table(path).to_pandas()
    else:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""],
                            true_values=["true", "True"], false_values=["false", "False"])
        if "posted_at" in frame:
            frame["posted_at"] = pd.to_datetime(frame["posted_at"]).astype("datetime64[ms]")
        frame = frame.astype({k: v for k, v in KEY_DTYPES.items() if k in frame})
    return schemas.apply_dtypes(frame)


@contextlib.contextmanager
def atomic_folder(out: Path, force: bool = False) -> Iterator[Path]:
    """A temporary folder beside ``out`` that becomes ``out`` only if the block succeeds."""
    out = Path(out)
    if out.exists() and not force:
        raise DatasetError(f"{out} already exists; choose another --out or pass --force")
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out} exists and is not a folder; remove it or choose another --out")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise DatasetError(f"cannot write {out}: folder {parent} does not exist")
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=parent))
        umask = os.umask(0)
        os.umask(umask)
        work.chmod(0o777 & ~umask)
    except OSError as error:
        raise DatasetError(f"cannot write into {parent}: {error.strerror}") from None
    try:
        yield work
        if out.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            os.replace(out, trash / out.name)
            os.replace(work, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def write_dataset(
    dataset: Dataset,
    out: Path,
    fmt: str = "parquet",
    force: bool = False,
    card: Callable[[Dataset, dict], str] | None = None,
) -> Path:
    """Write ``dataset`` as a folder at ``out`` (nothing appears there unless all succeeds)."""
    if fmt not in FORMATS:
        raise DatasetError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    out = Path(out)
    with atomic_folder(out, force) as work:
        (work / TRUTH).mkdir()
        written = {
            "notifications": write_table(dataset.notifications_arrow, work / "notifications", fmt),
            "users": write_table(dataset.users_arrow, work / "users", fmt),
        }
        params = dataset.parameters
        written["engagement_users"] = write_table(
            pa.Table.from_pandas(params.user_frame(), preserve_index=False),
            work / TRUTH / "engagement_users", "parquet")
        written["engagement_weights"] = write_table(
            pa.Table.from_pandas(params.weight_frame(), preserve_index=False),
            work / TRUTH / "engagement_weights", "parquet")
        written["engagement_rows"] = write_table(
            dataset.truth_rows_arrow, work / TRUTH / "engagement_rows", "parquet")
        (work / MODEL_FILE).write_text(json.dumps(params.constants(), indent=1) + "\n")
        manifest = build_manifest(dataset, work, written, fmt)
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        if card is not None:
            (work / CARD).write_text(card(dataset, manifest))
    return out


def build_manifest(dataset: Dataset, folder: Path, written: dict[str, Path], fmt: str) -> dict:
    tables = {
        "notifications": dataset.notifications_arrow,
        "users": dataset.users_arrow,
        "engagement_rows": dataset.truth_rows_arrow,
    }
    files = {}
    for path in sorted([*written.values(), folder / MODEL_FILE]):
        relative = path.relative_to(folder).as_posix()
        files[relative] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    return {
        "name": "pushgen dataset",
        "pushgen_version": dataset.pushgen_version,
        "format": fmt,
        "recipe": dataset.recipe.to_dict(),
        "rows": {name: table.num_rows for name, table in tables.items()},
        "fingerprints": {name: fingerprint(table) for name, table in tables.items()},
        "files": files,
    }


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{folder} is not a pushgen dataset: no {MANIFEST}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}") from None


def table_path(folder: Path, name: str, manifest: dict) -> Path:
    suffix = ".csv" if manifest.get("format") == "csv" and name in ("notifications",
                                                                      "users") else ".parquet"
    return Path(folder) / f"{name}{suffix}"


def read_arrow(folder: Path, name: str, manifest: dict) -> pa.Table:
    """A dataset's table as Arrow, whatever format it was written in."""
    path = table_path(folder, name, manifest)
    if path.suffix == ".parquet":
        return pq.read_table(path)
    return pa.Table.from_pandas(read_table(path), preserve_index=False)


def read_parameters(folder: Path) -> EngagementParameters:
    """The ground-truth engagement parameters stored in a dataset (or split) folder."""
    folder = Path(folder)
    constants = json.loads((folder / MODEL_FILE).read_text())
    return EngagementParameters.from_frames(
        pq.read_table(folder / TRUTH / "engagement_users.parquet").to_pandas(),
        pq.read_table(folder / TRUTH / "engagement_weights.parquet").to_pandas(),
        constants,
    )


def read_dataset(folder: Path) -> Dataset:
    """A dataset folder back as a ``Dataset`` (tables as Arrow, frames on demand)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    frames = {name: read_table(table_path(folder, name, manifest))
              for name in ("notifications", "users")}
    return Dataset(
        recipe=Recipe.from_dict(manifest["recipe"]),
        notifications_arrow=pa.Table.from_pandas(frames["notifications"], preserve_index=False),
        users_arrow=pa.Table.from_pandas(frames["users"], preserve_index=False),
        truth_rows_arrow=pq.read_table(folder / TRUTH / "engagement_rows.parquet"),
        parameters=read_parameters(folder),
        pushgen_version=manifest.get("pushgen_version", __version__),
    )
