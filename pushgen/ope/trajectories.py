"""Off-policy estimators over whole episodes, for tasks whose actions change later rewards.

Episode e of a log has steps t = 0, 1, ... with a state key s_t (a discrete summary of what the
policy and the user have done), the logged action drawn by the logging policy with propensity
mu_t, the target policy's probability pi_t of the same action, and the reward r_t. With the
per-step ratio w_t = pi_t / mu_t and the cumulative one rho_t = w_0 ... w_t (rho_-1 = 1), the
value of the target policy, its expected total reward per episode, is estimated by

- PDIS (per-decision importance sampling; Precup, Sutton & Singh, ICML 2000):
  V = 1/E sum_e sum_t rho_t r_t; unbiased, its variance grows with the horizon;
- WPDIS (weighted PDIS): each step's rho_t normalised by its mean over the episodes that reach t;
- DR (doubly robust for sequences; Jiang & Li, ICML 2016), given a model's q_t of the logged
  action and v_t = sum_a pi(a | s_t) q(s_t, a):
  V = 1/E sum_e sum_t [rho_t (r_t - q_t) + rho_{t-1} v_t];
- MIS (state-marginalised importance sampling; Xie, Ma & Wang, NeurIPS 2019, the estimator Yuan
  et al., CIKM 2022, use for notifications): the ratio of the target's and the logger's
  probability of being in state s at step t, d_t(s), is estimated step by step from the log,
  d_{t+1}(s') = sum over episodes at s' at t+1 of d_t(s_t) w_t / (their number), d_0 = 1, and
  V = 1/E sum_e sum_t d_t(s_t) w_t r_t: one step's ratio at a time instead of a product over
  the episode, exact when the state key is Markov.

Each comes with a 95% normal interval over episodes (WPDIS: none) and the episodes' effective
number (sum rho_T)^2 / sum rho_T^2 of their full-length ratios.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from pushgen.ope.feedback import Z_95, Estimate

TRAJECTORY_ESTIMATORS = ("PDIS", "WPDIS", "DR", "MIS")


def steps_in_order(episode: np.ndarray, step: np.ndarray) -> bool:
    """Whether each episode's rows are consecutive and its steps numbered 0, 1, ... in order."""
    if not len(episode):
        return True
    starts = np.r_[True, episode[1:] != episode[:-1]]
    first = np.flatnonzero(starts)[np.cumsum(starts) - 1]
    return bool(np.all(step == np.arange(len(step)) - first) and len(np.unique(episode)) == starts.sum())


