"""The engagement model: P(open | user, notification, context, dynamic state).

This is the one function that decides opens in the generator and judges generated
notifications in the environments. For user u and a notification in a context:

    logit = intercept[u]
          + sum over the 18 features f of weight[f][u, value_f]
          + audio_chat_bonus[u] * [category = msg and headphonesIn and musicActive]
          + attention_amplitude[u] * cos(2 pi (hour - attention_peak[u]) / 24)
          + asleep_penalty[u] * asleep
          - fatigue_weight[u] * fatigue
          + novelty[u] * exp(-days / novelty_days)
          + mood
    P(open) = 1 / (1 + exp(-logit))

``hour`` is the clock hour of posting, ``days`` the days since the dataset's start,
``asleep`` whether the user was asleep, ``fatigue`` the sum over the user's earlier
notifications that interrupted (all but a conversation's follow-ups) of
exp(-(t - t_j) / fatigue_tau), and ``mood`` the user's hidden availability
that day and in that stretch of the routine (see ``mood`` below). All parameters are plain arrays, stored
as Parquet beside a dataset (``ground_truth/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit

from pushgen import schemas

FEATURES = schemas.FEATURES
SCALARS = (
    "intercept",
    "audio_chat_bonus",
    "attention_amplitude",
    "attention_peak",
    "asleep_penalty",
    "fatigue_weight",
    "novelty",
)
MODEL_VERSION = 1


@dataclass
class EngagementParameters:
    """Every user's engagement parameters; row i of each array belongs to ``user_ids[i]``."""

    user_ids: np.ndarray
    weights: dict[str, np.ndarray]  # feature -> (users, n_values), columns in schema order
    scalars: dict[str, np.ndarray]  # name -> (users,)
    fatigue_tau_seconds: float
    novelty_days: float
    _row_of_user: dict[int, int] = field(default_factory=dict, repr=False)

    def rows(self, user_ids: np.ndarray) -> np.ndarray:
        """Row index of each user id."""
        if not self._row_of_user:
            self._row_of_user.update({int(u): i for i, u in enumerate(self.user_ids)})
        return np.fromiter((self._row_of_user[int(u)] for u in user_ids), dtype=np.int64,
                           count=len(user_ids))

    @classmethod
    def concat(cls, parts: list[EngagementParameters]) -> EngagementParameters:
        first = parts[0]
        return cls(
            user_ids=np.concatenate([p.user_ids for p in parts]),
            weights={f: np.concatenate([p.weights[f] for p in parts]) for f in first.weights},
            scalars={s: np.concatenate([p.scalars[s] for p in parts]) for s in first.scalars},
            fatigue_tau_seconds=first.fatigue_tau_seconds,
            novelty_days=first.novelty_days,
        )

    def constants(self) -> dict:
        return {
            "model_version": MODEL_VERSION,
            "fatigue_tau_seconds": self.fatigue_tau_seconds,
            "novelty_days": self.novelty_days,
            "features": list(FEATURES),
            "scalars": list(SCALARS),
            "formula": __doc__.split("notification in a context:")[1].split("``hour``")[0].strip(),
        }

    def user_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"user_id": self.user_ids.astype(np.int32), **self.scalars})

    def weight_frame(self) -> pd.DataFrame:
        """Long table, user by user: one row per (user, feature, value) with its weight."""
        names = [f for f in FEATURES for _ in schemas.values(f)]
        codes = np.concatenate([np.arange(len(schemas.values(f)), dtype=np.int16) for f in FEATURES])
        values = np.array([str(v) for f in FEATURES for v in schemas.values(f)], dtype=object)
        matrix = np.concatenate([self.weights[f] for f in FEATURES], axis=1)
        n_users, width = matrix.shape
        return pd.DataFrame({
            "user_id": np.repeat(self.user_ids.astype(np.int32), width),
            "feature": pd.Categorical(np.tile(names, n_users), categories=list(FEATURES)),
            "code": np.tile(codes, n_users),
            "value": np.tile(values, n_users),
            "weight": matrix.ravel(),
        })

    @classmethod
    def from_frames(cls, users: pd.DataFrame, weights: pd.DataFrame,
                    constants: dict) -> EngagementParameters:
        user_ids = users["user_id"].to_numpy()
        position = pd.Series(np.arange(len(user_ids)), index=user_ids)
        table = {}
        for f in FEATURES:
            part = weights[weights["feature"] == f]
            matrix = np.zeros((len(user_ids), len(schemas.values(f))))
            matrix[position[part["user_id"].to_numpy()].to_numpy(),
                   part["code"].to_numpy()] = part["weight"].to_numpy()
            table[f] = matrix
        return cls(
            user_ids=user_ids,
            weights=table,
            scalars={s: users[s].to_numpy(dtype=np.float64) for s in SCALARS},
            fatigue_tau_seconds=float(constants["fatigue_tau_seconds"]),
            novelty_days=float(constants["novelty_days"]),
        )


@dataclass(frozen=True)
class DynamicState:
    """The latent terms of each row (arrays of one length), as stored in engagement_rows."""

    hour: np.ndarray
    days: np.ndarray
    asleep: np.ndarray
    fatigue: np.ndarray
    mood: np.ndarray

    def take(self, index: slice | np.ndarray) -> DynamicState:
        return DynamicState(**{name: getattr(self, name)[index] for name in DYNAMIC_FIELDS})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> DynamicState:
        """From a ground-truth rows table (``ground_truth/engagement_rows.parquet``)."""
        return cls(**{
            name: frame[name].to_numpy(dtype=bool if name == "asleep" else np.float64)
            for name in DYNAMIC_FIELDS
        })


