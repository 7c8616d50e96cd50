"""Play a policy through one user's test contexts in batches, judged as the environment judges.

Task 1 (offline): one call to ``act`` with every test context. Task 2 (online): ``act`` on
the next ``CHUNK`` contexts, judge them, ``update`` with the simulated user's responses
(the row's own draw < P(open), as ``info["opened"]`` of ``NotificationGeneration-v0``),
and so on. The rewards are then computed for the whole episode at once with the same
engagement model and reward table as the environment and ``pushgen.evaluate``.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import numpy as np
import pandas as pd
from scipy.special import expit

from pushgen import schemas
from pushgen.baselines.base import Policy, as_codes, as_matrix
from pushgen.replay.rewards import rewards
from pushgen.envs.replay import Episode
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES

CHUNK = 50
SIZES = np.array([len(schemas.values(f)) for f in NOTIFICATION_FEATURES])


class PolicyError(ValueError):
    """A policy returned something that is not a batch of valid notification codes."""


@dataclass
class Run:
    """One policy's episode for one user: per-row results, in time order."""

    user_id: int
    generated: np.ndarray  # (n, 7) codes
    logged: np.ndarray  # (n, 7) codes of the logged notifications
    logged_opened: np.ndarray
    p_open: np.ndarray  # of the generated notifications
    opened: np.ndarray  # the simulated response: the row's own draw < p_open
    reward: np.ndarray
    fit_seconds: float
    decision_seconds: np.ndarray  # per row: its batch's act time / batch size


def checked(action: dict[str, np.ndarray], n: int) -> np.ndarray:
    """The (n, 7) code matrix of an action batch, or ``PolicyError`` naming the problem."""
    missing = [f for f in NOTIFICATION_FEATURES if f not in action]
    if missing:
        raise PolicyError(f"act() returned no {missing[0]!r}; it must return every notification "
                          f"feature: {', '.join(NOTIFICATION_FEATURES)}")
    matrix = as_matrix({f: np.asarray(action[f]).reshape(-1) for f in NOTIFICATION_FEATURES})
    if len(matrix) != n:
        raise PolicyError(f"act() returned {len(matrix)} notifications for {n} contexts")
    bad = (matrix < 0) | (matrix >= SIZES)
    if bad.any():
        row, j = np.argwhere(bad)[0]
        raise PolicyError(f"act() returned {NOTIFICATION_FEATURES[j]} code {matrix[row, j]}, "
                          f"outside 0..{SIZES[j] - 1}")
    return matrix


def run_episode(policy: Policy, episode: Episode, history: pd.DataFrame, task: int,
                mode: str = "expected", chunk: int = CHUNK) -> Run:
    """Fit ``policy`` on ``history``, then answer every context of ``episode``."""
    started = perf_counter()
    policy.fit(history)
    fit_seconds = perf_counter() - started
    n = len(episode)
    contexts = {f: episode.codes[f] for f in CONTEXT_FEATURES}
    generated = np.zeros((n, len(NOTIFICATION_FEATURES)), dtype=np.int64)
    seconds = np.zeros(n)
    step = n if task == 1 else chunk
    for start in range(0, n, max(step, 1)):
        rows = slice(start, min(start + step, n))
        batch = {f: c[rows] for f, c in contexts.items()}
        began = perf_counter()
        action = checked(policy.act(batch), rows.stop - rows.start)
        seconds[rows] = (perf_counter() - began) / (rows.stop - rows.start)
        generated[rows] = action
        if task == 2:
            p = expit(episode.logits(as_codes(action), rows))
            policy.update(batch, as_codes(action), episode.truth.draw[rows] < p)
    p_open = expit(episode.logits(as_codes(generated)))
    return Run(
        user_id=episode.user_id,
        generated=generated,
        logged=as_matrix(episode.codes),
        logged_opened=episode.logged_opened,
        p_open=p_open,
        opened=episode.truth.draw < p_open,
        reward=rewards(episode.logged_opened, p_open, episode.truth.draw, mode),
        fit_seconds=fit_seconds,
        decision_seconds=seconds,
    )
