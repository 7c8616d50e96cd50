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
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen import schemas, stopping
from pushgen.data.errors import no_folder
from pushgen.data.folder_lock import replacing, session
from pushgen.data.layout import CARD as CARD  # the names of a dataset folder, where they always were
from pushgen.data.layout import FORMATS as FORMATS
from pushgen.data.layout import MANIFEST as MANIFEST
from pushgen.data.layout import MODEL_FILE, TRUTH, USER_NUMBERS
from pushgen.data.layout import REPORT as REPORT
from pushgen.data.layout import first_line as first_line
from pushgen.data.layout import read_manifest as read_manifest
from pushgen.data.output_lock import umask_mode
from pushgen.data.outputs import (
    DatasetError,
    check_output,
    check_replaceable,
    read_json_object,
    remove_leftovers,
    sibling_name,
    snapshot,
    write_error_message,
    writer_lock,
)
from pushgen.data.parameter_frames import from_frames
from pushgen.data.verify import verify_dataset
from pushgen.model.engagement import EngagementParameters

if TYPE_CHECKING:
    import pandas as pd

    from pushgen.data.generator import Dataset

KEY_DTYPES = {"user_id": "int32", "notification_id": "int64", "context_id": "int64"}


def parquet_options(schema: pa.Schema) -> dict:
    """The Parquet writer's options for a table of ``schema``: zstd; dictionary encoding for the
    categorical (string) columns only; byte-stream-split for the floats and delta encoding for the
    64-bit integers and timestamps (ids and times that grow), which dictionaries do not shorten
    (``scripts/bench_parquet.py`` measures the choices).

    No Arrow schema in the files: categoricals read back as strings (their pages stay
    dictionary-encoded), which Hugging Face datasets can load as ClassLabel; it cannot cast Arrow
    dictionaries to ClassLabel.
    """
    categorical, encodings = [], {}
    for field in schema:
        kind = field.type
        if pa.types.is_dictionary(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind):
            categorical.append(field.name)
        elif pa.types.is_floating(kind):
            encodings[field.name] = "BYTE_STREAM_SPLIT"
        elif pa.types.is_int64(kind) or pa.types.is_timestamp(kind):
            encodings[field.name] = "DELTA_BINARY_PACKED"
    return {"compression": "zstd", "store_schema": False, "use_dictionary": categorical,
            "column_encoding": encodings or None}


def plain_table(table: pa.Table) -> pa.Table:
    """Dictionary columns as plain strings (for CSV)."""
    return pa.table({
        name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
        for name, col in zip(table.column_names, table.columns, strict=True)
    })


def write_table(table: pa.Table, path: Path, fmt: str) -> Path:
    if fmt == "parquet":
        target = path.with_suffix(".parquet")
        pq.write_table(table, target, **parquet_options(table.schema))
    else:
        target = path.with_suffix(".csv")
        pacsv.write_csv(plain_table(table), target)
    return target


class ExactFloats(TypedDict, total=False):
    """``pd.read_csv``'s option for exact floats, where pandas needs it."""

    float_precision: Literal["round_trip"]


def exact_floats() -> ExactFloats:
    """``pd.read_csv`` options that read every float back exactly as written: pandas 3 does by
    default (and deprecates ``float_precision``), pandas 2 only with ``float_precision="round_trip"``."""
    import pandas as pd
    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def read_table(path: Path) -> pd.DataFrame:
    """A table file (Parquet or CSV) as pandas, schema columns with their schema dtypes."""
    import pandas as pd
    if path.suffix == ".parquet" or path.is_dir():
        frame = checked_values(pq.read_table(path), path).to_pandas()
    else:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""], **exact_floats(),
                            true_values=["true", "True"], false_values=["false", "False"])
        frame = numbers_as_written(frame)
        check_values({name: frame[name].unique().tolist() for name in frame.columns}, path)
        if "posted_at" in frame:
            frame["posted_at"] = pd.to_datetime(frame["posted_at"]).astype("datetime64[ms]")
        frame = frame.astype({k: v for k, v in KEY_DTYPES.items() if k in frame})
    return schemas.apply_dtypes(frame)


def numbers_as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """A table read from CSV with the users table's number columns as the float64 they were
    written as, where every value was whole (CSV writes 52.0 as "52")."""
    import pandas as pd
    whole = [name for name in USER_NUMBERS
             if name in frame and pd.api.types.is_integer_dtype(frame[name].dtype)]
    return frame.astype(dict.fromkeys(whole, "float64")) if whole else frame


