"""The engagement formula's last steps, evaluated here and nowhere else: the logit from its parts
(``combine``), what fatigue and habituation take off it (``exposure_penalty``), and P(open), the
logistic of the logit (``p_open``; ``sigmoid`` for one Python float). ``open_logit`` is all of
it in one compiled pass for notifications with every feature known (the generator's)."""

from __future__ import annotations

import math

import numpy as np

from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import (
    HABITUATION_SCALARS,
    ROW_FIELDS,
    EngagementParameters,
    NotificationTerms,
    RowState,
    RowTerms,
    checked_rows,
    feature_codes,
    flat_arrays,
    weight_tables,
)
from pushgen.model.engagement_kernel import notification_logits, row_logits, state_exponents
from pushgen.model.exposure import EXPOSURE_FIELDS, HABITUATION_KEYS, Exposure
from pushgen.model.feasibility import channel_of
from pushgen.model.logistic import expit
from pushgen.model.situations import clock_curves, indicator_tables, priority_effects, updates_effects
from pushgen.schemas import CONTEXT_FEATURES, FEATURES, NOTIFICATION_FEATURES


def penalty_weights(parameters: EngagementParameters, parameter_row: int) -> dict[str, float]:
    """Log-odds the user at ``parameter_row`` loses per unit of fatigue and of sqrt(exposure) to
    each key; ValueError unless all are >= 0, which is what makes the fresh state's P(open) an
    upper bound and what the planner assumes."""
    scalars = parameters.scalars
    weights = {"fatigue": float(scalars["fatigue_weight"][parameter_row]),
               **{k: float(scalars[f"habituation_{k}"][parameter_row]) for k in HABITUATION_KEYS}}
    negative = {k: w for k, w in weights.items() if w < 0}
    if negative:
        raise ValueError(f"negative penalty weights {negative}: the fresh state would not bound P(open)")
    return weights


def sigmoid(x: float) -> float:
    """The logistic function of one Python float (``p_open`` for arrays)."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def p_open(logit: np.ndarray | float) -> np.ndarray:
    """P(open) of notifications whose logit, exposure penalty included, is ``logit`` (-inf,
    an impossible notification: 0)."""
    return expit(logit)


def exposure_penalty(params: EngagementParameters, rows: np.ndarray, exposure: Exposure) -> np.ndarray:
    """What fatigue and habituation take off the logit."""
    s = params.scalars
    penalty = s["fatigue_weight"][rows] * exposure.fatigue
    for key, name in zip(HABITUATION_KEYS, HABITUATION_SCALARS, strict=True):
        penalty = penalty + s[name][rows] * np.sqrt(getattr(exposure, key))
    return penalty


def combine(row: RowTerms, notification: NotificationTerms, penalty: np.ndarray | float) -> np.ndarray:
    """The logit from its parts, -inf for impossible notifications (broadcasting rows x notifications)."""
    interaction = np.einsum("...k,...k->...", row.situations, notification.per_situation)
    logit = row.base + notification.base + interaction - penalty
    return np.where(notification.possible, logit, -np.inf)


def open_logit(params: EngagementParameters, rows: np.ndarray, codes: dict[str, np.ndarray],
               state: RowState, exposure: Exposure | None, channel: np.ndarray | None = None) -> np.ndarray:
    """Log-odds of opening (-inf: impossible), users at parameter rows ``rows``, all 18 features' codes
    (and, if known, each notification's ``feasibility.channel_of``, flat), with ``exposure`` (None:
    the fresh state, no fatigue or habituation).

    ``combine`` of the row terms (``engagement_kernel.row_logits``), the notification terms and the
    exposure penalty (``notification_logit``), compiled passes that add in the same order.
    """
    s = params.scalars
    kept = () if exposure is None else EXPOSURE_FIELDS
    shape, (rows, hour, days, asleep, mood, *flat) = flat_arrays(
        np.asarray(rows, dtype=np.int64), *(np.asarray(getattr(state, f)) for f in ROW_FIELDS),
        *(np.asarray(getattr(exposure, f)) for f in kept), *(np.asarray(codes[f]) for f in FEATURES))
    hour, days, mood = (np.asarray(x, dtype=np.float64) for x in (hour, days, mood))
    exposures = (np.column_stack([np.asarray(x, dtype=np.float64) for x in flat[:len(kept)]]) if kept
                 else np.zeros((len(rows), len(EXPOSURE_FIELDS))))
    rows, code = checked_rows(params, rows), feature_codes(FEATURES, flat[len(kept):])
    if channel is None:
        channel = channel_of(code)
    else:
        channel = np.ascontiguousarray(channel, dtype=np.int64).ravel()
        if len(channel) != len(rows):
            raise ValueError(f"channel must give one channel per notification ({len(rows)}); "
                             f"got {len(channel)}")
        groups = len(app_catalog().channels.group)
        if len(channel) and (channel.min() < -1 or channel.max() >= groups):
            raise IndexError(f"channels must be from -1 to {groups - 1}; got values from {channel.min()} "
                             f"to {channel.max()}")
    user_terms = tuple(np.ascontiguousarray(s[name], dtype=np.float64)
                       for name in ("intercept", "attention_amplitude", "asleep_penalty", "novelty"))
    cycle = state_exponents(hour, days, s["attention_peak"], rows, float(params.novelty_days))
    np.cos(cycle[0], out=cycle[0])
    np.exp(cycle[1], out=cycle[1])
    tables = indicator_tables()
    row = RowTerms(*row_logits(
        rows, user_terms, weight_tables(params, CONTEXT_FEATURES), tuple(code[f] for f in CONTEXT_FEATURES),
        cycle, asleep, mood, clock_curves(hour), (tables["day"], tables["activity"], tables["ringerMode"],
                                                  tables["listening"]),
        tuple(code[f] for f in ("day", "activity", "ringerMode", "headphonesIn", "musicActive"))))
    possible = (channel >= 0) & params.has_app[rows, code["postingApp"]]
    logit = notification_logit(params, rows, row, np.column_stack([code[f] for f in NOTIFICATION_FEATURES]),
                               channel, possible, exposures)
    return logit.reshape(shape)


def notification_logit(params: EngagementParameters, rows: np.ndarray, row: RowTerms, codes: np.ndarray,
                       channel: np.ndarray, possible: np.ndarray, exposures: np.ndarray) -> np.ndarray:
    """``combine`` of row terms ``row``, the terms of notifications ``codes`` (rows of the notification
    features' codes, checked) with channels ``channel``, and the penalty of ``exposures`` (rows of
    fatigue and the exposure per key) for users at parameter rows ``rows``, in one compiled pass
    (``engagement_kernel.notification_logits``) that adds in the same order; -inf where not
    ``possible``."""
    s = params.scalars
    penalty_terms = tuple(np.ascontiguousarray(s[name], dtype=np.float64)
                          for name in ("fatigue_weight", *HABITUATION_SCALARS))
    return notification_logits(
        row.base, row.situations, rows, weight_tables(params, NOTIFICATION_FEATURES), codes,
        np.ascontiguousarray(params.interactions, dtype=np.float64), app_catalog().channels.group, channel,
        priority_effects(), updates_effects(), possible, penalty_terms, exposures)


def open_probability(params: EngagementParameters, rows: np.ndarray, codes: dict[str, np.ndarray],
                     state: RowState, exposure: Exposure | None,
                     channel: np.ndarray | None = None) -> np.ndarray:
    """P(open): the logistic of ``open_logit``."""
    return expit(open_logit(params, rows, codes, state, exposure, channel))


