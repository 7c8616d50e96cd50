"""Rows and opened rows of a notifications table in every combination of a few coded columns, by one
count of a mixed-radix index, so that every per-value figure of those columns is a sum of counts."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

MAX_CELLS = 1 << 22  # columns whose combinations would need more cells are counted apart


@dataclass(frozen=True)
class Crossed:
    """Counts over some columns: ``cells[..., 0]`` the rows not opened, ``cells[..., 1]`` those opened;
    axis i holds column i's codes -1, 0, 1, ..."""

    names: tuple[str, ...]
    cells: np.ndarray
    filled: np.ndarray  # the flat numbers of the combinations that occur

    @classmethod
    def of(cls, columns: dict[str, tuple[np.ndarray, int]], opened: np.ndarray) -> Crossed:
        """``columns``: each column's codes (-1 .. size-1) and size."""
        sizes = [size + 1 for _, size in columns.values()]
        index = np.zeros(len(opened), dtype=np.intp)  # bincount's own type: counted without a copy
        for (codes, _), size in zip(columns.values(), sizes, strict=True):
            index *= size
            index += codes
        offset = 0
        for size in sizes:  # codes start at -1: shift every digit by one
            offset = offset * size + 1
        index += offset
        index *= 2
        index += opened
        cells = np.bincount(index, minlength=2 * prod(sizes)).reshape(*sizes, 2)
        return cls(tuple(columns), cells, np.flatnonzero(cells.reshape(-1, 2).any(axis=1)))

    def per_value(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows and opened rows for each code 0 .. size-1 of column ``name``."""
        axis = self.names.index(name)
        sizes = self.cells.shape[:-1]
        digit = self.filled // prod(sizes[axis + 1:]) % sizes[axis]
        filled = self.cells.reshape(-1, 2)[self.filled]
        rows, opened = (np.bincount(digit, weights=filled[:, k], minlength=sizes[axis]).astype(np.int64)
                        for k in (0, 1))  # integers below 2**53: exact in float64
        return (rows + opened)[1:], opened[1:]


@dataclass(frozen=True)
class CrossCounts:
    """Rows and opened rows per value of each of many coded columns (codes -1: missing)."""

    parts: tuple[Crossed, ...]

    @classmethod
    def of(cls, columns: dict[str, tuple[np.ndarray, int]], opened: np.ndarray) -> CrossCounts:
        """``columns``: each column's codes (-1 .. size-1) and size; columns are crossed with each
        other as long as their combinations are fewer than half the rows (and ``MAX_CELLS``)."""
        limit = min(MAX_CELLS, max(1 << 12, len(opened) // 2))  # no more cells than rows to count
        parts, batch, cells = [], {}, 1
        for name, (codes, size) in columns.items():
            if batch and cells * (size + 1) > limit:
                parts.append(Crossed.of(batch, opened))
                batch, cells = {}, 1
            batch[name] = (codes, size)
            cells *= size + 1
        if batch:
            parts.append(Crossed.of(batch, opened))
        return cls(tuple(parts))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for part in self.parts for name in part.names)

    def per_value(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows and opened rows for each code 0 .. size-1 of column ``name``."""
        return next(p for p in self.parts if name in p.names).per_value(name)

    def total(self) -> tuple[int, int]:
        """All rows and all opened rows."""
        first = self.parts[0]
        by_action = first.cells.reshape(-1, 2)[first.filled].sum(axis=0)
        return int(by_action.sum()), int(by_action[1])
