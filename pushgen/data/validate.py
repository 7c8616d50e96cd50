"""``pushgen.data.validate``: check a dataset folder against its manifest and the schemas."""

from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.consistency import data_facts, facts_problems
from pushgen.data.dataset import (
    FORMATS,
    MANIFEST,
    TRUTH,
    DatasetError,
    exact_floats,
    first_line,
    numbers_as_written,
    table_path,
    truth_path,
)
from pushgen.data.fingerprint import fingerprint
from pushgen.data.folder_entries import listing_problems
from pushgen.data.folder_lock import hold, session
from pushgen.data.json_limits import JSONLimitError, parse_json
from pushgen.data.verify import existing_folder, recipe_of, table_files
from pushgen.progress import stages

REQUIRED_COLUMNS = (*schemas.FEATURES, "action", "seenTime", "decisionTime", "responseTime",
                    "user_id", "notification_id", "posted_at")
TABLES = ("notifications", "users", "engagement_rows")
READ_ERRORS = (OSError, ValueError, pa.ArrowException)
# responseTime, seenTime and decisionTime are each rounded to float32 on their own
TIMING_RTOL = 8 * float(np.finfo(np.float32).eps)
TIMING_ATOL = 1e-4


@session()
def validate(folder: Path) -> list[str]:
    """Every problem of the dataset folder (an empty list: the folder is valid).

    Raises ``DatasetError`` if ``folder`` is not a dataset folder at all.
    """
    hold(folder)
    folder = existing_folder(folder)
    path = folder / MANIFEST
    if not path.is_file():
        if not _looks_like_dataset(folder):
            raise DatasetError(f"{folder} is not a pushgen dataset: no {MANIFEST}")
        return [f"{MANIFEST} is missing"]
    try:
        manifest = parse_json(path.read_bytes())
    except JSONLimitError as error:
        return [f"{MANIFEST} {error}"]
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return [f"{MANIFEST} is not valid JSON: {error}"]
    except OSError as error:
        return [f"{MANIFEST}: cannot read ({error.strerror or error})"]
    problems = _check_manifest(manifest)
    if problems or not isinstance(manifest, dict):
        return problems
    with stages("validate", 4) as begin:
        begin("sha256 of the files")
        problems += _check_files(folder, manifest)
        begin("reading the tables")
        tables = _read_tables(folder, manifest, problems)
        begin("fingerprints")
        for name, (arrow, frame) in tables.items():
            if len(frame) != manifest["rows"][name]:
                problems.append(f"{name}: {len(frame)} rows; the manifest says {manifest['rows'][name]}")
            expected = manifest["fingerprints"].get(name)
            if expected is not None and (arrow is None or _fingerprint(arrow) != expected):
                problems.append(f"{name}: content fingerprint differs from the manifest")
        begin("values and links")
        if "notifications" in tables:
            problems += _check_notifications(tables["notifications"][1])
            problems += _check_links(tables)
        problems += _check_facts(folder, manifest)
    return problems


def _looks_like_dataset(folder: Path) -> bool:
    tables = [folder / f"{name}{ext}" for name in ("notifications", "users") for ext in (".parquet", ".csv")]
    return (folder / TRUTH).is_dir() or any(path.is_file() for path in tables)


def _check_manifest(manifest) -> list[str]:
    if not isinstance(manifest, dict):
        return [f"{MANIFEST} is not a JSON object"]
    problems = []
    if manifest.get("format") not in FORMATS:
        problems.append(f"{MANIFEST}: format {manifest.get('format')!r} is not one of {', '.join(FORMATS)}")
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(e, dict) and isinstance(e.get("bytes"), int) and isinstance(e.get("sha256"), str)
        for e in files.values()
    ):
        problems.append(f"{MANIFEST}: 'files' must map each file to its bytes and sha256")
    rows = manifest.get("rows")
    if not isinstance(rows, dict) or not all(isinstance(rows.get(name), int) for name in TABLES):
        problems.append(f"{MANIFEST}: 'rows' must give the row count of {', '.join(TABLES)}")
    if not isinstance(manifest.get("fingerprints"), dict):
        problems.append(f"{MANIFEST}: 'fingerprints' is missing")
    try:
        recipe_of(manifest, MANIFEST)
    except DatasetError as error:
        problems.append(str(error))
    return problems


def _check_facts(folder: Path, manifest: dict) -> list[str]:
    """What the manifest states about the data that the data contradict (``facts_problems``)."""
    paths = [[folder / path for path in table_files(manifest["files"], name, manifest)]
             for name in ("notifications", "users")]
    if not all(path.is_file() for path in (*paths[0], *paths[1])):
        return []  # reported with the files
    try:
        facts = data_facts(*paths)
    except DatasetError as error:
        return [str(error).removeprefix(f"{folder}/")]
    return facts_problems(manifest, facts)


def _check_files(folder: Path, manifest: dict) -> list[str]:
    problems = []
    listed = manifest["files"]
    for name in ("notifications", "users"):
        path = table_path(folder, name, manifest)
        relative = path.relative_to(folder).as_posix()
        if path.is_dir():
            if not any(entry.startswith(relative + "/") for entry in listed):
                problems.append(f"{relative}/: no part listed in {MANIFEST}")
        elif relative not in listed:
            problems.append(f"{relative}: not listed in {MANIFEST}")
    return problems + listing_problems(folder, listed, "dataset", "the manifest")


