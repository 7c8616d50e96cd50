"""The selection task's pieces shared by the single and the vector environment.

The observation space for ``k`` candidates, the option checks, and one user's episode as the
selection task sees it (``EpisodeSlates``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from pushgen.checks import whole_number
from pushgen.envs.candidates import MAX_K, CandidateGenerator
from pushgen.envs.online import apps_of, channels_of, interruptions, static_logits
from pushgen.envs.spaces import NOTIFICATION_FEATURES, NOTIFICATION_SIZES, context_space, whole_code

HOURS_CAP = 168.0


def selection_space(k: int) -> spaces.Dict:
    """The selection environment's observation space for ``k`` candidates.

    Parameters
    ----------
    k : int
        Candidates per context.

    Returns
    -------
    gymnasium.spaces.Dict
        The 11 context features, ``candidates``, ``candidate_mask`` and ``hours_since_last``.

    Examples
    --------
    >>> from pushgen.envs.selection import selection_space
    >>> space = selection_space(4)
    >>> space["candidates"].shape, space["candidate_mask"].n
    ((28,), 4)
    """
    return spaces.Dict({
        **context_space().spaces,
        "candidates": spaces.MultiDiscrete(np.tile(np.array(NOTIFICATION_SIZES, dtype=np.int64), k)),
        "candidate_mask": spaces.MultiBinary(k),
        "hours_since_last": spaces.Box(0.0, HOURS_CAP, shape=(1,), dtype=np.float32),
    })


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (a bool is not)."""
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))


def check_options(k: Any, candidate_seed: Any, cost: Any, stationary: Any,
                  **flags: Any) -> tuple[int, int, float]:
    """The selection options checked: one-line errors naming the parameter."""
    whole_number("k (candidates per context)", k, 1, MAX_K)
    whole_number("candidate_seed", candidate_seed, 0)
    if not is_number(cost) or not math.isfinite(cost) or cost < 0:
        raise ValueError(f"cost (per notification sent) must be a finite number >= 0; got {cost!r}")
    for name, value in {"stationary": stationary, **flags}.items():
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False; got {value!r}")
    return int(k), int(candidate_seed), float(cost)


def selection_facts(env: Any) -> list[tuple[str, str]]:
    """The selection options of ``env`` (single or vector) as its notebook facts."""
    return [("candidates per context", str(env.k)), ("candidate seed", str(env.candidate_seed)),
            ("cost", f"{env.cost:g}"), ("stationary", "yes" if env.stationary else "no")]


def check_slot(action: Any, k: int, filled: int) -> int:
    """The slot an action names (``k`` = hold), checked against a context with ``filled`` candidates."""
    hold = k
    slot = whole_code(action)
    if slot is None:
        raise ValueError(f"an action is a whole number: a candidate slot 0..{k - 1} or "
                         f"{hold} (hold); got {action!r}")
    if not 0 <= slot <= hold:
        raise ValueError(f"action {slot} is outside 0..{hold} (slots 0..{k - 1}, "
                         f"{hold} = hold)")
    if slot < hold and slot >= filled:
        raise ValueError(f"action {slot} is an empty candidate slot: this context has "
                         f"{filled} candidates (see action_masks())")
    return slot


class EpisodeSlates:
    """One user's episode as the selection task sees it: candidates, their static logits, keys.

    ``apps`` (a boolean mask over app codes) restricts the candidates to those apps' notifications
    (default: every app the user has); ``n`` to the episode's first ``n`` contexts."""

    def __init__(self, part: Any, user: int, k: int, candidate_seed: int, apps: np.ndarray | None = None,
                 n: int | None = None) -> None:
        episode = part.episode(user)
        n = len(episode) if n is None else n
        has_app = apps_of(part, user) if apps is None else apps_of(part, user) & apps
        codes, self.mask = CandidateGenerator(has_app, user, k, candidate_seed,
                                                channels_of(part, user)).slates(n)
        self.codes = codes  # (n, k, 7)
        by_feature = {f: codes[:, :, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
        rows = np.arange(episode.rows.start, episode.rows.start + n)
        self.static, self.channel = static_logits(part, rows, by_feature)
        self.static = np.where(self.mask, self.static, -np.inf)
        self.interrupts = interruptions(by_feature)
        self.seconds = part.seconds[rows]
        self.rows = rows
