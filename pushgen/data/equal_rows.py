"""Groups of a user's rows that are equal on many coded columns, found by one sort: each row's
codes are packed into the bits of one unsigned 64-bit key (the user in the high bits, a 0/1 flag
in the lowest), and equal rows become runs of the sorted keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen.data.describe_time import dense_rank

KEY_BITS = 64


def bit_width(values: int) -> int:
    """Bits that number ``values`` distinct values 0..values-1."""
    return max(0, int(values) - 1).bit_length()


def packed_codes(columns: list[np.ndarray], rows: int) -> tuple[np.ndarray, int]:
    """One integer per row, equal for two rows exactly when all ``columns`` are, and its bits."""
    key = np.zeros(rows, dtype=np.uint64)
    bits = 0
    for codes in columns:
        if not len(codes):
            continue
        low = int(codes.min())
        width = bit_width(int(codes.max()) - low + 1)
        if not width:
            continue
        if bits + width > KEY_BITS - 1:
            key = dense_rank(key).astype(np.uint64)
            bits = bit_width(int(key.max()) + 1)
        key <<= np.uint64(width)
        np.bitwise_or(key, _unsigned(codes, low), out=key)
        bits += width
    return key, bits


def _unsigned(codes: np.ndarray, low: int) -> np.ndarray:
    """``codes - low`` (all >= 0) as unsigned integers."""
    if low == 0 and codes.dtype.kind in "iub":
        return codes.view(np.dtype(f"u{codes.dtype.itemsize}"))
    return np.subtract(codes, low, dtype=np.int64).view(np.uint64)


@dataclass(frozen=True)
class EqualRows:
    """The groups of two or more equal rows (ordered by user): their rows, their rows flagged and
    their user."""

    size: np.ndarray
    flagged: np.ndarray
    user: np.ndarray

    @classmethod
    def of(cls, user: np.ndarray, users: int, columns: list[np.ndarray], flag: np.ndarray) -> EqualRows:
        """``user``: each row's user numbered 0..users-1; ``flag``: 0/1 per row."""
        rows = len(flag)
        features, bits = packed_codes(columns, rows)
        if bit_width(users) + bits + 1 > KEY_BITS:
            features = dense_rank(features).astype(np.uint64)
            bits = bit_width(int(features.max()) + 1)
        key = user.astype(np.uint64)
        key <<= np.uint64(bits + 1)
        features <<= np.uint64(1)
        key |= features
        key |= np.asarray(flag, dtype=bool).view(np.uint8)
        key.sort(kind="stable")  # a merge of the runs of the user-ordered rows
        same = (key[1:] ^ key[:-1]) <= 1  # a row and the next are equal but for the flag
        change = np.diff(same.view(np.int8), prepend=np.int8(0), append=np.int8(0))
        starts, ends = np.flatnonzero(change == 1), np.flatnonzero(change == -1) + 1  # runs of equal rows
        first = key[starts]
        first_flagged = np.searchsorted(key, first | np.uint64(1))  # flagged rows sort last in a group
        return cls(ends - starts, ends - first_flagged, (first >> np.uint64(bits + 1)).astype(np.int64))
