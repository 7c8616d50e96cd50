"""What a dataset's manifest states about its data, checked against the data: one set of checks
for ``pushgen validate`` and for every reader (``pushgen.data.verify``).

The manifest states the users (the recipe's ``users`` ids from ``first_user``), the days the
notifications are posted in (the recipe's ``days`` from ``start``), when the first and the last
were posted, how many were opened, and how many rows each table has. The checks read only the
columns they need (the notifications' ``posted_at`` and ``action``, the users' ``user_id``), in
batches. The recipe's seed cannot be checked against the data without simulating the dataset again.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen.data.layout import MANIFEST, first_line
from pushgen.data.outputs import DatasetError

COLUMNS = {"posted_at": pa.timestamp("ms"), "action": pa.string(), "user_id": pa.int64()}


@dataclass(frozen=True)
class DataFacts:
    """What the data of a dataset shows of what its manifest states.

    Attributes
    ----------
    notifications : int
        Rows of the notifications table.
    user_ids : list[int]
        The users table's ``user_id`` values, in order.
    opened : int
        Notifications whose ``action`` is "opened".
    first_posted, last_posted : datetime.datetime or None
        The earliest and the latest ``posted_at`` (None: no notifications).
    """

    notifications: int
    user_ids: list[int]
    opened: int
    first_posted: datetime.datetime | None
    last_posted: datetime.datetime | None


def _batches(path: Path, columns: list[str]) -> Iterator[pa.RecordBatch]:
    """The ``columns`` of the table file ``path`` (Parquet or CSV), batch by batch."""
    if path.suffix == ".csv":
        options = pacsv.ConvertOptions(include_columns=columns,
                                       column_types={name: COLUMNS[name] for name in columns})
        with pacsv.open_csv(path, convert_options=options) as reader:
            yield from reader
    else:
        yield from pq.ParquetFile(path).iter_batches(columns=columns)


def _opened(column: pa.Array) -> int:
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    return int(pc.sum(pc.equal(column.cast(pa.string()), "opened")).as_py() or 0)


def data_facts(notifications: list[Path], users: list[Path]) -> DataFacts:
    """The facts of a dataset's notifications and users tables, read column by column.

    Parameters
    ----------
    notifications : list of pathlib.Path
        The notifications table's files (Parquet or CSV), in order.
    users : list of pathlib.Path
        The users table's files.

    Returns
    -------
    DataFacts
        Rows, user ids, opened notifications and the first and last ``posted_at``.

    Raises
    ------
    DatasetError
        Naming the file that cannot be read.
    """
    rows, opened, user_ids = 0, 0, []
    first: datetime.datetime | None = None
    last: datetime.datetime | None = None
    path = notifications[0] if notifications else Path(MANIFEST)
    try:
        for path in notifications:
            for batch in _batches(path, ["posted_at", "action"]):
                rows += batch.num_rows
                opened += _opened(batch.column("action"))
                low, high = pc.min_max(batch.column("posted_at").cast(pa.timestamp("ms"))).values()
                if low.is_valid:
                    first = low.as_py() if first is None else min(first, low.as_py())
                    last = high.as_py() if last is None else max(last, high.as_py())
        for path in users:
            for batch in _batches(path, ["user_id"]):
                user_ids += batch.column("user_id").to_pylist()
    except (OSError, KeyError, UnicodeDecodeError, pa.ArrowException) as error:  # names in the footer
        raise DatasetError(f"{path} cannot be read ({first_line(error)})") from None
    return DataFacts(rows, user_ids, opened, first, last)


def id_span(ids: list[int]) -> str:
    """Ids as "first..last" when they run one after another, else the first few.

    Parameters
    ----------
    ids : list of int
        The ids, in order.

    Returns
    -------
    str
        "none", "3", "0..2" or "0, 2, 5, 6, 9, ...".
    """
    if not ids:
        return "none"
    if len(ids) > 1 and ids == list(range(ids[0], ids[0] + len(ids))):
        return f"{ids[0]}..{ids[-1]}"
    return ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")


def facts_problems(manifest: dict, facts: DataFacts) -> list[str]:
    """Every statement of a dataset's manifest that its data contradict.

    Parameters
    ----------
    manifest : dict
        The manifest, its recipe checked already (``pushgen.data.verify.recipe_of``).
    facts : DataFacts
        What the data show (``data_facts``).

    Returns
    -------
    list of str
        One line per problem, starting with "manifest.json: ": the recipe's users, the days of
        the notifications, ``opened``, ``first_posted`` and ``last_posted`` (an empty list: none).
    """
    recipe, problems = manifest["recipe"], []
    first_user = recipe.get("first_user", 0)
    expected = list(range(first_user, first_user + recipe["users"]))
    if facts.user_ids != expected:
        problems.append(f"{MANIFEST}: the recipe's users are {id_span(expected)} (first_user {first_user}, "
                        f"{recipe['users']} users); the users table holds {id_span(facts.user_ids)}")
    start = datetime.datetime.fromisoformat(recipe["start"])
    end = start + datetime.timedelta(days=recipe["days"])
    if facts.first_posted is not None and facts.last_posted is not None and not (
            start <= facts.first_posted and facts.last_posted < end):
        problems.append(f"{MANIFEST}: notifications are posted from {facts.first_posted} to "
                        f"{facts.last_posted}, not within the recipe's {recipe['days']} days from "
                        f"{recipe['start']}")
    stated = {"opened": facts.opened,
              "first_posted": None if facts.first_posted is None else str(facts.first_posted),
              "last_posted": None if facts.last_posted is None else str(facts.last_posted)}
    for key, value in stated.items():
        if key in manifest and manifest[key] != value:
            problems.append(f"{MANIFEST}: {key} is {manifest[key]!r}; the notifications give {value!r}")
    return problems


def split_users_problems(description: dict, source: str) -> list[str]:
    """Every statement of a split's description about its users that its recipe contradicts.

    Parameters
    ----------
    description : dict
        The split's ``split.json``, its recipe and parts checked already.
    source : str
        Its name in the messages.

    Returns
    -------
    list of str
        A ``users`` that is not the recipe's, and each part whose users are not among the
        recipe's (from its ``first_user``); an empty list: none.
    """
    recipe, problems = description["recipe"], []
    stated = description.get("users", recipe["users"])
    if stated != recipe["users"]:
        problems.append(f"{source}: users is {stated!r}; the recipe's users are {recipe['users']}")
    first_user = recipe.get("first_user", 0)
    expected = range(first_user, first_user + recipe["users"])
    for part, entry in description["parts"].items():
        outside = [user for user in entry.get("users", []) if user not in expected]
        if outside:
            problems.append(f"{source}: the part {part} gives users {id_span(outside)}, not among the "
                            f"recipe's {id_span(list(expected))}")
    return problems
