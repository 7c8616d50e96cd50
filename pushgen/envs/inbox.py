"""``pushgen/NotificationInbox-v0``: predict whether the user opens each logged notification.

The classic gym-push task, documented on ``NotificationInboxEnv`` (Gymnasium's sections).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gymnasium import spaces

from pushgen.envs import INBOX_ID as ENV_ID
from pushgen.envs.base import ReplayEnv
from pushgen.envs.spaces import (
    ACTION_VALUES,
    CONTEXT_FEATURES,
    DISMISSED,
    NOTIFICATION_FEATURES,
    OPENED,
    feature_space,
    whole_code,
)


class NotificationInboxEnv(ReplayEnv):
    """Predict open or dismiss for each logged notification in its context.

    Description
    -----------
    The classic gym-push task. An episode is one user's rows of a split part in time order
    (task 1's test part by default; ``part="validation"`` to tune on the history). At each step
    the agent sees a notification the user received and its context, and predicts what the user
    did.

    Action Space
    ------------
    ``Discrete(2)``: code ``i`` stands for ``pushgen.schemas.values("action")[i]``
    (``pushgen.envs.OPENED`` = 0, ``pushgen.envs.DISMISSED`` = 1).

    Observation Space
    -----------------
    The logged notification and its context: ``Dict`` of ``Discrete`` over the 7 notification
    and 11 context features (code ``i`` is ``pushgen.schemas.values(feature)[i]``).

    Rewards
    -------
    +1 when the prediction matches what the user did, -1 otherwise.

    Starting State
    --------------
    The user's first row of the part. ``reset(options={"user": id})`` switches to another user.
    ``info`` holds ``context_id``, ``action`` (the logged action's code, after a step) and running
    ``metrics`` (``steps``, ``total_reward``, ``accuracy``).

    Episode End
    -----------
    Terminated after the user's last row; never truncated. A step after the end raises
    ``gymnasium.error.ResetNeeded``.

    Arguments
    ---------
    ``gym.make("pushgen/NotificationInbox-v0", split=..., user=..., part="test")``, with the
    parameters below.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name (``"pushgen-mini-v4"``) or a split folder.
    user : int, optional
        A user of the part; by default its first user.
    task : int, default 1
        1 or 2.
    part : str, default "test"
        ``"train"``, ``"validation"`` or ``"test"`` (task 1), ``"test"`` (task 2).
    render_mode : str, optional
        ``"ansi"`` or None.

    Raises
    ------
    ValueError
        When ``render_mode`` is unknown, the part does not exist, or ``user`` is not a user of the
        part (``pushgen.DatasetError``, a ``ValueError``).

    Version History
    ---------------
    - v0: pushgen 0.1.0.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen
    >>> env = gym.make("pushgen/NotificationInbox-v0", split="pushgen-mini-v4", part="validation")
    >>> observation, info = env.reset(seed=0)
    >>> len(observation), env.action_space
    (18, Discrete(2))
    >>> observation, reward, terminated, truncated, info = env.step(pushgen.envs.OPENED)
    >>> reward in (-1.0, 1.0), info["metrics"]["steps"]
    (True, 1)
    """

    env_id = ENV_ID

    def __init__(self, split: str | Path, user: int | None = None, task: int = 1,
                 part: str = "test", render_mode: str | None = None) -> None:
        self.observation_space = feature_space(NOTIFICATION_FEATURES + CONTEXT_FEATURES)
        self.action_space = spaces.Discrete(len(ACTION_VALUES))
        self._keys = tuple(self.observation_space.keys())
        self._last: tuple[int, int] | None = None
        self._correct = 0
        super().__init__(split, user, task, part, render_mode)

    def _use_user(self, user: int | None) -> None:
        super()._use_user(user)
        self._rows = self.episode.rows_in_order(self._keys)
        self._actions = [OPENED if opened else DISMISSED for opened in self._logged]

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, int], dict[str, Any]]:
        self._begin(seed, options)
        self._correct = 0
        self._last = None
        info = {"user_id": self.user, "context_id": self._context_ids[0], "metrics": self._metrics()}
        return dict(zip(self._keys, self._rows[0], strict=True)), info

    def step(self, action: Any) -> tuple[dict[str, int], float, bool, bool, dict[str, Any]]:
        i = self._check_running()
        predicted = whole_code(action)
        if predicted not in (OPENED, DISMISSED):
            raise ValueError(f"an action is {OPENED} ({ACTION_VALUES[OPENED]}) or "
                             f"{DISMISSED} ({ACTION_VALUES[DISMISSED]}); got {action!r}")
        logged = self._actions[i]
        reward = 1.0 if predicted == logged else -1.0
        self._correct += predicted == logged
        self._last = (predicted, logged)
        self._row = i + 1
        terminated = self._row >= self._n
        info = {"context_id": self._context_ids[i], "action": logged, "metrics": self._metrics()}
        observation = dict(zip(self._keys, self._rows[min(i + 1, self._n - 1)], strict=True))
        return observation, reward, terminated, False, info

    def _metrics(self) -> dict[str, float]:
        k = self._row
        return {"steps": k, "total_reward": float(2 * self._correct - k),
                "accuracy": self._correct / k if k else 0.0}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        codes = dict(zip(self._keys, self._rows[self.next_context], strict=True))
        lines = [self._header(),
                 "notification " + self._describe(NOTIFICATION_FEATURES,
                                                  [codes[f] for f in NOTIFICATION_FEATURES]),
                 "context      " + self._describe(CONTEXT_FEATURES, [codes[f] for f in CONTEXT_FEATURES])]
        if self._last is not None:
            predicted, logged = self._last
            lines.append(f"predicted {ACTION_VALUES[predicted]}; logged {ACTION_VALUES[logged]}; "
                         f"reward {1 if predicted == logged else -1:+d}")
        metrics = self._metrics()
        if metrics["steps"]:
            lines.append(f"total reward {metrics['total_reward']:.0f}  "
                         f"accuracy {metrics['accuracy']:.3f}")
        return "\n".join(lines) + "\n"
