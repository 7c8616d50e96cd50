"""Gymnasium environments that replay a split (registered with gymnasium by ``import pushgen``).

- ``pushgen/NotificationGeneration-v0``: tasks 1 and 2, generate a notification per context.
- ``pushgen/NotificationInbox-v0``: the classic gym-push task, predict open or dismiss.
- ``pushgen/NotificationSelection-v0``: send one of K eligible candidate notifications, or hold.

Both take ``split=`` (a standard split's name or a split folder) and ``user=``. The generation and
selection environments also have native vector versions (``gym.make_vec(GENERATION_ID, num_envs=N,
vectorization_mode="vector_entry_point", ...)``, ``pushgen.envs.vector``). Registering
them imports none of their modules: gymnasium imports an environment's module when it is made.
Nor does ``import pushgen`` import gymnasium: if gymnasium is not loaded yet, the environments
are registered the moment it is, so code that never uses gymnasium (``pushgen make``, the
workers of ``--jobs``) does not pay for importing it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

GENERATION_ID = "pushgen/NotificationGeneration-v0"
INBOX_ID = "pushgen/NotificationInbox-v0"
SELECTION_ID = "pushgen/NotificationSelection-v0"
ENTRY_POINTS = {
    GENERATION_ID: "pushgen.envs.generation:NotificationGenerationEnv",
    INBOX_ID: "pushgen.envs.inbox:NotificationInboxEnv",
    SELECTION_ID: "pushgen.envs.selection:NotificationSelectionEnv",
}
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


REGISTRATION = "gymnasium.envs.registration"


class _RegisterOnLoad(importlib.abc.MetaPathFinder):
    """Finds gymnasium's registration module as usual, and registers the environments as soon
    as it has run."""

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if name != REGISTRATION:
            return None
        _stop_waiting()
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader)
        return spec


class _ThenRegister(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        register_envs()

    def __getattr__(self, name: str) -> Any:  # get_source and the like, for tracebacks
        return getattr(self.loader, name)


def _stop_waiting() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RegisterOnLoad)]


def register_when_gymnasium_loads() -> None:
    """Register the environments now if gymnasium is loaded, else the moment it is."""
    if REGISTRATION in sys.modules:
        register_envs()
    elif not any(isinstance(f, _RegisterOnLoad) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnLoad())


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pushgen.envs' has no attribute {name!r}")


register_when_gymnasium_loads()

__all__ = ["ENTRY_POINTS", "GENERATION_ID", "INBOX_ID", "SELECTION_ID", "register_envs", *_LAZY]
