"""A native vector version of ``pushgen/NotificationGeneration-v0``: many episodes in one call.

    envs = gym.make_vec("pushgen/NotificationGeneration-v0", num_envs=256,
                        vectorization_mode="vector_entry_point", split="pushgen-v2", task=1)

Environment ``i`` replays the episodes of user ``users[i % len(users)]`` (default: every user of
the task's test part, in order), again and again. One ``step`` judges the ``num_envs``
notifications together with one batched call of the simulated user
(``pushgen.replay.scoring.Judge``: fatigue and habituation follow each environment's own
notifications), so P(open) is that of ``num_envs`` single environments stepped with the same
actions. Environment ``i`` draws its responses from its own outcome generator
(``pushgen.envs.outcomes``), one draw a step, seeded by fresh entropy at each
``reset(seed=...)``, or by ``E + i`` when the scorer gives ``options={"outcome_entropy": E}``,
so that it replays exactly a single environment reset with outcome entropy ``E + i`` and the
same actions. The default mode is ``sampled``, as for the single environment. Observations are
the batched ``Dict`` of context codes, actions the batched ``Dict`` of notification codes (or,
with ``flat_actions=True``, an ``(num_envs, 7)`` array in ``NOTIFICATION_FEATURES`` order).

Autoreset follows gymnasium's default (next step): the step after an episode ends resets that
environment, returning its first context with reward 0 and ``terminated`` false, and ignores
its action. ``infos`` holds, for the environments that stepped, ``opened``, ``logged_opened``
and (in the ``expected`` evaluation mode only) ``p_open``, each with gymnasium's ``_name`` mask.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pushgen.checks import whole_number
from pushgen.envs import spaces
from pushgen.envs.base import Shown, check_reset_options, load_user_part, users_text
from pushgen.envs.generation import action_form
from pushgen.envs.outcomes import OutcomeDraws
from pushgen.replay.parts import ReplayPart
from pushgen.replay.rewards import check_mode, rewards
from pushgen.replay.scoring import Judge


def episode_users(split: str | Path, num_envs: int, task: int | None, users: list[int] | None, part: str,
                  render_mode: str | None) -> tuple[ReplayPart, np.ndarray]:
    """The options of a native vector environment checked: the part it plays and environment
    ``i``'s user, ``users[i % len(users)]`` (default: every user of the part, in order)."""
    whole_number("num_envs", num_envs, 1)
    if render_mode is not None:
        raise ValueError(f"the vector environment does not render; got render_mode={render_mode!r}")
    replay = load_user_part(split, None if not users else users[0], task, part)
    chosen = [int(u) for u in replay.users] if users is None else [replay.check_user(int(u)) for u in users]
    if not chosen:
        raise ValueError("users is empty; give some users of the part or None for all")
    return replay, np.array([chosen[i % len(chosen)] for i in range(num_envs)], dtype=np.int64)


def vector_facts(env: Any) -> list[tuple[str, str]]:
    """What a native vector environment ``env`` plays, as its notebook facts."""
    users = users_text(env.users.tolist(), len(env.replay.users))
    return [("environments", f"{env.num_envs:,}"), ("users", users), ("mode", env.mode)]


def context_matrix(replay: ReplayPart, rows: np.ndarray) -> np.ndarray:
    """(rows, context features): the context codes of ``rows`` of ``replay``, one row each."""
    return np.column_stack([np.asarray(replay.codes[f], dtype=np.int64)[rows]
                            for f in spaces.CONTEXT_FEATURES])


