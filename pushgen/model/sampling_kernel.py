"""Kernel of ``sampling.categorical_rows``: one sorted search per draw within its row."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel

LINEAR_WIDTH = 16  # up to this many values a row, counting beats bisecting


@kernel
def stacked_search(stacked: np.ndarray, keys: np.ndarray, rows: np.ndarray, width: int) -> np.ndarray:
    """``np.searchsorted(stacked, keys, side="right")`` where key i lies in [rows[i], rows[i] + 1]
    and ``stacked`` holds normalised cumulative rows r + cdf[r] / cdf[r, -1], end to end.

    Every value of the rows before row r is at most r <= key, and every value of the rows from
    r + 2 on is above r + 1 >= key, so the search is confined to rows r and r + 1 and gives the
    index the whole-array search gives.
    """
    n = len(keys)
    out = np.empty(n, dtype=np.int64)
    size = len(stacked)
    for i in range(n):
        lo = rows[i] * width
        hi = min(lo + 2 * width, size)
        key = keys[i]
        if width <= LINEAR_WIDTH:  # narrow rows: count without branches
            count = 0
            for j in range(lo, hi):
                count += stacked[j] <= key
            out[i] = lo + count
            continue
        while lo < hi:
            mid = (lo + hi) >> 1
            if stacked[mid] <= key:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo
    return out
