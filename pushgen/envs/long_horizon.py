"""``pushgen/LongHorizon-v0``: one app's notification system for one user over weeks.

Documented on ``LongHorizonEnv`` (Gymnasium's sections). The episode's terms come from
``pushgen.envs.horizon``; fatigue, habituation and the long-term state are the simulated user's
(``SimulatedUser`` and ``LongTermUser``, the objects the generator's compiled pass agrees with).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from pushgen.data.recipe import MAX_DAYS
from pushgen.envs import LONG_HORIZON_ID as ENV_ID
from pushgen.envs.base import ReplayEnv, check_reset_options
from pushgen.envs.horizon import (
    DAY_SECONDS,
    HorizonEpisode,
    SendHistory,
    app_counters,
    check_app,
    horizon_episode,
    horizon_space,
)
from pushgen.envs.online import simulated_user
from pushgen.envs.outcomes import fresh_entropy, outcome_entropy_of, outcome_generator
from pushgen.envs.slates import check_options, check_slot, is_number
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog
from pushgen.model.long_term import EVENTS, abandonable
from pushgen.model.simulated_user import ABANDONED, APP_OFF, CHANNEL_OFF, LongTermUser


class LongHorizonEnv(ReplayEnv):
    """One app's notification system for one user over weeks: send one of ``k`` of its
    notifications at each context, or hold, and keep the user.

    Description
    -----------
    The agent is one app (``app=``; by default the user's app with the most logged notifications
    among those the task can play, ``pushgen.envs.horizon.playable_apps``). An episode is the
    first ``horizon_days`` of a user's scored period (a task 1 user's test months: training
    users; a cold-start user of task 2: held-out users). Each logged context is a decision point:
    the logged notification of another app arrives there first (it tires the user: fatigue and
    habituation), then the agent sends one of ``k`` candidates of its own app (the selection
    task's candidate generator restricted to the app) or holds. The app's own logged
    notifications are dropped: the agent replaces them. A notification the agent sends reaches
    the simulated user: its P(open), the fatigue and habituation it leaves, and the annoyance with
    the app it adds (``LongTermUser.deliver``), which past the user's tolerance may make the user
    turn off one of the app's channels or the whole app, or abandon the app. The annoyance starts
    at 0 (the logged history's annoyance with the app before the scored period is not published).

    Action Space
    ------------
    ``Discrete(k + 1)``: ``j < k`` sends candidate ``j``, ``k`` holds. ``action_masks()`` marks
    the filled slots whose channel is still on, and hold; sending a masked slot is an error.

    Observation Space
    -----------------
    The selection task's (11 context features, ``candidates``, ``candidate_mask`` with turned-off
    channels masked, ``hours_since_last`` send) and the app's own public counters: ``app_counts``
    (sends and opens in the last day and in the last 7 days), ``days_into_episode``,
    ``channels_on`` (1 for each of the app's channels still on, in catalog order, 0 past its last)
    and ``candidate_history`` (``(k, 4)``: per slot, the app's sends so far on the candidate's
    channel and their open rate smoothed (opens + 1) / (sends + 2), then the same on its subject:
    a fixed policy can count online what this user opens). Never the annoyance or the tolerance.

    Rewards
    -------
    1 if the user opens what is sent, less ``send_cost`` per send; holding earns 0. The open,
    and the three uniforms that decide whether a delivery turns the app or a channel off or makes
    the user abandon it, are drawn at every step (sent or not) from entropy drawn afresh at each
    reset (``env.outcome_entropy``, ``pushgen.envs.outcomes``; ``reset(options={"outcome_entropy":
    E})`` replays), never from a public seed.

    Starting State
    --------------
    The user's first context of the scored period, with the fatigue and habituation the logged
    history left, the app's annoyance at 0 and all its channels on. ``reset(options={"user": id,
    "app": app})`` switches to another user, another app, or both (a user alone: that user's default
    app). ``info`` holds ``user_id``, ``app``, ``context_id``; after a step also ``sent``, ``slot``
    (-1: hold), ``opened``, ``turned_off`` (None, or ``{"event": "app_off" | "channel_off" |
    "abandoned", "day": ..., "context_id": ..., "channel": ...}`` when this step's delivery turned
    something off), ``channels_off`` (the app's channels turned off so far) and running ``metrics``.

    Episode End
    -----------
    Terminated at the end of the horizon, or when the user turns the app off, abandons it or
    turns its last channel off (nothing the agent sends reaches the user any more). A step after
    the end raises ``gymnasium.error.ResetNeeded``.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder (model 4 or later).
    user : int, optional
        Whose scored period to play; by default the first held-out (task 2) user.
    app : int or str, optional
        The agent's app (a code or a package name); by default the user's app as above.
    k : int, default 8
        Candidates per decision point, 1 to 64.
    horizon_days : float, default 42
        The episode's length in days from the start of the scored period (above 0, at most
        3660, ``pushgen.data.recipe.MAX_DAYS``: no dataset is longer).
    send_cost : float, default 0.0
        Subtracted from the reward of every send, >= 0.
    candidate_seed : int, default 0
        The seed of the candidates, >= 0.
    task : int, optional
        1 or 2; by default the task of ``user``.
    render_mode : str, optional
        As for ``NotificationSelectionEnv``.

    Raises
    ------
    ValueError
        As for ``NotificationSelectionEnv``.

    Version History
    ---------------
    - v0: pushgen 0.4.0 (engagement model 4).

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen
    >>> env = gym.make("pushgen/LongHorizon-v0", split="pushgen-mini-v4", user=3, horizon_days=7)
    >>> observation, info = env.reset(seed=0)
    >>> env.action_space, observation["app_counts"].tolist()
    (Discrete(9), [0.0, 0.0, 0.0, 0.0])
    """

    env_id = ENV_ID
    reset_options = ("user", "app", "outcome_entropy")

    def __init__(self, split: str | Path, user: int | None = None, app: int | str | None = None, k: int = 8,
                 horizon_days: float = 42.0, send_cost: float = 0.0, candidate_seed: int = 0,
                 task: int | None = None, render_mode: str | None = None) -> None:
        self.k, self.candidate_seed, self.send_cost = check_options(k, candidate_seed, send_cost, False)
        if not is_number(horizon_days) or not 0 < horizon_days <= MAX_DAYS:
            raise ValueError(f"horizon_days must be a number of days above 0 and at most {MAX_DAYS} "
                             f"(the longest dataset); got {horizon_days!r}")
        self.horizon_days = float(horizon_days)
        self.observation_space = horizon_space(self.k, self.horizon_days)
        self.action_space, self.hold = spaces.Discrete(self.k + 1), self.k
        self._keys, self._app_option = tuple(CONTEXT_FEATURES), app
        self._abandonable = abandonable(app_catalog())
        self.outcome_entropy = fresh_entropy()
        self._outcomes = outcome_generator(self.outcome_entropy)
        super().__init__(split, user, task, "test", render_mode)
        self._start_episode()

    def _facts(self) -> list[tuple[str, str]]:
        return [*super()._facts(), ("app", str(self.terms.app)), ("candidates per context", str(self.k)),
                ("horizon days", f"{self.horizon_days:g}"), ("send cost", f"{self.send_cost:g}")]

    def _use_user(self, user: int | None) -> None:
        user = self.replay.check_user(user)  # the new terms first: a failed switch changes nothing
        app = check_app(self.replay, user, self._app_option)
        terms = horizon_episode(self.replay, user, app, self.k, self.candidate_seed, self.horizon_days)
        super()._use_user(user)
        self.terms: HorizonEpisode = terms
        self._n = self.terms.n
        self._contexts = self.episode.rows_in_order(self._keys)
        slates = self.terms.slates
        self._candidates = slates.codes.reshape(self._n, -1)
        self._filled = slates.mask.tolist()
        self.simulated_user = simulated_user(self.replay, self.user, False)
        self.long_term_user = LongTermUser(self.terms.tolerance, self.terms.constants, self._abandonable)

    def _start_episode(self) -> None:
        self.simulated_user.reset()
        self.long_term_user.reset()
        self._history = SendHistory()
        self._total = 0.0
        self._last: tuple[int, float, bool, float] | None = None
        self._steps = 0
        self.terms.arrive(self.simulated_user, 0)

    @property
    def app(self) -> int:
        """The agent's app (code)."""
        return self.terms.app

    def channels_on(self) -> list[bool]:
        """Whether each of the app's channels (catalog order) still reaches the user."""
        return [self.long_term_user.reachable(self.terms.app, c) for c in self.terms.channels]

    def action_masks(self) -> np.ndarray:
        """The allowed actions at the next decision point: filled slots whose channel is on, and hold."""
        i = self.next_context
        mask = np.ones(self.k + 1, dtype=bool)
        reachable = self.long_term_user.reachable
        mask[: self.k] = [self._filled[i][j] and reachable(self.terms.app, self.terms.channel[i][j])
                          for j in range(self.k)]
        return mask

    def candidate_probabilities(self, i: int | None = None) -> np.ndarray:
        """True P(open) now of each candidate of decision point ``i`` (default: the next); 0 where
        masked. The simulated user's public what-if: a policy under evaluation must not read it."""
        i = self.next_context if i is None else i
        allowed = self.action_masks()
        out = np.zeros(self.k)
        for j in np.flatnonzero(allowed[: self.k]):
            out[j] = self.terms.p_open(self.simulated_user, i, int(j))
        return out

    def annoyance_after(self, slot: int) -> float:
        """The annoyance with the app just after sending candidate ``slot`` at the next decision
        point (snapshot, deliver with no event, restore): the simulated user's public what-if."""
        return self.terms.annoyance_after(self.simulated_user, self.long_term_user, self.next_context, slot)

    def _observe(self, i: int) -> dict[str, Any]:
        t = self.terms.seconds[i]
        observation: dict[str, Any] = dict(zip(self._keys, self._contexts[i], strict=True))
        allowed = self.action_masks()[: self.k]
        observation["candidates"] = self._candidates[i].copy()  # the agent's own: never a view of ours
        observation["candidate_mask"] = allowed.astype(np.int8)
        observation.update(app_counters(self._history, t, self.horizon_days, self.channels_on()))
        observation["candidate_history"] = self._history.of(self.terms.channel[i], self.terms.subject[i])
        return observation

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        check_reset_options(options, self.reset_options)
        if options and ("user" in options or "app" in options):  # app alone: another app, same user
            self._app_option, options = options.get("app"), {"user": self.user, **options}
        self._begin(seed, options)
        self.outcome_entropy = outcome_entropy_of(options)
        self._outcomes = outcome_generator(self.outcome_entropy)
        self._start_episode()
        info = {"user_id": self.user, "app": self.terms.app, "context_id": self._context_ids[0],
                "metrics": self._metrics()}
        return self._observe(0), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        i = self._check_running()
        slot = check_slot(action, self.k, self.k)
        if slot != self.hold and not self.action_masks()[slot]:
            raise ValueError(f"action {slot} is a masked slot (empty, or its channel was turned off): "
                             f"see action_masks()")
        draws = self._outcomes.random(4)  # every step: the same draws meet every policy
        p, opened, reward, event = 0.0, False, 0.0, None
        if slot != self.hold:
            t = self.terms.seconds[i]
            p, fate = self.terms.send(self.simulated_user, self.long_term_user, i, slot,
                                      tuple(draws[1:].tolist()))
            opened = bool(draws[0] < p)
            self._history.add(t, self.terms.channel[i][slot], self.terms.subject[i][slot], opened)
            reward = float(opened) - self.send_cost
            if fate in (APP_OFF, CHANNEL_OFF, ABANDONED):
                event = {"event": EVENTS[fate - 1], "day": t / DAY_SECONDS,
                         "context_id": self._context_ids[i], "channel": self.terms.channel[i][slot]}
        self._total += reward
        self._last = (slot, p, opened, reward)
        self._row = self._steps = i + 1
        cut_off = not any(self.channels_on())
        terminated = self._row >= self._n or cut_off
        if cut_off:
            self._row = self._n
        elif not terminated:
            self.terms.arrive(self.simulated_user, self._row)
        info: dict[str, Any] = {"context_id": self._context_ids[i], "sent": slot != self.hold,
                                "slot": -1 if slot == self.hold else slot, "opened": opened,
                                "turned_off": event,
                                "channels_off": [c for c, on in zip(self.terms.channels, self.channels_on(),
                                                                    strict=True) if not on],
                                "metrics": self._metrics()}
        return self._observe(self.next_context), reward, terminated, False, info

    @property
    def last_p_open(self) -> float:
        """P(open) of the last step's send (0 for a hold): the scorer's; a policy must not read it."""
        return 0.0 if self._last is None else self._last[1]

    def _metrics(self) -> dict[str, float]:
        return {"steps": self._steps, "total_reward": self._total, "sends": len(self._history.sends),
                "opens": len(self._history.opens)}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        row = self.next_context
        lines = self._context_head(row)
        codes = self._candidates[row].reshape(self.k, -1)
        lines += [f"  [{j}] " + self._describe(NOTIFICATION_FEATURES, codes[j].tolist())
                  for j in np.flatnonzero(self.action_masks()[: self.k])]
        if self._last is not None:
            slot, _, opened, reward = self._last
            sent = "held" if slot == self.hold else f"sent [{slot}], " + ("opened" if opened else "dismissed")
            lines.append(f"last step {sent}; reward {reward:+.3f}")
        totals = "total reward {total_reward:.3f}  sends {sends}  opens {opens}"
        lines.append(totals.format(**self._metrics()))
        return "\n".join(lines) + "\n"


__all__ = ["LongHorizonEnv", "horizon_space"]
