"""Situations: the parts of a context in which kinds of content gain or lose appeal.

A situation is a number in [0, 1] per row, from the context's features and the clock hour
(clock-time situations are smooth in the hour, with no step at a time-block edge):

    morning      exp(-((h - 7.5) / 1.5)^2 / 2)
    work hours   [Monday-Friday] x s((h - 8.5) / 0.5) x s((17.5 - h) / 0.5)
    evening      s((h - 18.5) / 0.8) x s((23.5 - h) / 1.0)
    night        1 - s((h - 6.5) / 0.6) x s((23.5 - h) / 1.0)
    weekend      [Saturday or Sunday]
    vehicle      [activity = vehicle]
    exercise     [activity = foot running or bicycle]
    walking      [activity = foot walking]
    silent       [ringerMode = silent]
    listening    [headphonesIn and musicActive]

(s is the logistic function.) ``INTERACTIONS[group][situation]`` is the population effect on
the open log-odds of a notification of that content group in that situation;
``PRIORITY_IN`` and ``UPDATES_IN`` add effects of the priority (high priority loses less in
silent mode) and of long content (many updates) in some situations. Sizes and the evidence
for each: ``docs/model.md`` section 4.2.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from pushgen import schemas
from pushgen.model.channels import GROUPS

SITUATIONS = ("morning", "work hours", "evening", "night", "weekend", "vehicle", "exercise", "walking",
              "silent", "listening")

INTERACTIONS: dict[str, dict[str, float]] = {
    "chat": {"work hours": -0.4, "evening": 0.5, "night": -0.4, "vehicle": -2.2, "exercise": -2.0,
             "walking": -0.3, "listening": 0.8},
    "call": {"work hours": -0.6, "vehicle": -0.8, "exercise": -1.2, "listening": 0.3},
    "work": {"morning": 0.8, "work hours": 2.4, "evening": -1.6, "night": -2.4, "weekend": -2.0,
             "vehicle": -1.4, "exercise": -2.0, "walking": -0.6, "listening": -0.4},
    "promotion": {"morning": -0.8, "work hours": -1.4, "evening": 1.3, "night": -1.0, "weekend": 0.2,
                  "vehicle": -1.4, "exercise": -1.6, "walking": -0.3},
    "social": {"morning": -0.5, "work hours": -1.4, "evening": 1.8, "night": 0.5, "weekend": 0.2,
               "vehicle": -1.0, "exercise": -1.6, "walking": 0.3, "listening": 0.4},
    "news": {"morning": 2.4, "work hours": -0.6, "evening": -0.6, "night": -1.2, "weekend": 0.2,
             "vehicle": -0.8, "exercise": -1.8},
    "playback": {"work hours": -0.8, "vehicle": 1.0, "exercise": 1.4, "walking": 0.8, "listening": 2.4},
    "entertainment": {"morning": -1.2, "work hours": -1.8, "evening": 2.2, "night": 0.8, "weekend": 0.3,
                      "vehicle": -1.2, "exercise": -1.6, "listening": 0.6},
    "system": {"work hours": -0.4, "night": -0.6},
    "calendar": {"morning": 1.6, "work hours": 1.2, "evening": -1.2, "night": -1.8, "weekend": -1.2},
    "alarm": {"morning": 1.2},
    "navigation": {"morning": 0.4, "work hours": -1.2, "night": -1.0, "vehicle": 2.6, "exercise": 0.4,
                   "walking": 1.6},
    "finance": {"work hours": 0.4, "evening": 0.3, "night": -1.0, "exercise": -1.2},
    "order": {"work hours": -0.6, "evening": 1.2, "weekend": 0.2, "vehicle": -0.8},
    "fitness": {"morning": 0.8, "work hours": -1.0, "evening": 0.6, "vehicle": -1.0, "exercise": 2.6,
                "walking": 1.0},
}
PRIORITY_IN = {"silent": {"max": 0.5, "high": 0.3, "low": -0.5, "min": -0.8}}
UPDATES_IN = {"vehicle": {"medium": -1.0, "high": -1.0}, "exercise": {"medium": -1.4, "high": -1.4}}


def _table(rows: tuple, by_situation: dict[str, dict], row_of: dict) -> np.ndarray:
    out = np.zeros((len(rows), len(SITUATIONS)))
    for situation, effects in by_situation.items():
        for key, effect in effects.items():
            out[row_of[key], SITUATIONS.index(situation)] = effect
    return out


@cache
def population_interactions() -> np.ndarray:
    """(groups, situations) population effects."""
    return np.array([[INTERACTIONS[g].get(s, 0.0) for s in SITUATIONS] for g in GROUPS])


@cache
def priority_effects() -> np.ndarray:
    """(priority codes, situations)."""
    f = schemas.field("priority")
    return _table(f.listed(), PRIORITY_IN, {v: f.code(v) for v in f.listed()})


@cache
def updates_effects() -> np.ndarray:
    """(numberOfUpdates codes, situations)."""
    f = schemas.field("numberOfUpdates")
    return _table(f.listed(), UPDATES_IN, {v: f.code(v) for v in f.listed()})


MORNING_PEAK_HOUR, MORNING_WIDTH_HOURS = 7.5, 1.5
# the clock's logistic edges: (hour, width in hours, rising); s((h - hour) / width) if rising,
# else s((hour - h) / width)
EDGES = {"work starts": (8.5, 0.5, True), "work ends": (17.5, 0.5, False),
         "evening starts": (18.5, 0.8, True), "day ends": (23.5, 1.0, False), "night ends": (6.5, 0.6, True)}


@cache
def indicator_tables() -> dict[str, np.ndarray]:
    """Per code of a context feature, the indicator situations it sets (1.0 or 0.0)."""
    weekday = np.asarray(schemas.values("day"), dtype=np.int64)
    act = schemas.field("activity")
    activity = np.arange(len(act.listed()))
    ringer = np.arange(len(schemas.values("ringerMode")))
    headphones = np.arange(len(schemas.values("headphonesIn"))) == schemas.field("headphonesIn").code(True)
    music = np.arange(len(schemas.values("musicActive"))) == schemas.field("musicActive").code(True)
    tables = {
        "day": np.column_stack([weekday < 5, weekday >= 5]),  # workday, weekend
        "activity": np.column_stack([  # vehicle, exercise, walking
            activity == act.code("vehicle"),
            (activity == act.code("foot running")) | (activity == act.code("bicycle")),
            activity == act.code("foot walking")]),
        "ringerMode": ringer == schemas.field("ringerMode").code("silent"),
        "listening": headphones[:, None] & music[None, :],
    }
    return {name: np.ascontiguousarray(table, dtype=np.float64) for name, table in tables.items()}


@cache
def _edges() -> tuple[np.ndarray, np.ndarray]:
    """Each logistic edge's hour and its width, negative where it rises (columns, to broadcast)."""
    hours, widths, rising = zip(*EDGES.values(), strict=True)
    return np.array(hours)[:, None], np.where(rising, -np.array(widths), np.array(widths))[:, None]