DYNAMIC_FIELDS = ("hour", "days", "asleep", "fatigue", "mood")


def open_logit(
    params: EngagementParameters,
    rows: np.ndarray,
    codes: dict[str, np.ndarray],
    state: DynamicState,
) -> np.ndarray:
    """Log-odds of opening, for users at parameter rows ``rows`` and features' schema codes."""
    s = params.scalars
    logit = s["intercept"][rows].copy()
    for f in FEATURES:
        table = params.weights[f]
        logit += table.ravel().take(rows * table.shape[1] + codes[f])
    msg = schemas.field("category").code("msg")
    headphones_in = schemas.field("headphonesIn").code(True)
    music_on = schemas.field("musicActive").code(True)
    chatting = (codes["category"] == msg) & (codes["headphonesIn"] == headphones_in) & (
        codes["musicActive"] == music_on)
    logit += s["audio_chat_bonus"][rows] * chatting
    logit += s["attention_amplitude"][rows] * np.cos(
        2 * np.pi * (state.hour - s["attention_peak"][rows]) / 24)
    logit += s["asleep_penalty"][rows] * state.asleep
    logit -= s["fatigue_weight"][rows] * state.fatigue
    logit += s["novelty"][rows] * np.exp(-state.days / params.novelty_days)
    logit += state.mood
    return logit


def open_probability(params, rows, codes, state) -> np.ndarray:
    return expit(open_logit(params, rows, codes, state))


def mood(days: int, n_segments: int, mean_day_sd: float, segment_sd: float,
         rng: np.random.Generator, persistence: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Hidden availability: a daily AR(1) level plus an independent shift per routine segment.

    The user's day sd ~ Gamma(4, mean_day_sd / 4); day[0] ~ N(0, sd^2),
    day[d] = persistence * day[d-1] + N(0, sd^2 (1 - persistence^2)); segment[s] ~ N(0, segment_sd^2).
    Returns (per day, per segment).
    """
    day_sd = rng.gamma(4.0, mean_day_sd / 4.0)
    shocks = rng.normal(0.0, day_sd, days)
    shocks[1:] *= np.sqrt(1 - persistence**2)
    level = np.empty(days)
    previous = 0.0
    for d in range(days):  # a few hundred days: a plain loop is cheapest
        previous = persistence * previous + shocks[d]
        level[d] = previous
    return level, rng.normal(0.0, segment_sd, n_segments)


def fatigue(seconds: np.ndarray, tau_seconds: float, counts: np.ndarray | None = None,
            bin_seconds: float = 900.0) -> np.ndarray:
    """For sorted posting times, sum over earlier posts j with counts[j] of exp(-(t_i - t_j) / tau).

    ``counts`` (default: every post) marks the posts that interrupt the user; a message that
    continues a conversation does not.

    Exact: per time bin, a first-order decay filter carries the total from earlier bins;
    within a bin the sum runs over earlier posts of the same bin.
    """
    if len(seconds) == 0:
        return np.zeros(0)
    weight = np.ones(len(seconds)) if counts is None else np.asarray(counts, dtype=np.float64)
    bins = (seconds // bin_seconds).astype(np.int64)
    first_bin = bins[0]
    local = bins - first_bin
    n_bins = int(local[-1]) + 1
    bin_start = (local * bin_seconds + first_bin * bin_seconds)
    offset = seconds - bin_start  # in [0, bin_seconds)
    decay = np.exp(-bin_seconds / tau_seconds)
    # contribution of each post to the total at the end of its bin
    at_bin_end = np.bincount(local, weights=weight * np.exp(-(bin_seconds - offset) / tau_seconds),
                             minlength=n_bins)
    carried = decaying_total(at_bin_end, decay)  # total at the end of each bin
    from_before = np.r_[0.0, carried[:-1]][local] * np.exp(-offset / tau_seconds)
    # earlier posts in the same bin, k places back (bins hold few posts)
    bin_first = np.r_[0, np.flatnonzero(np.diff(local)) + 1]
    rank = np.arange(len(seconds)) - np.repeat(bin_first, np.diff(np.r_[bin_first, len(seconds)]))
    in_bin = np.zeros(len(seconds))
    for k in range(1, int(rank.max()) + 1):
        later = np.flatnonzero(rank >= k)
        in_bin[later] += weight[later - k] * np.exp(-(seconds[later] - seconds[later - k]) / tau_seconds)
    return from_before + in_bin


def decaying_total(x: np.ndarray, decay: float, block: int = 128) -> np.ndarray:
    """y[n] = decay * y[n-1] + x[n] (y[-1] = 0), the first-order IIR filter, for x >= 0.

    Within blocks of ``block`` steps it is a scaled cumulative sum (all terms positive, so no
    cancellation); a short loop over blocks carries the state across them.
    """
    n = len(x)
    if decay < 1.0:  # keep decay ** -block far from overflow
        block = int(max(1, min(block, 300 / -np.log(max(decay, 1e-300)))))
    padded = np.zeros(-(-n // block) * block)
    padded[:n] = x
    steps = np.arange(block)
    grow, shrink = decay ** -steps, decay ** steps
    within = np.cumsum(padded.reshape(-1, block) * grow, axis=1) * shrink
    carry_in = np.zeros(len(within))
    carry_over = decay ** block
    for b in range(1, len(within)):
        carry_in[b] = carry_in[b - 1] * carry_over + within[b - 1, -1]
    return (within + carry_in[:, None] * (decay * shrink)).ravel()[:n]
