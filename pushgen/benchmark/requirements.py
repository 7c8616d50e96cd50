"""The optional packages a benchmark needs, checked before it starts (``ImportError`` naming the extra)."""

from __future__ import annotations

from collections.abc import Iterable

NEEDS_SKLEARN = ("learned", "learned-diverse")


def check_requirements(baselines: Iterable[str], plots: bool) -> None:
    if any(name in NEEDS_SKLEARN for name in baselines):
        from pushgen.baselines.learned import require_sklearn

        require_sklearn()
    if plots:
        from pushgen.benchmark.plots import require_matplotlib

        require_matplotlib()
