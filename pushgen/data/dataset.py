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
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen._version import __version__
from pushgen.data.fingerprint import Fingerprint, user_digests
from pushgen.data.generator import Dataset, Recipe
from pushgen.data.outputs import (
    DatasetError,
    check_output,
    check_replaceable,
    json_kind,
    remove_leftovers,
    sha256_file,
    snapshot,
    write_error_message,
    writer_lock,
)
from pushgen.data.parameter_frames import from_frames, user_frame, weight_frame
from pushgen.model.engagement import EngagementParameters

FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"
CARD = "README.md"
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


def write_table(table: pa.Table, path: Path, fmt: str) -> Path:
    if fmt == "parquet":
        target = path.with_suffix(".parquet")
        pq.write_table(table, target, **PARQUET_OPTIONS)
    else:
        target = path.with_suffix(".csv")
        pacsv.write_csv(_plain(table), target)
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


FINGERPRINTED = ("notifications", "users", "engagement_rows")
MAX_PENDING_WRITES = 10  # about two buckets' files queued for the writing thread
PARTS = {  # the big tables: one file, or a folder of one part per bucket
    "notifications": "notifications",
    "engagement_rows": f"{TRUTH}/engagement_rows",
    "engagement_weights": f"{TRUTH}/engagement_weights",
}


@dataclass
class Tables:
    """The tables of some users, as Arrow."""

    notifications: pa.Table
    users: pa.Table
    truth_rows: pa.Table
    parameters: EngagementParameters

    def big(self) -> dict[str, pa.Table]:
        weights = pa.Table.from_pandas(weight_frame(self.parameters), preserve_index=False)
        return {"notifications": self.notifications, "engagement_rows": self.truth_rows,
                "engagement_weights": weights}


@dataclass
class Bucket:
    """What the writer needs of a run of consecutive users: small tables, digests, counts,
    and the big tables either as Arrow or already encoded as Parquet parts."""

    index: int
    user_ids: list[int]
    users: pa.Table
    engagement_users: pa.Table
    constants: dict
    digests: dict[str, list[tuple[int, bytes]]]
    rows: dict[str, int]
    opened: int
    posted: list
    tables: Tables | None = None
    encoded: dict[str, bytes] | None = None

    @classmethod
    def of(cls, index: int, user_ids: list[int], tables: Tables, encode: bool = False,
           fmt: str = "parquet", keep_tables: bool = True) -> Bucket:
        notifications = tables.notifications
        opened, posted = 0, []
        if notifications.num_rows:
            action = notifications.column("action").combine_chunks()
            opened = pc.sum(pc.equal(action.cast(pa.string()), "opened")).as_py() or 0
            posted = [pc.min(notifications.column("posted_at")).as_py(),
                      pc.max(notifications.column("posted_at")).as_py()]
        named = {"notifications": notifications, "users": tables.users,
                 "engagement_rows": tables.truth_rows}
        return cls(
            index=index,
            user_ids=user_ids,
            users=tables.users,
            engagement_users=pa.Table.from_pandas(user_frame(tables.parameters),
                                                  preserve_index=False),
            constants=tables.parameters.constants(),
            digests={name: user_digests(named[name]) for name in FINGERPRINTED},
            rows={name: named[name].num_rows for name in FINGERPRINTED},
            opened=opened,
            posted=posted,
            tables=tables if keep_tables else None,
            encoded={name: parquet_bytes(table) for name, table in tables.big().items()}
            if encode else None,
        )


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS)
    return sink.getvalue().to_pybytes()


