"""Kernels of ``sampling``: each draw located in its row's cumulative distribution, and the runs of
equal state."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel

LINEAR_WIDTH = 16  # up to this many values a row, counting beats a guide table


@kernel
def categorical_codes(cdf: np.ndarray, uniforms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Code of each draw: ``np.searchsorted(stacked, uniforms + rows, side="right") - rows * width``,
    capped at ``width - 1``, where ``stacked`` holds the normalised cumulative rows
    ``r + cdf[r] / cdf[r, -1]`` end to end (row r spans [r, r + 1]).

    A key u + r lies in [r, r + 1], so every value of the rows before r is below or at it and
    the code is the count of values of row r (all but its last, which is r + 1) at or below
    the key. Narrow rows are counted; wide rows start counting where a guide table, built per
    row over ``width`` equal buckets, says that every value before is below the key.
    """
    n_rows, width = cdf.shape
    stacked = np.full((n_rows, width), np.nan)  # a row of total 0, which no draw names, stays NaN
    for r in range(n_rows):
        if cdf[r, width - 1] != 0:
            for j in range(width):
                stacked[r, j] = cdf[r, j] / cdf[r, width - 1] + r
    n = len(uniforms)
    codes = np.empty(n, dtype=np.int16)
    last = width - 1
    if width <= LINEAR_WIDTH:
        for i in range(n):
            r = rows[i]
            key = uniforms[i] + r
            count = 0
            for j in range(last):
                count += stacked[r, j] <= key
            codes[i] = count
        return codes
    # guide[r, b]: how many values of row r lie below r + (b - 1) / width; a key in bucket b is at
    # least about r + b / width, so a whole bucket is left for rounding
    guide = np.empty((n_rows, width + 1), dtype=np.int64)
    for r in range(n_rows):
        j = 0
        guide[r, 0] = 0
        for b in range(1, width + 1):
            threshold = r + (b - 1) / width
            while j < last and stacked[r, j] < threshold:
                j += 1
            guide[r, b] = j
    for i in range(n):
        r = rows[i]
        key = uniforms[i] + r
        j = guide[r, int((key - r) * width)]
        while j < last and stacked[r, j] <= key:
            j += 1
        codes[i] = j
    return codes


@kernel
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
