"""The columns of a notifications table that the statistics read, as numpy arrays, from an Arrow
table or a pandas frame: times as integers, flags as booleans and each feature as integer codes
beside its labels.

An Arrow table's categorical features are read through their dictionaries' indices and a pandas
frame's categoricals through their codes, so no column of strings is built or compared. An Arrow
table gives what ``schemas.apply_dtypes(table.to_pandas())`` would give.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pushgen import schemas
from pushgen.data.arrow_numpy import strings, to_numpy
from pushgen.data.describe_time import distinct

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Coded:
    """A column as integer codes into ``labels`` (-1: missing, or a value outside them). Labels come
    in the order the statistics list them: a categorical's value-set order, else sorted."""

    codes: np.ndarray
    labels: tuple

    def code_of(self, label) -> int:
        """The code of ``label`` (-1 when the column has no such label)."""
        return next((code for code, known in enumerate(self.labels) if known == label), -1)

    def equals(self, label) -> np.ndarray:
        """Which rows hold ``label``."""
        code = self.code_of(label)
        return self.codes == code if code >= 0 else np.zeros(len(self.codes), dtype=bool)


def coded_series(column: pd.Series) -> Coded:
    import pandas as pd
    if isinstance(column.dtype, pd.CategoricalDtype):
        return Coded(column.cat.codes.to_numpy(), tuple(column.cat.categories))
    if column.dtype == bool:
        return Coded(column.to_numpy().view(np.int8), (False, True))
    if pd.api.types.is_integer_dtype(column.dtype):
        uniques, codes = distinct(column.to_numpy())
        return Coded(codes, tuple(uniques.tolist()))
    codes, uniques = pd.factorize(column, sort=True)
    return Coded(codes, tuple(uniques))


@dataclass
class TableColumns:
    """Column access to a notifications table (``pa.Table`` or ``pd.DataFrame``), each column
    converted once."""

    table: pa.Table | pd.DataFrame
    _coded: dict[str, Coded] = field(default_factory=dict, repr=False)

    @property
    def is_arrow(self) -> bool:
        return isinstance(self.table, pa.Table)

    @property
    def names(self) -> list[str]:
        return list(self.table.column_names if self.is_arrow else self.table.columns)

    def __len__(self) -> int:
        return self.table.num_rows if self.is_arrow else len(self.table)

    def series(self, name: str) -> pd.Series:
        """The column as pandas, with its schema dtype."""
        import pandas as pd
        if not self.is_arrow:
            return self.table[name]
        return schemas.apply_dtypes(pd.DataFrame({name: self.table.column(name).to_pandas()}))[name]

    def coded(self, name: str) -> Coded:
        if name not in self._coded:
            fast = _arrow_coded(name, self.table.column(name)) if self.is_arrow else None
            self._coded[name] = fast if fast is not None else coded_series(self.series(name))
        return self._coded[name]

    def values(self, name: str) -> np.ndarray:
        """The column's values as numpy (``Series.to_numpy()`` of its pandas form)."""
        if self.is_arrow:
            column = self.table.column(name)
            spec = schemas.fields().get(name)
            plain = spec is None or (not spec.is_categorical and column.type == spec.arrow_type())
            if plain and column.null_count == 0 and (pa.types.is_integer(column.type)
                                                     or pa.types.is_floating(column.type)
                                                     or pa.types.is_boolean(column.type)):
                return to_numpy(column)
        return self.series(name).to_numpy()

    def equality_codes(self, name: str) -> np.ndarray:
        """Integers that are equal exactly where the column's values are: a categorical's codes, an
        integer or boolean column's values."""
        spec = schemas.fields().get(name)
        if spec is None or not spec.is_categorical:
            values = self.values(name)
            if values.dtype.kind in "iub":
                return values
        return self.coded(name).codes

    def is_boolean(self, name: str) -> bool:
        """Whether the column holds booleans and no missing value (its codes are then its flags)."""
        if self.is_arrow:
            column = self.table.column(name)
            return pa.types.is_boolean(column.type) and column.null_count == 0
        return self.table[name].dtype == bool

    def flags(self, name: str) -> np.ndarray:
        return self.values(name).astype(bool, copy=False)

    def floats(self, name: str) -> np.ndarray:
        if self.is_arrow and self.table.column(name).null_count == 0:
            chunks = self.table.column(name).chunks
            if all(pa.types.is_floating(chunk.type) for chunk in chunks):
                return np.concatenate([to_numpy(chunk) for chunk in chunks] or [np.empty(0)],
                                      dtype=np.float64)
        return self.values(name).astype(np.float64)

    def milliseconds(self, name: str) -> np.ndarray:
        """A time column as milliseconds since 1970-01-01."""
        if self.is_arrow and self.table.column(name).type == pa.timestamp("ms"):
            return to_numpy(self.table.column(name)).view(np.int64)
        return self.series(name).to_numpy().astype("datetime64[ms]").astype(np.int64)


def _arrow_coded(name: str, column: pa.ChunkedArray) -> Coded | None:
    """A categorical feature's codes into its published values, chunk by chunk through the
    dictionaries (None: not a categorical feature stored as strings or a dictionary of them)."""
    spec = schemas.fields().get(name)
    if spec is None or not spec.is_categorical:
        if column.null_count:
            return None
        if pa.types.is_boolean(column.type):
            return Coded(to_numpy(column).view(np.int8), (False, True))
        if pa.types.is_integer(column.type) and (spec is None or column.type == spec.arrow_type()):
            uniques, codes = distinct(to_numpy(column))
            return Coded(codes, tuple(uniques.tolist()))
        return None
    value_set = _value_set(name)
    parts = []
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type) and _is_text(chunk.type.value_type):
            dictionary = chunk.dictionary
            if dictionary.type != pa.string():
                dictionary = dictionary.cast(pa.string())
            if chunk.null_count == 0 and dictionary.equals(value_set):
                parts.append(to_numpy(chunk.indices))
                continue
            indices = chunk.indices.fill_null(len(dictionary)).to_numpy()
            lookup = pc.index_in(dictionary, value_set=value_set).fill_null(-1).to_numpy()
            parts.append(np.append(lookup, -1).astype(np.int16)[indices])
        elif _is_text(chunk.type):
            parts.append(pc.index_in(chunk.cast(pa.string()), value_set=value_set)
                         .fill_null(-1).to_numpy().astype(np.int16))
        else:
            return None
    codes = np.concatenate(parts) if parts else np.empty(0, dtype=np.int16)
    return Coded(codes, tuple(spec.values))


@cache
def _value_set(name: str) -> pa.Array:
    return strings(schemas.field(name).values)


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)
