"""Record a task 2 run: play one episode with a policy and save its history for the evaluator.

Decision times are measured by the environment, not claimed by the policy: each step's
``decision_seconds`` is the time between the environment handing out a context and
receiving the answer to it, the policy's own work and the runner's call into it together.
That time has a floor: no Python call from the runner to a policy and back returns in less
than ``DECISION_FLOOR_SECONDS`` (a bare Python function call alone takes about 50 ns on a
current CPU; a step through the environment and its gymnasium wrappers takes about 1 µs). A
recording that claims less for any step was not measured by the runner, and the evaluator
refuses it (``pushgen.replay.evaluation.check_decision_seconds``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from pushgen.envs.history import History
from pushgen.replay.evaluation import DECISION_FLOOR_SECONDS

Policy = Callable[[dict[str, int], dict[str, Any]], dict[str, int]]
__all__ = ["DECISION_FLOOR_SECONDS", "Policy", "record_run"]


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
