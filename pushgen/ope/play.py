"""Playing a selection policy in ``pushgen/NotificationSelection-v0``, round by round, with the
state it leaves: what logging and the ground truth share.

Each user of a split's test parts (task 1's and the cold-start users of task 2) is one episode.
The policy's random numbers come from ``numpy.random.default_rng([seed, user, 1])``, the
environment's response draws from ``reset(seed=...)`` with a seed spawned from ``[seed, user]``,
so an episode's actions and rewards depend on nothing but the seed, the user and the options.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from pushgen.checks import whole_number
from pushgen.data.outputs import DatasetError
from pushgen.envs.spaces import CONTEXT_FEATURES
from pushgen.ope.policies import SlatePolicy, Slates, sample
from pushgen.ope.slates import checked_probabilities, checked_slate_policy, probabilities_of
from pushgen.publishing.access import resolve_split
from pushgen.splits import SPLIT_FILE

DEFAULT_K = 8


@dataclass
class Episode:
    """One user's rounds as played: what was offered, the probabilities, the choice and the outcome."""

    user: int
    task: int
    context_ids: np.ndarray  # (n,)
    seconds: np.ndarray  # (n,) from the start of the test months
    slates: Slates  # contexts, candidates, mask, and p_open (n, k) at the state when recorded
    probabilities: np.ndarray  # (n, k + 1)
    action: np.ndarray  # (n,) slot, k = hold
    opened: np.ndarray  # (n,) the sampled response (False for hold)
    chosen_p: np.ndarray  # (n,) true P(open) of the chosen action at the state (0 for hold)

    def __len__(self) -> int:
        return len(self.action)


def test_users(split: str | Path) -> list[tuple[int, int]]:
    """(user, task) of every user of the split's test parts, in user order."""
    parts = json.loads((resolve_split(split) / SPLIT_FILE).read_text())["parts"]
    task2 = set(parts.get("task2/test", {}).get("users", []))
    users = {int(u): 1 for u in parts.get("task1/test", {}).get("users", []) if u not in task2}
    users.update({int(u): 2 for u in task2})
    return sorted(users.items())


def choose_users(split: str | Path, users: int | list[int] | None) -> list[tuple[int, int]]:
    """The (user, task) pairs to play: all test users, the first ``users`` of them, or these ids."""
    available = test_users(split)
    if users is None:
        return available
    if isinstance(users, (bool, str, bytes)):
        raise DatasetError(f"users must be a number of users, a list of user ids or None; got {users!r}")
    if isinstance(users, (int, np.integer)):
        if not 1 <= users <= len(available):
            raise DatasetError(f"users must be from 1 to {len(available)} (the split's test users); "
                               f"got {users}")
        return available[: int(users)]
    tasks = dict(available)
    users = list(users)
    if not users:
        raise DatasetError("users is an empty list; give some user ids, a number of users, or None for "
                           "every test user")
    unknown = [u for u in users if u not in tasks]
    if unknown:
        raise DatasetError(f"user {unknown[0]!r} is not a test user of the split; test users: "
                           f"{', '.join(str(u) for u in tasks)}")
    return [(int(u), tasks[u]) for u in sorted(set(users))]


def episode_seed(seed: int, user: int) -> int:
    return int(np.random.SeedSequence([seed, user]).generate_state(1, dtype=np.uint64)[0] >> 1)


def play(policy: SlatePolicy, split: str | Path, users: int | list[int] | None = None,
         k: int = DEFAULT_K, candidate_seed: int = 0, seed: int = 0, stationary: bool = False,
         record_state: bool = True) -> list[Episode]:
    """Every chosen user's episode played by ``policy``; with ``record_state`` the true P(open)
    of every candidate at every round (at the state the episode had reached) is kept."""
    from pushgen.envs.selection import NotificationSelectionEnv

    seed = whole_number("seed", seed, 0)
    policy = checked_slate_policy(policy)
    episodes = []
    for user, task in choose_users(split, users):
        env = NotificationSelectionEnv(split, user=user, k=k, candidate_seed=candidate_seed, mode="sampled",
                                       stationary=stationary, task=task)
        env.reset(seed=episode_seed(seed, user), options={"outcome_entropy": episode_seed(seed, user)})
        offered = env.slates(user)
        n = len(offered.mask)
        slates = Slates({f: env.episode.codes[f] for f in CONTEXT_FEATURES}, offered.codes, offered.mask)
        p_open = np.zeros((n, env.k))
        state = replace(slates, p_open=p_open)  # p_open filled round by round as the episode goes
        uniforms = np.random.default_rng([seed, user, 1]).random(n)
        reads = policy.reads_state
        # a policy that reads the state chooses round by round, the others all rounds at once
        probabilities = np.zeros((n, env.k + 1)) if reads else probabilities_of(policy, slates)
        action = np.zeros(n, dtype=np.int64) if reads else sample(probabilities, uniforms).astype(np.int64)
        keep_state = record_state or reads
        opened = np.zeros(n, dtype=bool)
        chosen_p = np.zeros(n)
        for i in range(n):
            if keep_state:
                p_open[i] = env.candidate_probabilities(i)
            if reads:  # the first round's answer checked at once, every round's after the episode
                now = state.take(slice(i, i + 1))
                given = policy.probabilities(now)
                probabilities[i] = (checked_probabilities(policy, given, now) if i == 0 else given)[0]
                action[i] = sample(probabilities[i:i + 1], uniforms[i:i + 1])[0]
            info = env.step(int(action[i]))[4]
            opened[i] = info["opened"]
            chosen_p[i] = env.last_p_open
        if reads:
            checked_probabilities(policy, probabilities, state)
        seconds = env.replay.seconds[env.episode.rows]
        episodes.append(Episode(user, task, env.episode.context_ids.copy(), seconds,
                                state if keep_state else slates, probabilities, action, opened, chosen_p))
        env.close()
    return episodes
