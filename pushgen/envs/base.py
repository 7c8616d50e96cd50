"""What both replay environments share: the split, the user, the step through an episode."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym

from pushgen import schemas
from pushgen.replay.parts import Episode, load_part


class ReplayEnv(gym.Env):
    """Steps through one user's rows of a split part in time order.

    ``split`` is a standard split's name or a split folder; ``user`` a user of the part
    (default: its first user). ``reset(options={"user": id})`` switches to another user.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}
    env_id = ""

    def __init__(self, split: str | Path, user: int | None, task: int, part: str,
                 render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None; "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self.replay = load_part(split, task, part)
        self._row = 0
        self._use_user(user)

    def _use_user(self, user: int | None) -> None:
        self.episode: Episode = self.replay.episode(user)
        self.user = self.episode.user_id
        self._n = len(self.episode)
        self._context_ids = self.episode.context_ids.tolist()
        self._logged = self.episode.logged_opened.tolist()

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        if options and "user" in options:
            self._use_user(options["user"])
        self._row = 0

    def _check_running(self) -> int:
        if self._row >= self._n:
            raise gym.error.ResetNeeded("the episode is over (the user's last context was "
                                        "answered); call reset() first")
        return self._row

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
