"""``validate_split``: check a split folder against its ``split.json`` and the schemas."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.dataset import DatasetError, first_line
from pushgen.data.fingerprint import fingerprint
from pushgen.data.folder_entries import listing_problems
from pushgen.data.folder_lock import hold, session
from pushgen.data.json_limits import JSONLimitError, parse_json
from pushgen.data.outputs import listed_files
from pushgen.data.verify import check_split_fields
from pushgen.progress import bar
from pushgen.splits import SPLIT_FILE, combine_fingerprints, json_fingerprint
from pushgen.splits.scorer import ANSWER_COLUMNS, CONTEXT_COLUMNS, SCORER

PART_KEYS = ("user_id", "context_id")
READ_ERRORS = (OSError, ValueError, pa.ArrowException)


def is_split_folder(folder: Path) -> bool:
    return (Path(folder) / SPLIT_FILE).is_file()


@session()
def validate_split(folder: Path) -> list[str]:
    """Every problem of the split folder (an empty list: it is valid): each listed file's size and
    sha256, every table's content fingerprint and the split's, each part's rows and users, the
    values of every schema column, and that the model-facing test parts hold no answers."""
    folder = Path(folder)
    hold(folder)
    if not is_split_folder(folder):
        raise DatasetError(f"{folder} is not a pushgen split: no {SPLIT_FILE}")
    try:
        description = parse_json((folder / SPLIT_FILE).read_bytes())
    except JSONLimitError as error:
        return [f"{SPLIT_FILE} {error}"]
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return [f"{SPLIT_FILE} is not valid JSON: {error}"]
    if not isinstance(description, dict) or not all(
            isinstance(description.get(key), dict) for key in ("files", "fingerprints", "parts")):
        return [f"{SPLIT_FILE}: needs 'files', 'fingerprints' and 'parts' objects"]
    try:
        listed_files(description, SPLIT_FILE)
    except DatasetError as error:
        return [str(error)]
    problems = listing_problems(folder, description["files"], "split", SPLIT_FILE)
    try:
        check_split_fields(description, SPLIT_FILE, description["files"])
    except DatasetError as error:
        problems.append(str(error))
    if not all(isinstance(entry, dict) for entry in description["parts"].values()):
        return problems  # the parts cannot be checked against entries that are not objects
    fingerprints = description["fingerprints"]
    for name, expected in bar(fingerprints.items(), desc="validate: fingerprints", unit="table"):
        got = _table_fingerprint(folder, name, problems)
        if got is not None and got != expected:
            problems.append(f"{name}: content fingerprint differs from {SPLIT_FILE}")
    if combine_fingerprints(fingerprints) != description.get("fingerprint"):
        problems.append(f"{SPLIT_FILE}: 'fingerprint' is not the combination of the tables' fingerprints")
    answers_apart = any(part.startswith(f"{SCORER}/") for part in description["parts"])
    for part, expected in bar(description["parts"].items(), desc="validate: parts", unit="part"):
        problems += _check_part(folder, part, expected, fingerprints, answers_apart)
    return problems


def _table_fingerprint(folder: Path, name: str, problems: list[str]) -> str | None:
    path = folder / (name if name.endswith(".json") else f"{name}.parquet")
    if not path.is_file():
        return None  # reported with the files
    try:
        return json_fingerprint(path) if path.suffix == ".json" else fingerprint(pq.read_table(path))
    except (*READ_ERRORS, UnicodeDecodeError) as error:
        problems.append(f"{path.relative_to(folder).as_posix()}: cannot read ({first_line(error)})")
        return None


def _check_part(folder: Path, part: str, expected: dict, fingerprints: dict,
                answers_apart: bool) -> list[str]:
    path = folder / f"{part}.parquet"
    if not path.is_file():
        return [f"{part}: no {part}.parquet"]
    try:
        table = pq.read_table(path)
    except READ_ERRORS:
        return []  # reported with the fingerprints
    problems = []
    if table.num_rows != expected.get("rows"):
        problems.append(f"{part}: {table.num_rows} rows; {SPLIT_FILE} says {expected.get('rows')}")
    if "user_id" in table.column_names:
        users = np.unique(np.asarray(table.column("user_id"))).tolist()
        if users != expected.get("users"):
            listed = _short(expected.get("users"))
            problems.append(f"{part}: users {_short(users)}; {SPLIT_FILE} says {listed}")
    if fingerprints.get(part) != expected.get("fingerprint"):
        problems.append(f"{part}: the part's fingerprint differs from the table's in {SPLIT_FILE}")
    if answers_apart and part.endswith("/test") and not part.startswith(f"{SCORER}/"):
        answers = [c for c in ANSWER_COLUMNS if c not in CONTEXT_COLUMNS and c in table.column_names]
        if answers:
            problems.append(f"{part}: holds {', '.join(answers)}, which only {SCORER}/{part} may hold")
        if "posted_at" in table.column_names:
            problems += _check_times(folder, part, table)
    try:
        schemas.check_frame(table.to_pandas(), PART_KEYS)
    except (schemas.SchemaViolation, ValueError, TypeError) as error:
        problems.append(f"{part}: {first_line(error)}")
    return problems


def _check_times(folder: Path, part: str, table: pa.Table) -> list[str]:
    """The test contexts' ``posted_at`` must be the answer key's, context by context."""
    key = folder / SCORER / f"{part}.parquet"
    try:
        answers = pq.read_table(key, columns=["context_id", "posted_at"]).to_pandas()
    except (*READ_ERRORS, KeyError):
        return []  # reported with the scorer's part
    times = answers.set_index("context_id")["posted_at"]
    contexts = table.select(["context_id", "posted_at"]).to_pandas()
    expected = times.reindex(contexts["context_id"]).to_numpy()
    differs = expected != contexts["posted_at"].to_numpy()
    if differs.any():
        first = int(contexts["context_id"].to_numpy()[differs.argmax()])
        return [f"{part}: posted_at of context {first} differs from {SCORER}/{part}'s "
                f"({int(differs.sum())} contexts in all)"]
    return []


def _short(values: object) -> str:
    text = str(values)
    return text if len(text) <= 60 else text[:57] + "..."
