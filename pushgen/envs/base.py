"""What both replay environments share: the split, the user, the step through an episode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from pushgen import schemas
from pushgen.data.errors import DatasetError
from pushgen.data.folder_lock import session
from pushgen.publishing.access import resolve_split
from pushgen.replay.parts import Episode, ReplayPart, load_part
from pushgen.splits import SPLIT_FILE
from pushgen.text_tables import counted, html_table

SHOWN_USERS = 5
FACTS_WIDTH = 100


class Shown:
    """What a notebook shows of an environment: which one, on which part of which split, which
    user(s) and options. ``str`` is one line (gymnasium's wrappers print it inside theirs),
    ``repr`` adds a line of facts, ``_repr_html_`` a table of both."""

    replay: ReplayPart

    def _facts(self) -> list[tuple[str, str]]:
        """The facts after the headline, label and value (the environment's own options)."""
        raise NotImplementedError

    def _headline(self) -> str:
        return f"{type(self).__name__} on {self.replay.label}"

    def __str__(self) -> str:
        try:
            return f"<{self._headline()}>"
        except AttributeError:  # not made yet (an error in the constructor)
            return object.__repr__(self)

    def __repr__(self) -> str:
        try:
            facts = self._facts()
        except AttributeError:
            return object.__repr__(self)
        lines = [""]
        for label, value in facts:  # lines of whole facts
            fact = f"{label} {value}"
            if lines[-1] and len(lines[-1]) + len(fact) + 2 > FACTS_WIDTH:
                lines[-1] += ","
                lines.append("")
            lines[-1] += f", {fact}" if lines[-1] else fact
        return "\n ".join([f"<{self._headline()}", *lines]) + ">"

    def _repr_html_(self) -> str:
        return html_table(["", ""], self._facts(), caption=f"pushgen {self._headline()}")


def users_text(users: list[int], of: int) -> str:
    """Which of a part's ``of`` users: the first few, and how many."""
    distinct = sorted(set(users))
    if len(distinct) == 1:
        return f"{distinct[0]} (one of the part's {counted(of, 'user')})"
    more = ", ..." if len(distinct) > SHOWN_USERS else ""
    shown = ", ".join(str(u) for u in distinct[:SHOWN_USERS]) + more
    return f"{shown} ({len(distinct):,} of the part's {counted(of, 'user')})"


class ReplayEnv(Shown, gym.Env):
    """Steps through one user's rows of a split part in time order.

    ``split`` is a standard split's name or a split folder; ``user`` a user of the part
    (default: its first user). ``reset(options={"user": id})`` switches to another user; an
    option the environment does not take (``reset_options``) is a ``ValueError``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (gymnasium's own attribute)
    env_id = ""
    reset_options: tuple[str, ...] = ("user",)
    mode: str | None = None  # the reward mode, in the environments that have one
    # the context features of an observation, and per row of the episode their codes in that order
    # (set by the environments that render a context with _context_head)
    _keys: tuple[str, ...]
    _contexts: list[tuple[int, ...]]

    def __init__(self, split: str | Path, user: int | None, task: int | None, part: str,
                 render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None; "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self.replay = load_user_part(split, user, task, part)
        self._row = 0
        self._use_user(user)

    def _use_user(self, user: int | None) -> None:
        self.episode: Episode = self.replay.episode(user)
        self.user = self.episode.user_id
        self._n = len(self.episode)
        self._context_ids = self.episode.context_ids.tolist()
        self._logged = self.episode.logged_opened.tolist()

    def _facts(self) -> list[tuple[str, str]]:
        facts = [("user", users_text([self.user], len(self.replay.users))),
                 ("step", f"{self._row:,} of {self._n:,}")]
        return facts + ([("mode", self.mode)] if self.mode is not None else [])

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        check_reset_options(options, self.reset_options)
        super().reset(seed=seed)
        if options and "user" in options:
            self._use_user(options["user"])
        self._row = 0

    def _check_running(self) -> int:
        if self._row >= self._n:
            raise gym.error.ResetNeeded("the episode is over (the user's last context was "
                                        "answered); call reset() first")
        return self._row

    @property
    def next_context(self) -> int:
        """The index of the episode's next context (its last once the episode has ended)."""
        return min(self._row, self._n - 1)

    def _header(self) -> str:
        return (f"{self.env_id}  split {self.replay.name}  task {self.replay.task}"
                f" ({self.replay.part})  user {self.user}  step {self._row}/{self._n}")

    def _context_head(self, row: int) -> list[str]:
        """The first lines of a rendering: the episode, its reward mode and the context of ``row``."""
        return [f"{self._header()}  mode {self.mode}",
                "context   " + self._describe(self._keys, self._contexts[row])]

    @staticmethod
    def _describe(features: tuple[str, ...], codes: tuple[int, ...] | list[int]) -> str:
        return " ".join(f"{f}={schemas.values(f)[c]}" for f, c in zip(features, codes, strict=True))


def listed(users: list[int]) -> str:
    """The first users of a list, and how many there are when not all are shown."""
    more = f", ... ({len(users):,} in all)" if len(users) > SHOWN_USERS else ""
    return ", ".join(str(u) for u in users[:SHOWN_USERS]) + more if users else "none"


def check_reset_options(options: object, allowed: tuple[str, ...]) -> None:
    """Refuse ``reset`` options that are not a dict of the ``allowed`` names: a misspelt option
    (``{"user_id": 2}``) would otherwise be ignored and the episode played as if it were not given."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"reset options are a dict (of {', '.join(allowed)}) or None; got {options!r}")
    unknown = sorted(set(options or {}) - set(allowed), key=str)
    if unknown:
        raise ValueError(f"reset has no option {unknown[0]!r}; its options: {', '.join(allowed)}")


@session()
def load_user_part(split: str | Path, user: int | None, task: int | None, part: str) -> ReplayPart:
    """The part an environment plays (``task`` None: the task whose test part holds ``user``), read
    under one hold of the split folder's read lock: a replacement of the folder meanwhile waits."""
    return load_part(split, task_of_user(split, user) if task is None else task, part)


def task_of_user(split: str | Path, user: int | None) -> int:
    """The task whose test part holds ``user``: 2 (cold start) unless it is a task 1 user, or
    the split has no cold-start users."""
    parts = json.loads((resolve_split(split) / SPLIT_FILE).read_text())["parts"]
    task1 = parts.get("task1/test", {}).get("users", [])
    task2 = parts.get("task2/test", {}).get("users", [])
    if user is None:
        return 2 if task2 else 1
    if isinstance(user, int | np.integer) and not isinstance(user, bool) and user not in [*task1, *task2]:
        raise DatasetError(f"user {user!r} is not a test user of split {split}; task 1's test users: "
                           f"{listed(task1)}; task 2's: {listed(task2)}")
    return 1 if user in task1 and user not in task2 else 2
