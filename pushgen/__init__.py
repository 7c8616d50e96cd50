"""pushgen: synthetic smartphone push-notification datasets and benchmarks.

The public names load their modules when first used, so ``import pushgen`` stays light; the
gymnasium environments are registered on import (except in the ``pushgen`` program, which makes
none of them by name).
"""

# ruff: noqa: E402  (the program's stop handling comes before every other import)
from __future__ import annotations

import os
import sys


def _is_program() -> bool:
    """Whether this process is the pushgen program (``pushgen ...`` or ``python -m pushgen ...``)."""
    program = (getattr(sys, "argv", None) or [""])[0]
    arguments = getattr(sys, "orig_argv", [])
    as_module = "-m" in arguments and arguments[arguments.index("-m") + 1:][:1] == ["pushgen"]
    return os.path.basename(program).split(".")[0] == "pushgen" or as_module


_IS_PROGRAM = _is_program()
if _IS_PROGRAM:
    from pushgen import stopping  # the pushgen program: from its first import

    stopping.starting()

import importlib
from typing import TYPE_CHECKING, Any

from pushgen import envs as envs

if not _IS_PROGRAM:  # the program makes no environment by name and skips gymnasium's import (0.1 s)
    envs.register_envs()

if TYPE_CHECKING:
    from pushgen._version import __version__
    from pushgen.benchmark import run_benchmark
    from pushgen.data.generator import Dataset, GenerationError, generate
    from pushgen.data.outputs import DatasetError
    from pushgen.model.feasibility import is_possible
    from pushgen.model.priors import Priors
    from pushgen.publishing.access import load_split
    from pushgen.publishing.development import development_split
    from pushgen.publishing.registry import list_splits
    from pushgen.replay.evaluation import evaluate

_LAZY = {
    "__version__": "pushgen._version",
    "Dataset": "pushgen.data.generator",
    "DatasetError": "pushgen.data.outputs",
    "GenerationError": "pushgen.data.generator",
    "generate": "pushgen.data.generator",
    "Priors": "pushgen.model.priors",
    "evaluate": "pushgen.replay.evaluation",
    "development_split": "pushgen.publishing.development",
    "run_benchmark": "pushgen.benchmark",
    "list_splits": "pushgen.publishing.registry",
    "load_split": "pushgen.publishing.access",
    "is_possible": "pushgen.model.feasibility",
}


if not TYPE_CHECKING:  # type checkers see the imports above, and a misspelt name is an error, not Any

    def __getattr__(name: str) -> Any:
        if name in _LAZY:
            value = getattr(importlib.import_module(_LAZY[name]), name)
            globals()[name] = value
            return value
        raise AttributeError(f"module 'pushgen' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "Dataset",
    "DatasetError",
    "GenerationError",
    "Priors",
    "__version__",
    "development_split",
    "envs",
    "evaluate",
    "generate",
    "is_possible",
    "list_splits",
    "load_split",
    "run_benchmark",
]
