"""What a selection policy is told about its episode, and the selection policies that learn online
(``linucb``, ``rdsm``: see ``pushgen.baselines.selection``, which lists every selection baseline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pushgen.baselines.base import NoHistory
from pushgen.baselines.candidates import notification_matrix, opened
from pushgen.baselines.design import Design
from pushgen.envs.selection import NotificationSelectionEnv
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.model.exposure import HABITUATION_KEYS, HABITUATION_TAU_DAYS
from pushgen.model.feasibility import channel_of

N_FEATURES = len(NOTIFICATION_FEATURES)
APP = NOTIFICATION_FEATURES.index("postingApp")
SUBJECT = NOTIFICATION_FEATURES.index("subject")
CATEGORY = NOTIFICATION_FEATURES.index("category")
PRIORITY = NOTIFICATION_FEATURES.index("priority")


@dataclass(frozen=True)
class PublicHistory:
    """What the public logged history (task 1 training rows) says, computed once per run."""

    notifications: np.ndarray  # (n, 7)
    opened: np.ndarray  # (n,) bool

    @classmethod
    def of(cls, public: pd.DataFrame) -> PublicHistory:
        return cls(notification_matrix(public), opened(public))

    @property
    def open_rate(self) -> float:
        """The share of the rows opened (0.5 without rows)."""
        return float(self.opened.mean()) if len(self.opened) else 0.5

    def counts_by(self, key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, opened rows) per value of ``key`` (one int per row, 0..size-1)."""
        return (np.bincount(key, minlength=size).astype(np.float64),
                np.bincount(key, weights=self.opened.astype(np.float64), minlength=size))


@dataclass
class SelectionSetting:
    """What a selection policy is told about its episode."""

    k: int
    seed: np.random.SeedSequence
    public: PublicHistory
    env: NotificationSelectionEnv | None = None  # only for the yardsticks that read the true model
    shared: dict = field(default_factory=dict)

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    def true_env(self, reader: str) -> NotificationSelectionEnv:
        if self.env is None:
            raise ValueError(f"{reader} reads the simulated user: run it with reads_truth=True")
        return self.env


def candidates_of(observation: dict[str, Any]) -> tuple[np.ndarray, int]:
    """The observation's candidates as a (filled, 7) matrix, and how many slots are filled."""
    filled = int(np.asarray(observation["candidate_mask"]).sum())
    return np.asarray(observation["candidates"]).reshape(-1, N_FEATURES)[:filled], filled


class OwnExposure:
    """The policy's own sends, decayed like habituation (the time constants are public)."""

    def __init__(self) -> None:
        self.value: dict[tuple[str, int], tuple[float, float]] = {}
        self.taus = {k: HABITUATION_TAU_DAYS[k] * 24.0 for k in HABITUATION_KEYS}
        self.hours = 0.0
        self.now = 0.0

    def advance(self, hours_since_last: float, sent_before: bool) -> None:
        """The policy's clock: hours since its last send are observed, so the clock is the last
        send's time plus them."""
        self.now = self.hours + hours_since_last if sent_before else hours_since_last

    def exposure(self, keys: tuple[int, int, int]) -> np.ndarray:
        out = np.zeros(len(HABITUATION_KEYS))
        for m, (name, key) in enumerate(zip(HABITUATION_KEYS, keys, strict=True)):
            value, at = self.value.get((name, key), (0.0, 0.0))
            out[m] = value * math.exp(-(self.now - at) / self.taus[name])
        return out

    def send(self, keys: tuple[int, int, int]) -> None:
        for name, key in zip(HABITUATION_KEYS, keys, strict=True):
            value, at = self.value.get((name, key), (0.0, 0.0))
            self.value[(name, key)] = (value * math.exp(-(self.now - at) / self.taus[name]) + 1.0, self.now)
        self.mark_sent()

    def mark_sent(self) -> None:
        self.hours = self.now


def candidate_keys(candidates: np.ndarray) -> list[tuple[int, int, int]]:
    """(app, subject, channel) of each candidate: the keys of habituation (channels are public)."""
    channel = channel_of({f: candidates[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)})
    return list(zip(candidates[:, APP].tolist(), candidates[:, SUBJECT].tolist(), channel.tolist(),
                    strict=True))


