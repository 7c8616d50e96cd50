"""The feature sets, read from ``schemas/``: the single source of every value list.

Everything that needs a feature's allowed values (the generator's integer codes, pandas
and Arrow dtypes, gymnasium spaces, validation) asks this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    import pandas as pd

ENTITIES = ("notification", "context", "engagement")


@dataclass(frozen=True)
class Field:
    """One feature: its name, entity, Table Schema type and allowed values (None: any number)."""

    name: str
    entity: str
    type: str
    description: str
    values: tuple[Any, ...] | None
    required: bool
    hours: dict[str, tuple[int, int]] | None = None

    @property
    def is_categorical(self) -> bool:
        return self.type == "string" and self.values is not None

    def listed(self) -> tuple[Any, ...]:
        """The allowed values, for a field that has a list of them."""
        if self.values is None:
            raise TypeError(f"{self.name} takes any number >= 0: it has no list of values")
        return self.values

    def code(self, value: Any) -> int:
        """The integer code of ``value`` (its position in the published list)."""
        listed = self.listed()
        try:
            return listed.index(value)
        except ValueError:
            raise ValueError(f"{self.name}: {value!r} is not one of {list(listed)}") from None

    def codes(self, values: Any) -> np.ndarray:
        """Integer codes of many values, -1 where a value is not allowed."""
        import pandas as pd
        lookup = {v: i for i, v in enumerate(self.listed())}
        numeric = isinstance(values, np.ndarray) and values.dtype.kind in "biu"  # factorized as they are
        positions, uniques = pd.factorize(values if numeric else np.asarray(values, dtype=object))
        table = np.fromiter((lookup.get(v, -1) for v in uniques), dtype=np.int16, count=len(uniques))
        return np.append(table, np.int16(-1))[positions]

    def pandas_dtype(self) -> pd.CategoricalDtype | np.dtype[Any]:
        return self.categorical_dtype() if self.is_categorical else self.numpy_dtype()

    def categorical_dtype(self) -> pd.CategoricalDtype:
        """The pandas dtype whose categories are the allowed values, in order."""
        import pandas as pd

        return pd.CategoricalDtype(list(self.listed()), ordered=False)

    def numpy_dtype(self) -> np.dtype[Any]:
        """The numpy dtype of the field's values as they are stored (not as codes)."""
        if self.type == "boolean":
            return np.dtype(bool)
        if self.type == "integer":
            return np.dtype(np.int8)
        return np.dtype(np.float32)

    def arrow_type(self) -> pa.DataType:
        if self.is_categorical:
            return pa.dictionary(pa.int16(), pa.string())
        if self.type == "boolean":
            return pa.bool_()
        if self.type == "integer":
            return pa.int8()
        return pa.float32()


def schema_dir() -> Path:
    """Where the schema files are: inside an installed wheel, or the repository's ``schemas/``."""
    packaged = resources.files("pushgen") / "_schemas"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[1] / "schemas"


@cache
def fields() -> dict[str, Field]:
    """Every field of every entity, by name, in schema order."""
    out: dict[str, Field] = {}
    for entity in ENTITIES:
        doc = json.loads((schema_dir() / f"{entity}.schema.json").read_text())
        for spec in doc["fields"]:
            constraints = spec.get("constraints", {})
            enum = constraints.get("enum")
            hours = spec.get("hours")
            out[spec["name"]] = Field(
                name=spec["name"],
                entity=entity,
                type=spec["type"],
                description=spec["description"],
                values=tuple(enum) if enum is not None else None,
                required=bool(constraints.get("required", False)),
                hours={k: (v[0], v[1]) for k, v in hours.items()} if hours else None,
            )
    return out


def field(name: str) -> Field:
    return fields()[name]


def entity_fields(entity: str, required_only: bool = True) -> tuple[str, ...]:
    return tuple(
        f.name for f in fields().values() if f.entity == entity and (f.required or not required_only)
    )


def values(name: str) -> tuple[Any, ...]:
    """The allowed values of the field ``name`` (code ``i`` is ``values(name)[i]``)."""
    return fields()[name].listed()


NOTIFICATION_FEATURES: tuple[str, ...] = entity_fields("notification")
CONTEXT_FEATURES: tuple[str, ...] = entity_fields("context")
ENGAGEMENT_FIELDS: tuple[str, ...] = entity_fields("engagement")
FEATURES: tuple[str, ...] = NOTIFICATION_FEATURES + CONTEXT_FEATURES


def hour_to_time_block() -> np.ndarray:
    """Code of the ``time`` feature for each hour 0..23, from the schema's hour blocks."""
    time = field("time")
    table = np.full(24, -1, dtype=np.int16)
    assert time.hours is not None, "the time field names the hours of its blocks"
    for block, (first, last) in time.hours.items():
        table[first : last + 1] = time.code(block)
    return table


def column_from_codes(name: str, codes: np.ndarray) -> pd.Categorical[Any] | np.ndarray:
    """A pandas-ready column from integer codes (categorical) or raw values."""
    import pandas as pd
    f = field(name)
    if f.is_categorical:
        return pd.Categorical.from_codes(codes, dtype=f.categorical_dtype())
    return np.asarray(codes).astype(f.numpy_dtype(), copy=False)


