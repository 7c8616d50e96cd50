"""The optional packages a benchmark needs, checked before it starts: one ``ImportError`` that
names every missing package and the one install line that brings them all."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pushgen.extras import install_line

NEEDS_SKLEARN = ("learned", "learned-diverse")


def check_requirements(baselines: Iterable[str], plots: bool) -> None:
    from pushgen.baselines.learned import require_sklearn
    from pushgen.benchmark.plots import require_matplotlib

    wanted: list[tuple[str, str, Callable[[], object]]] = []
    if any(name in NEEDS_SKLEARN for name in baselines):
        wanted.append(("scikit-learn", f"the baselines {', '.join(NEEDS_SKLEARN)}", require_sklearn))
    if plots:
        wanted.append(("matplotlib", "the plots", require_matplotlib))
    missing = [f"{package} (for {purpose})" for package, purpose, require in wanted
               if not _importable(require)]
    if missing:
        raise ImportError(f"the benchmark needs {' and '.join(missing)}: {install_line('bench')} "
                          f"(or leave out {', '.join(NEEDS_SKLEARN)} with --baselines, and pass --no-plots)")


def _importable(require: Callable[[], object]) -> bool:
    try:
        require()
    except ImportError:
        return False
    return True
