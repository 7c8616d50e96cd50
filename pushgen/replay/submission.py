"""Reading and checking a submission: one generated notification per test context.

A submission is a Parquet or CSV table with a ``context_id`` column (the test part's
``context_id``) and the 7 notification feature columns, with values as published in the
schemas (booleans as ``true``/``false``). A recorded task 2 run (``History.save``) is a
submission with a ``decision_seconds`` column besides. Every problem raises
``SubmissionError`` with one line naming the first offending column, row or value; rows
are counted from 0, as pandas does.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.checks import quoted, type_name
from pushgen.data.dataset import DatasetError, first_line

KEY = "context_id"
TIMING = "decision_seconds"
FEATURES = schemas.NOTIFICATION_FEATURES
SHOWN_VALUES = 12
BOOLEANS = {"true": True, "false": False, "True": True, "False": False}


class SubmissionError(DatasetError):
    """A submission that cannot be scored (the message names the first problem)."""


PARQUET_SUFFIXES = (".parquet", ".pq")  # what read_submission reads as Parquet (any case)


def read_submission(path: str | Path) -> pd.DataFrame:
    """A submission file as a frame of plain values (strings, booleans, numbers; a Parquet file's
    string features as categoricals, as Parquet stores them)."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"submission {path} does not exist")
    if not path.is_file():
        raise SubmissionError(f"submission {path} is not a file")
    if path.stat().st_size == 0:
        raise SubmissionError(f"submission {path} is empty")
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        try:
            table = pq.read_table(path, read_dictionary=_string_features(pq.read_schema(path)))
        except (pa.ArrowException, OSError) as error:
            raise SubmissionError(f"submission {path} is not a Parquet table: "
                                  f"{first_line(error)}") from None
        return table.to_pandas()
    if suffix == ".csv":
        try:
            return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
                ValueError) as error:
            raise SubmissionError(f"submission {path} is not a CSV table: "
                                  f"{first_line(error)}") from None
    raise SubmissionError(f"submission {path}: expected a .parquet or .csv file")


def _string_features(schema: pa.Schema) -> list[str]:
    return [column.name for column in schema if column.name in FEATURES
            and (pa.types.is_string(column.type) or pa.types.is_large_string(column.type))]


