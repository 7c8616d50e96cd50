"""Replay data: a split part's rows as numpy code arrays, and one user's episode of them.

A ``ReplayPart`` holds every row of one part of a split (e.g. task 2's test part) sorted by
user and posting time, with the ground truth behind each logged action: the dynamic state
(hour, days, asleep, fatigue), the random draw and P(open). An ``Episode`` is one user's
slice of it; ``Episode.scorer`` precomputes what a step needs to judge a notification.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.dataset import TRUTH, DatasetError, read_parameters
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES, OPENED, frame_codes
from pushgen.model.engagement import DYNAMIC_FIELDS, DynamicState, EngagementParameters, open_logit
from pushgen.splits import SPLIT_FILE, read_part, resolve_split

PARTS = {1: ("train", "validation", "test"), 2: ("test",)}
LISTED_USERS = 30


def open_split(source: str | Path) -> Path:
    """The split folder of a path or a standard split's name, as an absolute path."""
    return resolve_split(source).resolve()


def split_description(folder: Path) -> dict:
    return json.loads((folder / SPLIT_FILE).read_text())


@dataclass(frozen=True)
class Engagement:
    """Ground truth of rows: the state, draw and P(open) that decided each logged action."""

    state: DynamicState
    draw: np.ndarray
    p_open: np.ndarray

    def take(self, index: slice | np.ndarray) -> Engagement:
        return Engagement(self.state.take(index), self.draw[index], self.p_open[index])