def apply_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """Give every schema column of ``frame`` its schema dtype (categories = the full value set)."""
    import pandas as pd
    converted: dict[str, pd.Series | pd.Categorical[Any]] = {}
    for name in frame.columns:
        f = fields().get(name)
        if f is None:
            continue
        column = frame[name]
        if f.is_categorical:
            if isinstance(column.dtype, pd.CategoricalDtype) and list(column.cat.categories) == list(
                f.listed()
            ):
                continue
            converted[name] = _categorical(column, f)
        elif column.dtype != f.pandas_dtype():
            converted[name] = column.astype(f.pandas_dtype())
    return frame.assign(**converted)


def _categorical(column: pd.Series, f: Field) -> pd.Categorical[Any]:
    """``column`` over ``f``'s full value set (values outside it become missing), by Arrow when
    the column is strings: ten times faster than pandas on the string columns Parquet gives."""
    import pandas as pd
    if isinstance(column.dtype, pd.CategoricalDtype):  # Parquet's dictionary: map the few categories
        positions = pd.Index(f.listed()).get_indexer(column.cat.categories)
        codes = column.cat.codes.to_numpy()
        codes = np.where(codes >= 0, positions[codes], -1)
        return pd.Categorical.from_codes(codes, dtype=f.categorical_dtype())
    try:
        values = pa.array(column, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        values = None
    if values is not None and pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if values is None or not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return pd.Categorical(column.astype(object), dtype=f.categorical_dtype())
    codes = pc.index_in(values, value_set=pa.array(f.listed(), values.type)).fill_null(-1)
    return pd.Categorical.from_codes(codes.to_numpy(zero_copy_only=False), dtype=f.categorical_dtype())


class SchemaViolation(ValueError):
    """A table holds a column or value the schemas do not allow."""


def check_frame(frame: pd.DataFrame, required: tuple[str, ...] = FEATURES) -> None:
    """Raise ``SchemaViolation`` naming the first missing column or value outside its set.

    Categorical columns are checked by their categories, other columns by their distinct
    values and those values' Python kinds (numpy scalars count as their Python kind).
    Numbers must be finite and >= 0.
    """
    import pandas as pd
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise SchemaViolation(f"missing column {missing[0]!r}; required: {', '.join(required)}")
    for name in frame.columns:
        f = fields().get(name)
        if f is None:
            continue
        column = frame[name]
        isna = column.isna().to_numpy()
        if isna.any():
            raise SchemaViolation(f"column {name!r} row {int(np.flatnonzero(isna)[0])}: missing value")
        if f.values is None:
            numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
            bad = ~(np.isfinite(numbers) & (numbers >= 0))
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                problem = "is negative" if numbers[row] < 0 else "is not a finite number"
                value = column.iloc[row]
                value = value.item() if isinstance(value, np.generic) else value
                raise SchemaViolation(f"column {name!r} row {row}: {value!r} {problem}; allowed: >= 0")
            continue
        if isinstance(column.dtype, pd.CategoricalDtype):
            extra = [c for c in column.cat.categories if not _same_kind(type(c), f) or c not in f.values]
            if extra:
                raise SchemaViolation(
                    f"column {name!r}: category {extra[0]!r} is not one of {_allowed(f)}"
                )
            continue
        raw = column.to_numpy()
        codes, distinct = pd.factorize(raw)
        allowed = set(f.values)
        bad = np.array([not (_same_kind(type(v), f) and v in allowed) for v in distinct],
                       dtype=bool)[codes]
        if raw.dtype == object and f.type != "string":
            # 1 == 1.0 == True share one distinct value: check each row's kind too
            kinds, distinct_kinds = pd.factorize(pd.Series(raw).map(type).to_numpy())
            bad |= np.array([not _same_kind(k, f) for k in distinct_kinds], dtype=bool)[kinds]
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            value = raw[row].item() if isinstance(raw[row], np.generic) else raw[row]
            raise SchemaViolation(
                f"column {name!r} row {row}: {value!r} is not one of {_allowed(f)}"
            )


def _allowed(f: Field) -> str:
    if len(f.listed()) <= 12:
        return str(list(f.listed()))
    return f"the {len(f.listed())} values of {f.name} in schemas/{f.entity}.schema.json"


def _same_kind(kind: type, f: Field) -> bool:
    """Whether values of Python or numpy type ``kind`` can be values of ``f``."""
    if f.type == "boolean":
        return issubclass(kind, (bool, np.bool_))
    if f.type == "integer":
        return issubclass(kind, (int, np.integer)) and not issubclass(kind, (bool, np.bool_))
    return issubclass(kind, str)


def frame_codes(frame: pd.DataFrame, features: Iterable[str]) -> dict[str, np.ndarray]:
    """Codes of a frame's feature columns (schema dtypes or plain values) as int64 arrays."""
    import pandas as pd
    out = {}
    for name in features:
        column = frame[name]
        field = fields()[name]
        if (isinstance(column.dtype, pd.CategoricalDtype)
                and tuple(column.cat.categories) == tuple(str(v) for v in field.listed())):
            codes = column.cat.codes.to_numpy()
        else:
            numeric = isinstance(column.dtype, np.dtype) and column.dtype.kind in "biu"
            codes = field.codes(column.to_numpy() if numeric else column.to_numpy(dtype=object))
        if (codes < 0).any():
            row = int(np.flatnonzero(codes < 0)[0])
            raise ValueError(f"{name}: {column.iloc[row]!r} is not one of {list(field.listed())}")
        out[name] = codes.astype(np.int64)
    return out
