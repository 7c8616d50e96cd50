"""Record a task 2 run: play one episode with a policy and save its history for the evaluator.

Decision times are measured by the environment, not claimed by the policy: each step's
``decision_seconds`` is the time between the environment handing out a context and
receiving the answer to it, the policy's own work and the runner's call into it together.
That time has a floor: no Python call from the runner to a policy and back returns in less
than ``DECISION_FLOOR_SECONDS`` (a bare Python function call alone takes about 50 ns on a
current CPU; a step through the environment and its gymnasium wrappers takes about 1 µs). A
recording that claims less for any step was not measured by the runner, and the evaluator
refuses it (``pushgen.replay.evaluation.check_decision_seconds``).

A run is played in the environment's ``sampled`` mode, the mode learners play: the responses
are drawn from the episode's outcome entropy, which no public value predicts. The recording
carries that entropy and the run's digest (``run_entropy``, ``run_digest``: a hash chain over
the contexts, notifications and responses in the order played, ``pushgen.replay.run_digest``);
``pushgen evaluate --task 2`` re-derives every response and reward from the entropy and the
notifications, and reports a run whose digest, responses or rewards do not check out as
unverified.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen.data.file_output import file_output
from pushgen.envs.generation import NotificationGenerationEnv
from pushgen.envs.history import History
from pushgen.replay.evaluation import DECISION_FLOOR_SECONDS
from pushgen.replay.submission import PARQUET_SUFFIXES

Policy = Callable[[dict[str, int], dict[str, Any]], dict[str, int]]
__all__ = ["DECISION_FLOOR_SECONDS", "Policy", "record_run"]


def record_run(env: gym.Env, policy: Policy, path: str | Path, seed: int | None = None,
               options: dict[str, Any] | None = None, force: bool = False) -> History:
    """Play one episode of a ``NotificationGeneration`` env and write its recording to ``path``.

    ``policy(observation, info)`` returns the action; its time counts as the step's
    decision time. Several users' recordings can be concatenated into one file. ``path`` is
    checked before the episode starts (``pushgen.data.file_output``): an existing file is
    replaced only with ``force`` and only if it is a recording; never a file inside a split or
    another pushgen output.

    Parameters
    ----------
    env : gymnasium.Env
        A ``pushgen/NotificationGeneration-v0`` environment in ``mode="sampled"`` (its default).
    policy : Policy
        ``policy(observation, info)`` gives the action of each step.
    path : str or pathlib.Path
        The Parquet file to write.
    seed : int, optional
        Passed to ``env.reset``.
    options : dict, optional
        Passed to ``env.reset`` (e.g. ``{"user": id}``).
    force : bool, default False
        Replace ``path`` if it is a recording.

    Returns
    -------
    History
        The episode's steps, as written.

    Raises
    ------
    TypeError
        When ``env`` is not a generation environment.
    ValueError
        When ``env`` plays the ``expected`` evaluation mode (a run is recorded in sampled mode), or
        ``path`` does not end in ``.parquet`` (or ``.pq``), which ``pushgen evaluate`` would not
        read as Parquet.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import pushgen
    >>> from pushgen.envs import record_run
    >>> env = gym.make("pushgen/NotificationGeneration-v0", split="pushgen-mini-v4", user=3)
    >>> history = record_run(env, lambda observation, info: env.action_space.sample(), "run.parquet")
    >>> result = pushgen.evaluate("pushgen-mini-v4", task=2, submission="run.parquet")
    >>> result.score["users"], len(history) > 0
    (1, True)
    """
    game = getattr(env, "unwrapped", None)
    if not isinstance(game, NotificationGenerationEnv):
        raise TypeError(f"record_run records a pushgen/NotificationGeneration-v0 run (an environment "
                        f"from gym.make); got {type(env if game is None else game).__name__}, whose runs it "
                        f"cannot score")
    if not callable(policy):
        raise TypeError(f"record_run's policy is called as policy(observation, info) -> action (a "
                        f"function, or pushgen.baselines.PolicyAgent(policy)); got {policy!r}")
    if Path(path).suffix.lower() not in PARQUET_SUFFIXES:
        raise ValueError(f"record_run writes Parquet, which pushgen evaluate reads from a .parquet file; "
                         f"got path {str(path)!r}: give a path ending in .parquet")
    if game.mode != "sampled":
        raise ValueError(f"record_run records a run played in sampled mode (the mode learners play); got "
                         f"mode={game.mode!r}: make the environment with mode='sampled'")
    with file_output(path, force, is_recording, "recording", option="path") as partial:
        observation, info = env.reset(seed=seed, options=options)
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(policy(observation, info))
            done = terminated or truncated
        history: History = game.history
        history.save(partial)
    return history


def is_recording(path: Path) -> bool:
    """Whether ``path`` is a Parquet file with a recording's columns."""
    try:
        names = pq.read_schema(path).names
    except (OSError, pa.ArrowException):
        return False
    return {"step", "user_id", "context_id", "decision_seconds"} <= set(names)
