"""Arrow arrays from NumPy arrays, and NumPy views of Arrow arrays, by their buffers.

pyarrow's own conversions (``pa.array`` of anything, ``Array.to_numpy``, ``pa.scalar``) first
import pandas, which costs a process that only simulates and writes tables about 0.3 s and
45 MiB. These build the same arrays (same types, values, no nulls) without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

_TYPES: dict[np.dtype[Any], pa.DataType] = {
    np.dtype(np.int8): pa.int8(), np.dtype(np.int16): pa.int16(),
    np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64(),
    np.dtype(np.uint8): pa.uint8(), np.dtype(np.uint16): pa.uint16(),
    np.dtype(np.uint32): pa.uint32(), np.dtype(np.uint64): pa.uint64(),
    np.dtype(np.float32): pa.float32(), np.dtype(np.float64): pa.float64(),
    np.dtype("datetime64[ms]"): pa.timestamp("ms"), np.dtype("datetime64[us]"): pa.timestamp("us"),
    np.dtype("datetime64[ns]"): pa.timestamp("ns"), np.dtype("datetime64[s]"): pa.timestamp("s"),
}
NUMPY_DTYPES: dict[pa.DataType, np.dtype[Any]] = ({arrow: numpy for numpy, arrow in _TYPES.items()}
                                                  | {pa.bool_(): np.dtype(np.bool_)})


def array(values: np.ndarray, type: pa.DataType | None = None) -> pa.Array:
    """``values`` (one-dimensional, numbers, datetimes or booleans) as an Arrow array without
    nulls, of ``type`` if given (``values`` are cast to it, as NumPy casts)."""
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"an Arrow array is made of one-dimensional values; got {values.ndim} dimensions")
    if type is not None and type != pa.bool_():
        values = values.astype(NUMPY_DTYPES[type], copy=False)
    if values.dtype == np.bool_ or type == pa.bool_():
        bits = np.packbits(values.astype(np.bool_, copy=False), bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    if values.dtype not in _TYPES:
        raise TypeError(f"no Arrow array is made here from NumPy dtype {values.dtype}")
    if values.dtype.kind == "M" and np.isnat(values).any():
        raise ValueError("a missing time (NaT) has no place in an array without nulls")
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values),
                                 [None, pa.py_buffer(np.ascontiguousarray(values))])


def strings(values: Iterable[str]) -> pa.StringArray:
    """Python strings as an Arrow string array."""
    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def dictionary(codes: np.ndarray, values: Sequence[str] | pa.StringArray,
               index_type: pa.DataType | None = None) -> pa.DictionaryArray:
    """A dictionary array of ``codes`` (int16 unless ``index_type``) into the strings of ``values``."""
    labels = values if isinstance(values, pa.Array) else strings(values)
    return pa.DictionaryArray.from_arrays(array(codes, index_type or pa.int16()), labels)


def lists(lengths: np.ndarray, flat: pa.Array) -> pa.ListArray:
    """A list array: row i holds the next ``lengths[i]`` values of ``flat``."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(array(offsets), flat)


def viewable(column: pa.Array | pa.ChunkedArray) -> bool:
    """Whether ``numpy`` takes ``column``: fixed width (numbers, datetimes, booleans), no nulls."""
    return column.null_count == 0 and column.type in NUMPY_DTYPES


def to_numpy(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``column.to_numpy(zero_copy_only=False)``, without pandas where ``numpy`` takes it."""
    return numpy(column) if viewable(column) else column.to_numpy(zero_copy_only=False)


def numpy(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A fixed-width Arrow column without nulls as NumPy (a read-only view where it can be)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if column.null_count:
        raise ValueError("a column with nulls has no NumPy view here")
    data = column.buffers()[1]
    if column.type == pa.bool_():
        bits = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        unpacked = np.unpackbits(bits, bitorder="little", count=column.offset + len(column))
        return unpacked[column.offset:].astype(np.bool_)
    dtype = NUMPY_DTYPES.get(column.type)
    if dtype is None:
        raise TypeError(f"no NumPy view is made here of Arrow type {column.type}")
    if data is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize)
