"""``pushgen/NotificationSelection-v0``: at each context choose one of K eligible notifications, or hold.

Documented on ``NotificationSelectionEnv`` (Gymnasium's sections); planners look ahead with
``simulated_user.snapshot()``, ``send_to_simulated_user(i, slot)``, ``candidate_probabilities(i)``
and ``simulated_user.restore(saved)``. ``pushgen.envs.selection_vector`` is the vector version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from pushgen.envs import SELECTION_ID as ENV_ID
from pushgen.envs.base import ReplayEnv
from pushgen.envs.online import simulated_user
from pushgen.envs.outcomes import fresh_entropy, outcome_entropy_of, outcome_generator
from pushgen.envs.slates import (
    HOURS_CAP,
    EpisodeSlates,
    check_options,
    check_slot,
    selection_facts,
    selection_space,
)
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.replay.rewards import check_mode


class NotificationSelectionEnv(ReplayEnv):
    """Send one of ``k`` eligible candidate notifications at each context, or hold.

    Description
    -----------
    An episode is one user's test period, context after context in time order (a cold-start
    user's, task 2, by default; ``user=`` a task 1 user, or ``task=1``, plays that user's test
    part). At each context the candidate generator (``pushgen.envs.candidates``) offers ``k``
    distinct notifications that the user's apps could post then, each possible by construction,
    drawn from ``numpy.random.default_rng([candidate_seed, user])`` alone: every policy meets the
    same candidates, whatever it sends. The agent sends one or holds. The simulated user is the
    generator's engagement model with the split's ground truth; its fatigue and habituation
    follow what this episode sends (``stationary=True`` freezes them at the fresh state, for
    off-policy work).

    Action Space
    ------------
    ``Discrete(k + 1)``: ``j < k`` sends candidate ``j``, ``k`` holds (sends nothing).
    ``action_masks()`` marks the filled slots and hold, for sb3-contrib's ``MaskablePPO``;
    sending an empty slot is an error.

    Observation Space
    -----------------
    A flat ``Dict``, which stable-baselines3's ``MultiInputPolicy`` takes as it is: the 11
    context features (``Discrete`` each), ``candidates`` (``MultiDiscrete``: ``k`` x 7
    notification codes, slot after slot, features in ``NOTIFICATION_FEATURES`` order; empty slots
    all 0), ``candidate_mask`` (``MultiBinary(k)``: 1 where a slot holds a candidate) and
    ``hours_since_last`` (``Box``: hours since the episode's last send, or since the start of
    the test months, capped at ``HOURS_CAP``, a week).

    Rewards
    -------
    Whether the user opens what is sent, less ``cost`` per send: 1 if opened - cost in
    ``mode="sampled"`` (the default, the mode learners play and are scored in), the response
    drawn after the action from entropy drawn afresh at each reset (``env.outcome_entropy``,
    ``pushgen.envs.outcomes``), so that no public seed predicts it; P(open) - cost in
    ``mode="expected"``, the evaluation mode, which alone puts ``p_open`` in ``info``. Holding
    earns 0.

    Starting State
    --------------
    The first context of the user's test months, with the fatigue and habituation the user's
    logged history left (the fresh state when ``stationary``). ``info`` holds ``context_id``,
    ``sent``, ``slot`` (-1 for hold), ``opened``, running ``metrics`` and, in expected mode only
    (as the ansi rendering), ``p_open`` of what was sent; with ``candidate_p_in_info=True`` also
    ``candidate_p``, the candidates' true P(open) (the oracle's privilege: a policy under
    evaluation must not see it).

    Episode End
    -----------
    As for ``NotificationGeneration-v0``: terminated after the user's last test context, never
    truncated.

    Arguments
    ---------
    ``gym.make("pushgen/NotificationSelection-v0", split=..., user=..., k=8, ...)``, with the
    parameters below. ``gym.make_vec("pushgen/NotificationSelection-v0", num_envs=N,
    vectorization_mode="vector_entry_point", split=..., task=1)`` makes the native vector version
    (``pushgen.envs.NotificationSelectionVectorEnv``).

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name (``"pushgen-mini-v4"``) or a split folder.
    user : int, optional
        Whose test period to play; by default the first user of task ``task``.
    k : int, default 8
        Candidates per context, 1 to 64.
    candidate_seed : int, default 0
        The seed of the candidates, >= 0.
    mode : str, default "sampled"
        ``"sampled"`` (learners) or ``"expected"`` (evaluation) rewards.
    cost : float, default 0.0
        Subtracted from the reward of every send, >= 0.
    stationary : bool, default False
        A user without fatigue and habituation.
    candidate_p_in_info : bool, default False
        Give the candidates' true P(open) in ``info``.
    task : int, optional
        1 or 2; by default the task of ``user``, or 2.
    render_mode : str, optional
        ``"ansi"`` or None.

    Raises
    ------
    ValueError
        When an option is out of its range, in one line naming what is allowed.

    Version History
    ---------------
    - v0: pushgen 0.3.0. After 0.3.0, sampled mode (per-reset entropy) is the default, not expected.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen  # registers the environments with gymnasium
    >>> env = gym.make("pushgen/NotificationSelection-v0", split="pushgen-mini-v4", user=3, k=8)
    >>> observation, info = env.reset(seed=0)
    >>> observation["candidates"].shape, env.action_space
    ((56,), Discrete(9))
    >>> observation, reward, terminated, truncated, info = env.step(8)  # hold
    >>> reward, info["sent"]
    (0.0, False)
    """

    env_id = ENV_ID
    reset_options = ("user", "outcome_entropy")

    def __init__(self, split: str | Path, user: int | None = None, k: int = 8, candidate_seed: int = 0,
                 mode: str = "sampled", cost: float = 0.0, stationary: bool = False,
                 candidate_p_in_info: bool = False, task: int | None = None,
                 render_mode: str | None = None) -> None:
        self.k, self.candidate_seed, self.cost = check_options(
            k, candidate_seed, cost, stationary, candidate_p_in_info=candidate_p_in_info)
        self.mode = check_mode(mode)
        self.stationary = bool(stationary)
        self.candidate_p_in_info = bool(candidate_p_in_info)
        self.observation_space = selection_space(self.k)
        self.action_space = spaces.Discrete(self.k + 1)
        self.hold = self.k
        self._keys = tuple(CONTEXT_FEATURES)
        self._slates: dict[int, EpisodeSlates] = {}
        self._last: tuple[int, float, bool, float] | None = None
        self.outcome_entropy = fresh_entropy()
        self._outcomes = outcome_generator(self.outcome_entropy)
        super().__init__(split, user, task, "test", render_mode)
        self._start_episode()

    def _facts(self) -> list[tuple[str, str]]:
        return super()._facts() + selection_facts(self)

    def slates(self, user: int) -> EpisodeSlates:
        """The candidates of ``user``'s episode (computed once per user)."""
        if user not in self._slates:
            self._slates[user] = EpisodeSlates(self.replay, user, self.k, self.candidate_seed)
        return self._slates[user]

    def _use_user(self, user: int | None) -> None:
        super()._use_user(user)
        slates = self.slates(self.user)
        self._contexts = self.episode.rows_in_order(self._keys)
        self._candidates = slates.codes.reshape(self._n, -1)
        self._mask = slates.mask.astype(np.int8)
        self._static = slates.static.tolist()
        self._channel = slates.channel.tolist()
        self._app = slates.codes[:, :, NOTIFICATION_FEATURES.index("postingApp")].tolist()
        self._subject = slates.codes[:, :, NOTIFICATION_FEATURES.index("subject")].tolist()
        self._interrupts = slates.interrupts.tolist()
        self._seconds = slates.seconds.tolist()
        self._filled = slates.mask.sum(axis=1).tolist()
        self.simulated_user = simulated_user(self.replay, self.user, self.stationary)

    def _start_episode(self) -> None:
        self.simulated_user.reset()
        self._last_sent = 0.0
        self._total = 0.0
        self._sends = 0
        self._opens = 0.0
        self._last = None

    def _observe(self, i: int) -> dict[str, Any]:
        observation: dict[str, Any] = dict(zip(self._keys, self._contexts[i], strict=True))
        observation["candidates"] = self._candidates[i].copy()  # the agent's own: never a view of ours
        observation["candidate_mask"] = self._mask[i].copy()
        hours = (self._seconds[i] - self._last_sent) / 3600.0
        observation["hours_since_last"] = np.array([min(max(hours, 0.0), HOURS_CAP)], dtype=np.float32)
        return observation

    def candidate_probabilities(self, i: int | None = None) -> np.ndarray:
        """P(open) of each candidate of context ``i`` (default: the next one) at the current state;
        0 for empty slots. The oracle's privilege: a policy under evaluation must not read it."""
        i = self.next_context if i is None else i
        t = self._seconds[i]
        out = np.zeros(self.k)
        for j in range(self._filled[i]):
            keys = (self._app[i][j], self._subject[i][j], self._channel[i][j])
            out[j] = self.simulated_user.p_open(self._static[i][j], t, keys)
        return out

    def send_to_simulated_user(self, i: int, slot: int) -> float:
        """Candidate ``slot`` of context ``i`` reaches the simulated user: its P(open), then the
        state it leaves. (The step does this; a planner calls it to look ahead, between
        ``simulated_user.snapshot()`` and ``simulated_user.restore(saved)``.)"""
        keys = (self._app[i][slot], self._subject[i][slot], self._channel[i][slot])
        return self.simulated_user.send(self._static[i][slot], self._seconds[i], keys,
                                        self._interrupts[i][slot])

    def action_masks(self) -> np.ndarray:
        """Which actions are allowed at the next context: its filled slots and hold."""
        mask = np.ones(self.k + 1, dtype=bool)
        mask[: self.k] = self._mask[self.next_context].astype(bool)
        return mask

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        self._begin(seed, options)
        if seed is not None or (options or {}).get("outcome_entropy") is not None:
            self.outcome_entropy = outcome_entropy_of(options)
            self._outcomes = outcome_generator(self.outcome_entropy)
        self._start_episode()
        info: dict[str, Any] = {"user_id": self.user, "context_id": self._context_ids[0],
                                "metrics": self._metrics()}
        if self.candidate_p_in_info:
            info["candidate_p"] = self.candidate_probabilities(0)
        return self._observe(0), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        i = self._check_running()
        slot = check_slot(action, self.k, self._filled[i])
        draw = self._outcomes.random()
        if slot == self.hold:
            p, opened, reward = 0.0, False, 0.0
        else:
            p = self.send_to_simulated_user(i, slot)
            opened = draw < p
            self._last_sent = self._seconds[i]
            self._sends += 1
            gain = p if self.mode == "expected" else float(opened)
            reward = gain - self.cost
            self._opens += gain
        self._total += reward
        self._last = (slot, p, opened, reward)
        self._row = i + 1
        terminated = self._row >= self._n
        info: dict[str, Any] = {"context_id": self._context_ids[i], "sent": slot != self.hold,
                                "slot": -1 if slot == self.hold else slot, "opened": opened,
                                "metrics": self._metrics()}
        if self.mode == "expected":
            info["p_open"] = p
        if self.candidate_p_in_info:
            info["candidate_p"] = self.candidate_probabilities()
        return self._observe(min(self._row, self._n - 1)), reward, terminated, False, info

    @property
    def last_p_open(self) -> float:
        """P(open) of the last step's send (0 for a hold or before the first step): the scorer's,
        like ``candidate_probabilities``; a policy under evaluation must not read it."""
        return 0.0 if self._last is None else self._last[1]

    def _metrics(self) -> dict[str, float]:
        k = self._row
        return {"steps": k, "total_reward": self._total, "mean_reward": self._total / k if k else 0.0,
                "sends": self._sends, "opens": self._opens}

    def candidate_codes(self, i: int | None = None) -> np.ndarray:
        """The ``(k, 7)`` candidate codes of context ``i`` (default: the next one)."""
        i = self.next_context if i is None else i
        return self._candidates[i].reshape(self.k, len(NOTIFICATION_FEATURES))

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        row = self.next_context
        lines = self._context_head(row)
        for j, codes in enumerate(self.candidate_codes(row)[: self._filled[row]]):
            lines.append(f"  [{j}] " + self._describe(NOTIFICATION_FEATURES, codes.tolist()))
        if self._last is not None:
            slot, p, opened, reward = self._last
            shown = f" P(open) {p:.3f}," if self.mode == "expected" else ","  # sampled: the response only
            sent = "held" if slot == self.hold else f"sent [{slot}]{shown} " + (
                "opened" if opened else "dismissed")
            lines.append(f"last step {sent}; reward {reward:+.3f}")
        lines.append(f"total reward {self._total:.3f}  sends {self._sends}")
        return "\n".join(lines) + "\n"


__all__ = ["HOURS_CAP", "NotificationSelectionEnv", "outcome_generator", "selection_space"]
