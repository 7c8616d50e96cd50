"""The engagement model: P(open | user, notification, context, state). Model version 4.

This is the one scorer: it decides opens in the generator and judges generated
notifications in the environments, the evaluator and the oracle. For user u, a notification
n with channel c (``pushgen.model.feasibility``) in a row with context x:

    logit = intercept[u]
          + sum over the 18 features f of weight[f][u, value_f]
          + sum over situations k of situation_k(x, hour)
                * (interaction[u, group(c), k] + priority_in[priority, k] + updates_in[updates, k])
          + attention_amplitude[u] * cos(2 pi (hour - attention_peak[u]) / 24)
          + asleep_penalty[u] * asleep
          + novelty[u] * exp(-days / novelty_days)
          + mood
          - fatigue_weight[u] * fatigue
          - sum over keys in (app, subject, channel) of habituation[u, key] * sqrt(exposure_key)
    P(open) = 1 / (1 + exp(-logit)) if n is possible for u, else 0

and a notification reaches the user only from an app (and channel) the user has not turned off
or abandoned (model 4: ``pushgen.model.long_term``, whose ``tolerance[u]`` is one of the
scalars; the hazards follow the annoyance that unwanted notifications leave).

``hour`` is the clock hour of posting, ``days`` the days since the dataset's start,
``asleep`` whether the user was asleep, ``mood`` the user's hidden availability that day
and stretch of routine, ``situation_k`` the smooth context situations of
``pushgen.model.situations``, and ``fatigue`` and ``exposure_key`` the state the notifications
the user received before leave (``pushgen.model.exposure``). All parameters are plain
arrays, stored as Parquet beside a dataset (``ground_truth/``).

The logit splits into a row part (``row_terms``: context and exogenous state, the same for any
notification), a notification part (``notification_terms``), the situation interaction of the
two and the exposure penalty, so that the environments and the oracle precompute the first two
once and score a notification with a few additions. The simulated user
(``pushgen.model.simulated_user``) adds them up, takes off the exposure penalty and applies the
logistic; nothing else does.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field

import numpy as np

from pushgen import schemas
from pushgen.model.catalog import app_catalog
from pushgen.model.channels import GROUPS
from pushgen.model.engagement_kernel import autoregression
from pushgen.model.exposure import (
    HABITUATION_KEYS,
    HABITUATION_TAU_DAYS,
    INTERRUPTION_BY_PRIORITY,
)
from pushgen.model.feasibility import channel_of, check_positions, same_integer_arrays
from pushgen.model.long_term import LongTermConstants, default_constants
from pushgen.model.renamed import moved
from pushgen.model.situations import (
    SITUATIONS,
    priority_effects,
    situations,
    updates_effects,
)
from pushgen.schemas import CONTEXT_FEATURES, FEATURES, NOTIFICATION_FEATURES

HABITUATION_SCALARS = tuple(f"habituation_{key}" for key in HABITUATION_KEYS)
SCALARS = ("intercept", "attention_amplitude", "attention_peak", "asleep_penalty", "fatigue_weight",
           "novelty", *HABITUATION_SCALARS, "tolerance")
MODEL_VERSION = 4


@dataclass
class EngagementParameters:
    """Every user's engagement parameters; row i of each array belongs to ``user_ids[i]``."""

    user_ids: np.ndarray
    weights: dict[str, np.ndarray]  # feature -> (users, n_values), columns in schema order
    interactions: np.ndarray  # (users, groups, situations)
    scalars: dict[str, np.ndarray]  # name -> (users,)
    has_app: np.ndarray  # (users, apps) bool: the apps each user has
    fatigue_tau_seconds: float
    novelty_days: float
    long_term: LongTermConstants = field(default_factory=default_constants)
    channel_on: np.ndarray | None = None  # (users, channels) bool; None: every channel on
    _by_id: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def channels_on(self, row: int) -> np.ndarray | None:
        """The channels still on for the user at ``row`` (a mask over channel codes; None: all)."""
        return None if self.channel_on is None else self.channel_on[row]

    def rows(self, user_ids: np.ndarray) -> np.ndarray:
        """Row index of each user id (KeyError naming an id that has none)."""
        if self._by_id is None:
            order = np.argsort(self.user_ids, kind="stable")
            self._by_id = order, np.asarray(self.user_ids)[order]
        order, ids = self._by_id
        wanted = np.asarray(user_ids)
        at = np.searchsorted(ids, wanted, side="right") - 1  # an id's last row, as a dict of them has it
        found = (at >= 0) & (ids[np.maximum(at, 0)] == wanted) if len(ids) else np.zeros(len(wanted), bool)
        if not found.all():
            raise KeyError(int(wanted[np.argmin(found)]))
        return order[at].astype(np.int64, copy=False)

    @classmethod
    def concat(cls, parts: list[EngagementParameters]) -> EngagementParameters:
        first = parts[0]
        return cls(
            user_ids=np.concatenate([p.user_ids for p in parts]),
            weights={f: np.concatenate([p.weights[f] for p in parts]) for f in first.weights},
            interactions=np.concatenate([p.interactions for p in parts]),
            scalars={s: np.concatenate([p.scalars[s] for p in parts]) for s in first.scalars},
            has_app=np.concatenate([p.has_app for p in parts]),
            fatigue_tau_seconds=first.fatigue_tau_seconds,
            novelty_days=first.novelty_days,
            long_term=first.long_term,
            channel_on=None if all(p.channel_on is None for p in parts) else np.concatenate(
                [p.channel_on if p.channel_on is not None else np.ones((len(p.user_ids), len(
                    app_catalog().channels.group)), dtype=bool) for p in parts]),
        )

    def constants(self) -> dict:
        return {
            "model_version": MODEL_VERSION,
            "fatigue_tau_seconds": self.fatigue_tau_seconds,
            "novelty_days": self.novelty_days,
            "habituation_tau_days": HABITUATION_TAU_DAYS,
            "interruption_by_priority": INTERRUPTION_BY_PRIORITY,
            "long_term": asdict(self.long_term),
            "features": list(FEATURES),
            "scalars": list(SCALARS),
            "groups": list(GROUPS),
            "situations": list(SITUATIONS),
            "formula": __doc__.split("in a row with context x:")[1].split("``hour``")[0].strip(),
        }


