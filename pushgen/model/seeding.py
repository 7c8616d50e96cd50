"""Random streams: one ``numpy.random.Generator`` per (seed, user, node family).

A user's streams depend only on the dataset seed and the user's index, never on how
many users are made or in which process, so user k's rows are the same in any run.
The order of ``NodeFamily`` is part of the data format: append, never reorder.
"""

from __future__ import annotations

import operator
from enum import IntEnum

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence

from pushgen.model.seeding_kernel import POOL_SIZE, sequence_state


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
    """The generator for one user's node family: PCG64 seeded by
    ``SeedSequence(seed, spawn_key=(user, family))``."""
    return np.random.Generator(np.random.PCG64(FamilySeed(seed, user, family)))


class FamilySeed(ISpawnableSeedSequence):
    """``numpy.random.SeedSequence(seed, spawn_key=(user, family))`` whose 64-bit state words are
    computed by ``seeding_kernel.sequence_state`` (what a bit generator takes at its creation);
    anything else is the ``SeedSequence``'s own."""

    def __init__(self, seed: int, user: int, family: NodeFamily) -> None:
        self.seed, self.user, self.family = operator.index(seed), operator.index(user), int(family)
        self._sequence: np.random.SeedSequence | None = None

    def generate_state(self, n_words: int, dtype: type = np.uint32) -> np.ndarray:
        if np.dtype(dtype) != np.uint64 or min(self.seed, self.user, self.family) < 0:
            return self.sequence().generate_state(n_words, dtype)
        run = _words(self.seed)
        entropy = np.array([*run, *[0] * (POOL_SIZE - len(run)), *_words(self.user), *_words(self.family)],
                           dtype=np.uint64)
        return sequence_state(entropy, operator.index(n_words))

    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:
        return self.sequence().spawn(n_children)

    def sequence(self) -> np.random.SeedSequence:
        if self._sequence is None:
            self._sequence = np.random.SeedSequence(self.seed, spawn_key=(self.user, self.family))
        return self._sequence


def _words(value: int) -> list[int]:
    """A non-negative integer's 32-bit words, least significant first (0 is one word), as
    ``SeedSequence`` reads an integer."""
    words = [value & 0xFFFFFFFF]
    value >>= 32
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return words


def integer_seed(seed: int, user: int, family: NodeFamily) -> int:
    """A 32-bit integer seed, for libraries that take one (faker)."""
    return int(np.random.SeedSequence(seed, spawn_key=(user, int(family))).generate_state(1)[0])
