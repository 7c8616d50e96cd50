"""The digest of a recorded task 2 run: a hash chain over what was played, in order.

A run recorded by ``pushgen/NotificationGeneration-v0`` (``pushgen.envs.record_run``, or
``History.save``) carries two columns: ``run_entropy``, 128 bits the environment drew at reset
(the same on every row of an episode), and ``run_digest``, the chain after each step:

    h(-1) = sha256("pushgen-run-v1" | split fingerprint | user id | run entropy)
    h(i)  = sha256(h(i-1) | context id | the 7 notification codes | opened)

over the episode's contexts in time order, ``opened`` being the simulated user's response the
environment gave: the run entropy is the episode's outcome entropy (``pushgen.replay.outcomes``),
so response ``i`` is ``draw_i < P(open)``, ``draw_i`` the ``i``-th number of its outcome
generator. ``pushgen evaluate --task 2`` replays the split, re-derives each user's responses
from the recorded entropy and the submitted notifications, recomputes the chain and the
sampled-mode rewards, and reports a run as verified only where every row's digest, recorded
response (``action``) and recorded reward match: a table whose notifications, responses or
rewards were edited after the run, reordered, or made by hand is unverified. There is no
secret key: the chain proves that the table is what an environment of this split returned to
those notifications in that order, not who computed it.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen.replay.outcomes import outcome_generator
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


def user_spans(part: ReplayPart, users: list[int]) -> list[slice]:
    """Where each of ``users``' rows lie in the concatenation of their part rows, in that order."""
    lengths = [part.rows_of(u).stop - part.rows_of(u).start for u in users]
    ends = np.cumsum(lengths).tolist()
    return [slice(end - n, end) for n, end in zip(lengths, ends, strict=True)]


def recorded_entropies(frame: pd.DataFrame, part: ReplayPart, users: list[int]) -> dict[int, int]:
    """The outcome entropy of each of ``users`` whose rows of the recorded run ``frame`` all carry
    the same whole number in ``run_entropy`` (users without one are left out)."""
    if ENTROPY not in frame.columns:
        return {}
    recorded = dict(zip(np.asarray(frame["context_id"], dtype=np.int64).tolist(),
                        frame[ENTROPY].astype(str), strict=True))
    out = {}
    for user in users:
        found = {recorded.get(c) for c in part.context_ids[part.rows_of(user)].tolist()}
        entropy = _whole_number(next(iter(found))) if len(found) == 1 else None
        if entropy is not None:
            out[int(user)] = entropy
    return out


def _whole_number(text: str | None) -> int | None:
    """``text`` as a whole number >= 0, or None: not one, or too long for Python to read."""
    if text is None or not text.isdigit():
        return None
    try:
        return int(text)
    except ValueError:  # more digits than int() converts (4,300), or digits int() does not read ('²')
        return None


def run_draws(part: ReplayPart, users: list[int], rows: np.ndarray, entropies: dict[int, int]) -> np.ndarray:
    """The uniform draw behind the response at each of ``rows`` (``users``' part rows, in order):
    a recorded run's own, re-derived from the user's outcome entropy (``entropies``), else the
    split's own draw of the row (opened iff the draw is below P(open))."""
    draw = np.asarray(part.test_truth.draw[rows], dtype=np.float64)
    for user, own in zip(users, user_spans(part, users), strict=True):
        if user in entropies:
            draw[own] = outcome_generator(entropies[user]).random(own.stop - own.start)
    return draw


def verified_users(frame: pd.DataFrame, part: ReplayPart, users: list[int], rows: np.ndarray,
                   codes: dict[str, np.ndarray], opened: np.ndarray, reward: np.ndarray,
                   entropies: dict[int, int]) -> tuple[int, ...]:
    """The ``users`` of ``part`` whose rows of the recorded run ``frame`` are what the environment
    returns: ``codes`` (the submitted notifications, feature by feature), ``opened`` and
    ``reward`` (the responses and sampled-mode rewards re-derived from the users' outcome
    ``entropies``) are in the order of the part's ``rows`` of ``users``. A user is verified when
    every row's digest, recorded response (``action``) and recorded reward are those."""
    if DIGEST not in frame.columns or not {"action", "reward"} <= set(frame.columns):
        return ()
    fingerprint = split_fingerprint(part.folder)
    context_ids = part.context_ids[rows]
    matrix = np.column_stack([codes[f] for f in NOTIFICATION_FEATURES])
    recorded = frame.set_index(np.asarray(frame["context_id"], dtype=np.int64))
    good = []
    for user, own in zip(users, user_spans(part, users), strict=True):
        ids = context_ids[own]
        if user not in entropies or not pd.Index(ids).isin(recorded.index).all():
            continue
        rows_of_user = recorded.loc[ids]
        expected = chain(fingerprint, user, entropies[user], ids, matrix[own], opened[own])
        if (expected == rows_of_user[DIGEST].astype(str).tolist()
                and np.array_equal(rows_of_user["action"].astype(str) == "opened", opened[own])
                and np.array_equal(np.asarray(rows_of_user["reward"], dtype=np.float64), reward[own])):
            good.append(int(user))
    return tuple(good)


def verdict(users: list[int], verified: tuple[int, ...]) -> str:
    """One line saying whether the run of ``users`` is verified."""
    unverified = [u for u in users if u not in verified]
    if not unverified:
        return "recorded run verified (run digest)"
    return (f"UNVERIFIED run: users {unverified} lack a valid run digest or their recorded responses and "
            "rewards are not the environment's (edited, or not made by pushgen.envs.record_run)")


__all__ = ["DIGEST", "ENTROPY", "chain", "recorded_entropies", "run_draws", "split_fingerprint", "verdict",
           "verified_users"]
