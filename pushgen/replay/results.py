"""Benchmark results folders read back, verified before anything of them is used.

``pushgen benchmark`` writes ``benchmark.json`` last: the split, its fingerprint, the reward mode,
and every other file with its size and sha256 (``timings.json`` aside: it varies from run to
run). ``read_results`` reads the description within the JSON limits, refuses a file it does not
list, reads every listed file once, checks its sha256 on those bytes and parses the tables from
the same bytes, then checks each known table's columns and their types. Each problem is one
``DatasetError`` naming the file.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pandas.api import types

from pushgen.data.dataset import DatasetError, first_line
from pushgen.data.folder_entries import check_unlisted
from pushgen.data.folder_lock import hold, session
from pushgen.data.outputs import json_kind, listed_files, read_json_object

RESULTS_FILE = "benchmark.json"
TEXT_FIELDS = ("split", "fingerprint", "mode")
# a known table's columns that readers use, with their kind: whole numbers, numbers or text
COLUMNS = {
    "leaderboard.csv": {"baseline": "text", "mean_reward": "number"},
    "per_user.csv": {"task": "whole", "baseline": "text", "user_id": "whole", "mean_reward": "number"},
    "curves.csv": {"task": "whole", "baseline": "text", "step": "whole", "mean_reward": "number"},
}
KIND_CHECKS = {
    "whole": types.is_integer_dtype,
    "number": lambda dtype: types.is_numeric_dtype(dtype) and not types.is_bool_dtype(dtype),
    "text": lambda dtype: types.is_object_dtype(dtype) or types.is_string_dtype(dtype),
}
KIND_NAMES = {"whole": "whole numbers", "number": "numbers", "text": "text"}


@dataclass(frozen=True)
class Results:
    """A verified results folder: its description and its CSV tables by file name."""

    folder: Path
    description: dict
    tables: dict[str, pd.DataFrame]


@session()
def read_results(folder: str | Path, needed: tuple[str, ...] = ("leaderboard.csv",)) -> Results:
    """The benchmark results folder ``folder``, once every file matches ``benchmark.json`` and the
    tables ``needed`` are there with their columns (a ``DatasetError`` naming the file otherwise)."""
    folder = Path(folder)
    hold(folder)
    source = folder / RESULTS_FILE
    if not source.is_file():
        raise DatasetError(f"{folder} is not a benchmark results folder: no {RESULTS_FILE}")
    description = read_json_object(source)
    for key in TEXT_FIELDS:
        if not isinstance(description.get(key), str):
            raise DatasetError(f"{source}: {key!r} must be text, not {json_kind(description.get(key))}")
    files = listed_files(description, str(source))
    check_unlisted(folder, files, "benchmark", str(source))
    for name in needed:
        if name not in files:
            raise DatasetError(f"{source} does not list {name}; it is not a complete results folder")
    tables = {}
    for relative, (size, digest) in files.items():
        data = _checked_bytes(folder, relative, size, digest)
        if relative.endswith(".csv") and "/" not in relative:
            tables[relative] = _table(folder / relative, data)
    return Results(folder, description, tables)


def validate_results(folder: Path) -> list[str]:
    """What is wrong with a benchmark results folder (an empty list: it is valid), read as
    ``evaluate --paired-with`` and ``report`` read it: every listed file's sha256, and the
    leaderboard's and per-user tables' columns."""
    try:
        read_results(folder, needed=("leaderboard.csv", "per_user.csv"))
    except DatasetError as error:
        return [str(error)]
    return []


def _checked_bytes(folder: Path, relative: str, size: int, digest: str) -> bytes:
    """A listed file's bytes, once they are the ones its listing gives."""
    path = folder / relative
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(f"{path} is missing; {RESULTS_FILE} lists it") from None
    except OSError as error:
        raise DatasetError(f"cannot read {path}: {error.strerror or error}") from None
    if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
        raise DatasetError(f"{path} differs from its entry in {RESULTS_FILE} (the file changed); "
                           "run pushgen benchmark again")
    return data


def _table(path: Path, data: bytes) -> pd.DataFrame:
    try:
        table = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError) as error:
        raise DatasetError(f"cannot read {path}: {first_line(error)}") from None
    for column, kind in COLUMNS.get(path.name, {}).items():
        if column not in table:
            raise DatasetError(f"{path} has no column {column!r}")
        if len(table) and not KIND_CHECKS[kind](table[column].dtype):
            raise DatasetError(f"{path}: the column {column!r} must hold {KIND_NAMES[kind]}")
    return table
