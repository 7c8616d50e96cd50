"""A split part as the scorer sees it: contexts, the logged notifications and the simulated user.

A ``ReplayPart`` holds every row of one part (e.g. task 2's test part) sorted by user and
posting time: the context and logged notification codes, the logged action, the time of
each row (seconds from the start of the test months) and, for test parts, the ground truth
behind each logged action (hidden row state, random draw) and the state each user starts in.
An ``Episode`` is one user's slice of it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.arrow_numpy import to_numpy
from pushgen.data.dataset import DatasetError, read_parameters
from pushgen.data.folder_lock import session
from pushgen.data.outputs import read_json_object
from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import (
    MODEL_VERSION,
    ROW_FIELDS,
    EngagementParameters,
    RowState,
    RowTerms,
    row_terms,
)
from pushgen.model.exposure import EXPOSURE_FIELDS, key_sizes
from pushgen.publishing.access import resolve_split
from pushgen.publishing.registry import other_model_advice
from pushgen.replay.part_files import dictionary_map, positions, read_columns, read_rows
from pushgen.splits import SCORER_MODEL_FILE, SPLIT_FILE, TEST_PARTS, SplitSpec, boundaries, task_number
from pushgen.splits.scorer import OFF_KEYS, SCORER, SCORER_TRUTH, turn_off

PARTS = {1: ("train", "validation", "test"), 2: ("test",)}
LISTED_USERS = 30
NOTIFICATION_FEATURES = schemas.NOTIFICATION_FEATURES
CONTEXT_FEATURES = schemas.CONTEXT_FEATURES


@dataclass(frozen=True)
class Truth:
    """What decided each logged test action, and where each user's state starts."""

    state: RowState
    draw: np.ndarray
    initial: dict[str, np.ndarray]  # key -> (part users, key size) exposure at the test start
    turned_off: np.ndarray | None = None  # per row, whether its delivery turned its app or channel off

    def take(self, index: slice | np.ndarray) -> Truth:
        return Truth(self.state.take(index), self.draw[index], self.initial,
                     None if self.turned_off is None else self.turned_off[index])


