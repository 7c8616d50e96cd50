"""Public names that moved: a module's ``__getattr__`` that names the replacement of each."""

from __future__ import annotations

from collections.abc import Callable


def moved(module: str, replacements: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` raising, for each old name in ``replacements``, a one-line error
    naming what replaces it."""

    def __getattr__(name: str) -> object:
        if name in replacements:
            raise AttributeError(f"{module}.{name} is now {replacements[name]}")
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
