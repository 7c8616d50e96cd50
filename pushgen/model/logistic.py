"""The logistic function of the engagement model, in numpy: every P(open), the generator's and
the judge's, goes through this one function (importing ``scipy.special`` for it would cost a
third of a second in every process that generates or scores)."""

from __future__ import annotations

import numpy as np


def expit(x: np.ndarray | float) -> np.ndarray:
    """1 / (1 + exp(-x)), elementwise: 0 at x = -inf, 1 at x = +inf."""
    with np.errstate(over="ignore"):  # exp(-x) = inf for very negative x gives exactly 0
        e = np.exp(-np.asarray(x))
        if not isinstance(e, np.ndarray):
            return 1.0 / (1.0 + e)
        e += 1.0
        return np.divide(1.0, e, out=e)
