"""Gymnasium environments that replay a split (registered on ``import pushgen``).

- ``pushgen/NotificationGeneration-v0``: tasks 1 and 2, generate a notification per context.
- ``pushgen/NotificationInbox-v0``: the classic gym-push task, predict open or dismiss.

Both take ``split=`` (a standard split's name or a split folder) and ``user=``. The generation
environment also has a native vector version (``gym.make_vec(GENERATION_ID, num_envs=N,
vectorization_mode="vector_entry_point", ...)``, ``pushgen.envs.vector``). Registering
them imports none of their modules: gymnasium imports an environment's module when it is made.
"""

from __future__ import annotations

import importlib
from typing import Any

GENERATION_ID = "pushgen/NotificationGeneration-v0"
INBOX_ID = "pushgen/NotificationInbox-v0"
ENTRY_POINTS = {
    GENERATION_ID: "pushgen.envs.generation:NotificationGenerationEnv",
    INBOX_ID: "pushgen.envs.inbox:NotificationInboxEnv",
}
VECTOR_ENTRY_POINTS: dict[str, str] = {
    GENERATION_ID: "pushgen.envs.vector:NotificationGenerationVectorEnv",
}
_LAZY = {
    "NotificationGenerationEnv": "pushgen.envs.generation",
    "NotificationInboxEnv": "pushgen.envs.inbox",
    "NotificationGenerationVectorEnv": "pushgen.envs.vector",
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
    """Register the environments with gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENTRY_POINTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point,
                     vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id))


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pushgen.envs' has no attribute {name!r}")


register_envs()

__all__ = ["ENTRY_POINTS", "GENERATION_ID", "INBOX_ID", "register_envs", *_LAZY]
