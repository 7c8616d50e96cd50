"""Check an input folder against its own description before anything reads its tables.

``verify_dataset`` checks a dataset folder against its ``manifest.json``, ``verify_split`` a
split folder against its ``split.json``: the description is a JSON object with usable fields,
every file it lists is there with its size and sha256, every row count it records matches the
table (Parquet metadata; a CSV table's rows counted), and what it states about the data is so
(``pushgen.data.consistency``: users, days, opened; a split's users per part). The tables are
found through the description, so a new layout needs no change here. A problem raises
``DatasetError`` naming the file and what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen.data.consistency import data_facts, facts_problems, id_span, split_users_problems
from pushgen.data.folder_entries import check_unlisted, check_written_after
from pushgen.data.folder_lock import hold, session
from pushgen.data.layout import FORMATS, MANIFEST, MODEL_FILE, TRUTH, first_line, read_manifest
from pushgen.data.outputs import (
    DatasetError,
    files_problem,
    json_kind,
    kind_named,
    listed_files,
    read_json_object,
)
from pushgen.data.recipe import Recipe, make_recipe
from pushgen.model.engagement import MODEL_VERSION

SPLIT_FILE = "split.json"
DATASET_TABLES = ("notifications", "users", f"{TRUTH}/engagement_users", f"{TRUTH}/engagement_weights",
                  f"{TRUTH}/engagement_rows")
COUNTED = {"notifications": "notifications", "users": "users", f"{TRUTH}/engagement_rows": "engagement_rows"}
LAYOUTS = ("single", "partitioned")
RECIPE_NUMBERS = ("users", "days", "seed")
SPEC_FIELDS = ("train_months", "test_months", "validation_weeks", "cold_start_users")

# (split folder, subfolder left unread) -> (what its files looked like, description)
_verified: dict[tuple[Path, str | None], tuple[tuple, dict]] = {}


@session()
def verify_dataset(folder: Path) -> dict:
    """The manifest of the dataset folder ``folder``, once the folder matches it (locked for
    reading until the end of the reading session, ``pushgen.data.folder_lock``)."""
    hold(folder)
    folder = existing_folder(folder)
    manifest = read_manifest(folder)
    source = f"{folder / MANIFEST}"
    recipe = recipe_of(manifest, source)
    if manifest.get("format", "parquet") not in FORMATS:
        raise DatasetError(f"{source}: format {manifest.get('format')!r} is not one of {', '.join(FORMATS)}")
    if manifest.get("layout", "single") not in LAYOUTS:
        raise DatasetError(f"{source}: layout {manifest.get('layout')!r} is not one of {', '.join(LAYOUTS)}")
    if not isinstance(manifest.get("pushgen_version", ""), str):
        raise DatasetError(f"{source}: pushgen_version must be text")
    rows = manifest.get("rows")
    if not isinstance(rows, dict) or not all(_count(rows.get(name)) for name in COUNTED.values()):
        raise DatasetError(f"{source}: 'rows' must give a row count of at least 0 for "
                           f"{', '.join(COUNTED.values())}")
    if rows["users"] != recipe.users:
        raise DatasetError(f"{source}: rows give {rows['users']} users but the recipe {recipe.users}")
    files = listed_files(manifest, source)
    for table in DATASET_TABLES:
        if not table_files(files, table, manifest):
            raise DatasetError(f"{source} lists no file of the table {table}")
    if MODEL_FILE not in files:
        raise DatasetError(f"{source} does not list {MODEL_FILE}")
    _check_files(folder, files, source)
    check_unlisted(folder, files, "dataset", source)
    _check_model(folder, manifest)
    facts = data_facts(*([folder / path for path in table_files(files, table, manifest)]
                         for table in ("notifications", "users")))
    found = {"notifications": facts.notifications, "users": len(facts.user_ids)}
    for table, name in COUNTED.items():
        listed = table_files(files, table, manifest)
        _check_rows(folder, listed, rows[name], source, table, found.get(table))
    if problems := facts_problems(manifest, facts):
        raise DatasetError(f"{folder}/{problems[0]}")
    check_written_after(folder, files, "dataset")
    return manifest


def _check_model(folder: Path, manifest: dict) -> None:
    """Refuse a dataset of another engagement model (pushgen 0.1 and 0.2 wrote models 1 and 2),
    naming the release that reads it."""
    version = read_json_object(folder / MODEL_FILE).get("model_version", 1)
    if version != MODEL_VERSION:
        release = str(manifest.get("pushgen_version") or "an earlier release")[:40]
        raise DatasetError(f"{folder} was simulated with engagement model {version!r} by pushgen {release}; "
                           f"this pushgen reads model {MODEL_VERSION} only: read it with pushgen {release}, "
                           "or make a new dataset with this pushgen (pushgen make)")


@session()
def verify_split(folder: Path, unread: str | None = None) -> dict:
    """The description (``split.json``) of the split folder ``folder``, once the folder matches it.

    Files under the subfolder ``unread`` (such as ``scorer``) are not opened: a reader that must
    not see them checks only the rest. A folder verified before in this process is checked again
    only if a file changed.
    """
    hold(folder)
    folder = existing_folder(folder)
    path = folder / SPLIT_FILE
    if not path.is_file():
        raise DatasetError(f"{folder} is not a split folder: no {SPLIT_FILE}")
    description = read_json_object(path)
    files = listed_files(description, str(path))
    check_unlisted(folder, files, "split", str(path))
    opened = files if unread is None else {
        name: listing for name, listing in files.items() if not name.startswith(f"{unread}/")}
    state = _state(folder, path, [*opened, *kind_named("split").written_after])
    known = _verified.get((folder.resolve(), unread))
    if known is not None and known[0] == state:
        return description
    check_split_fields(description, str(path), files)
    _check_files(folder, opened, str(path))
    for part, entry in description["parts"].items():
        if "rows" in entry and f"{part}.parquet" in opened:
            _check_rows(folder, [f"{part}.parquet"], entry["rows"], str(path), part)
        if "users" in entry and f"{part}.parquet" in opened:
            _check_users(folder / f"{part}.parquet", entry["users"], part)
    check_written_after(folder, files, "split")
    _verified[(folder.resolve(), unread)] = (state, description)
    return description


def existing_folder(folder: Path) -> Path:
    """``folder`` as a path, once it exists and is a folder."""
    folder = Path(folder)
    if not folder.exists():
        raise DatasetError(f"{folder} does not exist")
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    return folder


def recipe_of(description: dict, source: str) -> Recipe:
    """The recipe of a dataset's or split's description, once it is as pushgen writes it.

    Parameters
    ----------
    description : dict
        The description (``manifest.json``, ``split.json``).
    source : str
        Its name in the messages.

    Returns
    -------
    Recipe
        The recipe, its values of the types pushgen writes and its days the days of its months.

    Raises
    ------
    DatasetError
        Naming what is wrong.
    """
    stored = description.get("recipe")
    if not isinstance(stored, dict):
        raise DatasetError(f"{source} has no recipe" if stored is None
                           else f"{source}: the recipe must be an object, not {json_kind(stored)}")
    for key in RECIPE_NUMBERS:
        if key not in stored:
            raise DatasetError(f"{source}: the recipe has no {key!r}")
        if not _count(stored[key]):
            raise DatasetError(f"{source}: the recipe's {key} must be a whole number; got {stored[key]!r}")
    if not isinstance(stored.get("start"), str):
        raise DatasetError(f"{source}: the recipe's start must be a YYYY-MM-DD date; got "
                           f"{stored.get('start')!r}")
    months = stored.get("months")
    if months is not None and not _count(months):
        raise DatasetError(f"{source}: the recipe's months must be a whole number or null; got {months!r}")
    if not isinstance(stored.get("priors", {}), dict):
        raise DatasetError(f"{source}: the recipe's priors must be an object")
    try:
        recipe = Recipe.from_dict(stored)
        days = recipe.days if months is None else make_recipe(1, months=months, start=recipe.start).days
    except (TypeError, ValueError) as error:
        raise DatasetError(f"{source}: the recipe is not usable: {first_line(error)}") from None
    if days != recipe.days:
        raise DatasetError(f"{source}: the recipe's {recipe.days} days are not its {months} months "
                           f"from {recipe.start}")
    return recipe


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_split_fields(description: dict, source: str, files: dict) -> None:
    """Refuse a split's description that is not as pushgen writes it.

    Parameters
    ----------
    description : dict
        The split's ``split.json``.
    source : str
        Its name in the messages.
    files : dict
        The files it lists.

    Raises
    ------
    DatasetError
        A field of another type, a part whose file is not listed, or users that contradict the
        recipe (``split_users_problems``).
    """
    recipe_of(description, source)
    for key in ("name", "version", "pushgen_version"):
        if not isinstance(description.get(key, ""), str | None):
            raise DatasetError(f"{source}: {key} must be text")
    spec = description.get("split")
    if not isinstance(spec, dict) or set(spec) != set(SPEC_FIELDS) or not all(map(_count, spec.values())):
        raise DatasetError(f"{source}: 'split' must give {', '.join(SPEC_FIELDS)} as whole numbers")
    parts = description.get("parts")
    if not isinstance(parts, dict) or not parts:
        raise DatasetError(f"{source}: 'parts' must map each part to its rows and users")
    for part, entry in parts.items():
        if not isinstance(entry, dict) or ("rows" in entry and not _count(entry["rows"])) or (
                not isinstance(entry.get("users", []), list)
                or not all(_count(u) for u in entry.get("users", []))):
            raise DatasetError(f"{source}: the part {part} must give its rows and users as whole numbers")
        if f"{part}.parquet" not in files:
            raise DatasetError(f"{source} lists the part {part} but not its file {part}.parquet")
    if problems := split_users_problems(description, source):
        raise DatasetError(problems[0])


def _check_users(path: Path, users: list[int], part: str) -> None:
    """The part's file ``path`` must hold exactly the ``users`` its description gives."""
    try:
        held = pc.unique(pq.read_table(path, columns=["user_id"]).column("user_id")).to_pylist()
    except (OSError, KeyError, pa.ArrowException) as error:
        raise DatasetError(f"{path} cannot be read ({first_line(error)})") from None
    if sorted(held) != users:
        raise DatasetError(f"{path} holds users {id_span(sorted(held))}; {SPLIT_FILE} says {id_span(users)} "
                           f"for {part}")


