"""Content fingerprints: sha256 of a table's values, independent of file format and chunking.

A table is hashed user by user: each user's rows (a contiguous run of ``user_id``) get a
digest of their columns (names, types, values; dictionary columns count by their values),
and the fingerprint chains the users' digests in row order. So workers can hash their own
users and the writer only chains the digests, with the same result as hashing the whole
table at once. A table without ``user_id`` is one run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pushgen.data.arrow_numpy import to_numpy

USER = "user_id"


class ColumnsDigest:
    """Digest of some rows' columns, fed in row order, chunk by chunk.

    A string column (plain or dictionary-encoded) is hashed as the 8-byte BLAKE2 hash of each
    row's value, so the encoding does not matter; other columns by their values' bytes.
    """

    def __init__(self) -> None:
        self._columns: dict[str, tuple[str, hashlib._Hash]] = {}

    def update_rows(self, table: TableBytes, start: int, count: int) -> ColumnsDigest:
        """Feed rows ``start`` to ``start + count`` of ``table``."""
        for name, kind, values in table.rows(start, count):
            known, digest = self._columns.setdefault(name, (kind, hashlib.sha256()))
            if known != kind:
                raise ValueError(f"column {name!r} changed type from {known} to {kind}")
            digest.update(values.data)
        return self

    def digest(self) -> bytes:
        return _combined((name, kind, digest.digest()) for name, (kind, digest) in self._columns.items())


def _combined(columns: Iterable[tuple[str, str, bytes]]) -> bytes:
    """The digest of some rows from each column's (name, kind, digest of its bytes), in column order."""
    combined = hashlib.sha256()
    for name, kind, digest in columns:
        combined.update(name.encode() + b"\0" + kind.encode() + b"\0" + digest)
    return combined.digest()


class TableBytes:
    """The bytes a table's columns are hashed as, found once for the whole table and cut per run
    of rows: the same bytes as those of each run's own slice, so a run's digest does not depend on
    the table it was cut from. Columns whose bytes depend on the slice (lists, and integers with
    nulls, which NumPy turns into floats) are converted run by run."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self._whole: dict[str, tuple[str, np.ndarray, int] | None] = {}
        for name in table.column_names:
            column = table.column(name).combine_chunks()
            if table.num_rows and _same_bytes_in_any_slice(column.type, column.null_count):
                kind, values = _column_bytes(column)
                values = np.ascontiguousarray(values).view(np.uint8)
                self._whole[name] = (kind, values, values.nbytes // table.num_rows)
            else:
                self._whole[name] = None

    def digest(self, start: int, count: int) -> bytes:
        """``ColumnsDigest().update_rows(self, start, count).digest()``: the digest of one run of rows."""
        return _combined((name, kind, hashlib.sha256(values.data).digest())
                         for name, kind, values in self.rows(start, count))

    def rows(self, start: int, count: int) -> list[tuple[str, str, np.ndarray]]:
        """(column, kind, bytes) of rows ``start`` to ``start + count``, column by column."""
        out = []
        for name, whole in self._whole.items():
            if whole is None:
                kind, values = _column_bytes(self.table.column(name).slice(start, count).combine_chunks())
                out.append((name, kind, np.ascontiguousarray(values)))
            else:
                kind, values, width = whole
                out.append((name, kind, values[start * width:(start + count) * width]))
        return out


def _same_bytes_in_any_slice(data_type: pa.DataType, nulls: int) -> bool:
    if pa.types.is_list(data_type):
        return False
    return (nulls == 0 or pa.types.is_dictionary(data_type) or pa.types.is_string(data_type)
            or pa.types.is_large_string(data_type) or pa.types.is_floating(data_type))


def _column_bytes(column: pa.Array) -> tuple[str, np.ndarray]:
    """The column's kind and the bytes its digest takes: strings by value hashes, lists by their
    lengths then their flattened values."""
    if pa.types.is_dictionary(column.type):
        return "string", _value_hashes(column)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return "string", _value_hashes(column.dictionary_encode())
    if pa.types.is_list(column.type):
        kind, flat = _column_bytes(column.flatten())
        lengths = pc.list_value_length(column)
        lengths = to_numpy(lengths.fill_null(0) if lengths.null_count else lengths)
        lengths = lengths.astype(np.int64).view(np.uint8)
        return f"list<{kind}>", np.concatenate([lengths, np.asarray(flat).view(np.uint8)])
    return str(column.type), np.ascontiguousarray(to_numpy(column)).view(np.uint8)


_HASHED: list[tuple[pa.Array, np.ndarray]] = []  # recent dictionaries and their value hashes


def _value_hashes(column: pa.DictionaryArray) -> np.ndarray:
    """The 8-byte hash of each row's value (nulls hash as 0)."""
    dictionary = column.dictionary
    hashes = next((h for known, h in _HASHED if known.equals(dictionary)), None)
    if hashes is None:
        hashes = np.array([
            int.from_bytes(
                hashlib.blake2b(value.encode(), digest_size=8).digest(), "little")
            for value in dictionary.to_pylist()], dtype=np.uint64)
        _HASHED.insert(0, (dictionary, hashes))
        del _HASHED[32:]
    indices = column.indices
    indices = to_numpy(pc.fill_null(indices, len(hashes)) if indices.null_count else indices)
    return np.append(hashes, np.uint64(0))[indices]


def _runs(table: pa.Table) -> list[tuple[int, int, int]]:
    """(user, first row, row count) of each contiguous run of one user (user -1: no user_id)."""
    if USER not in table.column_names:
        return [(-1, 0, table.num_rows)] if table.num_rows else []
    users = to_numpy(table.column(USER))
    if not len(users):
        return []
    starts = np.r_[0, np.flatnonzero(users[1:] != users[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(users)])
    return [(int(users[s]), int(s), int(c)) for s, c in zip(starts, counts, strict=True)]


def user_digests(table: pa.Table) -> list[tuple[int, bytes]]:
    """(user, digest of the user's rows) for each run of users, in row order."""
    columns = TableBytes(table)
    return [(user, columns.digest(start, count)) for user, start, count in _runs(table)]


class Fingerprint:
    """A table's fingerprint, fed in row order as tables (any chunking) or users' digests."""

    def __init__(self) -> None:
        self._chain = hashlib.sha256()
        self._open: tuple[int, ColumnsDigest] | None = None

    def update(self, table: pa.Table) -> Fingerprint:
        columns = TableBytes(table)
        for user, start, count in _runs(table):
            if self._open is None or self._open[0] != user:
                self._close()
                self._open = (user, ColumnsDigest())
            self._open[1].update_rows(columns, start, count)
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
