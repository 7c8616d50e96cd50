"""``pushgen/NotificationGeneration-v0``: answer each context with a generated notification.

The spaces, rewards, info and options are documented on ``NotificationGenerationEnv``
(Gymnasium's sections). A step costs a dictionary look-up and a few float operations: when a
user's episode is chosen, the logits before exposure of every possible notification at every
context are computed with the judge's own functions (``pushgen.envs.online.static_table``;
memory: contexts x possible notifications x 8 bytes, e.g. 30 MB for 3,000 contexts and 1,230
notifications), and only fatigue and habituation are followed per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from pushgen.envs import GENERATION_ID as ENV_ID
from pushgen.envs.base import ReplayEnv, task_of_user  # noqa: F401 (its public home before)
from pushgen.envs.history import History
from pushgen.envs.online import PossibleNotifications, apps_of, channels_of, simulated_user, static_table
from pushgen.envs.outcomes import outcome_entropy_of, outcome_generator
from pushgen.envs.spaces import (
    CONTEXT_FEATURES,
    NOTIFICATION_FEATURES,
    NOTIFICATION_SIZES,
    context_space,
    flat_to_codes,
    notification_space,
    whole_code,
)
from pushgen.replay.rewards import REWARDS, check_mode
from pushgen.replay.run_digest import split_fingerprint

FEATURE_NAMES = frozenset(NOTIFICATION_FEATURES)


class NotificationGenerationEnv(ReplayEnv):
    """Task 2 (online) and task 1's test contexts: generate one notification per context.

    Description
    -----------
    An episode is one user's test period, context after context in time order: a cold-start
    user's (task 2) by default, or, for a task 1 user (``user=`` one of them, or ``task=1``),
    that user's task 1 test part. At each context the agent generates a full notification; the
    simulated user, the generator's own engagement model with the split's stored parameters,
    opens or dismisses it, and its fatigue and habituation follow the notifications this episode
    sends (``pushgen.replay.scoring``), from the state the user's logged history left at the
    start of the test months.

    Action Space
    ------------
    A notification: ``Dict`` of ``Discrete`` over the 7 notification features (postingApp,
    category, numberOfUpdates, subject, priority, ongoing, visibility); code ``i`` of a feature
    is ``pushgen.schemas.values(feature)[i]``, and ``pushgen.envs.encode`` and
    ``pushgen.envs.decode`` convert. With ``flat_actions=True`` one ``MultiDiscrete`` vector of
    the 7 codes in that order, which stable-baselines3 takes as it is. A notification no app of
    the user could post (``pushgen.is_possible``) is a legal action; it is never opened and does
    not reach the user.

    Observation Space
    -----------------
    The context: ``Dict`` of ``Discrete`` over the 11 context features (day, time, place,
    activity, noise, batteryLevel, charging, headphonesIn, musicActive, proximity, ringerMode).

    Rewards
    -------
    The challenge's table, comparing the simulated user's response to the generated
    notification with the logged action in that context: logged opened and generated opened +1,
    both dismissed 0, logged dismissed and generated opened +2, logged opened and generated
    dismissed -1. In ``mode="sampled"`` (the default, the mode learners play and recorded runs
    are scored in) the simulated user's response is drawn after the action, one draw a step,
    from entropy drawn afresh at each reset (``env.outcome_entropy``, ``pushgen.envs.outcomes``):
    neither a public seed nor the split's own draws predict it. ``mode="expected"``, the
    evaluation mode of a fixed policy, gives the exact expected reward (``2p - 1`` after a
    logged open, ``2p`` after a logged dismissal) and alone shows ``p_open``.

    Starting State
    --------------
    The first context of the user's test months, with the fatigue and habituation the user's
    logged history left. ``reset(options={"user": id})`` switches to another user of the part;
    ``reset(options={"outcome_entropy": E})`` (the scorer's) replays the responses of a run whose
    outcome entropy was ``E``. ``info`` holds ``context_id``, ``opened`` (the simulated
    response), ``logged_opened``, ``history`` (a ``pushgen.envs.History``, the same object for
    the whole episode) and ``metrics`` (running ``steps``, ``total_reward``, ``mean_reward``,
    ``generated_open_rate`` and ``logged_open_rate``); in ``mode="expected"`` only, ``p_open``
    (of the generated notification, also in the history's ``p_open``, NaN in sampled mode).

    Episode End
    -----------
    Terminated after the user's last test context; never truncated. A step after the end raises
    ``gymnasium.error.ResetNeeded``.

    Arguments
    ---------
    ``gym.make("pushgen/NotificationGeneration-v0", split=..., user=..., ...)``, with the
    parameters below. ``gym.make_vec("pushgen/NotificationGeneration-v0", num_envs=N,
    vectorization_mode="vector_entry_point", split=..., task=1)`` makes the native vector version
    (``pushgen.envs.NotificationGenerationVectorEnv``). With ``vectorization_mode="async"`` pass
    ``history_in_info=False``: the history would otherwise be pickled at every step.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name (``"pushgen-mini-v4"``) or a split folder.
    user : int, optional
        Whose test period to play: a cold-start user (task 2) or a task 1 user; by default the
        first user of task ``task``.
    task : int, optional
        1 or 2; by default the task of ``user``, or 2.
    part : str, default "test"
        Only ``"test"``: the simulated user is the scorer's. To develop a policy, play a
        development split (``pushgen.development_split``).
    mode : str, default "sampled"
        ``"sampled"`` (learners, recorded runs) or ``"expected"`` (evaluation) rewards.
    render_mode : str, optional
        ``"ansi"`` or None.
    history_in_info : bool, default True
        Put the episode's ``History`` in ``info["history"]``.
    flat_actions : bool, default False
        Take the action as one ``MultiDiscrete`` vector of the 7 codes.

    Raises
    ------
    ValueError
        When ``part`` is not ``"test"``, ``mode`` or ``render_mode`` is unknown, or ``user`` is
        not a user of the part (``pushgen.DatasetError``, a ``ValueError``).

    Version History
    ---------------
    - v0: pushgen 0.1.0. Native vector version and ``flat_actions`` from pushgen 0.2.0; test
      contexts carry ``posted_at`` from the v3 standard splits (pushgen 0.3.0); after 0.3.0,
      sampled mode, from per-reset entropy, is the default (before, expected mode was, and
      sampled mode reused the split's own draws).

    Examples
    --------
    >>> import gymnasium as gym
    >>> from pushgen import schemas
    >>> env = gym.make("pushgen/NotificationGeneration-v0", split="pushgen-mini-v4", user=0)
    >>> observation, info = env.reset(seed=0)
    >>> sorted(observation)[:3]
    ['activity', 'batteryLevel', 'charging']
    >>> int(env.action_space["postingApp"].n) == len(schemas.values("postingApp"))
    True
    >>> observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    >>> info["metrics"]["steps"], terminated
    (1, False)
    """

    env_id = ENV_ID
    reset_options = ("user", "outcome_entropy")

    def __init__(self, split: str | Path, user: int | None = None, task: int | None = None,
                 part: str = "test", mode: str = "sampled", render_mode: str | None = None,
                 history_in_info: bool = True, flat_actions: bool = False) -> None:
        if part != "test":
            raise ValueError(f"the generation environment plays a test part (the simulated user is the "
                             f"scorer's); got part={part!r}. To develop a policy, play the test part "
                             f"of a development split: pushgen.development_split(name, out, seed)")
        self.mode = check_mode(mode)
        self.observation_space = context_space()
        self.flat_actions = flat_actions
        self.action_space = notification_space(flat_actions)
        self.history_in_info = history_in_info
        self._keys = tuple(self.observation_space.keys())
        self._last: tuple[tuple[int, ...], bool, float, float] | None = None
        self._possible_of: int | None = None  # the user of _notifications and _static
        super().__init__(split, user, task, part, render_mode)
        self._fingerprint = split_fingerprint(self.replay.folder)
        self._start_episode(outcome_entropy_of(None))
        self._ready = perf_counter()

    def _facts(self) -> list[tuple[str, str]]:
        return [*super()._facts(), ("actions", action_form(self.flat_actions))]

    def _use_user(self, user: int | None) -> None:
        super()._use_user(user)
        self._contexts = self.episode.rows_in_order(self._keys)
        if self.user != self._possible_of:
            # (contexts x the user's possible notifications) logits: kept for one user at a time
            self._notifications = PossibleNotifications(apps_of(self.replay, self.user),
                                                        channels_of(self.replay, self.user))
            rows = np.arange(self.episode.rows.start, self.episode.rows.stop)
            self._static = static_table(self.replay, rows, self.user, self._notifications.codes())[0]
            self._possible_of = self.user
        self._seconds = self.replay.seconds[self.episode.rows].tolist()
        self.simulated_user = simulated_user(self.replay, self.user, stationary=False)

    def _start_episode(self, entropy: int) -> None:
        self.simulated_user.reset()
        self.outcome_entropy = entropy  # the responses' and the run digest's; recorded with the run
        self._outcomes = outcome_generator(entropy)
        self.history = History(self.user, self.episode.context_ids,
                               {f: self.episode.codes[f] for f in CONTEXT_FEATURES},
                               self._fingerprint, entropy)
        self._total = 0.0
        self._generated = 0.0
        self._logged_opens = 0
        self._last = None

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, int], dict[str, Any]]:
        self._begin(seed, options)
        self._start_episode(outcome_entropy_of(options))
        info = {"user_id": self.user, "context_id": self._context_ids[0], **self._shared_info()}
        self._ready = perf_counter()
        return dict(zip(self._keys, self._contexts[0], strict=True)), info

    def step(self, action: dict[str, Any]) -> tuple[dict[str, int], float, bool, bool, dict]:
        started = perf_counter()
        i = self._check_running()
        codes = self._codes(action)
        p = self._respond(i, codes)
        opened = self._outcomes.random() < p
        logged = self._logged[i]
        expected = self.mode == "expected"
        if expected:
            reward = 2.0 * p - 1.0 if logged else 2.0 * p
            self._generated += p
        else:
            reward = REWARDS[logged][opened]
            self._generated += opened
        self._total += reward
        self._logged_opens += logged
        self.history.append(codes, opened, reward, p if expected else float("nan"), started - self._ready)
        self._last = (codes, opened, p, reward)
        self._row = i + 1
        terminated = self._row >= self._n
        info = {"context_id": self._context_ids[i], "opened": opened, "logged_opened": logged,
                **({"p_open": p} if expected else {}), **self._shared_info()}
        observation = dict(zip(self._keys, self._contexts[min(i + 1, self._n - 1)], strict=True))
        self._ready = perf_counter()
        return observation, reward, terminated, False, info

    def _respond(self, i: int, codes: tuple[int, ...]) -> float:
        """P(open) of notification ``codes`` at context ``i``; a possible one then reaches the user."""
        j = self._notifications.index.get(codes)
        if j is None:  # impossible: never opened, never reaches the user
            return 0.0
        t = self._seconds[i]
        keys = (self._notifications.app[j], self._notifications.subject[j], self._notifications.channels[j])
        return self.simulated_user.send(float(self._static[i, j]), t, keys, self._notifications.interrupts[j])

    def _codes(self, action: Any) -> tuple[int, ...]:
        if self.flat_actions:
            return tuple(int(c[0]) for c in flat_to_codes(action).values())
        if not isinstance(action, Mapping) or action.keys() != FEATURE_NAMES:
            raise ValueError("an action is a dict of codes, one per notification feature: "
                             f"{', '.join(NOTIFICATION_FEATURES)}; got {action!r}")
        codes = []
        for name, size in zip(NOTIFICATION_FEATURES, NOTIFICATION_SIZES, strict=True):
            code = whole_code(action[name])
            if code is None:
                raise ValueError(f"action {name}: {action[name]!r} is not a whole-number code")
            if not 0 <= code < size:
                raise ValueError(f"action {name}: code {code} is outside 0..{size - 1}")
            codes.append(code)
        return tuple(codes)

    def _shared_info(self) -> dict[str, Any]:
        k = self._row
        metrics = {
            "steps": k,
            "total_reward": self._total,
            "mean_reward": self._total / k if k else 0.0,
            "generated_open_rate": self._generated / k if k else 0.0,
            "logged_open_rate": self._logged_opens / k if k else 0.0,
        }
        return {"history": self.history, "metrics": metrics} if self.history_in_info else {"metrics": metrics}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        lines = self._context_head(self.next_context)
        if self._last is not None:
            codes, opened, p, reward = self._last
            logged = "opened" if self._logged[self._row - 1] else "dismissed"
            lines.append("generated " + self._describe(NOTIFICATION_FEATURES, codes))
            shown = f" (P(open) {p:.3f})" if self.mode == "expected" else ""
            lines.append(f"response  {'opened' if opened else 'dismissed'}{shown}; "
                         f"logged {logged}; reward {reward:+.3f}")
        k = self._row
        if k:
            lines.append(f"total reward {self._total:.3f}  mean {self._total / k:.3f}  "
                         f"open rate generated {self._generated / k:.3f} "
                         f"logged {self._logged_opens / k:.3f}")
        return "\n".join(lines) + "\n"


def action_form(flat: bool) -> str:
    """How a generation environment takes its actions, for its notebook facts."""
    return "flat (MultiDiscrete of 7 codes)" if flat else "Dict of 7 codes"