@dataclass(frozen=True)
class RowState:
    """The exogenous hidden state of rows (arrays of one length), as stored in engagement_rows."""

    hour: np.ndarray
    days: np.ndarray
    asleep: np.ndarray
    mood: np.ndarray

    def take(self, index: slice | np.ndarray) -> RowState:
        return RowState(**{name: getattr(self, name)[index] for name in ROW_FIELDS})


ROW_FIELDS = ("hour", "days", "asleep", "mood")


@dataclass(frozen=True)
class RowTerms:
    """What a row adds to every notification's logit, and its situations."""

    base: np.ndarray  # (rows,)
    situations: np.ndarray  # (rows, situations)


@dataclass(frozen=True)
class NotificationTerms:
    """What each notification adds whatever the row, and what it adds per unit of each situation."""

    base: np.ndarray  # (n,)
    per_situation: np.ndarray  # (n, situations)
    channel: np.ndarray  # (n,) -1 where no channel posts it
    possible: np.ndarray  # (n,) bool


def flat_arrays(*arrays: np.ndarray) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """The arrays' broadcast shape, and each array broadcast to it, flat and contiguous (copied only
    where broadcasting or layout needs it)."""
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        arrays = tuple(np.broadcast_arrays(*arrays))
        shape = arrays[0].shape
    return shape, [np.ascontiguousarray(a).ravel() for a in arrays]


