"""Run a ``Policy`` step by step in ``pushgen/NotificationGeneration-v0``."""

from __future__ import annotations

from typing import Any

import numpy as np

from pushgen.baselines.answers import checked, checked_policy
from pushgen.baselines.base import Codes, Policy
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES


class PolicyAgent:
    """``agent(observation, info) -> action``, as ``pushgen.envs.record_run`` expects.

    Each call first passes the response to the previous action (``info["opened"]``) to
    ``policy.update``, then asks ``policy.act`` for a batch of one context.

    Parameters
    ----------
    policy : Policy
        A policy of tasks 1 and 2 (``fit``, ``act``, ``update``).

    Examples
    --------
    >>> import gymnasium as gym
    >>> from pushgen.baselines import PolicyAgent, RandomPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> from pushgen.envs import record_run
    >>> agent = PolicyAgent(RandomPolicy(make_setting(task_data("pushgen-mini-v4", 2), 2, "random", 3)))
    >>> env = gym.make("pushgen/NotificationGeneration-v0", split="pushgen-mini-v4", user=3)
    >>> len(record_run(env, agent, "run.parquet")) > 0
    True
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = checked_policy(policy, None)
        self._pending: tuple[Codes, Codes] | None = None

    def __call__(self, observation: dict[str, int], info: dict[str, Any]) -> dict[str, int]:
        if "opened" not in info:  # the first step of an episode
            self._pending = None
        elif self._pending is not None:
            contexts, action = self._pending
            self.policy.update(contexts, action, np.array([bool(info["opened"])]))
        contexts = {f: np.array([int(observation[f])]) for f in CONTEXT_FEATURES}
        action = self.policy.act(contexts)
        codes = checked(action, 1)[0]  # a batch of one notification, or PolicyError naming the problem
        self._pending = (contexts, action)
        return {f: int(code) for f, code in zip(NOTIFICATION_FEATURES, codes, strict=True)}
