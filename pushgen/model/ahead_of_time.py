"""The model's kernels compiled ahead of time, when pushgen is installed.

The build (``ahead_of_time_build``, run by the wheel's build hook) compiles every kernel for the
argument types generation and the judge call it with (``kernel_signatures``) into one extension,
``_kernels``, and writes beside it its table (the extension's file name ending in ``.json``, so
one per Python): the digest of the kernel sources it was built from and, per kernel, its
compiled variants by argument key. A process of pushgen's own (the ``pushgen`` program, the
workers of ``make --jobs``) calls these instead of starting numba, which costs about 0.4 s per
process (numba's import, its registries, a cache load per kernel). Compiled variants hold the
GIL while they run (pycc has no ``nogil``); the other threads of those processes encode Parquet
in pyarrow, which releases it.

numba's JIT, the same source, serves every other call: a library user's process (whose kernels,
compiled for the machine's CPU, run a few percent faster once loaded), argument types without a
compiled variant, no extension (no C compiler when pushgen was installed) and an extension built
from other kernel sources (an edited checkout). This module imports only the standard library and
numpy.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

EXTENSION = "_kernels"
SIGNATURES_MODULE = "kernel_signatures.py"
MODEL = Path(__file__).resolve().parent

Key = tuple[Any, ...]


def kernel_sources(folder: Path = MODEL) -> list[Path]:
    """The files the compiled kernels and their table come from: every ``*_kernel.py``, the
    signatures and this module (the argument keys)."""
    return [*sorted(folder.glob("*_kernel.py")), folder / SIGNATURES_MODULE, folder / Path(__file__).name]


def source_digest(folder: Path = MODEL) -> str:
    digest = hashlib.sha256()
    for path in kernel_sources(folder):
        source = path.read_bytes()
        digest.update(f"{path.name}\0{len(source)}\0".encode())
        digest.update(source)
    return digest.hexdigest()


def kernel_name(function: Callable[..., Any]) -> str:
    """``engagement_kernel.open_logits``: the kernel's module (in ``pushgen.model``) and name."""
    return f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"


def export_name(kernel: str, variant: int) -> str:
    return f"{kernel.replace('.', '__')}__{variant}"


def argument_key(arguments: Sequence[Any]) -> Key:
    """What decides a call's compiled variant, as numba types its arguments: an array's dtype,
    dimensions, layout and writability; a tuple's elements; a number's type."""
    return tuple([_KEYS.get(type(argument), _scalar_key)(argument) for argument in arguments])


def _array_key(array: Any) -> Key:
    flags = array.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    return (array.dtype.str, array.ndim, layout, flags.writeable)


def _scalar_key(value: Any) -> Any:
    dtype = getattr(value, "dtype", None)  # a numpy scalar
    return dtype.str if dtype is not None else type(value).__name__


def _python_number(key: str) -> Callable[[Any], str]:
    return lambda _value: key


_KEYS: dict[type, Callable[[Any], Any]] = {
    np.ndarray: _array_key, tuple: argument_key, bool: _python_number("|b1"), int: _python_number("<i8"),
    float: _python_number("<f8")}


def as_key(value: Any) -> Any:
    """A key read back from JSON: lists become tuples again."""
    return tuple(as_key(element) for element in value) if isinstance(value, list) else value


def table_of(extension: Path) -> Path:
    """The table built with ``extension``: its file name ending in ``.json``."""
    return extension.with_suffix(".json")


@functools.cache
def compiled_variants() -> dict[str, dict[Key, Callable[..., Any]]] | None:
    """Per kernel, its compiled variants by argument key; None without a usable extension (none
    built for this Python, or built from other kernel sources than these, or no sources to
    compare with)."""
    spec = importlib.util.find_spec(f"{__package__}.{EXTENSION}")
    if spec is None or spec.origin is None:
        return None
    try:
        exports = json.loads(table_of(Path(spec.origin)).read_text())
        digest = source_digest()
    except (OSError, ValueError):
        return None
    if not isinstance(exports, dict) or exports.get("digest") != digest:
        return None
    try:
        module = importlib.import_module(spec.name)
    except ImportError:
        return None
    return {kernel: {as_key(key): getattr(module, name) for key, name in variants}
            for kernel, variants in exports["kernels"].items()}
