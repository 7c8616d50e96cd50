"""Random streams: one ``numpy.random.Generator`` per (seed, user, node family).

A user's streams depend only on the dataset seed and the user's index, never on how
many users are made or in which process, so user k's rows are the same in any run.
The order of ``NodeFamily`` is part of the data format: append, never reorder.
"""

from __future__ import annotations

import functools
import operator
from enum import IntEnum

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence
from numpy.typing import DTypeLike

from pushgen.model.seeding_kernel import POOL_SIZE, sequence_states


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
    LONG_TERM = 20


def stream(seed: int, user: int, family: NodeFamily) -> np.random.Generator:
    """The generator for one user's node family: PCG64 seeded by
    ``SeedSequence(seed, spawn_key=(user, family))``."""
    # numpy's stub asks for a SeedSequence; PCG64 takes any ISeedSequence
    return np.random.Generator(np.random.PCG64(FamilySeed(seed, user, family)))  # type: ignore[arg-type]


PCG64_WORDS = 4  # 64-bit words of state a PCG64 takes from its seed sequence
FAMILIES = len(NodeFamily)


class FamilySeed(ISpawnableSeedSequence):
    """``numpy.random.SeedSequence(seed, spawn_key=(user, family))``, whose state for a PCG64 comes
    from the user's ``family_states``; anything else is the ``SeedSequence``'s own."""

    def __init__(self, seed: int, user: int, family: NodeFamily) -> None:
        self.seed, self.user, self.family = operator.index(seed), operator.index(user), int(family)
        self._sequence: np.random.SeedSequence | None = None
        self._in_family_states = min(self.seed, self.user) >= 0 and 0 <= self.family < FAMILIES

    def generate_state(self, n_words: int, dtype: DTypeLike = np.uint32) -> np.ndarray:
        if (n_words == PCG64_WORDS and self._in_family_states
                and (dtype is np.uint64 or np.dtype(dtype) == np.uint64)):
            return family_states(self.seed, self.user)[self.family].copy()
        # SeedSequence itself raises a clear error for a dtype other than uint32 or uint64
        return self.sequence().generate_state(n_words, dtype)  # type: ignore[arg-type]

    # the children are SeedSequences, as numpy's own spawn documents; its stub says Self
    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:  # type: ignore[override]
        return self.sequence().spawn(n_children)

    def sequence(self) -> np.random.SeedSequence:
        if self._sequence is None:
            self._sequence = np.random.SeedSequence(self.seed, spawn_key=(self.user, self.family))
        return self._sequence


@functools.lru_cache(maxsize=8)
def family_states(seed: int, user: int) -> np.ndarray:
    """(families, 4) read-only: the PCG64 state words of ``SeedSequence(seed, spawn_key=(user,
    family))`` for every node family, in one ``seeding_kernel.sequence_states`` call."""
    run = _words(seed)
    key = np.array([*run, *[0] * (POOL_SIZE - len(run)), *_words(user), 0], dtype=np.uint64)
    entropies = np.repeat(key[None, :], FAMILIES, axis=0)  # one row a family: the key, then the family
    entropies[:, -1] = np.arange(FAMILIES, dtype=np.uint64)
    states = sequence_states(entropies, PCG64_WORDS)
    states.flags.writeable = False
    return states


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
