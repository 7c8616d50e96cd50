"""Dynamic surroundings nodes: ambient noise and what is in front of the screen."""

from __future__ import annotations

import numpy as np

from pushgen.model.routine import State, cdf_given_state
from pushgen.model.sampling import categorical_rows


def given_state(table: str) -> dict[State, dict[str, float]]:
    """P(value | routine state) from a table written as text: a header of the values, then per
    state its name and the probability of each value."""
    values, *rows = (line.split() for line in table.strip().splitlines())
    return {State[name]: dict(zip(values, map(float, row), strict=True)) for name, *row in rows}


NOISE_GIVEN_STATE = given_state("""
              low    medium  high
    SLEEP     0.95   0.05    0
    HOME      0.6    0.35    0.05
    COMMUTE   0.15   0.5     0.35
    WORK      0.35   0.55    0.1
    ERRAND    0.15   0.55    0.3
    LEISURE   0.05   0.35    0.6
    EXERCISE  0.3    0.5     0.2
    TRAVEL    0.05   0.45    0.5
""")
# "near": the phone is in a pocket or face down; "far": nothing in front of the screen.
PROXIMITY_GIVEN_STATE = given_state("""
              far    med     near
    SLEEP     0.7    0.15    0.15
    HOME      0.6    0.25    0.15
    COMMUTE   0.2    0.2     0.6
    WORK      0.6    0.3     0.1
    ERRAND    0.2    0.25    0.55
    LEISURE   0.25   0.25    0.5
    EXERCISE  0.05   0.1     0.85
    TRAVEL    0.3    0.3     0.4
""")
NOISE_CDF = cdf_given_state("noise", NOISE_GIVEN_STATE)
PROXIMITY_CDF = cdf_given_state("proximity", PROXIMITY_GIVEN_STATE)


def noise(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state. noise ~ Categorical(NOISE_GIVEN_STATE[state]) per slot."""
    return categorical_rows(NOISE_CDF, state, rng)


def proximity(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state. proximity ~ Categorical(PROXIMITY_GIVEN_STATE[state]) per slot."""
    return categorical_rows(PROXIMITY_CDF, state, rng)