def _read_tables(folder: Path, manifest: dict,
                 problems: list[str]) -> dict[str, tuple[pa.Table | None, pd.DataFrame]]:
    """Each readable table as written (Arrow) and as stored (pandas, values not yet typed)."""
    paths = {
        "notifications": table_path(folder, "notifications", manifest),
        "users": table_path(folder, "users", manifest),
        "engagement_rows": truth_path(folder, "engagement_rows"),
    }
    tables = {}
    for name, path in paths.items():
        if not path.exists():
            continue
        try:
            tables[name] = _read(path)
        except READ_ERRORS as error:
            problems.append(f"{path.relative_to(folder).as_posix()}: cannot read ({first_line(error)})")
    return tables


def _read(path: Path) -> tuple[pa.Table | None, pd.DataFrame]:
    """The table as written (Arrow; None if its values cannot take the schema types) and its
    values as stored (pandas; CSV text parsed only where it is exactly a value of its type)."""
    if path.suffix == ".parquet" or path.is_dir():
        table = pq.read_table(path)
        return table, table.to_pandas()
    text = numbers_as_written(pd.read_csv(path, keep_default_na=False, na_values=[""], **exact_floats(),
                                          dtype={name: str for name in schemas.fields()}))
    raw = text.assign(**{name: _parse(schemas.field(name), text[name])
                         for name in text.columns if name in schemas.fields()})
    try:
        with warnings.catch_warnings(action="ignore"):  # values outside the schema: no match anyway
            typed = schemas.apply_dtypes(raw)
        if "posted_at" in raw:
            typed = typed.assign(posted_at=pd.to_datetime(raw["posted_at"]).astype("datetime64[ms]"))
        return pa.Table.from_pandas(typed, preserve_index=False), raw
    except (*READ_ERRORS, TypeError):
        return None, raw


def _parse(f: schemas.Field, text: pd.Series) -> pd.Series:
    """A CSV column's values; text that is not a value of the field's type stays text."""
    text = text.astype(object)
    value: pd.Series
    if f.type == "boolean":
        value = text.map({"true": True, "True": True, "false": False, "False": False})
    elif f.type == "integer":
        exact = text.where(text.astype(str).str.fullmatch(r"[+-]?\d+"))
        value = pd.to_numeric(exact).astype("Int64")
    elif f.type == "number":
        value = pd.to_numeric(text, errors="coerce")
    else:
        return text
    if value.notna().all():
        return value.astype(f.pandas_dtype())
    return text.where(value.isna(), value.astype(object))


def _fingerprint(table: pa.Table) -> str:
    """The table's fingerprint with ids in their written type (CSV reads them as int64)."""
    if "user_id" in table.column_names and table.schema.field("user_id").type == pa.int64():
        index = table.column_names.index("user_id")
        with contextlib.suppress(pa.ArrowInvalid):
            table = table.set_column(index, "user_id", table.column("user_id").cast(pa.int32()))
    try:
        return fingerprint(table)
    except (ValueError, TypeError, AttributeError, pa.ArrowException):
        return ""


def _check_notifications(raw: pd.DataFrame) -> list[str]:
    try:
        schemas.check_frame(raw, REQUIRED_COLUMNS)
    except schemas.SchemaViolation as error:
        return [f"notifications: {error}"]
    problems = []
    seen, decision, response = (raw[n].to_numpy(dtype=np.float64)
                                for n in ("seenTime", "decisionTime", "responseTime"))
    off = ~np.isclose(response, seen + decision, rtol=TIMING_RTOL, atol=TIMING_ATOL)
    if off.any():
        row = int(np.flatnonzero(off)[0])
        problems.append(f"notifications: responseTime != seenTime + decisionTime in {int(off.sum())} "
                        f"rows (first: row {row}, {response[row]} != {seen[row]} + {decision[row]})")
    repeated = raw["notification_id"].duplicated()
    if repeated.any():
        problems.append(f"notifications: notification_id {raw['notification_id'][repeated].iloc[0]} "
                        f"appears more than once ({int(repeated.sum())} repeats)")
    return problems


def _check_links(tables: dict[str, tuple[pa.Table | None, pd.DataFrame]]) -> list[str]:
    """Every notification's user is in the users table and has one ground-truth row."""
    problems = []
    notifications = tables["notifications"][1]
    if "users" in tables and {"user_id"} <= set(notifications) & set(tables["users"][1]):
        unknown = ~np.isin(notifications["user_id"].to_numpy(), tables["users"][1]["user_id"].to_numpy())
        if unknown.any():
            problems.append(f"notifications: user_id {notifications['user_id'][unknown].iloc[0]} "
                            "is not in the users table")
    if "engagement_rows" in tables and "notification_id" in notifications:
        truth = tables["engagement_rows"][1]
        if "notification_id" not in truth or not np.array_equal(
                truth["notification_id"].to_numpy(), notifications["notification_id"].to_numpy()):
            problems.append(f"{TRUTH}/engagement_rows.parquet: notification ids differ from the "
                            "notifications table")
    return problems
