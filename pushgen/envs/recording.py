"""Record a task 2 run: play one episode with a policy and save its history for the evaluator."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from pushgen.envs.history import History

Policy = Callable[[dict[str, int], dict[str, Any]], dict[str, int]]


def record_run(env: gym.Env, policy: Policy, path: str | Path, seed: int | None = None,
               options: dict[str, Any] | None = None) -> History:
    """Play one episode of a ``NotificationGeneration`` env and write its recording to ``path``.

    ``policy(observation, info)`` returns the action; its time counts as the step's
    decision time. Several users' recordings can be concatenated into one file.
    """
    observation, info = env.reset(seed=seed, options=options)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        done = terminated or truncated
    history: History = env.unwrapped.history
    history.save(path)
    return history
