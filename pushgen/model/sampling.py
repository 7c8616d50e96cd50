"""Vectorised draws shared by the node families."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import TypeVar

import numpy as np

from pushgen.model.sampling_kernel import categorical_codes

T = TypeVar("T")
SCALAR_POISSON_BELOW = 12  # below this many rates, one call per rate costs less than the array call
DIRICHLET_GAMMA_ALPHA = 0.1  # numpy's dirichlet draws gammas when a row's largest alpha is at least this


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


def one_of(options: Sequence[T], rng: np.random.Generator) -> T:
    """``rng.choice(options)``'s element from the same draw, ``rng.integers(0, len(options))``,
    without the array ``rng.choice`` makes of ``options`` first (a tuple's element stays a Python
    value, not a NumPy scalar)."""
    return options[int(rng.integers(0, len(options)))]


def poisson_counts(rates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``rng.poisson(rates)`` for a 1-D array: the same draws, in the same order (numpy draws each
    element in turn), taken one call per rate for a few rates, where the array call's set-up costs
    more than the draws."""
    if len(rates) >= SCALAR_POISSON_BELOW:
        return rng.poisson(rates)
    return np.array([rng.poisson(rate) for rate in rates.tolist()], dtype=np.int64)


def dirichlet_rows(alphas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``np.vstack([rng.dirichlet(row) for row in alphas])``, to the bit, from the same draws.

    When each row's largest alpha is at least ``DIRICHLET_GAMMA_ALPHA``, numpy's dirichlet draws a
    standard gamma for each alpha in turn and multiplies a row by 1 / its sum added left to right:
    here one ``standard_gamma`` call and the same sums and products for all rows. Otherwise (numpy's
    other method) those dirichlet calls."""
    alphas = np.asarray(alphas, dtype=np.float64)
    if not (alphas.max(axis=1) >= DIRICHLET_GAMMA_ALPHA).all():
        return np.vstack([rng.dirichlet(row) for row in alphas])
    gammas = rng.standard_gamma(alphas)
    total = np.zeros(len(alphas))
    for column in gammas.T:
        total += column
    return gammas * (1.0 / total)[:, None]


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
