"""Gymnasium environments that replay a split (registered on ``import pushgen``).

- ``pushgen/NotificationGeneration-v0``: tasks 1 and 2, generate a notification per context.
- ``pushgen/NotificationInbox-v0``: the classic gym-push task, predict open or dismiss.
- ``pushgen/NotificationSelection-v0``: send one of K eligible candidate notifications, or hold.
- ``pushgen/LongHorizon-v0``: one app's notification system for one user over weeks, where users
  turn apps off (``pushgen.envs.long_horizon``).

Both take ``split=`` (a standard split's name or a split folder) and ``user=``. The generation and
selection environments also have native vector versions (``gym.make_vec(GENERATION_ID, num_envs=N,
vectorization_mode="vector_entry_point", ...)``, ``pushgen.envs.vector``). Registering
them imports none of their modules: gymnasium imports an environment's module when it is made.
"""

from __future__ import annotations

import importlib
from typing import Any

GENERATION_ID = "pushgen/NotificationGeneration-v0"
INBOX_ID = "pushgen/NotificationInbox-v0"
SELECTION_ID = "pushgen/NotificationSelection-v0"
LONG_HORIZON_ID = "pushgen/LongHorizon-v0"
ENTRY_POINTS = {
    GENERATION_ID: "pushgen.envs.generation:NotificationGenerationEnv",
    INBOX_ID: "pushgen.envs.inbox:NotificationInboxEnv",
    SELECTION_ID: "pushgen.envs.selection:NotificationSelectionEnv",
    LONG_HORIZON_ID: "pushgen.envs.long_horizon:LongHorizonEnv",
}
# outcomes drawn from entropy drawn afresh at each reset (sampled mode, the default), not from the seed
NONDETERMINISTIC = (GENERATION_ID, SELECTION_ID, LONG_HORIZON_ID)
VECTOR_ENTRY_POINTS: dict[str, str] = {
    GENERATION_ID: "pushgen.envs.vector:NotificationGenerationVectorEnv",
    SELECTION_ID: "pushgen.envs.selection_vector:NotificationSelectionVectorEnv",
}
_LAZY = {
    "NotificationGenerationEnv": "pushgen.envs.generation",
    "NotificationInboxEnv": "pushgen.envs.inbox",
    "NotificationGenerationVectorEnv": "pushgen.envs.vector",
    "NotificationSelectionEnv": "pushgen.envs.selection",
    "NotificationSelectionVectorEnv": "pushgen.envs.selection_vector",
    "LongHorizonEnv": "pushgen.envs.long_horizon",
    "History": "pushgen.envs.history",
    "MODES": "pushgen.replay.rewards",
    "REWARDS": "pushgen.replay.rewards",
    "record_run": "pushgen.envs.recording",
    "DISMISSED": "pushgen.envs.spaces",
    "OPENED": "pushgen.envs.spaces",
    "context_space": "pushgen.envs.spaces",
    "decode": "pushgen.envs.spaces",
    "encode": "pushgen.envs.spaces",
    "notification_space": "pushgen.envs.spaces",
}


def register_envs() -> None:
    """Register the environments with gymnasium (idempotent).

    ``import pushgen`` calls it; gymnasium imports an environment's module only when it is made.

    Examples
    --------
    >>> import gymnasium as gym
    >>> from pushgen.envs import GENERATION_ID, register_envs
    >>> register_envs()
    >>> GENERATION_ID in gym.registry
    True
    """
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENTRY_POINTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, nondeterministic=env_id in NONDETERMINISTIC,
                     vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id))


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pushgen.envs' has no attribute {name!r}")


__all__ = ["ENTRY_POINTS", "GENERATION_ID", "INBOX_ID", "LONG_HORIZON_ID", "SELECTION_ID", "register_envs",
           *_LAZY]
