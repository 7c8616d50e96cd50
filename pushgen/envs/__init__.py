"""Gymnasium environments that replay a split (registered on ``import pushgen``).

- ``pushgen/NotificationGeneration-v0``: tasks 1 and 2, generate a notification per context.
- ``pushgen/NotificationInbox-v0``: the classic gym-push task, predict open or dismiss.

Both take ``split=`` (a standard split's name or a split folder) and ``user=``.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from pushgen.envs.generation import ENV_ID as GENERATION_ID
from pushgen.envs.generation import NotificationGenerationEnv
from pushgen.envs.history import History
from pushgen.envs.inbox import ENV_ID as INBOX_ID
from pushgen.envs.inbox import NotificationInboxEnv
from pushgen.envs.judge import MODES, REWARDS
from pushgen.envs.recording import record_run
from pushgen.envs.spaces import (
    DISMISSED,
    OPENED,
    context_space,
    decode,
    encode,
    notification_space,
)

ENTRY_POINTS = {
    GENERATION_ID: f"{NotificationGenerationEnv.__module__}:{NotificationGenerationEnv.__name__}",
    INBOX_ID: f"{NotificationInboxEnv.__module__}:{NotificationInboxEnv.__name__}",
}


def register_envs() -> None:
    """Register the environments with gymnasium (idempotent)."""
    for env_id, entry_point in ENTRY_POINTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)


register_envs()

__all__ = [
    "DISMISSED",
    "GENERATION_ID",
    "INBOX_ID",
    "MODES",
    "OPENED",
    "REWARDS",
    "History",
    "NotificationGenerationEnv",
    "NotificationInboxEnv",
    "context_space",
    "decode",
    "encode",
    "notification_space",
    "record_run",
    "register_envs",
]
