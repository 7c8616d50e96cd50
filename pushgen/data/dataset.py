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
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen._version import __version__
from pushgen.data.generator import Dataset, Recipe
from pushgen.data.outputs import (
    DatasetError,
    check_output,
    check_replaceable,
    json_kind,
    remove_leftovers,
    snapshot,
    write_error_message,
    writer_lock,
)
from pushgen.data.parameter_frames import from_frames
from pushgen.model.engagement import EngagementParameters

FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"
CARD = "README.md"
REPORT = "report.html"  # the visual report (pushgen report), when one was made
TRUTH = "ground_truth"
MODEL_FILE = f"{TRUTH}/engagement_model.json"
KEY_DTYPES = {"user_id": "int32", "notification_id": "int64", "context_id": "int64"}
# No Arrow schema in the files: categoricals read back as strings (their pages stay dictionary-encoded),
# which Hugging Face datasets can load as ClassLabel; it cannot cast Arrow dictionaries to ClassLabel.
PARQUET_OPTIONS = {"compression": "zstd", "use_dictionary": True, "store_schema": False}


def first_line(error: Exception) -> str:
    """An exception's message cut to its first line (its class name if it has none)."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def plain_table(table: pa.Table) -> pa.Table:
    """Dictionary columns as plain strings (for CSV)."""
    return pa.table({
        name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
        for name, col in zip(table.column_names, table.columns, strict=True)
    })


def write_table(table: pa.Table, path: Path, fmt: str) -> Path:
    if fmt == "parquet":
        target = path.with_suffix(".parquet")
        pq.write_table(table, target, **PARQUET_OPTIONS)
    else:
        target = path.with_suffix(".csv")
        pacsv.write_csv(plain_table(table), target)
    return target


def read_table(path: Path) -> pd.DataFrame:
    """A table file (Parquet or CSV) as pandas, schema columns with their schema dtypes."""
    if path.suffix == ".parquet" or path.is_dir():
        frame = pq.read_table(path).to_pandas()
    else:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""],
                            true_values=["true", "True"], false_values=["false", "False"])
        if "posted_at" in frame:
            frame["posted_at"] = pd.to_datetime(frame["posted_at"]).astype("datetime64[ms]")
        frame = frame.astype({k: v for k, v in KEY_DTYPES.items() if k in frame})
    return schemas.apply_dtypes(frame)


@contextlib.contextmanager
def atomic_folder(out: Path, force: bool = False, keep: tuple[Path, ...] = ()) -> Iterator[Path]:
    """A temporary folder beside ``out`` that becomes ``out`` only if the block succeeds.

    One run at a time writes ``out`` (a second is refused), and it first removes what killed
    runs to ``out`` left behind. ``--force`` replaces only an earlier pushgen output (or an empty
    folder), never the current folder, one of its parents, or a folder holding one of the
    ``keep`` paths (the inputs); the earlier output stays until the new one is complete.
    """
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise DatasetError(f"cannot write {out}: folder {parent} does not exist")
    with writer_lock(out):
        remove_leftovers(out)
        check_output(out, force, keep)
        before = snapshot(out)
        try:
            work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=parent))
            umask = os.umask(0)
            os.umask(umask)
            work.chmod(0o777 & ~umask)
        except OSError as error:
            raise DatasetError(f"cannot write into {parent}: {error.strerror}") from None
        try:
            yield work
            _put_in_place(work, out, force, keep, before)
        except OSError as error:
            shutil.rmtree(work, ignore_errors=True)
            raise DatasetError(write_error_message(error, out)) from None
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise


def _put_in_place(work: Path, out: Path, force: bool, keep: tuple[Path, ...],
                  before: dict[str, tuple[int, int]]) -> None:
    """``work`` becomes ``out``; an earlier ``out`` is checked again if it changed meanwhile."""
    if not (out.exists() or out.is_symlink()):
        os.replace(work, out)
        return
    if not force:
        raise DatasetError(f"{out} appeared while it was being written; nothing was written")
    if snapshot(out) != before:
        check_replaceable(out, keep)
    trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=work.parent))
    os.replace(out, trash / out.name)
    try:
        os.replace(work, out)
    except OSError:
        os.replace(trash / out.name, out)
        raise
    shutil.rmtree(trash, ignore_errors=True)


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{folder} is not a pushgen dataset: no {MANIFEST}")
    try:
        manifest = json.loads(path.read_bytes())
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    if not isinstance(manifest, dict):
        raise DatasetError(f"{path} is not a JSON object (it holds {json_kind(manifest)})")
    return manifest


def table_path(folder: Path, name: str, manifest: dict) -> Path:
    """A table's file, or its folder of parts in a partitioned dataset."""
    if manifest.get("layout") == "partitioned" and name != "users":
        return Path(folder) / name
    suffix = ".csv" if manifest.get("format") == "csv" and name in ("notifications",
                                                                      "users") else ".parquet"
    return Path(folder) / f"{name}{suffix}"


def read_arrow(folder: Path, name: str, manifest: dict) -> pa.Table:
    """A dataset's table as Arrow, whatever format it was written in."""
    path = table_path(folder, name, manifest)
    if path.suffix == ".parquet" or path.is_dir():
        return pq.read_table(path)
    return pa.Table.from_pandas(read_table(path), preserve_index=False)


def truth_path(folder: Path, name: str) -> Path:
    """A ground-truth table's file, or its folder of parts."""
    parts = Path(folder) / TRUTH / name
    return parts if parts.is_dir() else parts.with_suffix(".parquet")


def read_parameters(folder: Path) -> EngagementParameters:
    """The ground-truth engagement parameters stored in a dataset (or split) folder."""
    folder = Path(folder)
    constants = json.loads((folder / MODEL_FILE).read_text())
    return from_frames(
        pq.read_table(truth_path(folder, "engagement_users")).to_pandas(),
        pq.read_table(truth_path(folder, "engagement_weights")).to_pandas(),
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
        truth_rows_arrow=pq.read_table(truth_path(folder, "engagement_rows")),
        parameters=read_parameters(folder),
        pushgen_version=manifest.get("pushgen_version", __version__),
    )
