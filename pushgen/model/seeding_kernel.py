"""Kernel of ``seeding.stream``: the state a ``numpy.random.SeedSequence`` gives a bit generator,
computed in one call for many sequences instead of through its Python-level mixing."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel

POOL_SIZE = 4
MASK32 = np.uint64(0xFFFFFFFF)
INIT_A, MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
INIT_B, MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
MIX_MULT_L, MIX_MULT_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
XSHIFT = np.uint64(16)


@Kernel
def sequence_states(entropies: np.ndarray, n_words64: int) -> np.ndarray:
    """(sequences, n_words64): ``SeedSequence.generate_state(n_words64, np.uint64)`` of each
    sequence whose assembled entropy is a row of ``entropies`` (uint64 holding 32-bit words: the run
    entropy padded to the pool size, then the spawn key's words), by O'Neill's seed_seq mixing with
    NumPy's constants: each word is hashed into a pool of four, the pool mixed with itself, then
    with the words beyond the pool; the state is the pool hashed again in turn, word pairs read
    little-endian."""
    n_sequences, n_entropy = entropies.shape
    states = np.zeros((n_sequences, n_words64), dtype=np.uint64)
    pool = np.zeros(POOL_SIZE, dtype=np.uint64)
    for row in range(n_sequences):
        entropy = entropies[row]
        hash_const = INIT_A
        for i in range(POOL_SIZE):
            value = entropy[i] if i < n_entropy else np.uint64(0)
            value ^= hash_const
            hash_const = (hash_const * MULT_A) & MASK32
            value = (value * hash_const) & MASK32
            pool[i] = value ^ (value >> XSHIFT)
        for i_src in range(max(POOL_SIZE, n_entropy)):  # the pool's words, then the words beyond it
            for i_dst in range(POOL_SIZE):
                if i_src == i_dst:
                    continue
                value = (pool[i_src] if i_src < POOL_SIZE else entropy[i_src]) ^ hash_const
                hash_const = (hash_const * MULT_A) & MASK32
                value = (value * hash_const) & MASK32
                value ^= value >> XSHIFT
                mixed = ((MIX_MULT_L * pool[i_dst]) - (MIX_MULT_R * value)) & MASK32
                pool[i_dst] = mixed ^ (mixed >> XSHIFT)
        hash_const = INIT_B
        for i in range(2 * n_words64):
            value = pool[i % POOL_SIZE] ^ hash_const
            hash_const = (hash_const * MULT_B) & MASK32
            value = (value * hash_const) & MASK32
            value ^= value >> XSHIFT
            states[row, i // 2] |= value << np.uint64(32 * (i % 2))
    return states
