"""Logged episodes of the long-horizon task (``pushgen/LongHorizon-v0``) from a known stochastic
logging policy, the target policies, and their true values. Every policy here is a true-model
policy of the task: at each step it reads the true P(open) now of the app's candidates
(``LongHorizonEnv.candidate_probabilities``), the allowed actions and the sends of the last 24
hours, and gives a probability to each action (``k`` candidates and hold):

    pi(a) = epsilon / |allowed| + (1 - epsilon) * [a = best] s + (1 - epsilon) * [a = hold] (1 - s)

where ``best`` is the candidate with the highest P(open) p and ``s`` the probability of sending it:
``sigmoid((p - theta) / scale)`` (``scale > 0``) or ``[p >= theta and p > 0]`` (``scale = 0``), and
0 once ``cap`` sends were made in the last 24 hours. A log records per step what recomputes any
such policy's probability of the logged action (the candidates' true P(open), the allowed
actions, the sends of the last day), the app's public counters and a state key (``state_key``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pushgen.benchmark.long_horizon import held_out_users
from pushgen.checks import whole_number
from pushgen.data.dataset import DatasetError
from pushgen.envs.base import task_of_user
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.ope.feedback import Feedback
from pushgen.ope.trajectories import Trajectories

SENDS_EDGES = (5, 15, 30, 50, 80)  # sends in the last day: 0-4, 5-14, 15-29, 30-49, 50-79, 80+
EPISODE_SEED = 3405
MAX_REPLICATES = 1000  # episodes per user
COUNTERS = ("sends_1d", "opens_1d", "sends_7d", "opens_7d")  # the observation's app_counts
STEP_COLUMNS = ("episode", "user_id", "replicate", "step", "context_id", *COUNTERS, "hours_since_last",
                "channel_off", "state", "slot", "held", "propensity", "reward", "p_open", "allowed")


@dataclass(frozen=True)
class EpisodePolicy:
    """A stochastic true-model policy of the long-horizon task (the module's formula).

    Attributes
    ----------
    name : str
        Its name.
    theta : float
        The P(open) at which it sends its best candidate (half the time when ``scale > 0``).
    scale : float
        0: a hard threshold; > 0: the logistic's scale.
    cap : int
        The most sends in the last 24 hours.
    epsilon : float
        The share of uniform choices over the allowed actions.

    Examples
    --------
    >>> from pushgen.ope import EpisodePolicy
    >>> policy = EpisodePolicy("threshold", theta=0.4)  # candidates' P(open), allowed, sends today
    >>> policy.probabilities([0.2, 0.5], [True, True, True], [0]).tolist()
    [[0.0, 1.0, 0.0]]
    """

    name: str
    theta: float = 0.0
    scale: float = 0.0
    cap: int = 1_000_000
    epsilon: float = 0.0

    def probabilities(self, p_open: np.ndarray, allowed: np.ndarray, sends_1d: np.ndarray) -> np.ndarray:
        """(steps, k + 1): the probability of each action, from each step's candidates' true P(open)
        (steps, k), allowed actions (steps, k + 1; hold always allowed) and sends of the last day."""
        p_open, allowed = np.atleast_2d(p_open), np.atleast_2d(allowed).astype(bool)
        n, k = p_open.shape
        p = np.where(allowed[:, :k], p_open, -1.0)
        best = np.argmax(p, axis=1)
        top = p[np.arange(n), best]
        if self.scale > 0:
            send = 1.0 / (1.0 + np.exp(-(top - self.theta) / self.scale))
        else:
            send = ((top >= self.theta) & (top > 0)).astype(float)
        send = np.where((top < 0) | (np.asarray(sends_1d) >= self.cap), 0.0, send)
        out = self.epsilon * allowed / allowed.sum(axis=1, keepdims=True)
        out[np.arange(n), best] += (1 - self.epsilon) * send
        out[:, k] += (1 - self.epsilon) * (1 - send)
        return out


LOGGING_POLICY = EpisodePolicy("soft-threshold", theta=0.3, scale=0.1, epsilon=0.2)
TARGET_POLICIES = (
    EpisodePolicy("threshold", theta=0.4, epsilon=0.1),
    EpisodePolicy("daily-cap", theta=0.3, cap=40, epsilon=0.1),
    EpisodePolicy("greedy", theta=0.0, epsilon=0.1),
    EpisodePolicy("soft-threshold-0.4", theta=0.4, scale=0.1, epsilon=0.2),
    LOGGING_POLICY,
)


def state_key(observation: dict, channels_on: list[bool]) -> int:
    """The state's index: 2 x the sends of the last day bucketed by ``SENDS_EDGES``, plus 1 if a
    channel of the app is off (a summary of the app's public counters that a real system keeps)."""
    sends = int(np.searchsorted(SENDS_EDGES, observation["app_counts"][0], side="right"))
    return 2 * sends + int(not all(channels_on))


def _seed(*words: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([EPISODE_SEED, *words])


def play_episode(env: LongHorizonEnv, policy: EpisodePolicy, seed: np.random.SeedSequence) -> list[dict]:
    """One episode of ``policy`` in ``env`` (the policy's draws and the outcome entropy from ``seed``):
    one record per step."""
    policy_seed, outcome_seed = seed.spawn(2)
    rng = np.random.default_rng(policy_seed)
    entropy = int.from_bytes(outcome_seed.generate_state(4, dtype=np.uint32).tobytes(), "little")
    observation, _ = env.reset(options={"outcome_entropy": entropy})
    records: list[dict[str, Any]] = []
    while True:
        p_open, allowed = env.candidate_probabilities(), env.action_masks()
        sends_1d = int(observation["app_counts"][0])
        probabilities = policy.probabilities(p_open, allowed, np.array([sends_1d]))[0]
        action = int(rng.choice(len(probabilities), p=probabilities))
        key = state_key(observation, env.channels_on())
        following, reward, terminated, _, info = env.step(action)
        records.append({"step": len(records), "context_id": int(info["context_id"]),
                        **dict(zip(COUNTERS, observation["app_counts"].astype(int).tolist(), strict=True)),
                        "hours_since_last": float(observation["hours_since_last"][0]),
                        "channel_off": key % 2, "state": key, "slot": action, "held": action == env.k,
                        "propensity": float(probabilities[action]), "reward": float(reward),
                        "p_open": p_open.tolist(), "allowed": allowed.tolist()})
        observation = following
        if terminated:
            return records


@dataclass(frozen=True)
class HorizonOptions:
    """The environment's options of a log or a true value."""

    k: int = 8
    horizon_days: float = 3.0
    candidate_seed: int = 0


def environments(split: str, users: list[int] | None, options: HorizonOptions) -> list[LongHorizonEnv]:
    """One environment per user (default: the held-out users the task can play)."""
    users = held_out_users(split) if users is None else users
    if not users:
        raise DatasetError("users is empty; give some held-out users or None for every one")
    return [LongHorizonEnv(split, user=u, k=options.k, horizon_days=options.horizon_days,
                           candidate_seed=options.candidate_seed, task=task_of_user(split, u)) for u in users]


@dataclass(repr=False)
class EpisodeLog:
    """Logged episodes and their recipe.

    Attributes
    ----------
    steps : pandas.DataFrame
        One row per step (``STEP_COLUMNS``), each episode's rows consecutive and in order.
    recipe : dict
        How it was logged: ``log_episodes``' arguments and the logging policy's fields.

    Examples
    --------
    >>> from pushgen.ope.episodes import HorizonOptions, log_episodes
    >>> log = log_episodes("pushgen-mini-v4", replicates=1, options=HorizonOptions(horizon_days=0.25))
    >>> log.trajectories(log.logged_policy()).episodes, log.k
    (1, 8)
    """

    steps: pd.DataFrame
    recipe: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return int(self.recipe["k"])

    @property
    def episodes(self) -> int:
        return int(self.steps["episode"].nunique())

    def __repr__(self) -> str:
        return (f"<EpisodeLog of the {self.recipe.get('policy', {}).get('name')} policy on "
                f"{self.recipe.get('split')}: {self.episodes} episodes, {len(self.steps)} steps>")

    def probabilities(self, policy: EpisodePolicy) -> np.ndarray:
        """(steps, k + 1): ``policy``'s probabilities at the logged steps."""
        return policy.probabilities(np.stack(list(self.steps["p_open"])),
                                    np.stack(list(self.steps["allowed"])),
                                    self.steps["sends_1d"].to_numpy())

    def logged_policy(self) -> EpisodePolicy:
        return EpisodePolicy(**self.recipe["policy"])

    def trajectories(self, policy: EpisodePolicy) -> Trajectories:
        """The log for ``policy`` as ``Trajectories``, with the true-model reward model: q is the true
        P(open) of the logged action (0 for hold), v the target's expected P(open) at the step."""
        steps = self.steps
        target = self.probabilities(policy)
        slot = steps["slot"].to_numpy()
        p_open = np.column_stack([np.stack(list(steps["p_open"])), np.zeros(len(steps))])
        rows = np.arange(len(steps))
        return Trajectories(episode=steps["episode"].to_numpy(), step=steps["step"].to_numpy(),
                            state=steps["state"].to_numpy(), logging_p=steps["propensity"].to_numpy(),
                            target_p=target[rows, slot], reward=steps["reward"].to_numpy(dtype=float),
                            q=p_open[rows, slot], v=(target * p_open).sum(axis=1))

    def feedback(self, policy: EpisodePolicy) -> Feedback:
        """The steps as independent bandit rounds (what a per-round estimator reads)."""
        return Feedback(action=self.steps["slot"].to_numpy(dtype=np.int64),
                        reward=self.steps["reward"].to_numpy(dtype=float),
                        pscore=self.steps["propensity"].to_numpy(), target=self.probabilities(policy))


def log_episodes(split: str, users: list[int] | None = None, replicates: int = 20, seed: int = 0,
                 options: HorizonOptions = HorizonOptions(), policy: EpisodePolicy = LOGGING_POLICY
                 ) -> EpisodeLog:
    """Play the logging ``policy`` ``replicates`` times on each user of the long-horizon task; the
    steps, with exact propensities.

    Parameters
    ----------
    split : str
        A standard split's name or a split folder (model 4 or later).
    users : list of int, optional
        The users; by default the held-out users the task can play.
    replicates : int, default 20
        Episodes per user, 1 to MAX_REPLICATES (replicate r of user u draws [EPISODE_SEED, seed, u, r]).
    seed : int, default 0
        The seed of the policy's draws and of the outcomes.
    options : HorizonOptions
        The environment's options.
    policy : EpisodePolicy, default LOGGING_POLICY
        The logging policy.

    Returns
    -------
    EpisodeLog
        One row per step (``STEP_COLUMNS``) and the recipe.

    Examples
    --------
    >>> from pushgen.ope.episodes import HorizonOptions, log_episodes
    >>> log = log_episodes("pushgen-mini-v4", replicates=2, options=HorizonOptions(horizon_days=0.25))
    >>> log.episodes, bool((log.steps["propensity"] > 0).all())
    (2, True)
    """
    replicates = whole_number("replicates", replicates, 1, MAX_REPLICATES)
    frames: list[pd.DataFrame] = []
    for env in environments(split, users, options):
        for r in range(replicates):
            frame = pd.DataFrame(play_episode(env, policy, _seed(seed, env.user, r)))
            frames.append(frame.assign(episode=len(frames), user_id=env.user, replicate=r))
    steps = pd.concat(frames, ignore_index=True)[list(STEP_COLUMNS)]
    recipe = {"split": str(split), "task": "long-horizon", "policy": asdict(policy),
              "users": [int(u) for u in steps["user_id"].unique()], "replicates": replicates, "seed": seed,
              **asdict(options)}
    return EpisodeLog(steps, recipe)


def true_value(split: str, policy: EpisodePolicy, users: list[int] | None = None, episodes: int = 200,
               options: HorizonOptions = HorizonOptions(), seed: int = 1) -> tuple[float, float]:
    """``policy``'s value (expected total reward per episode, users weighted equally) by Monte
    Carlo in the environment.

    Parameters
    ----------
    split : str
        A standard split's name or a split folder.
    policy : EpisodePolicy
        The policy.
    users : list of int, optional
        The users; by default the held-out users the task can play.
    episodes : int, default 200
        Episodes per user (at least 2).
    options : HorizonOptions
        The environment's options.
    seed : int, default 1
        The seed of the episodes (keep it apart from a log's).

    Returns
    -------
    tuple of float
        The mean return over the users and its standard error.

    Examples
    --------
    >>> from pushgen.ope.episodes import EpisodePolicy, HorizonOptions, true_value
    >>> never = EpisodePolicy("hold", theta=2.0)
    >>> true_value("pushgen-mini-v4", never, episodes=2, options=HorizonOptions(horizon_days=0.25))
    (0.0, 0.0)
    """
    if episodes < 2:
        raise ValueError(f"episodes must be >= 2; got {episodes!r}")
    values = np.asarray([[sum(r["reward"] for r in play_episode(env, policy, _seed(seed, env.user, e, 1)))
                          for e in range(episodes)] for env in environments(split, users, options)])
    return float(values.mean()), float(np.sqrt((values.var(axis=1, ddof=1) / episodes).sum()) / len(values))
