"""Random streams: one ``numpy.random.Generator`` per (seed, user, node family).

A user's streams depend only on the dataset seed and the user's index, never on how
many users are made or in which process, so user k's rows are the same in any run.
The order of ``NodeFamily`` is part of the data format: append, never reorder.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np


class NodeFamily(IntEnum):
    CHRONOTYPE = 0
    SCHEDULE = 1
    PLACES = 2
    DEVICE_HABITS = 3
    PORTFOLIO = 4
    INTERESTS = 5
    TRAITS = 6
    ROUTINE = 7
    SURROUNDINGS = 8
    BATTERY = 9
    AUDIO = 10
    RINGER = 11
    ARRIVALS = 12
    CONTENT = 13
    ENGAGEMENT = 14
    TIMINGS = 15
    PSEUDONYM = 16
    LIFESTYLE = 17
    MOOD = 18
    REGIME = 19


def stream(seed: int, user: int, family: NodeFamily) -> np.random.Generator:
    """The generator for one user's node family."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(user, int(family))))
    )


def integer_seed(seed: int, user: int, family: NodeFamily) -> int:
    """A 32-bit integer seed, for libraries that take one (faker)."""
    return int(np.random.SeedSequence(seed, spawn_key=(user, int(family))).generate_state(1)[0])