def check_submission(frame: pd.DataFrame, expected: np.ndarray, known: np.ndarray, label: str,
                     timed: bool = False) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Codes of the submitted notifications in the order of ``expected`` context ids.

    ``known`` holds every context id of the part (rows for known contexts outside
    ``expected`` are ignored); ``label`` names the part in messages. With ``timed``, the
    ``decision_seconds`` column is required and returned in the same order.
    """
    if not isinstance(frame, pd.DataFrame):
        raise SubmissionError("a submission is a table (a pandas DataFrame or a file); "
                              f"got {type_name(frame)}")
    required = (KEY, *FEATURES, *((TIMING,) if timed else ()))
    _check_columns(frame, required)
    frame = frame.reset_index(drop=True)
    if len(frame) == 0:
        raise SubmissionError(f"the submission has no rows; expected {len(expected)}, "
                              f"one per context of {label}")
    ids = _context_ids(frame[KEY])
    submitted = pd.Index(ids)
    _check_duplicates(submitted)
    if np.array_equal(ids, expected):  # the rows of the expected contexts, in their order: nothing to look up
        codes = {name: _codes(frame[name], name) for name in FEATURES}
        return codes, _seconds(frame[TIMING]) if timed else None
    found = pd.Index(known).get_indexer(ids)
    if (found < 0).any():
        row = int(np.flatnonzero(found < 0)[0])
        raise SubmissionError(f"column {KEY!r} row {row}: {ids[row]} is not a context of {label}")
    where = submitted.get_indexer(expected)
    if (where < 0).any():
        first = int(expected[np.flatnonzero(where < 0)[0]])
        raise SubmissionError(
            f"no row for context_id {first}: expected {len(expected)} rows, one per context of "
            f"{label}; the submission covers {len(expected) - int((where < 0).sum())} of them"
            f" in {len(frame)} rows")
    codes = {name: _codes(frame[name], name)[where] for name in FEATURES}
    seconds = _seconds(frame[TIMING])[where] if timed else None
    return codes, seconds


def _check_columns(frame: pd.DataFrame, required: tuple[str, ...]) -> None:
    present = [str(c) for c in frame.columns]
    repeated = next((name for name in required if present.count(name) > 1), None)
    if repeated is not None:
        raise SubmissionError(f"column {repeated!r} appears {present.count(repeated)} times; one column per "
                              f"name: {', '.join(required)}")
    missing = [name for name in required if name not in present]
    if not missing:
        return
    unexpected = [c for c in present if c not in required and c not in schemas.fields()]
    hint = f"; found unexpected column {unexpected[0]!r}" if unexpected else ""
    if missing[0] == TIMING:
        hint = " (a task 2 run is recorded with pushgen.envs.record_run or History.save)"
    elif missing[0] in (frame.index.names or ()):
        hint = " (it is the frame's index: reset_index() makes it a column)"
    raise SubmissionError(f"missing column {missing[0]!r}{hint}; required: {', '.join(required)}")


def _context_ids(column: pd.Series) -> np.ndarray:
    if (pd.api.types.is_integer_dtype(column.dtype) and not column.isna().any()
            and not (pd.api.types.is_unsigned_integer_dtype(column.dtype) and len(column)
                     and column.max() > np.iinfo(np.int64).max)):  # else the check below names the row
        return column.to_numpy(dtype=np.int64)
    strings = _string_array(column)
    if strings is not None and strings.null_count == 0:
        try:
            return pc.cast(pc.utf8_trim_whitespace(strings), pa.int64()).to_numpy()
        except pa.ArrowInvalid:
            pass  # the row-by-row check below names the offending row
    values = column.to_numpy(dtype=object)
    text = pd.Series([v.strip() if isinstance(v, str) else v for v in values], dtype=object)
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    is_bool = np.fromiter((isinstance(v, (bool, np.bool_)) for v in values), dtype=bool,
                          count=len(values))
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers)) | is_bool | (
        np.abs(numbers) >= 2**53)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        value = values[row]
        if _missing(value):
            raise SubmissionError(f"column {KEY!r} row {row}: missing value")
        raise SubmissionError(f"column {KEY!r} row {row}: {_shown(value)} is not an integer (one context id "
                              "per row)")
    return numbers.astype(np.int64)


def _string_array(column: pd.Series) -> pa.Array | None:
    """The column as an Arrow string array, or None if it holds anything but strings and nulls."""
    try:
        array = pa.array(column, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_large_string(array.type) or str(array.type) == "string_view":
        array = array.cast(pa.string())
    return array if pa.types.is_string(array.type) else None


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA


def _check_duplicates(ids: pd.Index) -> None:
    if ids.is_unique:
        return
    row = int(np.flatnonzero(ids.duplicated())[0])
    first = int(np.flatnonzero(ids == ids[row])[0])
    raise SubmissionError(f"column {KEY!r} row {row}: context_id {ids[row]} appears again "
                          f"(first at row {first}); one row per context")


def _codes(column: pd.Series, name: str) -> np.ndarray:
    field = schemas.field(name)
    if field.type == "boolean" and pd.api.types.is_bool_dtype(column.dtype) and not column.hasnans:
        return np.where(column.to_numpy(dtype=bool), field.code(True), field.code(False))
    if field.type == "boolean":
        names, codes = list(BOOLEANS), np.array([field.code(v) for v in BOOLEANS.values()])
    else:
        names, codes = list(field.listed()), np.arange(len(field.listed()))
    value_set = pa.array(names, pa.string())
    categories = (_string_array(column.cat.categories.to_series())
                  if isinstance(column.dtype, pd.CategoricalDtype) else None)
    if categories is not None and categories.null_count == 0:  # Parquet's dictionary: look up its few values
        index = pc.index_in(categories, value_set=value_set).fill_null(-1).to_numpy()
        found = np.append(np.where(index >= 0, codes[index], -1), -1)[column.cat.codes.to_numpy()]  # -1: NaN
        if (found >= 0).all():
            return found
        return _not_allowed(column, int(np.flatnonzero(found < 0)[0]), field)
    strings = _string_array(column)
    if strings is None:
        strings = _strings_of_objects(column, field)
    index = pc.index_in(strings, value_set=value_set)
    if index.null_count == 0:
        return codes[index.to_numpy()]
    return _not_allowed(column, int(np.flatnonzero(index.is_null().to_numpy(zero_copy_only=False))[0]), field)


def _not_allowed(column: pd.Series, row: int, field: schemas.Field) -> NoReturn:
    """The error naming the value at ``row`` of a feature's ``column``, which is not one of its values."""
    name = field.name
    value = column.iloc[row]
    if _missing(value):
        raise SubmissionError(f"column {name!r} row {row}: missing value")
    raise SubmissionError(f"column {name!r} row {row}: {quoted(value)} is not {_allowed(field)}")


def _strings_of_objects(column: pd.Series, field: schemas.Field) -> pa.Array:
    """Strings of a mixed column (booleans as True/False); an error at the first other value."""
    values = column.to_numpy(dtype=object)
    out = []
    for row, value in enumerate(values):
        if field.type == "boolean" and isinstance(value, (bool, np.bool_)):
            value = str(bool(value))
        elif _missing(value):
            value = None
        elif not isinstance(value, str):
            raise SubmissionError(f"column {field.name!r} row {row}: {_shown(value)} is not "
                                  f"{_allowed(field)}")
        out.append(value)
    return pa.array(out, pa.string())


def _shown(value: object) -> str:
    """A value for a message: a list (a nested Parquet column's cell) as such, else quoted."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return "a list"
    return "a mapping" if isinstance(value, dict) else quoted(value)


def _allowed(field: schemas.Field) -> str:
    if field.type == "boolean":
        return "true or false"
    shown = ", ".join(repr(v) for v in field.listed()[:SHOWN_VALUES])
    more = f", ... ({len(field.listed())} values, see pushgen.schemas.values({field.name!r}))" if len(
        field.listed()) > SHOWN_VALUES else ""
    return f"one of {shown}{more}"


def _seconds(column: pd.Series) -> np.ndarray:
    numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(numbers) | (numbers < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise SubmissionError(f"column {TIMING!r} row {row}: {quoted(column.iloc[row])} is not a "
                              "number of seconds >= 0")
    return numbers
