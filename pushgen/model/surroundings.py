"""Dynamic surroundings nodes: ambient noise and what is in front of the screen."""

from __future__ import annotations

import numpy as np

from pushgen.model.routine import State, cdf_given_state
from pushgen.model.sampling import categorical_rows

NOISE_GIVEN_STATE = {
    State.SLEEP: {"low": 0.95, "medium": 0.05},
    State.HOME: {"low": 0.6, "medium": 0.35, "high": 0.05},
    State.COMMUTE: {"low": 0.15, "medium": 0.5, "high": 0.35},
    State.WORK: {"low": 0.35, "medium": 0.55, "high": 0.1},
    State.ERRAND: {"low": 0.15, "medium": 0.55, "high": 0.3},
    State.LEISURE: {"low": 0.05, "medium": 0.35, "high": 0.6},
    State.EXERCISE: {"low": 0.3, "medium": 0.5, "high": 0.2},
    State.TRAVEL: {"low": 0.05, "medium": 0.45, "high": 0.5},
}
# "near": the phone is in a pocket or face down; "far": nothing in front of the screen.
PROXIMITY_GIVEN_STATE = {
    State.SLEEP: {"far": 0.7, "med": 0.15, "near": 0.15},
    State.HOME: {"far": 0.6, "med": 0.25, "near": 0.15},
    State.COMMUTE: {"near": 0.6, "med": 0.2, "far": 0.2},
    State.WORK: {"far": 0.6, "med": 0.3, "near": 0.1},
    State.ERRAND: {"near": 0.55, "med": 0.25, "far": 0.2},
    State.LEISURE: {"near": 0.5, "med": 0.25, "far": 0.25},
    State.EXERCISE: {"near": 0.85, "med": 0.1, "far": 0.05},
    State.TRAVEL: {"near": 0.4, "med": 0.3, "far": 0.3},
}
NOISE_CDF = cdf_given_state("noise", NOISE_GIVEN_STATE)
PROXIMITY_CDF = cdf_given_state("proximity", PROXIMITY_GIVEN_STATE)


def noise(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state. noise ~ Categorical(NOISE_GIVEN_STATE[state]) per slot."""
    return categorical_rows(NOISE_CDF, state, rng)


def proximity(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Parents: routine state. proximity ~ Categorical(PROXIMITY_GIVEN_STATE[state]) per slot."""
    return categorical_rows(PROXIMITY_CDF, state, rng)