def table_files(files: dict, table: str, manifest: dict) -> list[str]:
    """The listed files of a dataset's table: one file, or the parts of a partitioned table."""
    suffix = ".csv" if manifest.get("format") == "csv" and table in ("notifications", "users") else ".parquet"
    if f"{table}{suffix}" in files:
        return [f"{table}{suffix}"]
    return sorted(path for path in files if path.startswith(f"{table}/") and path.endswith(".parquet"))


def _check_files(folder: Path, files: dict, source: str) -> None:
    problem = files_problem(folder, files, Path(source).name)
    if problem is not None:
        raise DatasetError(f"{folder}/{problem}")


def _check_rows(folder: Path, paths: list[str], expected: int, source: str, table: str,
                rows: int | None = None) -> None:
    """The table's ``rows`` (None: its Parquet files' count) must be the ``expected`` count."""
    try:
        if rows is None:
            rows = sum(pq.read_metadata(folder / path).num_rows for path in paths)
    except (OSError, pa.ArrowException) as error:
        reason = first_line(error)
        raise DatasetError(f"{folder}/{paths[0]} is not a readable Parquet file ({reason})") from None
    if rows != expected:
        raise DatasetError(f"{folder}/{paths[0]} has {rows:,} rows; {Path(source).name} says "
                           f"{expected:,} for {table}")


def _state(folder: Path, description: Path, files: Iterable[str]) -> tuple:
    """Size and modification time of the description and of each of ``files``."""
    def stamp(path: Path) -> tuple[int, int] | None:
        try:
            status = path.stat()
        except OSError:
            return None
        return status.st_size, status.st_mtime_ns

    return (stamp(description), *((name, stamp(folder / name)) for name in sorted(files)))
