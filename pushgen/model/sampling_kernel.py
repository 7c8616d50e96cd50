"""Kernels of ``sampling``: each draw located in its row's cumulative distribution, and the runs of
equal state."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

LINEAR_WIDTH = 16  # up to this many values a row, counting beats a guide table
GUIDE_BUCKETS = 2  # guide buckets per value of a wide row
GUIDE_COST = 2.0  # building a wide row's guide costs about this many bisection steps per value


@Kernel
def categorical_codes(cdf: np.ndarray, uniforms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Code of each draw: ``np.searchsorted(stacked, uniforms + rows, side="right") - rows * width``,
    capped at ``width - 1``, where ``stacked`` holds the normalised cumulative rows
    ``r + cdf[r] / cdf[r, -1]`` end to end (row r spans [r, r + 1]).

    A key u + r lies in [r, r + 1], so every value of the rows before r is below or at it and
    the code is the count of values of row r (all but its last, which is r + 1) at or below
    the key. Only rows some draw names are normalised. Narrow rows are counted. A wide row
    of few draws (their bisection steps fewer than ``GUIDE_COST`` per value of the row) is not
    normalised: each key is bisected over the row's values, each computed where it is read.
    Other wide rows are cut into ``GUIDE_BUCKETS * width`` equal buckets: a key's bucket b (by
    u = key - r, exact) bounds its code between the count of values below r + (b - 1) / buckets
    and the count below r + (b + 2) / buckets (a whole bucket left on either side for rounding);
    two steps settle a narrow interval, a bisection a wider one. Each way gives the same count.
    """
    n_rows, width = cdf.shape
    last = width - 1
    n = len(uniforms)
    codes = np.empty(n, dtype=np.int16)
    wide = width > LINEAR_WIDTH
    normalised = np.ones(n_rows, dtype=np.bool_)
    if wide or n_rows * width > n:  # else normalising every row costs less than counting the draws
        draws = np.zeros(n_rows, dtype=np.int64)
        for i in range(n):
            draws[rows[i]] += 1
        steps = 1
        while (1 << steps) < width:
            steps += 1
        # a wide row of few draws is bisected where read (its stacked values left unset); a row no
        # draw names is skipped
        for r in range(n_rows):
            normalised[r] = draws[r] > 0 and (not wide or draws[r] * steps >= GUIDE_COST * width)
    # row r: its values but the last, normalised, plus r; a row of total 0, which no draw names, NaN
    stacked = np.empty((n_rows, width))
    for r in range(n_rows):
        if not normalised[r]:
            continue
        total = cdf[r, last]
        for j in range(last):
            stacked[r, j] = cdf[r, j] / total + r if total != 0 else np.nan
        stacked[r, last] = np.inf  # never at or below a key: the count stops before the last value
    if not wide:
        for i in range(n):
            r = rows[i]
            key = uniforms[i] + r
            count = 0
            for j in range(last):
                count += stacked[r, j] <= key
            codes[i] = count
        return codes
    buckets = GUIDE_BUCKETS * width
    lower_edge = np.empty(buckets + 4)
    for b in range(buckets + 4):
        lower_edge[b] = (b - 1) / buckets
    below = np.empty((n_rows, buckets + 4), dtype=np.int32)  # below[r, b]: values < r + lower_edge[b]
    for r in range(n_rows):
        if not normalised[r]:
            continue
        j = 0
        for b in range(buckets + 4):
            threshold = r + lower_edge[b]
            while j < last and stacked[r, j] < threshold:
                j += 1
            below[r, b] = j
    for i in range(n):
        r = rows[i]
        key = uniforms[i] + r
        if not normalised[r]:
            total = cdf[r, last]
            low, high = 0, last
            while low < high:
                middle = (low + high) >> 1
                if (cdf[r, middle] / total + r if total != 0 else np.nan) <= key:
                    low = middle + 1
                else:
                    high = middle
            codes[i] = low
            continue
        b = int((key - r) * buckets)
        low, high = below[r, b], below[r, b + 3]
        if high - low <= 2:
            low += stacked[r, low] <= key
            low += stacked[r, low] <= key
        else:
            while low < high:
                middle = (low + high) >> 1
                if stacked[r, middle] <= key:
                    low = middle + 1
                else:
                    high = middle
        codes[i] = low
    return codes


@Kernel
def state_runs(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each element's run index (a run: consecutive equal values, at least one element) and each run's
    value."""
    n = len(state)
    run = np.empty(n, dtype=np.int64)
    values = np.empty(n, dtype=state.dtype)
    k = -1
    for i in range(n):
        if i == 0 or state[i] != state[i - 1]:
            k += 1
            values[k] = state[i]
        run[i] = k
    return run, values[:k + 1].copy()
