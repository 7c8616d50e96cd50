"""The judge: P(open) of generated notifications, with the state they themselves leave.

Generated notifications are scored by the generator's own engagement model
(``pushgen.model.engagement``) with the split's ground-truth parameters, each row's hidden
state, and the fatigue and habituation that the *generated* notifications before it leave,
in time order, from the state the user's logged history left at the start of the test
months. Two ways, one result:

- ``sequence_probabilities``: a whole sequence at once (the evaluator, batch runs);
- ``Judge``: one notification per user at a time (the environments), any number of users
  stepping together.

An impossible notification (``pushgen.model.feasibility``) has P(open) = 0 and does not
reach the user: it leaves the state as it was.
"""

from __future__ import annotations

import numpy as np

from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import RowTerms, combine, exposure_penalty, notification_terms
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_KEYS,
    HABITUATION_TAU_DAYS,
    Exposure,
    ExposureState,
    interruption,
    keyed_exposure,
)
from pushgen.model.logistic import expit
from pushgen.replay.parts import ReplayPart


def _keys(codes: dict[str, np.ndarray], channel: np.ndarray) -> dict[str, np.ndarray]:
    return {"app": np.asarray(codes["postingApp"], dtype=np.int64),
            "subject": np.asarray(codes["subject"], dtype=np.int64), "channel": channel}


def sequence_probabilities(part: ReplayPart, rows: np.ndarray, codes: dict[str, np.ndarray]) -> np.ndarray:
    """P(open) of generated notifications ``codes`` at ``rows`` of ``part``.

    ``rows`` are whole episodes (each user's rows, in time order, users in any order): every
    notification is judged with the state the ones before it at the user's earlier rows leave.
    """
    rows = np.asarray(rows, dtype=np.int64)
    params = part.parameters
    param_rows = part.parameter_rows[rows]
    terms = notification_terms(params, param_rows, codes)
    possible = terms.possible
    user = part.user_ids[rows]
    t = part.seconds[rows]
    keys = _keys(codes, terms.channel)
    user_index = np.searchsorted(part.users, user)
    # a user's own notifications, keyed by (user, key): impossible ones never reach it
    weights = possible.astype(np.float64)
    interrupts = interruption(codes["priority"], codes["numberOfUpdates"]) * weights
    exposure = {"fatigue": keyed_exposure(t, user, params.fatigue_tau_seconds, interrupts)}
    for key in HABITUATION_KEYS:
        combined = user * (int(keys[key].max(initial=0)) + 2) + (keys[key] + 1)
        exposure[key] = keyed_exposure(t, combined, HABITUATION_TAU_DAYS[key] * 86400.0, weights)
    start = part.truth.initial
    taus = {"fatigue": params.fatigue_tau_seconds, **{k: HABITUATION_TAU_DAYS[k] * 86400.0
                                                         for k in HABITUATION_KEYS}}
    index = {"fatigue": np.zeros(len(rows), dtype=np.int64), **{k: np.maximum(keys[k], 0)
                                                                 for k in HABITUATION_KEYS}}
    for key in EXPOSURE_FIELDS:
        exposure[key] = exposure[key] + start[key][user_index, index[key]] * np.exp(-t / taus[key])
    row = RowTerms(part.row_terms.base[rows], part.row_terms.situations[rows])
    penalty = exposure_penalty(params, param_rows, Exposure(**exposure))
    return expit(combine(row, terms, penalty))


class Judge:
    """Users of a part stepping through their episodes, one generated notification each per step."""

    def __init__(self, part: ReplayPart, users: np.ndarray) -> None:
        self.part = part
        self.users = np.asarray(users, dtype=np.int64)
        self.state = ExposureState(len(self.users), len(app_catalog().channels.names),
                                   part.parameters.fatigue_tau_seconds)
        self.slots = np.arange(len(self.users))

    def reset(self, slots: np.ndarray) -> None:
        """Users at ``slots`` start their episodes again, from their initial state."""
        slots = np.asarray(slots, dtype=np.int64)
        index = np.searchsorted(self.part.users, self.users[slots])
        self.state.reset(slots, {k: v[index] for k, v in self.part.truth.initial.items()},
                         np.zeros(len(slots)))

    def step(self, slots: np.ndarray, rows: np.ndarray, codes: dict[str, np.ndarray]) -> np.ndarray:
        """P(open) of notification ``codes`` for the users at ``slots`` at their part rows ``rows``;
        the notifications then reach the users (possible ones)."""
        part = self.part
        params = part.parameters
        param_rows = part.parameter_rows[rows]
        terms = notification_terms(params, param_rows, codes)
        keys = _keys(codes, terms.channel)
        t = part.seconds[rows]
        exposure = self.state.at(slots, t, keys["app"], keys["subject"], keys["channel"])
        row = RowTerms(part.row_terms.base[rows], part.row_terms.situations[rows])
        p = expit(combine(row, terms, exposure_penalty(params, param_rows, exposure)))
        ok = terms.possible
        interrupts = interruption(codes["priority"], codes["numberOfUpdates"])
        if ok.all():
            self.state.add(slots, t, keys["app"], keys["subject"], keys["channel"], interrupts, exposure)
        else:
            reached = Exposure(**{k: getattr(exposure, k)[ok] for k in EXPOSURE_FIELDS})
            self.state.add(slots[ok], t[ok], keys["app"][ok], keys["subject"][ok], keys["channel"][ok],
                           interrupts[ok], reached)
        return p