@dataclass(frozen=True)
class Trajectories:
    """A log of episodes, one row per step, rows of an episode consecutive and in step order.

    Attributes
    ----------
    episode, step : numpy.ndarray
        Each row's episode and its step in it (0, 1, ...).
    state : numpy.ndarray
        A discrete key of each step's state (for MIS).
    logging_p, target_p : numpy.ndarray
        P(the logged action) under the logging and the target policy.
    reward : numpy.ndarray
        The step's reward.
    q, v : numpy.ndarray or None
        A model's value of the logged action, and of the target policy's actions, at each step.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Trajectories, estimate_trajectories
    >>> log = Trajectories(episode=np.array([0, 0, 1]), step=np.array([0, 1, 0]),
    ...                    state=np.zeros(3, dtype=int), logging_p=np.full(3, 0.5),
    ...                    target_p=np.array([1.0, 1.0, 0.0]), reward=np.ones(3))
    >>> round(estimate_trajectories(log, "PDIS").value, 3)  # (2 + 4) / 2 episodes
    3.0
    """

    episode: np.ndarray
    step: np.ndarray
    state: np.ndarray
    logging_p: np.ndarray
    target_p: np.ndarray
    reward: np.ndarray
    q: np.ndarray | None = None
    v: np.ndarray | None = None

    def __post_init__(self) -> None:
        if np.any(self.logging_p <= 0):
            raise ValueError("logging_p must be > 0 for every logged step (the logger's own action)")
        if not steps_in_order(self.episode, self.step):
            raise ValueError("each episode's rows must be consecutive, in step order from 0")

    @property
    def episodes(self) -> int:
        return len(np.unique(self.episode))

    @property
    def starts(self) -> np.ndarray:
        """The row where each episode starts."""
        return np.flatnonzero(np.r_[True, self.episode[1:] != self.episode[:-1]])

    def ratios(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row: w_t and rho_t (the cumulative product within its episode)."""
        w = self.target_p / self.logging_p
        return w, np.concatenate([np.cumprod(part) for part in np.split(w, self.starts[1:])])


def estimate_trajectories(log: Trajectories, estimator: str) -> Estimate:
    """The target policy's value (total reward per episode) by one of ``TRAJECTORY_ESTIMATORS``.

    Parameters
    ----------
    log : Trajectories
        The logged episodes with both policies' probabilities of the logged actions.
    estimator : str
        ``"PDIS"``, ``"WPDIS"``, ``"DR"`` (needs ``log.q`` and ``log.v``) or ``"MIS"``.

    Returns
    -------
    Estimate
        The value, its 95% interval (NaN for WPDIS), the episodes, the effective sample size of the
        episodes' full ratios and the largest ratio.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Trajectories, estimate_trajectories
    >>> zeros = np.zeros(4, dtype=int)
    >>> one_step = Trajectories(episode=np.arange(4), step=zeros, state=zeros, logging_p=np.full(4, 0.5),
    ...                         target_p=np.array([1.0, 1, 0, 0]), reward=np.array([1.0, 0, 1, 1]))
    >>> [round(estimate_trajectories(one_step, name).value, 3) for name in ("PDIS", "WPDIS")]
    [0.5, 0.5]
    """
    if estimator not in TRAJECTORY_ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(TRAJECTORY_ESTIMATORS)}; got {estimator!r}")
    w, rho = log.ratios()
    _, episode = np.unique(log.episode, return_inverse=True)
    n = int(episode.max()) + 1 if len(episode) else 0
    if estimator == "PDIS":
        terms = rho * log.reward
    elif estimator == "WPDIS":
        mean_rho = np.bincount(log.step, weights=rho) / np.bincount(log.step)
        terms = rho / np.where(mean_rho[log.step] > 0, mean_rho[log.step], 1.0) * log.reward
    elif estimator == "DR":
        if log.q is None or log.v is None:
            raise ValueError("DR needs a model's q and v for every step")
        before = np.where(log.step == 0, 1.0, np.r_[1.0, rho[:-1]])
        terms = rho * (log.reward - log.q) + before * log.v
    else:
        terms = marginal_ratios(log, w) * w * log.reward
    per_episode = np.bincount(episode, weights=terms, minlength=n)
    value = float(per_episode.mean())
    half = Z_95 * float(per_episode.std(ddof=1)) / np.sqrt(n) if n > 1 and estimator != "WPDIS" else np.nan
    last = np.r_[episode[1:] != episode[:-1], True]
    full = rho[last]
    return Estimate(estimator, value, value - half, value + half, n,
                    float(full.sum() ** 2 / max(float((full**2).sum()), 1e-300)), float(rho.max(initial=0.0)))


def marginal_ratios(log: Trajectories, w: np.ndarray) -> np.ndarray:
    """Per row, the estimated d_t(s_t): how much more likely the target policy is than the logger
    to be in that row's state at that step (MIS's recursion, one step at a time)."""
    ratio = np.ones(len(w))
    keys = np.asarray(log.state)
    for t in range(1, int(log.step.max(initial=0)) + 1):
        now = np.flatnonzero(log.step == t)
        came_from = now - 1  # the same episode's step t - 1
        carried = ratio[came_from] * w[came_from]
        _, group = np.unique(keys[now], return_inverse=True)
        ratio[now] = (np.bincount(group, weights=carried) / np.bincount(group))[group]
    return ratio


def bootstrap_interval(log: Trajectories, estimator: str, draws: int = 200,
                       seed: int = 0) -> tuple[float, float]:
    """A 95% percentile interval of ``estimator`` over ``draws`` resamples of the log's episodes
    (with replacement): for WPDIS, which has no normal interval, and for MIS, whose normal interval
    holds its estimated state ratios fixed.

    Parameters
    ----------
    log : Trajectories
        The episodes.
    estimator : str
        One of ``TRAJECTORY_ESTIMATORS``.
    draws : int, default 200
        Resamples.
    seed : int, default 0
        The resampling's seed.

    Returns
    -------
    tuple of float
        The interval's low and high ends.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Trajectories, bootstrap_interval
    >>> log = Trajectories(episode=np.repeat(np.arange(4), 2), step=np.tile([0, 1], 4),
    ...                    state=np.zeros(8, dtype=int), logging_p=np.full(8, 0.5),
    ...                    target_p=np.full(8, 0.5), reward=np.array([1, 0, 1, 1, 0, 0, 1, 0.0]))
    >>> low, high = bootstrap_interval(log, "WPDIS", draws=50)
    >>> 0 <= low <= 1.0 <= high <= 2
    True
    """
    starts = log.starts
    lengths = np.diff(np.r_[starts, len(log.episode)])
    columns: dict[str, Any] = {f.name: getattr(log, f.name) for f in fields(log) if f.name != "episode"}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        chosen = rng.integers(len(starts), size=len(starts))
        rows = np.concatenate([np.arange(starts[e], starts[e] + lengths[e]) for e in chosen])
        sample = replace(log, episode=np.repeat(np.arange(len(chosen)), lengths[chosen]),
                         **{name: c[rows] for name, c in columns.items() if c is not None})
        values.append(estimate_trajectories(sample, estimator).value)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)
