"""Content fingerprints: sha256 of a table's values, independent of file format and chunking.

A table is hashed user by user: each user's rows (a contiguous run of ``user_id``) get a
digest of their columns (names, types, values; dictionary columns count by their values),
and the fingerprint chains the users' digests in row order. So workers can hash their own
users and the writer only chains the digests, with the same result as hashing the whole
table at once. A table without ``user_id`` is one run.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

USER = "user_id"


class ColumnsDigest:
    """Digest of some rows' columns, fed in row order, chunk by chunk."""

    def __init__(self) -> None:
        # per column: its type, and digests of its value stream (strings: lengths, then bytes)
        self._columns: dict[str, tuple[str, list]] = {}

    def update(self, table: pa.Table) -> ColumnsDigest:
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

    def digest(self) -> bytes:
        combined = hashlib.sha256()
        for name, (kind, digests) in self._columns.items():
            combined.update(name.encode() + b"\0" + kind.encode() + b"\0")
            for part in digests:
                combined.update(part.digest())
        return combined.digest()


def _runs(table: pa.Table) -> list[tuple[int, int, int]]:
    """(user, first row, row count) of each contiguous run of one user (user -1: no user_id)."""
    if USER not in table.column_names:
        return [(-1, 0, table.num_rows)] if table.num_rows else []
    users = table.column(USER).to_numpy()
    if not len(users):
        return []
    starts = np.r_[0, np.flatnonzero(users[1:] != users[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(users)])
    return [(int(users[s]), int(s), int(c)) for s, c in zip(starts, counts, strict=True)]


def user_digests(table: pa.Table) -> list[tuple[int, bytes]]:
    """(user, digest of the user's rows) for each run of users, in row order."""
    return [(user, ColumnsDigest().update(table.slice(start, count)).digest())
            for user, start, count in _runs(table)]


class Fingerprint:
    """A table's fingerprint, fed in row order as tables (any chunking) or users' digests."""

    def __init__(self) -> None:
        self._chain = hashlib.sha256()
        self._open: tuple[int, ColumnsDigest] | None = None

    def update(self, table: pa.Table) -> Fingerprint:
        for user, start, count in _runs(table):
            if self._open is None or self._open[0] != user:
                self._close()
                self._open = (user, ColumnsDigest())
            self._open[1].update(table.slice(start, count))
        return self

    def add_digests(self, digests: list[tuple[int, bytes]]) -> Fingerprint:
        """Chain users' digests (each user complete) computed elsewhere by ``user_digests``."""
        self._close()
        for user, digest in digests:
            self._chain_user(user, digest)
        return self

    def _chain_user(self, user: int, digest: bytes) -> None:
        self._chain.update(np.int64(user).tobytes() + digest)

    def _close(self) -> None:
        if self._open is not None:
            self._chain_user(self._open[0], self._open[1].digest())
            self._open = None

    def hexdigest(self) -> str:
        self._close()
        return self._chain.hexdigest()


def fingerprint(table: pa.Table) -> str:
    """The content fingerprint of one table."""
    return Fingerprint().update(table).hexdigest()