@dataclass(frozen=True)
class ReplayPart:
    """Every row of one part of a split, sorted by (user, posting time)."""

    folder: Path
    name: str
    task: int
    part: str
    user_ids: np.ndarray  # per row
    context_ids: np.ndarray  # per row
    codes: dict[str, np.ndarray]  # per feature: schema codes per row
    logged_opened: np.ndarray
    truth: Engagement
    parameters: EngagementParameters
    users: np.ndarray  # sorted unique
    _bounds: dict[int, tuple[int, int]]
    _users_by_part: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _episodes: dict[int, Episode] = field(default_factory=dict, repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"task {self.task}'s {self.part} part of split {self.name}"

    def check_user(self, user: int | None) -> int:
        """``user`` if it has rows here (default: the first user); else a clear error."""
        if user is None:
            if not len(self.users):
                raise DatasetError(f"{self.label} has no users")
            return int(self.users[0])
        if isinstance(user, (int, np.integer)) and not isinstance(user, bool) and int(
                user) in self._bounds:
            return int(user)
        listed = ", ".join(str(u) for u in self.users[:LISTED_USERS])
        more = f", ... ({len(self.users)} in all)" if len(self.users) > LISTED_USERS else ""
        elsewhere = [part for part, users in self._users_by_part.items()
                     if part.endswith("/test") and user in users]
        hint = (f" (it is a user of task {elsewhere[0][4]}'s test part: pass task={elsewhere[0][4]})"
                if elsewhere else "")
        raise DatasetError(f"user {user!r} is not in {self.label}{hint}; "
                           f"available users: {listed}{more}")

    def rows_of(self, user: int) -> slice:
        start, stop = self._bounds[self.check_user(user)]
        return slice(start, stop)

    def episode(self, user: int | None = None) -> Episode:
        user = self.check_user(user)
        if user not in self._episodes:
            rows = self.rows_of(user)
            self._episodes[user] = Episode(
                user_id=user,
                context_ids=self.context_ids[rows],
                codes={f: c[rows] for f, c in self.codes.items()},
                logged_opened=self.logged_opened[rows],
                truth=self.truth.take(rows),
                parameters=self.parameters,
            )
        return self._episodes[user]

    def logits(self, notification_codes: dict[str, np.ndarray],
               rows: slice | np.ndarray = slice(None)) -> np.ndarray:
        """``open_logit`` of the given notifications in the contexts of ``rows``."""
        codes = {f: self.codes[f][rows] for f in CONTEXT_FEATURES}
        codes.update(notification_codes)
        param_rows = self.parameters.rows(self.user_ids[rows])
        return open_logit(self.parameters, param_rows, codes, self.truth.take(rows).state)


@dataclass
class Episode:
    """One user's rows of a part, in time order."""

    user_id: int
    context_ids: np.ndarray
    codes: dict[str, np.ndarray]
    logged_opened: np.ndarray
    truth: Engagement
    parameters: EngagementParameters
    _rows: dict[tuple[str, ...], list[tuple[int, ...]]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.context_ids)

    @cached_property
    def parameter_row(self) -> int:
        return int(self.parameters.rows(np.array([self.user_id]))[0])

    def logits(self, notification_codes: dict[str, np.ndarray],
               rows: slice = slice(None)) -> np.ndarray:
        """``open_logit`` of one notification per row (arrays of codes) in the contexts of
        ``rows`` of this episode."""
        codes = {f: self.codes[f][rows] for f in CONTEXT_FEATURES}
        codes.update(notification_codes)
        state = self.truth.state.take(rows)
        param_rows = np.full(len(state.hour), self.parameter_row)
        return open_logit(self.parameters, param_rows, codes, state)

    @cached_property
    def scorer(self) -> StepScorer:
        return StepScorer(self)

    def rows_in_order(self, keys: tuple[str, ...]) -> list[tuple[int, ...]]:
        """Per row, the codes of ``keys`` as plain ints (observations are built from these)."""
        if keys not in self._rows:
            self._rows[keys] = list(zip(*(self.codes[k].tolist() for k in keys), strict=True))
        return self._rows[keys]


class StepScorer:
    """The logit of one generated notification at one row, in a handful of float additions.

    The context's weights and the state terms are precomputed per row; a step adds the 7
    notification weights to the intercept and then the row's terms in ``open_logit``'s own
    order. Float addition is not associative, so keeping that order makes the result equal
    to ``open_logit`` bit for bit, not merely close.
    """

    def __init__(self, episode: Episode) -> None:
        params, r, n = episode.parameters, episode.parameter_row, len(episode)
        s = params.scalars
        rows = np.full(n, r)
        state = episode.truth.state
        self.intercept = float(s["intercept"][r])
        self.notification_weights = [params.weights[f][r].tolist() for f in NOTIFICATION_FEATURES]
        context = np.column_stack(
            [params.weights[f][rows, episode.codes[f]] for f in CONTEXT_FEATURES])
        attention = s["attention_amplitude"][rows] * np.cos(
            2 * np.pi * (state.hour - s["attention_peak"][rows]) / 24)
        asleep = s["asleep_penalty"][rows] * state.asleep
        fatigue = -(s["fatigue_weight"][rows] * state.fatigue)
        novelty = s["novelty"][rows] * np.exp(-state.days / params.novelty_days)
        self.context_terms: list[list[float]] = context.tolist()
        self.state_terms: list[list[float]] = np.column_stack(
            [attention, asleep, fatigue, novelty, state.mood]).tolist()
        chatting = (episode.codes["headphonesIn"] == schemas.field("headphonesIn").code(True)) & (
            episode.codes["musicActive"] == schemas.field("musicActive").code(True))
        self.chat_context: list[bool] = chatting.tolist()
        self.chat_bonus = float(s["audio_chat_bonus"][r])
        self.category_position = NOTIFICATION_FEATURES.index("category")
        self.msg = schemas.field("category").code("msg")

    def logit(self, row: int, codes: tuple[int, ...] | list[int]) -> float:
        """Log-odds of opening the notification with ``codes`` (NOTIFICATION_FEATURES order)."""
        total = self.intercept
        for weights, code in zip(self.notification_weights, codes, strict=True):
            total += weights[code]
        for term in self.context_terms[row]:
            total += term
        if self.chat_context[row] and codes[self.category_position] == self.msg:
            total += self.chat_bonus
        for term in self.state_terms[row]:
            total += term
        return total


def load_part(source: str | Path, task: int = 2, part: str = "test") -> ReplayPart:
    """One part of a split (a folder or a standard split's name), cached per process."""
    if task not in PARTS:
        raise DatasetError(f"task must be 1 or 2; got {task!r}")
    if part not in PARTS[task]:
        raise DatasetError(f"task {task} has no {part!r} part; parts: {', '.join(PARTS[task])}")
    folder = open_split(source)
    stamp = (folder / SPLIT_FILE).stat().st_mtime_ns
    return _load_part(folder, task, part, stamp)


@lru_cache(maxsize=8)
def _load_part(folder: Path, task: int, part: str, stamp: int) -> ReplayPart:
    frame = read_part(folder, f"task{task}/{part}")
    frame = frame.sort_values(["user_id", "posted_at", "notification_id"], kind="stable")
    ids = frame["notification_id"].to_numpy(dtype=np.int64)
    truth = _truth_rows(folder).reindex(ids)
    if truth["draw"].isna().any():
        missing = ids[truth["draw"].isna().to_numpy()][0]
        raise DatasetError(f"{folder}: no ground truth for notification {missing}")
    user_ids = frame["user_id"].to_numpy(dtype=np.int64)
    users, starts = np.unique(user_ids, return_index=True)
    stops = np.r_[starts[1:], len(user_ids)] if len(starts) else starts
    action = frame_codes(frame, ("action",))["action"]
    description = split_description(folder)
    return ReplayPart(
        folder=folder,
        name="-".join(str(v) for v in (description.get("name") or folder.name,
                                         description.get("version")) if v),
        task=task,
        part=part,
        user_ids=user_ids,
        context_ids=frame["context_id"].to_numpy(dtype=np.int64) if "context_id" in frame else ids,
        codes=frame_codes(frame, NOTIFICATION_FEATURES + CONTEXT_FEATURES),
        logged_opened=action == OPENED,
        truth=Engagement(
            state=DynamicState.from_frame(truth),
            draw=truth["draw"].to_numpy(dtype=np.float64),
            p_open=truth["p_open"].to_numpy(dtype=np.float64),
        ),
        parameters=read_parameters(folder),
        users=users,
        _bounds={int(u): (int(a), int(b)) for u, a, b in zip(users, starts, stops, strict=True)},
        _users_by_part={name: list(part["users"])
                        for name, part in description.get("parts", {}).items()},
    )


def _truth_rows(folder: Path) -> pd.DataFrame:
    columns = ["notification_id", *DYNAMIC_FIELDS, "draw", "p_open"]
    table = pq.read_table(folder / TRUTH / "engagement_rows.parquet", columns=columns)
    return table.to_pandas().set_index("notification_id")
