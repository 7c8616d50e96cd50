"""A native vector version of ``pushgen/NotificationSelection-v0``: many episodes in one call.

    envs = gym.make_vec("pushgen/NotificationSelection-v0", num_envs=256,
                        vectorization_mode="vector_entry_point", split="pushgen-mini-v2", task=1)

Environment ``i`` replays the episode of user ``users[i % len(users)]`` (default: every user of
the task's test part, in order), again and again, with the same candidates as the single
environment (``pushgen.envs.candidates``, same ``k`` and ``candidate_seed``). One ``step``
judges the notifications sent with one batched call of the simulated user
(``pushgen.replay.scoring.Judge``: fatigue and habituation follow each environment's own
notifications; ``stationary=True``: none). Environment ``i`` draws its responses from its own
outcome generator (``pushgen.envs.outcomes``), one draw a step, seeded by fresh entropy at each
``reset(seed=...)``, or by ``E + i`` when the scorer gives ``options={"outcome_entropy": E}``,
so that it replays exactly a single environment reset with outcome entropy ``E + i`` and the
same actions. The default mode is ``sampled``, as for the single environment.

Autoreset follows gymnasium's default (next step). ``infos`` holds ``sent``, ``opened`` and (in
the ``expected`` evaluation mode only) ``p_open`` with gymnasium's ``_name`` masks;
``action_masks()`` the ``(num_envs, k + 1)`` masks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from pushgen.envs.slates import HOURS_CAP, EpisodeSlates, check_options, selection_facts, selection_space
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.envs.vector import ReplayVectorEnv, context_columns, context_matrix, vector_facts
from pushgen.model import simulated_user
from pushgen.replay.rewards import check_mode


class NotificationSelectionVectorEnv(ReplayVectorEnv):
    """``num_envs`` episodes of ``NotificationSelection-v0`` stepped as numpy arrays.

    Environment ``i`` replays the episode of user ``users[i % len(users)]`` again and again, with
    the single environment's candidates; one ``step`` judges the notifications sent with one
    batched call of the simulated user. Seeded ``seed``, environment ``i`` replays exactly a
    single environment reset with ``seed + i`` and the same actions. Autoreset is gymnasium's
    next-step mode.

    Parameters
    ----------
    split : str or pathlib.Path
        As for ``NotificationGenerationVectorEnv``.
    num_envs : int, default 1
        As for ``NotificationGenerationVectorEnv``.
    task : int, optional
        As for ``NotificationGenerationVectorEnv``.
    users : list of int, optional
        As for ``NotificationGenerationVectorEnv``.
    k : int, default 8
        As for ``NotificationSelectionEnv``.
    candidate_seed : int, default 0
        As for ``NotificationSelectionEnv``.
    mode : str, default "sampled"
        As for ``NotificationSelectionEnv``.
    cost : float, default 0.0
        As for ``NotificationSelectionEnv``.
    stationary : bool, default False
        Users without fatigue and habituation.
    render_mode : None
        As for ``NotificationGenerationVectorEnv``, whose errors it raises too.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import pushgen
    >>> envs = gym.make_vec("pushgen/NotificationSelection-v0", num_envs=4,
    ...                     vectorization_mode="vector_entry_point", split="pushgen-mini-v4", task=1)
    >>> observations, infos = envs.reset(seed=0)
    >>> envs.action_masks().shape  # per environment: its k slots and hold
    (4, 9)
    >>> observations, rewards, terminated, truncated, infos = envs.step(np.full(4, 8))  # all hold
    >>> rewards.tolist()
    [0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, split: str | Path, num_envs: int = 1, task: int | None = None,
                 users: list[int] | None = None, k: int = 8, candidate_seed: int = 0,
                 mode: str = "sampled", cost: float = 0.0, stationary: bool = False,
                 render_mode: str | None = None) -> None:
        self._replay(split, num_envs, task, users, "test", render_mode)
        self.k, self.candidate_seed, self.cost = check_options(k, candidate_seed, cost, stationary)
        self.stationary = bool(stationary)
        self.mode = check_mode(mode)
        slates = {u: EpisodeSlates(self.replay, u, self.k, self.candidate_seed)
                  for u in sorted(set(self.users.tolist()))}
        # every user's rows laid end to end: environment i reads its user's block
        order = sorted(slates)
        offsets = np.cumsum([0] + [len(slates[u].rows) for u in order])
        start = dict(zip(order, offsets[:-1], strict=False))
        self._first = np.array([start[int(u)] for u in self.users], dtype=np.int64)
        self._length = np.array([len(slates[int(u)].rows) for u in self.users], dtype=np.int64)
        self._part_rows = np.concatenate([slates[u].rows for u in order])
        self._codes = np.concatenate([slates[u].codes for u in order])
        self._mask = np.concatenate([slates[u].mask for u in order])
        self._static = np.concatenate([slates[u].static for u in order])
        self._seconds = np.concatenate([slates[u].seconds for u in order])
        self._contexts = context_matrix(self.replay, self._part_rows)
        self.single_observation_space = selection_space(self.k)
        self.single_action_space = spaces.Discrete(self.k + 1)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._last_sent = np.zeros(self.num_envs)

    def _facts(self) -> list[tuple[str, str]]:
        return vector_facts(self) + selection_facts(self)

    def _observe(self) -> dict[str, np.ndarray]:
        rows = self._rows()
        hours = np.clip((self._seconds[rows] - self._last_sent) / 3600.0, 0.0, HOURS_CAP)
        return {**context_columns(self._contexts, rows),
                "candidates": self._codes[rows].reshape(self.num_envs, -1),
                "candidate_mask": self._mask[rows].astype(np.int8),
                "hours_since_last": hours.astype(np.float32)[:, None]}

    def action_masks(self) -> np.ndarray:
        """``(num_envs, k + 1)``: the filled slots and hold of each environment's next context."""
        return np.column_stack([self._mask[self._rows()], np.ones(self.num_envs, dtype=bool)])

    def _restart(self, slots: np.ndarray) -> None:
        self._position[slots] = 0
        self._last_sent[slots] = 0.0
        if not self.stationary:
            self._judge.reset(slots)

    def _actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} whole numbers (slots 0..{self.k - 1}, "
                             f"{self.k} = hold); got shape {array.shape}, dtype {array.dtype}")
        if array.min() < 0 or array.max() > self.k:
            raise ValueError(f"an action is outside 0..{self.k} (slots 0..{self.k - 1}, {self.k} = hold)")
        return array.astype(np.int64)

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        actions = self._actions(actions)
        stepping = self._autoreset()
        rows = self._rows()
        draws = self._draws.next(stepping)
        sent = stepping & (actions < self.k)
        slot = np.minimum(actions, self.k - 1)
        empty = sent & ~self._mask[rows, slot]
        if empty.any():
            env = int(np.flatnonzero(empty)[0])
            raise ValueError(f"environment {env}: action {actions[env]} is an empty candidate slot "
                             f"(see action_masks())")
        p_open = np.zeros(self.num_envs)
        slots = np.flatnonzero(sent)
        if len(slots):
            r = rows[slots]
            if self.stationary:
                p_open[slots] = simulated_user.p_open(self._static[r, slot[slots]])
            else:
                codes = self._codes[r, slot[slots]]
                by_feature = {f: codes[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
                p_open[slots] = self._judge.step(slots, self._part_rows[r], by_feature)
            self._last_sent[slots] = self._seconds[r]
        opened = sent & (draws < p_open)
        gain = p_open if self.mode == "expected" else opened.astype(np.float64)
        reward = np.where(sent, gain - self.cost, 0.0)
        terminated = self._advance(stepping)
        infos = {"sent": sent, "_sent": stepping, "opened": opened, "_opened": stepping}
        if self.mode == "expected":
            infos |= {"p_open": p_open, "_p_open": stepping}
        return self._observe(), reward, terminated, np.zeros(self.num_envs, dtype=bool), infos
