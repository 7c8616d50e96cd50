"""The public names: those of ``pushgen.__all__`` and of the public modules' ``__all__``, each with
the dotted path of the object that defines it, and whether its docstring is complete (numpydoc).

    python scripts/public_api.py        # counts the public names with a complete docstring
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from types import ModuleType

PUBLIC_MODULES = (
    "pushgen",
    "pushgen.envs",
    "pushgen.envs.selection",
    "pushgen.envs.recording",
    "pushgen.baselines",
    "pushgen.benchmark",
    "pushgen.ope",
    "pushgen.report",
)


def defined_at(module: ModuleType, name: str) -> str:
    """The dotted path where ``module.name`` is defined (a module for a submodule)."""
    value = getattr(module, name)
    if inspect.ismodule(value):
        return value.__name__
    if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__.startswith("pushgen"):
        return f"{value.__module__}.{value.__qualname__}"
    lazy = getattr(module, "_LAZY", {})
    if name not in lazy:
        return f"{module.__name__}.{name}"
    home = lazy[name] if lazy[name].startswith("pushgen") else f"{module.__name__}.{lazy[name]}"
    return f"{home}.{name}"


def public_names() -> Iterator[tuple[str, str, object]]:
    """(public module, name, object) of every public name, module by module in ``__all__`` order."""
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            yield module_name, name, getattr(module, name)


def complete(value: object) -> bool:
    """Whether a function's or class's docstring has the numpydoc sections it needs and an example.

    A function needs Parameters (when it takes any), Returns (unless it returns None) and Examples; a
    class needs Parameters or Attributes (when its constructor takes any) and Examples; an
    exception, a docstring. Constants and modules count as complete when they are documented
    where they are defined.
    """
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return True
    doc = inspect.getdoc(value) or ""
    if inspect.isclass(value) and issubclass(value, Exception):
        return bool(doc)
    sections = {line.strip() for line, rule in zip(doc.splitlines(), doc.splitlines()[1:], strict=False)
                if rule.strip() and set(rule.strip()) == {"-"}}
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        signature = None
    takes = bool(signature and [p for p in signature.parameters.values() if p.name not in ("self", "cls")
                                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)])
    if takes and inspect.isclass(value) and "Attributes" in sections:
        sections.add("Parameters")  # a dataclass's fields are its parameters
    needed = {"Examples"} | ({"Parameters"} if takes else set())
    if inspect.isfunction(value) and signature and signature.return_annotation not in (None, "None"):
        needed.add("Returns")
    return needed <= sections


if __name__ == "__main__":
    names = list(public_names())
    seen: set[int] = set()
    callables = [(m, n, v) for m, n, v in names if (inspect.isclass(v) or inspect.isfunction(v))
                 and not (id(v) in seen or seen.add(id(v)))]  # each object once, at its first name
    done = [(m, n) for m, n, v in callables if complete(v)]
    print(f"{len(done)} of {len(callables)} public functions and classes have a complete numpydoc "
          f"docstring ({len(names)} public names in all, constants and modules included)")
    for module_name, name, value in callables:
        if not complete(value):
            print(f"  incomplete: {module_name}.{name}")