@dataclass(frozen=True)
class ReplayPart:
    """Every row of one part of a split, sorted by (user, posting time)."""

    folder: Path
    name: str
    task: int
    part: str
    user_ids: np.ndarray  # per row
    context_ids: np.ndarray  # per row
    seconds: np.ndarray  # per row, from the start of the test months
    codes: dict[str, np.ndarray]  # per feature: schema codes per row (context and logged notification)
    logged_opened: np.ndarray
    truth: Truth | None  # test parts only
    parameters: EngagementParameters | None  # test parts only
    users: np.ndarray  # sorted unique
    _bounds: dict[int, tuple[int, int]]
    _users_by_part: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _episodes: dict[int, Episode] = field(default_factory=dict, repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"task {self.task}'s {self.part} part of split {self.name}"

    @property
    def test_truth(self) -> Truth:
        """``truth``, which a test part has (a DatasetError for another part)."""
        if self.truth is None:
            raise DatasetError(f"{self.label} has no ground truth: only test parts have one")
        return self.truth

    @property
    def test_parameters(self) -> EngagementParameters:
        """``parameters``, which a test part has (a DatasetError for another part)."""
        if self.parameters is None:
            raise DatasetError(f"{self.label} has no user parameters: only test parts have them")
        return self.parameters

    @cached_property
    def parameter_rows(self) -> np.ndarray:
        """Per row, its user's row in ``parameters``."""
        return self.parameters.rows(self.user_ids) if self.parameters is not None else self.user_ids

    @cached_property
    def row_terms(self) -> RowTerms:
        """The row part of the engagement logit of every row (test parts)."""
        return row_terms(self.test_parameters, self.parameter_rows, self.codes, self.test_truth.state)

    def user_index(self, user: int) -> int:
        """Position of ``user`` among the part's users (the row of its initial state)."""
        return int(np.searchsorted(self.users, user))

    def check_user(self, user: int | None) -> int:
        """``user`` if it has rows here (default: the first user); else a clear error."""
        if user is None:
            if not len(self.users):
                raise DatasetError(f"{self.label} has no users")
            return int(self.users[0])
        if not isinstance(user, (int, np.integer)) or isinstance(user, bool):
            raise DatasetError(f"user must be a whole number (a user id of {self.label}); got {user!r}")
        if int(user) in self._bounds:
            return int(user)
        listed = ", ".join(str(u) for u in self.users[:LISTED_USERS])
        more = f", ... ({len(self.users)} in all)" if len(self.users) > LISTED_USERS else ""
        elsewhere = [part for part, users in self._users_by_part.items()
                     if part.startswith("task") and part.endswith("/test") and user in users]
        hint = (f" (it is a user of task {elsewhere[0][4]}'s test part: pass task={elsewhere[0][4]})"
                if elsewhere else "")
        raise DatasetError(f"user {user!r} is not in {self.label}{hint}; available users: {listed}{more}")

    def rows_of(self, user: int) -> slice:
        start, stop = self._bounds[self.check_user(user)]
        return slice(start, stop)

    def episode(self, user: int | None = None) -> Episode:
        user = self.check_user(user)
        if user not in self._episodes:
            self._episodes[user] = Episode(self, user, self.rows_of(user))
        return self._episodes[user]


@dataclass
class Episode:
    """One user's rows of a part, in time order."""

    part: ReplayPart
    user_id: int
    rows: slice[int, int, int | None]
    _rows: dict[tuple[str, ...], list[tuple[int, ...]]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return self.rows.stop - self.rows.start

    @cached_property
    def context_ids(self) -> np.ndarray:
        return self.part.context_ids[self.rows]

    @cached_property
    def codes(self) -> dict[str, np.ndarray]:
        return {f: c[self.rows] for f, c in self.part.codes.items()}

    @cached_property
    def logged_opened(self) -> np.ndarray:
        return self.part.logged_opened[self.rows]

    @cached_property
    def draw(self) -> np.ndarray:
        return self.part.test_truth.draw[self.rows]

    def rows_in_order(self, keys: tuple[str, ...]) -> list[tuple[int, ...]]:
        """Per row, the codes of ``keys`` as plain ints (observations are built from these)."""
        if keys not in self._rows:
            self._rows[keys] = list(zip(*(self.codes[k].tolist() for k in keys), strict=True))
        return self._rows[keys]


@session()
def load_part(source: str | Path, task: int = 2, part: str = "test") -> ReplayPart:
    """One part of a split (a folder or a standard split's name), cached per process."""
    task = task_number(task)
    if part not in PARTS[task]:
        raise DatasetError(f"task {task} has no {part!r} part; parts: {', '.join(PARTS[task])}")
    folder = resolve_split(source).resolve()
    stamp = (folder / SPLIT_FILE).stat().st_mtime_ns
    check_model_version(folder)
    return _load_part(folder, task, part, stamp)


def check_model_version(folder: Path) -> None:
    """An error naming the split and what to use instead if it was simulated by another
    engagement model than this pushgen's (which scores only its own model)."""
    model_file = folder / SCORER_MODEL_FILE
    version = read_json_object(model_file).get("model_version") if model_file.is_file() else 1
    if version == MODEL_VERSION:
        return
    description = json.loads((folder / SPLIT_FILE).read_text())
    label = "-".join(str(v) for v in (description.get("name") or folder.name, description.get("version"))
                     if v)
    raise DatasetError(f"{label} was simulated with engagement model {version} and this pushgen scores "
                       f"model {MODEL_VERSION}: {other_model_advice(label)}")


@lru_cache(maxsize=8)
def _load_part(folder: Path, task: int, part: str, stamp: int) -> ReplayPart:
    description = json.loads((folder / SPLIT_FILE).read_text())
    name = f"task{task}/{part}"
    test = name == TEST_PARTS.get(task)
    rows = read_rows(folder, task, part, test)
    users, starts = np.unique(rows.user_ids, return_index=True)
    stops = np.r_[starts[1:], len(rows.user_ids)] if len(starts) else starts
    posted_ms = rows.posted_at.astype("datetime64[ms]").astype(np.int64)
    truth = parameters = None
    if test:
        parameters = read_parameters(folder / SCORER)
        truth = _truth(folder, rows.row_ids, users, parameters)
    return ReplayPart(
        folder=folder,
        name="-".join(str(v) for v in (description.get("name") or folder.name, description.get("version"))
                      if v),
        task=task,
        part=part,
        user_ids=rows.user_ids,
        context_ids=rows.context_ids,
        seconds=(posted_ms - _test_start_ms(description)) / 1000.0,
        codes=rows.codes,
        logged_opened=rows.action == schemas.field("action").code("opened"),
        truth=truth,
        parameters=parameters,
        users=users,
        _bounds={int(u): (int(a), int(b)) for u, a, b in zip(users, starts, stops, strict=True)},
        _users_by_part={name: list(p["users"]) for name, p in description.get("parts", {}).items()},
    )


def _test_start_ms(description: dict[str, Any]) -> int:
    spec = SplitSpec(**description["split"])
    _, test_start, _ = boundaries(dt.date.fromisoformat(description["recipe"]["start"]), spec)
    return int(test_start.astype("datetime64[ms]").astype(np.int64))


def _truth(folder: Path, row_ids: np.ndarray, users: np.ndarray, parameters: EngagementParameters) -> Truth:
    table = read_columns(folder / SCORER_TRUTH / "engagement_rows.parquet",
                         ("notification_id", *ROW_FIELDS, "draw", "turned_off"), dictionaries=("turned_off",))
    at = positions(to_numpy(table.column("notification_id")), row_ids)

    def column(name: str, dtype: type) -> np.ndarray:
        values: np.ndarray = to_numpy(table.column(name))[at]
        return values.astype(dtype, copy=False)

    draw = column("draw", np.float64) if len(table) else np.zeros(len(at))
    draw[at < 0] = np.nan
    if np.isnan(draw).any():
        raise DatasetError(f"{folder}: no ground truth for context {row_ids[np.isnan(draw)][0]}")
    state = RowState(**{name: column(name, bool if name == "asleep" else np.float64) for name in ROW_FIELDS})
    initial_rows = pq.read_table(folder / SCORER_TRUTH / "initial_state.parquet").to_pandas()
    sizes = {"fatigue": 1, **key_sizes(len(app_catalog().channels.names))}
    initial = {key: np.zeros((len(users), sizes[key])) for key in EXPOSURE_FIELDS}
    position = pd.Series(np.arange(len(users)), index=users)
    off = initial_rows["key"].isin(OFF_KEYS)
    turn_off(parameters, initial_rows[off])
    for key, group in initial_rows[~off].groupby("key"):
        known = group["user_id"].isin(users).to_numpy()
        group = group[known]
        initial[str(key)][position[group["user_id"].to_numpy()].to_numpy(),
                          group["index"].to_numpy()] = group["value"].to_numpy()
    turned_off = None
    if "turned_off" in table.column_names:  # model 4 on: per row, whether its delivery turned something off
        turned_off = dictionary_map(table.column("turned_off"), {"none": False}, True, bool)[at]
    return Truth(state=state, draw=draw, initial=initial, turned_off=turned_off)
