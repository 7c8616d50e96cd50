"""The feature sets, read from ``schemas/``: the single source of every value list.

Everything that needs a feature's allowed values (the generator's integer codes, pandas
and Arrow dtypes, gymnasium spaces, validation) asks this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

ENTITIES = ("notification", "context", "engagement")


@dataclass(frozen=True)
class Field:
    """One feature: its name, entity, Table Schema type and allowed values (None: any number)."""

    name: str
    entity: str
    type: str
    description: str
    values: tuple | None
    required: bool
    hours: dict[str, tuple[int, int]] | None = None

    @property
    def is_categorical(self) -> bool:
        return self.type == "string" and self.values is not None

    def code(self, value) -> int:
        """The integer code of ``value`` (its position in the published list)."""
        try:
            return self.values.index(value)
        except ValueError:
            raise ValueError(f"{self.name}: {value!r} is not one of {list(self.values)}") from None

    def codes(self, values) -> np.ndarray:
        """Integer codes of many values, -1 where a value is not allowed."""
        lookup = {v: i for i, v in enumerate(self.values)}
        return np.fromiter((lookup.get(v, -1) for v in values), dtype=np.int16)

    def pandas_dtype(self):
        if self.is_categorical:
            return pd.CategoricalDtype(list(self.values), ordered=False)
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


def values(name: str) -> tuple:
    return fields()[name].values


NOTIFICATION_FEATURES: tuple[str, ...] = entity_fields("notification")
CONTEXT_FEATURES: tuple[str, ...] = entity_fields("context")
ENGAGEMENT_FIELDS: tuple[str, ...] = entity_fields("engagement")
FEATURES: tuple[str, ...] = NOTIFICATION_FEATURES + CONTEXT_FEATURES


def hour_to_time_block() -> np.ndarray:
    """Code of the ``time`` feature for each hour 0..23, from the schema's hour blocks."""
    time = field("time")
    table = np.full(24, -1, dtype=np.int16)
    for block, (first, last) in time.hours.items():
        table[first : last + 1] = time.code(block)
    return table


def column_from_codes(name: str, codes: np.ndarray) -> pd.Series | np.ndarray:
    """A pandas-ready column from integer codes (categorical) or raw values."""
    f = field(name)
    if f.is_categorical:
        return pd.Categorical.from_codes(codes, dtype=f.pandas_dtype())
    return np.asarray(codes).astype(f.pandas_dtype(), copy=False)


def apply_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """Give every schema column of ``frame`` its schema dtype (categories = the full value set)."""
    converted = {}
    for name in frame.columns:
        f = fields().get(name)
        if f is None:
            continue
        if f.is_categorical:
            converted[name] = pd.Categorical(frame[name].astype(object), dtype=f.pandas_dtype())
        elif f.type == "number":
            converted[name] = frame[name].astype(np.float32)
        else:
            converted[name] = frame[name].astype(f.pandas_dtype())
    return frame.assign(**converted)


class SchemaViolation(ValueError):
    """A table holds a column or value the schemas do not allow."""


def check_frame(frame: pd.DataFrame, required: tuple[str, ...] = FEATURES) -> None:
    """Raise ``SchemaViolation`` naming the first missing column or value outside its set."""
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise SchemaViolation(f"missing column {missing[0]!r}; required: {', '.join(required)}")
    for name in frame.columns:
        f = fields().get(name)
        if f is None:
            continue
        column = frame[name]
        if column.isna().any():
            row = int(np.flatnonzero(column.isna().to_numpy())[0])
            raise SchemaViolation(f"column {name!r} row {row}: missing value")
        if f.values is None:
            bad = column.to_numpy(dtype=float) < 0
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise SchemaViolation(
                    f"column {name!r} row {row}: {column.iloc[row]!r} is negative; allowed: >= 0"
                )
            continue
        if isinstance(column.dtype, pd.CategoricalDtype):
            extra = [c for c in column.cat.categories if c not in f.values]
            if extra:
                raise SchemaViolation(
                    f"column {name!r}: category {extra[0]!r} is not one of {list(f.values)}"
                )
            continue
        allowed = set(f.values)
        raw = column.to_numpy(dtype=object)
        ok = np.fromiter(
            ((v in allowed and type(v) is type(f.values[0])) or _same_kind(v, f) for v in raw),
            dtype=bool,
            count=len(raw),
        )
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            raise SchemaViolation(
                f"column {name!r} row {row}: {raw[row]!r} is not one of {list(f.values)}"
            )


def _same_kind(value, f: Field) -> bool:
    """Numpy scalars count as their Python kind (np.bool_ as bool, np.int8 as int)."""
    if f.type == "boolean":
        return isinstance(value, (bool, np.bool_)) and bool(value) in f.values
    if f.type == "integer":
        return (
            isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_))
            and int(value) in f.values
        )
    return False
