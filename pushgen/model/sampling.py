"""Vectorised draws shared by the node families."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import numpy as np

from pushgen.model.sampling_kernel import categorical_codes


def categorical(p: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of codes from one probability vector ``p``."""
    cdf = np.cumsum(p)
    return np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(size), side="right"),
                      len(p) - 1).astype(np.int16)


def choice(p: Sequence[float], rng: np.random.Generator) -> int:
    """One code drawn with probabilities ``p``: ``rng.choice(len(p), p=p)``'s code from the same
    uniform (its running sums divided by the total, the uniform located among them), without the
    checks and array set-up that cost more than the draw for a handful of values."""
    cumulative = list(accumulate(float(share) for share in p))
    return bisect_right([value / cumulative[-1] for value in cumulative], rng.random())


def clipped(value: float, low: float, high: float) -> float:
    """``float(np.clip(value, low, high))`` for one number, without NumPy's call overhead."""
    return float(min(max(value, low), high))


def categorical_rows(cdf: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per element of ``rows`` from the cumulative distribution ``cdf[rows]``.

    The normalised rows are stacked end to end (row r spans [r, r + 1]), and each uniform plus
    its row is located in its row (``sampling_kernel.categorical_codes``).
    """
    rows = np.asarray(rows)
    if rows.dtype.kind not in "iu":
        rows = rows.astype(np.int64)
    return categorical_codes(np.asarray(cdf, dtype=np.float64), rng.random(len(rows)), rows)