def checked_values(table: pa.Table, path: Path) -> pa.Table:
    """``table`` (read from ``path``), once its schema columns hold only their schemas' values."""
    check_values({name: pc.unique(table.column(name)).to_pylist() for name in table.column_names
                  if name in schemas.fields()}, path)
    return table


def check_values(distinct: dict[str, list], path: Path) -> None:
    """Refuse (``DatasetError`` naming the file, column and value) a value outside its column's set
    in the schemas; ``distinct``: each column's distinct values."""
    import pandas as pd

    for name, found in distinct.items():
        if name in schemas.fields() and schemas.fields()[name].values is not None:
            try:
                schemas.check_frame(pd.DataFrame({name: pd.Series(found, dtype=object)}), required=())
            except schemas.SchemaViolation as error:
                raise DatasetError(f"{path}: {re.sub(r' row [0-9]+', '', str(error))}") from None


@contextlib.contextmanager
def atomic_folder(out: Path, force: bool = False, keep: tuple[Path, ...] = (),
                  option: str = "--out") -> Iterator[Path]:
    """A temporary folder beside ``out`` that becomes ``out`` only if the block succeeds.

    One run at a time writes ``out`` (a second is refused), and it first removes what killed
    runs to ``out`` left behind. ``--force`` replaces only an earlier pushgen output (or an empty
    folder), never the current folder, one of its parents, or a folder holding one of the
    ``keep`` paths (the inputs); the earlier output stays until the new one is complete.
    ``option`` is the command's option that chooses ``out`` (for messages).
    """
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise DatasetError(f"cannot write {out}: {no_folder(parent)}")
    with writer_lock(out, option):
        remove_leftovers(out)
        check_output(out, force, keep)
        before = snapshot(out)
        try:
            work = Path(tempfile.mkdtemp(prefix=sibling_name(out, "partial-"), dir=parent))
            work.chmod(umask_mode(0o777))
        except OSError as error:
            raise DatasetError(f"cannot write into {parent}: {error.strerror}") from None
        try:
            yield work
            stopping.check()
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
    trash = Path(tempfile.mkdtemp(prefix=sibling_name(out, "old-"), dir=work.parent))
    try:
        with replacing(out):  # its readers finish first
            os.replace(out, trash / out.name)
            try:
                after_moving_aside(out)
                os.replace(work, out)
            except OSError:
                os.replace(trash / out.name, out)
                raise
    except BaseException:
        if not (trash / out.name).exists():  # else the next run to out puts it back from there
            shutil.rmtree(trash, ignore_errors=True)
        raise
    shutil.rmtree(trash, ignore_errors=True)


def after_moving_aside(out: Path) -> None:
    """Called by ``--force`` between its two renames, when ``out`` is absent (a point where the
    tests kill the process: the next run to ``out`` puts the earlier output back)."""


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
        return checked_values(pq.read_table(path), path)
    return pa.Table.from_pandas(read_table(path), preserve_index=False)


def truth_path(folder: Path, name: str) -> Path:
    """A ground-truth table's file, or its folder of parts."""
    parts = Path(folder) / TRUTH / name
    return parts if parts.is_dir() else parts.with_suffix(".parquet")


def read_parameters(folder: Path) -> EngagementParameters:
    """The ground-truth engagement parameters stored in a dataset (or split) folder."""
    folder = Path(folder)
    constants = read_json_object(folder / MODEL_FILE)
    weights = pq.read_table(truth_path(folder, "engagement_weights"),  # feature a categorical: found by code
                            columns=["user_id", "feature", "code", "weight"], read_dictionary=["feature"])
    return from_frames(pq.read_table(truth_path(folder, "engagement_users")).to_pandas(), weights.to_pandas(),
                       constants)


@session()
def read_dataset(folder: Path) -> Dataset:
    """A dataset folder back as a ``Dataset`` (tables as Arrow, frames on demand), once it matches
    its manifest (``verify_dataset``; a ``DatasetError`` naming the file otherwise)."""
    folder = Path(folder)
    manifest = verify_dataset(folder)
    frames = {name: read_table(table_path(folder, name, manifest))
              for name in ("notifications", "users")}
    from pushgen._version import __version__
    from pushgen.data.generator import Dataset, Recipe  # the simulation's modules, only when read back

    return Dataset(
        recipe=Recipe.from_dict(manifest["recipe"]),
        notifications_arrow=pa.Table.from_pandas(frames["notifications"], preserve_index=False),
        users_arrow=pa.Table.from_pandas(frames["users"], preserve_index=False),
        truth_rows_arrow=pq.read_table(truth_path(folder, "engagement_rows")),
        parameters=read_parameters(folder),
        pushgen_version=manifest.get("pushgen_version", __version__),
    )
