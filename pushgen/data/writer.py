"""Writing a dataset folder: buckets of users' tables, encoded and written as they arrive, and
the manifest with the checksums and content fingerprints of every table."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen._version import __version__
from pushgen.data.arrow_numpy import numpy
from pushgen.data.dataset import (
    CARD,
    FORMATS,
    MANIFEST,
    MODEL_FILE,
    TRUTH,
    atomic_folder,
    parquet_options,
    plain_table,
)
from pushgen.data.fingerprint import Fingerprint, user_digests
from pushgen.data.generator import Dataset, Recipe
from pushgen.data.outputs import DatasetError, file_listing
from pushgen.data.parameter_frames import user_table, weight_table
from pushgen.model.engagement import EngagementParameters

FINGERPRINTED = ("notifications", "users", "engagement_rows")
MAX_PENDING_WRITES = 10  # about two buckets' files queued for the writing threads
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

    def fingerprinted(self) -> dict[str, pa.Table]:
        return {"notifications": self.notifications, "users": self.users,
                "engagement_rows": self.truth_rows}

    def big(self) -> dict[str, pa.Table]:
        weights = weight_table(self.parameters)
        return {"notifications": self.notifications, "engagement_rows": self.truth_rows,
                "engagement_weights": weights}


@dataclass
class Bucket:
    """What the writer needs of a run of consecutive users: small tables, digests, counts,
    and the big tables either as Arrow or already encoded as Parquet parts.

    A bucket made in the writer's own process may leave its users' digests to the writer, which
    computes them in a writing thread; a bucket from a worker brings them.
    """

    index: int
    user_ids: list[int]
    users: pa.Table
    engagement_users: pa.Table
    constants: dict
    digests: dict[str, list[tuple[int, bytes]]] | None
    rows: dict[str, int]
    opened: int
    posted: list
    tables: Tables | None = None
    encoded: dict[str, bytes] | None = None

    @classmethod
    def of(cls, index: int, user_ids: list[int], tables: Tables, encode: bool = False,
           keep_tables: bool = True, digest: bool = True) -> Bucket:
        notifications = tables.notifications
        opened, posted = 0, []
        if notifications.num_rows:
            opened = _count(notifications.column("action").combine_chunks(), "opened")
            posted = [pc.min(notifications.column("posted_at")).as_py(),
                      pc.max(notifications.column("posted_at")).as_py()]
        named = tables.fingerprinted()
        return cls(
            index=index,
            user_ids=user_ids,
            users=tables.users,
            engagement_users=user_table(tables.parameters),
            constants=tables.parameters.constants(),
            digests=named_digests(named) if digest else None,
            rows={name: named[name].num_rows for name in FINGERPRINTED},
            opened=opened,
            posted=posted,
            tables=tables if keep_tables else None,
            encoded={name: parquet_bytes(table) for name, table in tables.big().items()}
            if encode else None,
        )

    def kept(self) -> Tables:
        """The users' tables, for a bucket made with ``keep_tables``."""
        if self.tables is None:
            raise ValueError(f"bucket {self.index} did not keep its tables (made with keep_tables=False)")
        return self.tables


def named_digests(named: dict[str, pa.Table]) -> dict[str, list[tuple[int, bytes]]]:
    """Each fingerprinted table's users' digests."""
    return {name: user_digests(named[name]) for name in FINGERPRINTED}


def _count(column: pa.Array, value: str) -> int:
    """Rows of ``column`` equal to ``value``; a dictionary column by its codes, not its strings."""
    if pa.types.is_dictionary(column.type):
        names = column.dictionary.to_pylist()
        if value not in names:
            return 0
        return int(np.count_nonzero(numpy(column.indices) == names.index(value)))
    return column.cast(pa.string()).to_pylist().count(value)


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **parquet_options(table.schema))
    return sink.getvalue().to_pybytes()


def write_part(path: Path, data: bytes | pa.Table) -> None:
    """One Parquet part, from its encoded bytes or from its table."""
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        pq.write_table(data, path, **parquet_options(data.schema))


