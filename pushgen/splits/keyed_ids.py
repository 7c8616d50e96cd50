"""Context ids: the key of each row of a split, which tells a model nothing it may not know.

A dataset's ``notification_id`` is ``user_id * 10^7`` + the user's row number, so it counts the
user's earlier rows: the first test context of a cold-start user would give away the size of
the history held out from every model. A split's ``context_id`` is instead a keyed hash of
the row's ``user_id`` and ``notification_id`` (BLAKE2b, its first 53 bits, so that every id
is a whole number a float64, a CSV reader or JSON keeps exactly). The key is derived from the
content of the dataset's whole notifications table, the logged actions included, which no
part a model reads holds: the ids are reproducible from the dataset, to the byte, but cannot
be inverted from the split's public parts. The rare row whose hash another row already has
is hashed again with a counter, in row order, until its id is unique. The scorer's parts
keep ``notification_id`` beside ``context_id`` to find the ground truth of each row.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

from pushgen.data.fingerprint import fingerprint

DOMAIN = b"pushgen context ids\n"
BITS = 53


def context_key(notifications: pa.Table) -> bytes:
    """The 32-byte key of a dataset's context ids: a digest of its notifications table."""
    return hashlib.sha256(DOMAIN + fingerprint(notifications).encode()).digest()


def _hash(message: bytes, key: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(message, digest_size=8, key=key).digest(), "little") >> (64 - BITS)


def context_ids(user_ids: np.ndarray, notification_ids: np.ndarray, key: bytes) -> np.ndarray:
    """The keyed hash of each (user_id, notification_id) pair: distinct whole numbers below 2^53."""
    pairs = np.column_stack([np.asarray(user_ids, dtype="<i8"), np.asarray(notification_ids, dtype="<i8")])
    raw = np.ascontiguousarray(pairs).tobytes()
    ids = np.fromiter((_hash(raw[i:i + 16], key) for i in range(0, len(raw), 16)),
                      dtype=np.int64, count=len(pairs))
    _, first = np.unique(ids, return_index=True)
    if len(first) < len(ids):
        taken = set(ids[np.sort(first)].tolist())
        for row in np.setdiff1d(np.arange(len(ids)), first):
            attempt, message = 1, raw[16 * row:16 * row + 16]
            while (candidate := _hash(message + attempt.to_bytes(4, "little"), key)) in taken:
                attempt += 1
            ids[row] = candidate
            taken.add(candidate)
    return ids
