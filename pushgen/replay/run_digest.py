"""The digest of a recorded task 2 run: a hash chain over what was played, in order.

A run recorded by ``pushgen/NotificationGeneration-v0`` (``pushgen.envs.record_run``, or
``History.save``) carries two columns: ``run_entropy``, 128 bits the environment drew at reset
(the same on every row of an episode), and ``run_digest``, the chain after each step:

    h(-1) = sha256("pushgen-run-v1" | split fingerprint | user id | run entropy)
    h(i)  = sha256(h(i-1) | context id | the 7 notification codes | opened)

over the episode's contexts in time order, ``opened`` being the simulated user's response the
environment gave. ``pushgen evaluate --task 2`` replays the split, recomputes each user's chain
from the submitted notifications and its own responses to them, and reports a run as verified
only where every row's digest matches: a table edited after the run, reordered, or made by hand
is unverified. There is no secret key: the chain proves that the table is what an environment
of this split returned to those notifications in that order, not who computed it.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen.replay.parts import NOTIFICATION_FEATURES, ReplayPart

ENTROPY, DIGEST = "run_entropy", "run_digest"
GENESIS = b"pushgen-run-v1"
STEP = struct.Struct("<q7hB")


def split_fingerprint(folder: str | Path) -> str:
    """The content fingerprint of the split that a part folder belongs to."""
    return str(json.loads((Path(folder) / "split.json").read_text()).get("fingerprint", ""))


def chain(fingerprint: str, user: int, entropy: int, context_ids: np.ndarray, codes: np.ndarray,
          opened: np.ndarray) -> list[str]:
    """The digest (hex) after each step of an episode: ``codes`` is ``(n, 7)``, in step order."""
    state = hashlib.sha256(b"|".join([GENESIS, fingerprint.encode(), str(int(user)).encode(),
                                      str(int(entropy)).encode()])).digest()
    out = []
    for context_id, row, response in zip(np.asarray(context_ids).tolist(), np.asarray(codes).tolist(),
                                          np.asarray(opened).tolist(), strict=True):
        state = hashlib.sha256(state + STEP.pack(int(context_id), *row, bool(response))).digest()
        out.append(state.hex())
    return out


def verified_users(frame: pd.DataFrame, part: ReplayPart, users: list[int], rows: np.ndarray,
                   codes: dict[str, np.ndarray], opened: np.ndarray) -> tuple[int, ...]:
    """The ``users`` of ``part`` whose rows of the submitted ``frame`` carry the digests their
    replay gives: ``codes`` (the submitted notifications, feature by feature) and ``opened``
    (the replay's responses) are in the order of the part's ``rows`` of ``users``."""
    if ENTROPY not in frame.columns or DIGEST not in frame.columns:
        return ()
    fingerprint = split_fingerprint(part.folder)
    context_ids = part.context_ids[rows]
    matrix = np.column_stack([codes[f] for f in NOTIFICATION_FEATURES])
    lengths = [part.rows_of(u).stop - part.rows_of(u).start for u in users]
    ends = np.cumsum(lengths).tolist()
    ranges = [range(end - n, end) for n, end in zip(lengths, ends, strict=True)]
    recorded = dict(zip(np.asarray(frame["context_id"], dtype=np.int64).tolist(),
                        zip(frame[ENTROPY].astype(str), frame[DIGEST].astype(str), strict=True), strict=True))
    good = []
    for user, own in zip(users, ranges, strict=True):
        ids = context_ids[own.start:own.stop]
        found = [recorded.get(int(c)) for c in ids.tolist()]
        entropies = {row[0] for row in found if row is not None}
        if None in found or len(entropies) != 1 or not next(iter(entropies)).isdigit():
            continue
        expected = chain(fingerprint, user, int(next(iter(entropies))), ids, matrix[own.start:own.stop],
                         opened[own.start:own.stop])
        if expected == [row[1] for row in found if row is not None]:
            good.append(int(user))
    return tuple(good)


def verdict(users: list[int], verified: tuple[int, ...]) -> str:
    """One line saying whether the run of ``users`` is verified."""
    unverified = [u for u in users if u not in verified]
    if not unverified:
        return "recorded run verified (run digest)"
    return (f"UNVERIFIED run: users {unverified} lack a valid run digest (edited, or not made by "
            "pushgen.envs.record_run)")


__all__ = ["DIGEST", "ENTROPY", "chain", "split_fingerprint", "verdict", "verified_users"]
