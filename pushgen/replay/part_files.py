"""A split part's files as the scorer reads them: only the columns it uses, as NumPy arrays, and the
features as schema codes taken from Arrow's dictionaries, with no pandas frame in between (building
one with its categorical dtypes and taking the codes back out of it cost ``pushgen evaluate`` of
pushgen-v4 about 0.1 s).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.arrow_numpy import to_numpy
from pushgen.data.dataset import DatasetError
from pushgen.splits.scorer import SCORER

NOTIFICATION_FEATURES = schemas.NOTIFICATION_FEATURES
CONTEXT_FEATURES = schemas.CONTEXT_FEATURES
KEYS = ("user_id", "context_id", "notification_id", "posted_at")
STRING_FEATURES = frozenset(name for name, f in schemas.fields().items() if f.is_categorical)


@dataclass(frozen=True)
class PartRows:
    """A part's rows sorted by (user, posting time, row key), as the scorer uses them."""

    user_ids: np.ndarray  # int64
    context_ids: np.ndarray  # int64
    row_ids: np.ndarray  # int64: the key of its ground truth (notification_id; context_id in older splits)
    posted_at: np.ndarray  # datetime64
    codes: dict[str, np.ndarray]  # int64 schema codes: the notification features, then the context features
    action: np.ndarray  # int64 schema codes of the logged action


def read_columns(path: Path, wanted: Iterable[str], dictionaries: Iterable[str] = ()) -> pa.Table:
    """The columns of ``wanted`` that the Parquet file ``path`` has; string features (and the columns
    ``dictionaries``) read as Arrow dictionaries, which Parquet stores them as."""
    present = set(pq.read_schema(path).names)
    columns = [name for name in wanted if name in present]
    encoded = [name for name in columns if name in STRING_FEATURES or name in dictionaries]
    return pq.read_table(path, columns=columns, read_dictionary=encoded)


def table_codes(table: pa.Table, features: Iterable[str]) -> dict[str, np.ndarray]:
    """Schema codes (int64) of the feature columns of ``table``, as ``schemas.frame_codes`` gives them
    of its frame; a ValueError names the first value that is not one of its feature's values."""
    out = {}
    for name in features:
        field, column = schemas.field(name), table.column(name)
        if pa.types.is_dictionary(column.type):
            codes = dictionary_map(column, {value: code for code, value in enumerate(field.listed())}, -1,
                                   np.int64)
        elif field.type == "boolean" and pa.types.is_boolean(column.type) and not column.null_count:
            codes = np.where(to_numpy(column), field.code(True), field.code(False)).astype(np.int64)
        else:
            codes = field.codes(to_numpy(column)).astype(np.int64)
        if (codes < 0).any():
            value = column[int(np.flatnonzero(codes < 0)[0])].as_py()
            raise ValueError(f"{name}: {value!r} is not one of {list(field.listed())}")
        out[name] = codes
    return out


def dictionary_map(column: pa.ChunkedArray, mapping: Mapping[Any, Any], default: Any,
                   dtype: type) -> np.ndarray:
    """Per row of the dictionary column ``column``, its value's entry in ``mapping`` (``default`` for
    another value or a null), looked up once per value of each chunk's dictionary."""
    parts = []
    for chunk in column.chunks:
        values = [mapping.get(value, default) for value in chunk.dictionary.to_pylist()]
        table: np.ndarray = np.array([*values, default], dtype=dtype)
        indices = chunk.indices.fill_null(len(values)) if chunk.null_count else chunk.indices
        parts.append(np.take(table, to_numpy(indices)))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def positions(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` is among the unique ``ids`` (-1: not there), by binary search when
    the ids ascend (as the ground truth's notification ids do)."""
    if not (len(ids) and (ids[1:] > ids[:-1]).all()):
        return pd.Index(ids).get_indexer(wanted)
    at = np.searchsorted(ids, wanted)
    found = ids[np.minimum(at, len(ids) - 1)] == wanted
    return np.where(found, at, -1)


def read_rows(folder: Path, task: int, part: str, test: bool) -> PartRows:
    """The rows of task ``task``'s part ``part`` of the split ``folder``: a test part's are its answer
    key's (``scorer/``) with the context features of its contexts (the file a model reads)."""
    name = f"task{task}/{part}"
    features = NOTIFICATION_FEATURES if test else NOTIFICATION_FEATURES + CONTEXT_FEATURES
    table = read_columns(folder / f"{SCORER}/{name}.parquet" if test else folder / f"{name}.parquet",
                         (*KEYS, *features, "action"))
    codes = table_codes(table, features)
    if test:
        codes |= _context_codes(folder, task, name, table)
    row_key = "notification_id" if "notification_id" in table.column_names else "context_id"  # older: equal
    columns = {key: to_numpy(table.column(key)) for key in ("user_id", "context_id", row_key, "posted_at")}
    columns["action"] = table_codes(table, ("action",))["action"]
    order = [columns[key] for key in ("user_id", "posted_at", row_key)]
    if not _in_order(order):  # the files keep this order
        index = np.lexsort(order[::-1])  # stable: equal rows keep their order
        columns = {key: values[index] for key, values in columns.items()}
        codes = {feature: values[index] for feature, values in codes.items()}
    return PartRows(user_ids=columns["user_id"].astype(np.int64),
                    context_ids=columns["context_id"].astype(np.int64),
                    row_ids=columns[row_key].astype(np.int64), posted_at=columns["posted_at"], codes=codes,
                    action=columns["action"])


def _context_codes(folder: Path, task: int, name: str, key: pa.Table) -> dict[str, np.ndarray]:
    """The context features of the rows of the answer key ``key``, from the part's contexts, whose
    posting times must be the answer key's."""
    contexts = read_columns(folder / f"{name}.parquet", ("context_id", "posted_at", *CONTEXT_FEATURES))
    ids, wanted = to_numpy(contexts.column("context_id")), to_numpy(key.column("context_id"))
    at = None if np.array_equal(ids, wanted) else pd.Index(ids).get_indexer(wanted)  # None: in one order
    if at is not None and (at < 0).any():
        raise DatasetError(f"{folder}: task {task}'s test contexts lack context {wanted[at < 0][0]} of its "
                           "answer key")
    if "posted_at" in contexts.column_names:  # the test contexts' own time must be the answer key's
        shown = to_numpy(contexts.column("posted_at"))
        if ((shown if at is None else shown[at]) != to_numpy(key.column("posted_at"))).any():
            raise DatasetError(f"{folder}: task {task}'s test contexts carry other posted_at times "
                               f"than its answer key")
    codes = table_codes(contexts, CONTEXT_FEATURES)
    return codes if at is None else {feature: values[at] for feature, values in codes.items()}


def _in_order(keys: list[np.ndarray]) -> bool:
    """Whether the rows are sorted by ``keys`` (the first key first)."""
    if not len(keys[0]):
        return True
    undecided = np.ones(len(keys[0]) - 1, dtype=bool)  # pairs of rows equal on the keys so far
    for key in keys:
        before, after = key[:-1], key[1:]
        if (undecided & (after < before)).any():
            return False
        undecided &= after == before
    return True
