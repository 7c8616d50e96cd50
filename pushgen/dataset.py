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
import pyarrow.compute as pc
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


class Fingerprint:
    """sha256 of tables' content (names, types, values), fed in row order, chunk by chunk.

    Independent of file format and of how the rows are chunked: dictionary columns count by
    their values, each column is hashed as one stream, and the streams are combined last.
    """

    def __init__(self) -> None:
        # per column: its type, and digests of its value stream (strings: lengths, then bytes)
        self._columns: dict[str, tuple[str, list]] = {}

    def update(self, table: pa.Table) -> Fingerprint:
        for name in table.column_names:
            column = table.column(name).combine_chunks()
            if pa.types.is_dictionary(column.type) or pa.types.is_large_string(column.type):
                column = column.cast(pa.string())
            kind, digests = self._columns.setdefault(
                name, (str(column.type), [hashlib.sha256(), hashlib.sha256()]))
            if kind != str(column.type):
                raise ValueError(f"column {name!r} changed type from {kind} to {column.type}")
            if pa.types.is_string(column.type):
                _, offsets, data = column.buffers()
                ends = np.frombuffer(offsets, dtype=np.int32)[column.offset : column.offset + len(column) + 1]
                digests[0].update(np.diff(ends).tobytes())
                if data is not None:
                    digests[1].update(memoryview(data)[ends[0] : ends[-1]])
            else:
                values = column.to_numpy(zero_copy_only=False)
                digests[0].update(np.ascontiguousarray(values).view(np.uint8).tobytes())
        return self

    def hexdigest(self) -> str:
        combined = hashlib.sha256()
        for name, (kind, digests) in self._columns.items():
            combined.update(name.encode() + b"\0" + kind.encode() + b"\0")
            for digest in digests:
                combined.update(digest.digest())
        return combined.hexdigest()


def fingerprint(table: pa.Table) -> str:
    """The content fingerprint of one table (see ``Fingerprint``)."""
    return Fingerprint().update(table).hexdigest()


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


FINGERPRINTED = ("notifications", "users", "engagement_rows")


class DatasetWriter:
    """Streams buckets of users into a dataset folder, one table file (or part) at a time.

    Unpartitioned, each table is one file; partitioned, the big tables are folders of
    ``part-NNNNN.parquet`` files, one per bucket of users.
    """

    def __init__(self, folder: Path, fmt: str = "parquet", partitioned: bool = False) -> None:
        if fmt not in FORMATS:
            raise DatasetError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
        self.folder, self.fmt = Path(folder), fmt
        self.partitioned = partitioned and fmt == "parquet"
        self.fingerprints = {name: Fingerprint() for name in FINGERPRINTED}
        self.rows = dict.fromkeys(FINGERPRINTED, 0)
        self.opened = 0
        self.posted: list[np.datetime64] = []
        self._streams: dict[str, pq.ParquetWriter | pacsv.CSVWriter] = {}
        self._parts = 0
        self._users: list[pa.Table] = []
        self._parameters: list[EngagementParameters] = []
        (self.folder / TRUTH).mkdir(parents=True, exist_ok=True)

    def add(self, notifications: pa.Table, users: pa.Table, truth_rows: pa.Table,
            parameters: EngagementParameters) -> None:
        """Append the tables of the next users (in user order)."""
        self._write("notifications", notifications, self.fmt)
        self._write(f"{TRUTH}/engagement_rows", truth_rows, "parquet")
        weights = pa.Table.from_pandas(parameters.weight_frame(), preserve_index=False)
        self._write(f"{TRUTH}/engagement_weights", weights, "parquet")
        self._parts += 1
        self._users.append(users)
        self._parameters.append(parameters)
        for name, table in (("notifications", notifications), ("users", users),
                            ("engagement_rows", truth_rows)):
            self.fingerprints[name].update(table)
            self.rows[name] += table.num_rows
        if notifications.num_rows:
            action = notifications.column("action").combine_chunks()
            self.opened += pc.sum(pc.equal(action.cast(pa.string()), "opened")).as_py() or 0
            self.posted += [pc.min(notifications.column("posted_at")).as_py(),
                            pc.max(notifications.column("posted_at")).as_py()]

    def _write(self, name: str, table: pa.Table, fmt: str) -> None:
        if self.partitioned:
            (self.folder / name).mkdir(exist_ok=True)
            pq.write_table(table, self.folder / name / f"part-{self._parts:05d}.parquet",
                           **PARQUET_OPTIONS)
            return
        stream = self._streams.get(name)
        if stream is None:
            if fmt == "parquet":
                stream = pq.ParquetWriter(self.folder / f"{name}.parquet", table.schema,
                                          **PARQUET_OPTIONS)
            else:
                stream = pacsv.CSVWriter(self.folder / f"{name}.csv", _plain(table).schema)
            self._streams[name] = stream
        stream.write_table(table if fmt == "parquet" else _plain(table))

    def close(self, recipe: Recipe, pushgen_version: str = __version__) -> dict:
        """Write the small tables and the manifest; returns the manifest."""
        for stream in self._streams.values():
            stream.close()
        users = pa.concat_tables(self._users)
        write_table(users, self.folder / "users", self.fmt)
        parameters = EngagementParameters.concat(self._parameters)
        write_table(pa.Table.from_pandas(parameters.user_frame(), preserve_index=False),
                    self.folder / TRUTH / "engagement_users", "parquet")
        (self.folder / MODEL_FILE).write_text(json.dumps(parameters.constants(), indent=1) + "\n")
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
    if fmt not in FORMATS:
        raise DatasetError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    out = Path(out)
    with atomic_folder(out, force) as work:
        writer = DatasetWriter(work, fmt)
        writer.add(dataset.notifications_arrow, dataset.users_arrow, dataset.truth_rows_arrow,
                   dataset.parameters)
        manifest = writer.close(dataset.recipe, dataset.pushgen_version)
        if card is not None:
            (work / CARD).write_text(card(dataset, manifest))
    return out


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{folder} is not a pushgen dataset: no {MANIFEST}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}") from None


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
    return EngagementParameters.from_frames(
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