class LinUCB(NoHistory):
    """LinUCB with ridge prior ``lam`` and exploration width ``alpha`` over one-hot candidate x
    context features, the square roots of the policy's own recent exposure to the candidate's
    keys, and an intercept; the inverse of the design's Gram matrix is kept by Sherman-Morrison."""

    def __init__(self, setting: SelectionSetting | None, alpha: float = 0.3, lam: float = 1.0) -> None:
        self.design = Design()
        self.d = self.design.size + len(HABITUATION_KEYS) + 1
        self.inverse = np.eye(self.d) / lam
        self.theta = np.zeros(self.d)
        self.alpha = alpha
        self.own = OwnExposure()
        self.sent = False
        self._chosen: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _features(self, observation: dict[str, Any], candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate the indices (n, c) and values (n, c) of its nonzero features: the one-hot
        columns, then the exposures and the intercept in the last columns."""
        contexts = {f: np.full(len(candidates), int(observation[f])) for f in CONTEXT_FEATURES}
        columns = self.design.columns(candidates, contexts)
        extra = np.array([[*np.sqrt(self.own.exposure(keys)), 1.0] for keys in candidate_keys(candidates)])
        tail = np.broadcast_to(np.arange(self.design.size, self.d), extra.shape)
        return np.hstack([columns, tail]), np.hstack([np.ones(columns.shape), extra])

    def upper_bounds(self, observation: dict[str, Any]) -> np.ndarray:
        """Each candidate's upper confidence bound on its open rate; ``choose`` then sends one."""
        self.own.advance(float(observation["hours_since_last"][0]), self.sent)
        candidates, _ = candidates_of(observation)
        index, value = self._features(observation, candidates)
        mean = (self.theta[index] * value).sum(axis=1)
        block = self.inverse[index[:, :, None], index[:, None, :]]  # (n, c, c)
        width = np.sqrt(np.maximum(np.einsum("ni,nij,nj->n", value, block, value), 0.0))
        self._scored = (index, value, candidates)
        return mean + self.alpha * width

    def choose(self, j: int) -> int:
        """Send candidate ``j`` of the observation ``upper_bounds`` last scored (``update`` learns)."""
        index, value, candidates = self._scored
        self._chosen = (index[j], value[j], candidates[j])
        return j

    def act(self, observation: dict[str, Any]) -> int:
        return self.choose(int(np.argmax(self.upper_bounds(observation))))

    def update(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        if self._chosen is None:
            return
        index, value, sent = self._chosen
        u = self.inverse[:, index] @ value  # A^-1 x
        denominator = 1.0 + value @ u[index]
        error = float(opened) - value @ self.theta[index]
        self.inverse -= np.outer(u, u / denominator)  # Sherman-Morrison
        self.theta += u * (error / denominator)  # = A^-1 b, updated the same way
        self.own.send(candidate_keys(sent[None])[0])
        self.sent = True
        self._chosen = None


class RecoveringDifferenceSoftmax(NoHistory):
    """Recovering Difference Softmax over channels (see the module's docstring)."""

    PRIOR_ROUNDS = 20.0

    def __init__(self, setting: SelectionSetting, tau: float = 0.02, gamma: float = 0.1,
                 half_life_hours: float = 24.0) -> None:
        self.rng = setting.rng()
        self.tau, self.gamma, self.half_life = tau, gamma, half_life_hours
        if "rdsm prior" not in setting.shared:
            setting.shared["rdsm prior"] = self._prior(setting.public)
        chosen, chosen_reward, other, other_reward = setting.shared["rdsm prior"]
        self.chosen, self.chosen_reward = chosen.copy(), chosen_reward.copy()
        self.other, self.other_reward = other.copy(), other_reward.copy()
        self.last_sent = np.full(len(chosen), -np.inf)
        self.own = OwnExposure()
        self.sent = False
        self._round: tuple[np.ndarray, int] | None = None

    def _prior(self, public: PublicHistory) -> tuple[np.ndarray, ...]:
        from pushgen.model.catalog import app_catalog

        n = len(app_catalog().channels.names)
        channel = channel_of({f: public.notifications[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)})
        rows, opens = (counts[:n] for counts in public.counts_by(np.where(channel >= 0, channel, n), n + 1))
        overall = public.open_rate
        weight = np.minimum(rows, self.PRIOR_ROUNDS)
        rate = np.where(rows > 0, opens / np.maximum(rows, 1.0), overall)
        return weight, weight * rate, np.full(n, self.PRIOR_ROUNDS), np.full(n, self.PRIOR_ROUNDS * overall)

    def act(self, observation: dict[str, Any]) -> int:
        self.own.advance(float(observation["hours_since_last"][0]), self.sent)
        candidates, _ = candidates_of(observation)
        arms = np.array([keys[2] for keys in candidate_keys(candidates)])
        chosen_mean = (self.chosen_reward[arms] + 0.5) / (self.chosen[arms] + 1.0)
        other_mean = (self.other_reward[arms] + 0.5) / (self.other[arms] + 1.0)
        recency = self.gamma * 0.5 ** ((self.own.now - self.last_sent[arms]) / self.half_life)
        score = (chosen_mean - other_mean - recency) / self.tau
        weights = np.exp(score - score.max())
        j = int(self.rng.choice(len(arms), p=weights / weights.sum()))
        self._round = (arms, j)
        return j

    def update(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        if self._round is None:
            return
        arms, j = self._round
        reward = float(opened)
        eligible = np.unique(arms)
        others = eligible[eligible != arms[j]]
        self.chosen[arms[j]] += 1.0
        self.chosen_reward[arms[j]] += reward
        self.other[others] += 1.0
        self.other_reward[others] += reward
        self.last_sent[arms[j]] = self.own.now
        self.own.mark_sent()
        self.sent = True
        self._round = None