def feature_codes(features: tuple[str, ...], columns: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Flat code arrays by feature, of one native integer type (as the kernels take them), each
    code checked to be a position in its feature's published values."""
    if len({len(c) for c in columns}) > 1:
        counts = ", ".join(f"{name} {len(c)}" for name, c in zip(features, columns, strict=True))
        raise ValueError(f"every feature needs as many codes as the others; got {counts}")
    if not same_integer_arrays(columns):
        columns = [c.astype(np.int64) for c in columns]
    if len(columns[0]):
        stacked = np.concatenate(columns).reshape(len(columns), -1)  # a feature a row
        unsigned = stacked.view(f"u{stacked.itemsize}")
        outside = unsigned.max(axis=1) >= _unsigned_bounds(features, stacked.itemsize)
        if outside.any():
            name = features[int(np.argmax(outside))]
            check_positions(columns[features.index(name)], f"codes of {name}", len(schemas.values(name)))
    return dict(zip(features, columns, strict=True))


@functools.cache
def _unsigned_bounds(features: tuple[str, ...], itemsize: int) -> np.ndarray:
    """What each feature's codes, signed integers of ``itemsize`` bytes read as unsigned, stay below:
    its count of values, or the first negative's unsigned value if that is lower (one maximum of the
    unsigned codes then checks both ends)."""
    first_negative = 1 << (8 * itemsize - 1)
    return np.array([min(len(schemas.values(name)), first_negative) for name in features],
                    dtype=f"u{itemsize}")


def checked_rows(params: EngagementParameters, rows: np.ndarray) -> np.ndarray:
    """``rows`` checked to be rows of ``params`` (one per user)."""
    check_positions(rows, "parameter rows", len(params.user_ids))
    return rows


def weight_tables(params: EngagementParameters, features: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(params.weights[f], dtype=np.float64) for f in features)


def _weights(params: EngagementParameters, start: np.ndarray, rows: np.ndarray, codes: dict[str, np.ndarray],
             features: tuple[str, ...]) -> np.ndarray:
    """``start`` plus each feature's weight of each row's user and value, added in ``features`` order."""
    total = np.array(start, dtype=np.float64)
    for feature in features:
        total += params.weights[feature][rows, codes[feature]]
    return total


def row_terms(params: EngagementParameters, rows: np.ndarray, context: dict[str, np.ndarray],
              state: RowState) -> RowTerms:
    """Row part of the logit for users at parameter rows ``rows`` in contexts ``context``."""
    s = params.scalars
    shape, (rows, hour, days, asleep, mood, *columns) = flat_arrays(
        np.asarray(rows, dtype=np.int64), *(np.asarray(getattr(state, f)) for f in ROW_FIELDS),
        *(np.asarray(context[f]) for f in CONTEXT_FEATURES))
    rows = checked_rows(params, rows)
    base = _weights(params, s["intercept"][rows], rows, feature_codes(CONTEXT_FEATURES, columns),
                    CONTEXT_FEATURES)
    base += s["attention_amplitude"][rows] * np.cos(2 * np.pi * (hour - s["attention_peak"][rows]) / 24)
    base += s["asleep_penalty"][rows] * asleep
    base += s["novelty"][rows] * np.exp(-days / params.novelty_days)
    base += mood
    return RowTerms(base=base.reshape(shape), situations=situations(context, state.hour))


def notification_terms(params: EngagementParameters, rows: np.ndarray,
                       codes: dict[str, np.ndarray]) -> NotificationTerms:
    """Notification part of the logit for users at parameter rows ``rows``."""
    shape, (rows, *columns) = flat_arrays(np.asarray(rows, dtype=np.int64),
                                     *(np.asarray(codes[f]) for f in NOTIFICATION_FEATURES))
    rows, feature = checked_rows(params, rows), feature_codes(NOTIFICATION_FEATURES, columns)
    base = _weights(params, np.zeros(len(rows)), rows, feature, NOTIFICATION_FEATURES)
    channel = channel_of(feature)
    group = app_catalog().channels.group[np.maximum(channel, 0)]
    per_situation = params.interactions[rows, group]  # (rows, situations), summed in place
    per_situation += np.take(priority_effects(), feature["priority"], axis=0)
    per_situation += np.take(updates_effects(), feature["numberOfUpdates"], axis=0)
    possible = possible_for(params, rows, feature["postingApp"], channel)
    per_situation = per_situation.reshape(*shape, len(SITUATIONS))
    return NotificationTerms(base=base.reshape(shape), per_situation=per_situation,
                             channel=channel.reshape(shape), possible=possible.reshape(shape))


def possible_for(params: EngagementParameters, rows: np.ndarray, app: np.ndarray,
                 channel: np.ndarray) -> np.ndarray:
    """Whether each notification (its app's code and its channel, -1 for none) can reach the user at
    its parameter row: a channel posts it, the user has the app and has not turned the channel off."""
    possible = (channel >= 0) & params.has_app[rows, app]
    if params.channel_on is not None:
        possible &= params.channel_on[rows, np.maximum(channel, 0)]
    return possible


def notification_matrix(codes: dict[str, np.ndarray]) -> np.ndarray:
    """(n, 7): notifications' codes (flat arrays by feature) as rows in ``NOTIFICATION_FEATURES``
    order, each checked to be a position in its feature's published values."""
    columns = [np.asarray(codes[f], dtype=np.int64) for f in NOTIFICATION_FEATURES]
    return np.column_stack(list(feature_codes(NOTIFICATION_FEATURES, columns).values()))


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
    level = autoregression(shocks, persistence)
    return level, rng.normal(0.0, segment_sd, n_segments)


__getattr__ = moved(__name__, {name: f"pushgen.model.simulated_user.{name}" for name in (
    "combine", "exposure_penalty", "open_logit", "open_probability")})