class DatasetWriter:
    """Streams buckets of users into a dataset folder, in user order.

    Unpartitioned, each table is one file; partitioned, the big tables are folders of
    ``part-NNNNN.parquet`` files, one per bucket, written as they come encoded (or encoded here,
    in the writing threads).
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
        # while the caller simulates the next bucket, threads write: one per big table, in order,
        # and one for the small tables and the digests
        self._lanes: dict[str, ThreadPoolExecutor] = {}
        self._pending: list[Future] = []
        (self.folder / TRUTH).mkdir(parents=True, exist_ok=True)

    def add(self, bucket: Bucket) -> None:
        """Append the next bucket of users."""
        if self.partitioned:
            # parts the workers did not encode are encoded in the writing thread, not here
            parts = bucket.encoded or bucket.kept().big()
            for name, data in parts.items():
                (self.folder / PARTS[name]).mkdir(exist_ok=True)
                part = self.folder / PARTS[name] / f"part-{bucket.index:05d}.parquet"
                self._submit(PARTS[name], write_part, part, data)
        else:
            for name, table in bucket.kept().big().items():
                self._stream(PARTS[name], table, self.fmt if name == "notifications" else "parquet")
        self._stream("users", bucket.users, self.fmt)
        self._stream(f"{TRUTH}/engagement_users", bucket.engagement_users, "parquet")
        self._submit("", self._fingerprint, bucket)
        for name in FINGERPRINTED:
            self.rows[name] += bucket.rows[name]
        self.opened += bucket.opened
        self.posted += bucket.posted
        self.constants = self.constants or bucket.constants

    def _fingerprint(self, bucket: Bucket) -> None:
        """Chain a bucket's users' digests (found from its tables if it has none), in bucket order."""
        digests = named_digests(bucket.kept().fingerprinted()) if bucket.digests is None else bucket.digests
        for name in FINGERPRINTED:
            self.fingerprints[name].add_digests(digests[name])

    def _stream(self, name: str, table: pa.Table, fmt: str) -> None:
        stream = self._streams.get(name)
        if stream is None:
            if fmt == "parquet":
                stream = pq.ParquetWriter(self.folder / f"{name}.parquet", table.schema,
                                          **parquet_options(table.schema))
            else:
                stream = pacsv.CSVWriter(self.folder / f"{name}.csv", plain_table(table).schema)
            self._streams[name] = stream
        self._submit(name, stream.write_table, table if fmt == "parquet" else plain_table(table))

    def _lane(self, name: str) -> ThreadPoolExecutor:
        """The thread that writes ``name`` (a big table's file or parts; any other name: the small ones)."""
        lane = name if name in PARTS.values() else ""
        if lane not in self._lanes:
            self._lanes[lane] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pushgen-writer")
        return self._lanes[lane]

    def _submit(self, name: str, write: Callable, *args) -> None:
        while self._pending and (self._pending[0].done() or len(self._pending) >= MAX_PENDING_WRITES):
            self._pending.pop(0).result()  # a failed write surfaces here
        self._pending.append(self._lane(name).submit(write, *args))

    def abort(self) -> None:
        """Stop writing (after an error); the folder is discarded by the caller."""
        for lane in self._lanes.values():
            lane.shutdown(wait=True, cancel_futures=True)
        for stream in self._streams.values():
            with contextlib.suppress(Exception):
                stream.close()

    def close(self, recipe: Recipe, pushgen_version: str = __version__) -> dict:
        """Finish the files and write the manifest; returns the manifest."""
        for future in self._pending:
            future.result()  # a failed write surfaces here
        for lane in self._lanes.values():
            lane.shutdown(wait=True)
        for stream in self._streams.values():
            stream.close()
        (self.folder / MODEL_FILE).write_text(json.dumps(self.constants, indent=1) + "\n")
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
            "files": file_listing(self.folder, exclude=(MANIFEST, CARD)),
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
        writer.add(Bucket.of(0, list(dataset.recipe.user_ids), tables))
        manifest = writer.close(dataset.recipe, dataset.pushgen_version)
        if card is not None:
            (work / CARD).write_text(card(dataset, manifest))
    return out
