"""The package's layers: each module imports only modules of its own layer or the ones below.

    1 model (numpy/scipy; numba only in pushgen.model.compiled)  2 data  3 splits  4 publishing
    5 replay  6 envs, baselines, benchmark, off-policy evaluation  7 the command line

Every import counts, also one inside a function. A module missing from LAYERS fails the test,
so a new module has to be placed in a layer.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pushgen"
LAYERS = {
    1: ("pushgen.model", "pushgen._version", "pushgen.schemas", "pushgen.text_tables", "pushgen.progress",
        "pushgen.stopping", "pushgen.own_process", "pushgen.extras", "pushgen.checks"),
    2: ("pushgen.data",),
    3: ("pushgen.splits",),
    4: ("pushgen.publishing",),
    5: ("pushgen.replay",),
    6: ("pushgen.envs", "pushgen.baselines", "pushgen.benchmark", "pushgen.report", "pushgen.ope"),
    7: ("pushgen.cli", "pushgen.commands", "pushgen.__main__", "pushgen"),
}
MODEL_ALLOWED = ("numpy", "scipy", "pushgen")
COMPILER_MODULES = {"pushgen.model.compiled"}  # numba's JIT


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    best = None
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > len(best[1])):
                best = (layer, prefix)
    if best is None:
        raise AssertionError(f"{module} is in no layer of tests/test_layers.py")
    return best[0]


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def internal(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_nothing_above_its_layer(module):
    own = layer_of(module)
    if module == "pushgen":
        return  # the package's lazy front door names every layer's public function
    for name in imports(MODULES[module]):
        if not name.startswith("pushgen"):
            continue
        target = internal(name)
        if target is None or target == module or target == "pushgen":
            continue
        assert layer_of(target) <= own, f"{module} (layer {own}) imports {target} (layer {layer_of(target)})"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("pushgen.model")))
def test_the_model_needs_only_numpy_and_scipy_and_only_its_compilers_import_numba(module):
    allowed = {*MODEL_ALLOWED, "__future__", *(("numba",) if module in COMPILER_MODULES else ())}
    outside = {name.split(".")[0] for name in imports(MODULES[module])} - allowed
    third_party = outside - sys.stdlib_module_names
    assert not third_party, f"{module} imports {sorted(third_party)}"


def test_no_import_cycle_between_modules():
    graph = {m: {internal(n) for n in imports(p) if n.startswith("pushgen")} - {None, m, "pushgen"}
             for m, p in MODULES.items()}
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in graph.get(node, ()):
            if seen.get(nxt) == 1:
                cycle = [*path[path.index(nxt):], nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module, [module])


def test_no_module_is_over_300_lines():
    lengths = {str(path.relative_to(PACKAGE.parent)): len(path.read_text().splitlines())
               for path in PACKAGE.rglob("*.py")}
    assert len(lengths) > 200
    assert {path: n for path, n in lengths.items() if n > 300} == {}