class DatasetWriter:
    """Streams buckets of users into a dataset folder, in user order.

    Unpartitioned, each table is one file; partitioned, the big tables are folders of
    ``part-NNNNN.parquet`` files, one per bucket, written as the workers encoded them.
    """

    def __init__(self, folder: Path, fmt: str = "parquet", partitioned: bool = False) -> None:
        if fmt not in FORMATS:
            raise DatasetError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
        self.folder, self.fmt = Path(folder), fmt
        self.partitioned = partitioned and fmt == "parquet"
        self.fingerprints = {name: Fingerprint() for name in FINGERPRINTED}
        self.rows = dict.fromkeys(FINGERPRINTED, 0)
        self.opened = 0
        self.posted: list = []
        self.constants: dict | None = None
        self._streams: dict[str, pq.ParquetWriter | pacsv.CSVWriter] = {}
        # one thread writes, in order, while the caller simulates the next bucket
        self._writing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pushgen-writer")
        self._pending: list[Future] = []
        (self.folder / TRUTH).mkdir(parents=True, exist_ok=True)

    def add(self, bucket: Bucket) -> None:
        """Append the next bucket of users."""
        if self.partitioned:
            encoded = bucket.encoded or {name: parquet_bytes(table)
                                         for name, table in bucket.tables.big().items()}
            for name, data in encoded.items():
                (self.folder / PARTS[name]).mkdir(exist_ok=True)
                part = self.folder / PARTS[name] / f"part-{bucket.index:05d}.parquet"
                self._submit(part.write_bytes, data)
        else:
            for name, table in bucket.tables.big().items():
                self._stream(PARTS[name], table, self.fmt if name == "notifications" else "parquet")
        self._stream("users", bucket.users, self.fmt)
        self._stream(f"{TRUTH}/engagement_users", bucket.engagement_users, "parquet")
        for name in FINGERPRINTED:
            self.fingerprints[name].add_digests(bucket.digests[name])
            self.rows[name] += bucket.rows[name]
        self.opened += bucket.opened
        self.posted += bucket.posted
        self.constants = self.constants or bucket.constants

    def _stream(self, name: str, table: pa.Table, fmt: str) -> None:
        stream = self._streams.get(name)
        if stream is None:
            if fmt == "parquet":
                stream = pq.ParquetWriter(self.folder / f"{name}.parquet", table.schema,
                                          **PARQUET_OPTIONS)
            else:
                stream = pacsv.CSVWriter(self.folder / f"{name}.csv", _plain(table).schema)
            self._streams[name] = stream
        self._submit(stream.write_table, table if fmt == "parquet" else _plain(table))

    def _submit(self, write: Callable, *args) -> None:
        while self._pending and (self._pending[0].done() or len(self._pending) >= MAX_PENDING_WRITES):
            self._pending.pop(0).result()  # a failed write surfaces here
        self._pending.append(self._writing.submit(write, *args))

    def _drain(self) -> None:
        for future in self._pending:
            future.result()
        self._pending.clear()

    def abort(self) -> None:
        """Stop writing (after an error); the folder is discarded by the caller."""
        self._writing.shutdown(wait=True, cancel_futures=True)
        for stream in self._streams.values():
            with contextlib.suppress(Exception):
                stream.close()

    def close(self, recipe: Recipe, pushgen_version: str = __version__) -> dict:
        """Finish the files and write the manifest; returns the manifest."""
        self._drain()
        self._writing.shutdown(wait=True)
        for stream in self._streams.values():
            stream.close()
        (self.folder / MODEL_FILE).write_text(json.dumps(self.constants, indent=1) + "\n")
        files = {}
        for path in sorted(p for p in self.folder.rglob("*") if p.is_file()):
            relative = path.relative_to(self.folder).as_posix()
            if relative not in (MANIFEST, CARD):
                files[relative] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        manifest = {
            "name": "pushgen dataset",
            "pushgen_version": pushgen_version,
            "format": self.fmt,
            "layout": "partitioned" if self.partitioned else "single",
            "recipe": recipe.to_dict(),
            "rows": self.rows,
            "opened": self.opened,
            "first_posted": str(min(self.posted)) if self.posted else None,
            "last_posted": str(max(self.posted)) if self.posted else None,
            "fingerprints": {name: f.hexdigest() for name, f in self.fingerprints.items()},
            "files": files,
        }
        (self.folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        return manifest


@contextlib.contextmanager
def writing(writer: DatasetWriter) -> Iterator[DatasetWriter]:
    """``writer``, stopped cleanly if the block fails."""
    try:
        yield writer
    except BaseException:
        writer.abort()
        raise


def _plain(table: pa.Table) -> pa.Table:
    """Dictionary columns as plain strings (for CSV)."""
    return pa.table({
        name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
        for name, col in zip(table.column_names, table.columns, strict=True)
    })


def write_dataset(
    dataset: Dataset,
    out: Path,
    fmt: str = "parquet",
    force: bool = False,
    card: Callable[[Dataset, dict], str] | None = None,
) -> Path:
    """Write an in-memory ``dataset`` as a folder at ``out`` (nothing appears unless all succeeds)."""
    out = Path(out)
    with atomic_folder(out, force) as work, writing(DatasetWriter(work, fmt)) as writer:
        tables = Tables(dataset.notifications_arrow, dataset.users_arrow,
                        dataset.truth_rows_arrow, dataset.parameters)
        writer.add(Bucket.of(0, list(dataset.recipe.user_ids), tables, fmt=fmt))
        manifest = writer.close(dataset.recipe, dataset.pushgen_version)
        if card is not None:
            (work / CARD).write_text(card(dataset, manifest))
    return out


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