def clock_curves(hour: np.ndarray) -> np.ndarray:
    """(1 + edges, rows): the morning bell, then each logistic edge s(x) = 1 / (1 + exp(-x)), at each
    hour (float64)."""
    hour = np.asarray(hour, dtype=np.float64)
    at, signed_width = _edges()
    curves = np.empty((1 + len(at), len(hour)))
    bell = curves[0]
    np.subtract(hour, MORNING_PEAK_HOUR, out=bell)
    bell /= MORNING_WIDTH_HOURS
    np.multiply(bell, bell, out=bell)
    bell *= -0.5
    edges = curves[1:]
    np.subtract(hour, at, out=edges)
    edges /= signed_width  # -x of s(x): a rising edge's x = (h - at) / width, a falling one's its negative
    np.exp(curves, out=curves)
    edges += 1.0
    np.divide(1.0, edges, out=edges)
    return curves


def situations(codes: dict[str, np.ndarray], hour: np.ndarray) -> np.ndarray:
    """(rows, situations): each row's situations from its context codes and clock hour."""
    h, day, activity, ringer, headphones, music = (
        np.ascontiguousarray(a).ravel() for a in np.broadcast_arrays(
            np.asarray(hour, dtype=np.float64),
            *(np.asarray(codes[f])
              for f in ("day", "activity", "ringerMode", "headphonesIn", "musicActive"))))
    curves = clock_curves(h)
    tables = indicator_tables()
    by_day = tables["day"][day]
    return np.column_stack([curves[0], by_day[:, 0] * curves[1] * curves[2], curves[3] * curves[4],
                            1.0 - curves[5] * curves[4], by_day[:, 1], tables["activity"][activity],
                            tables["ringerMode"][ringer], tables["listening"][headphones, music]])
