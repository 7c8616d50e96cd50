"""Kernels of the situations: the exponents of the clock's curves, and the situations from
those curves' values and the context's codes (``pushgen.model.situations``)."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import kernel


@kernel
def clock_exponents(hour: np.ndarray, morning_peak: float, morning_width: float, edge_hours: np.ndarray,
                    edge_widths: np.ndarray, rising: np.ndarray) -> np.ndarray:
    """(1 + edges, rows): the morning bell's exponent -((hour - morning_peak) / morning_width)^2 / 2,
    then each logistic edge's: the -x of its s(x) = 1 / (1 + exp(-x)), where
    x = (hour - edge_hours[e]) / edge_widths[e] if ``rising[e]``,
    else (edge_hours[e] - hour) / edge_widths[e]."""
    n = len(hour)
    out = np.empty((1 + len(edge_hours), n))
    bell = out[0]
    for i in range(n):
        z = (hour[i] - morning_peak) / morning_width
        bell[i] = -0.5 * (z * z)
    for e in range(len(edge_hours)):
        edge = out[1 + e]
        at, width = edge_hours[e], edge_widths[e]
        if rising[e]:
            for i in range(n):
                edge[i] = -((hour[i] - at) / width)
        else:
            for i in range(n):
                edge[i] = -((at - hour[i]) / width)
    return out


@kernel
def situation_columns(curves: np.ndarray, by_day: np.ndarray, day: np.ndarray, by_activity: np.ndarray,
                      activity: np.ndarray, silent: np.ndarray, ringer: np.ndarray, listening: np.ndarray,
                      headphones: np.ndarray, music: np.ndarray) -> np.ndarray:
    """(rows, 10) situations from the clock curves (the morning bell, then the logistic edges work
    starts, work ends, evening starts, day ends, night ends) and per-code indicator tables:

    morning = bell, work hours = workday * s(work starts) * s(work ends),
    evening = s(evening starts) * s(day ends), night = 1 - s(night ends) * s(day ends),
    weekend, then vehicle, exercise and walking by activity, silent by ringer mode, listening by
    headphones and music.
    """
    n = curves.shape[1]
    out = np.empty((n, 10))
    for i in range(n):
        d = day[i]
        a = activity[i]
        out[i, 0] = curves[0, i]
        out[i, 1] = by_day[d, 0] * curves[1, i] * curves[2, i]
        out[i, 2] = curves[3, i] * curves[4, i]
        out[i, 3] = 1.0 - curves[5, i] * curves[4, i]
        out[i, 4] = by_day[d, 1]
        out[i, 5] = by_activity[a, 0]
        out[i, 6] = by_activity[a, 1]
        out[i, 7] = by_activity[a, 2]
        out[i, 8] = silent[ringer[i]]
        out[i, 9] = listening[headphones[i], music[i]]
    return out