def context_columns(contexts: np.ndarray, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The batched context observation of ``rows`` of ``context_matrix``: one gather, then a column
    per feature (views of an array the caller owns)."""
    taken = contexts[rows]
    return {f: taken[:, j] for j, f in enumerate(spaces.CONTEXT_FEATURES)}


class ReplayVectorEnv(Shown, VectorEnv):
    """What the native vector environments share: environment ``i`` replays the episode of user
    ``users[i % len(users)]``, judged with the others by one ``Judge``, draws one outcome a step,
    and resets at the step after its episode ends (gymnasium's next-step autoreset)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (gymnasium's own attribute)
    _first: np.ndarray  # each environment's first row
    _length: np.ndarray  # each environment's episode length

    def _replay(self, split: str | Path, num_envs: int, task: int | None, users: list[int] | None,
                part: str, render_mode: str | None) -> None:
        self.replay, self.users = episode_users(split, num_envs, task, users, part, render_mode)
        self.num_envs = int(num_envs)
        self._judge = Judge(self.replay, self.users)
        self._slots = np.arange(self.num_envs)
        self._position = np.zeros(self.num_envs, dtype=np.int64)
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._draws = OutcomeDraws.at_reset(self.num_envs, None)

    def _observe(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _rows(self) -> np.ndarray:
        """Each environment's row now (its last once its episode has ended)."""
        return self._first + np.minimum(self._position, self._length - 1)

    def _restart(self, slots: np.ndarray) -> None:
        """Environments ``slots`` back at the first context of their episode."""
        self._position[slots] = 0
        self._judge.reset(slots)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_reset_options(options, ("outcome_entropy",))
        super().reset(seed=seed)
        if seed is not None or (options or {}).get("outcome_entropy") is not None:
            self._draws = OutcomeDraws.at_reset(self.num_envs, options)
        self._needs_reset[:] = False
        self._restart(self._slots)
        return self._observe(), {"user_id": self.users.copy(), "_user_id": np.ones(self.num_envs, dtype=bool)}

    def _autoreset(self) -> np.ndarray:
        """Restart the environments whose episode ended at the last step; which ones step now."""
        resetting = self._needs_reset
        if resetting.any():
            self._restart(np.flatnonzero(resetting))
        return ~resetting

    def _advance(self, stepping: np.ndarray) -> np.ndarray:
        """The environments that stepped move to their next context; whether each episode ended."""
        self._position[stepping] += 1
        terminated = stepping & (self._position >= self._length)
        self._needs_reset = terminated.copy()
        return terminated


class NotificationGenerationVectorEnv(ReplayVectorEnv):
    """``num_envs`` episodes of ``NotificationGeneration-v0`` stepped as numpy arrays.

    Environment ``i`` replays the episodes of user ``users[i % len(users)]`` again and again; one
    ``step`` judges the ``num_envs`` notifications with one batched call of the simulated user;
    given ``options={"outcome_entropy": E}`` at reset, environment ``i`` replays exactly a single
    environment reset with outcome entropy ``E + i`` and the same actions. Autoreset is
    gymnasium's next-step mode.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    num_envs : int, default 1
        How many episodes step together, >= 1.
    task : int, optional
        1 or 2; by default the task of the first of ``users``, or 2.
    users : list of int, optional
        The users whose episodes the environments replay; by default every user of the part.
    part : str, default "test"
        The part played.
    mode : str, default "sampled"
        ``"sampled"`` (learners) or ``"expected"`` (evaluation) rewards.
    flat_actions : bool, default False
        Take the actions as one ``(num_envs, 7)`` array of codes.
    render_mode : None
        The vector environment does not render.

    Raises
    ------
    ValueError
        When ``num_envs`` is not a whole number >= 1, ``render_mode`` is given, or another option is
        out of its range.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen
    >>> envs = gym.make_vec("pushgen/NotificationGeneration-v0", num_envs=4,
    ...                     vectorization_mode="vector_entry_point", split="pushgen-mini-v4", task=1)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations["place"].shape
    (4,)
    >>> observations, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
    >>> rewards.shape
    (4,)
    """

    def __init__(self, split: str | Path, num_envs: int = 1, task: int | None = None,
                 users: list[int] | None = None, part: str = "test", mode: str = "sampled",
                 flat_actions: bool = False, render_mode: str | None = None) -> None:
        self._replay(split, num_envs, task, users, part, render_mode)
        self.mode = check_mode(mode)
        self.flat_actions = flat_actions
        spans = [self.replay.rows_of(int(u)) for u in self.users]
        self._first = np.array([s.start for s in spans], dtype=np.int64)
        self._length = np.array([s.stop - s.start for s in spans], dtype=np.int64)
        self.single_observation_space = spaces.context_space()
        self.single_action_space = spaces.notification_space(flat_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._contexts = context_matrix(self.replay, np.arange(len(self.replay.seconds)))
        self._logged = np.asarray(self.replay.logged_opened, dtype=bool)
        self._sizes = np.array(spaces.NOTIFICATION_SIZES)

    def _facts(self) -> list[tuple[str, str]]:
        return [*vector_facts(self), ("actions", action_form(self.flat_actions))]

    def _observe(self) -> dict[str, np.ndarray]:
        return context_columns(self._contexts, self._rows())

    def _codes(self, actions: Any) -> dict[str, np.ndarray]:
        if self.flat_actions:
            return spaces.flat_to_codes(actions, self.num_envs)
        if not isinstance(actions, dict) or set(actions) != set(spaces.NOTIFICATION_FEATURES):
            raise ValueError("actions are a dict of code arrays, one per notification feature: "
                             f"{', '.join(spaces.NOTIFICATION_FEATURES)}")
        codes = {name: np.asarray(actions[name]) for name in spaces.NOTIFICATION_FEATURES}
        for name, array in codes.items():
            if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
                raise ValueError(f"actions[{name!r}] must be {self.num_envs} whole-number codes; got "
                                 f"shape {array.shape}, dtype {array.dtype}")
        stacked = np.stack(list(codes.values()))
        if stacked.min() < 0 or (stacked.max(axis=1) >= self._sizes).any():
            j = int(np.flatnonzero((stacked.min(axis=1) < 0) | (stacked.max(axis=1) >= self._sizes))[0])
            raise ValueError(f"actions[{spaces.NOTIFICATION_FEATURES[j]!r}]: a code is outside "
                             f"0..{self._sizes[j] - 1}")
        return codes

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        codes = self._codes(actions)
        stepping = self._autoreset()
        if not stepping.all():
            slots = np.flatnonzero(stepping)
            codes = {f: c[slots] for f, c in codes.items()}
        else:  # every environment steps: no copies by slot
            slots = self._slots
        rows = self._first[slots] + self._position[slots]
        p = self._judge.step(slots, rows, codes)
        logged, draw = self._logged[rows], self._draws.next(stepping)[slots]
        p_open, reward = np.zeros(self.num_envs), np.zeros(self.num_envs)
        opened, logged_opened = np.zeros(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool)
        p_open[slots], reward[slots] = p, rewards(logged, p, draw, self.mode)
        opened[slots], logged_opened[slots] = draw < p, logged
        terminated = self._advance(stepping)
        infos = {"opened": opened, "_opened": stepping, "logged_opened": logged_opened,
                 "_logged_opened": stepping}
        if self.mode == "expected":
            infos.update(p_open=p_open, _p_open=stepping)
        return self._observe(), reward, terminated, np.zeros(self.num_envs, dtype=bool), infos
