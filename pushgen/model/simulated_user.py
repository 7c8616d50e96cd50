"""The simulated user: the one place where fatigue and habituation are stepped and P(open) is
asked of the engagement model (``engagement``: the formula; ``exposure``: what a notification
adds and how it decays). It answers three questions, for one user or a batch:

- P(open) of this notification in this context now;
- send it (the state it leaves: its interruption added to fatigue, one unit to habituation to
  its app, its subject and its channel, each decaying with its own time constant);
- snapshot and restore (a planner's "what if": ``snapshot()``, try, ``restore(saved)``).

``SimulatedUser`` is one user in plain Python floats (the single environments' fast path);
``SimulatedUsers`` N users as arrays (the judge, the vector environments); ``PlannedUser`` one
user with every possible notification scored at once (the oracle's planner); ``logged_p_open``
the generator's user, driven by the notifications it logs. P(open) agrees between them to
rounding (tests step them against each other). An impossible notification (no channel, or an
app the user does not have) has P(open) = 0 and never reaches the user.
"""

from __future__ import annotations

import math

import numpy as np

from pushgen.model.engagement import (
    HABITUATION_SCALARS,
    EngagementParameters,
    NotificationTerms,
    RowState,
    RowTerms,
    combine,
    exposure_penalty,
    notification_terms,
    open_probability,
)
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_KEYS,
    HABITUATION_TAU_DAYS,
    Exposure,
    interruption,
    key_sizes,
    keyed_exposure,
    logged_exposure,
)
from pushgen.model.logistic import expit

Keys = tuple[int, int, int]  # (app, subject, channel) codes of a notification
Snapshot = tuple[float, float, tuple[list[float], ...], tuple[list[float], ...]]


def sigmoid(x: float) -> float:
    """The logistic function of one Python float (``logistic.expit`` for arrays)."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


HABITUATION_TAUS = {k: HABITUATION_TAU_DAYS[k] * 86400.0 for k in HABITUATION_KEYS}  # seconds


def static_logit(parameters: EngagementParameters, parameter_rows: np.ndarray, row: RowTerms,
                 codes: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The logit before exposure (-inf: impossible) of notifications ``codes`` of the users at
    ``parameter_rows`` in rows ``row`` (broadcasting), and their channels."""
    terms = notification_terms(parameters, parameter_rows, codes)
    return combine(row, terms, 0.0), terms.channel


class SimulatedUser:
    """One user (id ``user`` in ``parameters``) in Python floats, from the state ``initial`` (per
    key of ``EXPOSURE_FIELDS``, the exposure per code as of time 0; ``stationary``: none, ever).

    ``p_open`` and ``send`` take a notification's logit before exposure (``static``: row,
    notification and their interaction, ``engagement.combine`` with no penalty), precomputed
    once per episode, and its habituation keys.
    """

    def __init__(self, parameters: EngagementParameters, user: int, initial: dict[str, list[float]],
                 stationary: bool = False) -> None:
        row = int(parameters.rows(np.array([user]))[0])
        self.user = user
        self.stationary = stationary
        self.fatigue_weight = float(parameters.scalars["fatigue_weight"][row])
        self.habituation = tuple(float(parameters.scalars[name][row]) for name in HABITUATION_SCALARS)
        self.fatigue_tau = float(parameters.fatigue_tau_seconds)
        self.taus = tuple(HABITUATION_TAUS.values())
        self._initial = {key: list(initial[key]) for key in EXPOSURE_FIELDS}
        self.reset()

    def reset(self) -> None:
        """Back to the initial state (a stationary user: no exposure at all, for ever)."""
        fresh = self.stationary
        self.fatigue = 0.0 if fresh else self._initial["fatigue"][0]
        self.fatigue_time = 0.0
        self.values = tuple([0.0] * len(v) if fresh else list(v)
                            for v in (self._initial[k] for k in HABITUATION_KEYS))
        self.times = tuple([0.0] * len(v) for v in self.values)

    def snapshot(self) -> Snapshot:
        """The state as it is, for ``restore``."""
        return (self.fatigue, self.fatigue_time, tuple(list(v) for v in self.values),
                tuple(list(v) for v in self.times))

    def restore(self, snapshot: Snapshot) -> None:
        """Back to the state of ``snapshot`` (from ``snapshot()``)."""
        self.fatigue, self.fatigue_time = snapshot[0], snapshot[1]
        for mine, saved in zip((*self.values, *self.times), (*snapshot[2], *snapshot[3]), strict=True):
            mine[:] = saved

    def exposure(self, t: float, keys: Keys) -> tuple[float, float, float, float]:
        """(fatigue, app, subject, channel exposure) at time ``t`` for a notification with ``keys``."""
        app, subject, channel = keys
        (va, vs, vc), (ta, ts, tc), (tau_a, tau_s, tau_c) = self.values, self.times, self.taus
        return (self.fatigue * math.exp(-(t - self.fatigue_time) / self.fatigue_tau),
                va[app] * math.exp(-(t - ta[app]) / tau_a),
                vs[subject] * math.exp(-(t - ts[subject]) / tau_s),
                vc[channel] * math.exp(-(t - tc[channel]) / tau_c))

    def penalty(self, exposure: tuple[float, float, float, float]) -> float:
        """What the exposure takes off the logit (``engagement.exposure_penalty``, same order)."""
        f, a, s, c = exposure
        h_app, h_subject, h_channel = self.habituation
        return (self.fatigue_weight * f + h_app * math.sqrt(a) + h_subject * math.sqrt(s)
                + h_channel * math.sqrt(c))

    def p_open(self, static: float, t: float, keys: Keys) -> float:
        """P(open) now of a possible notification with logit before exposure ``static``, at ``t``."""
        return sigmoid(static - self.penalty(self.exposure(t, keys)))

    def send(self, static: float, t: float, keys: Keys, interrupts: float) -> float:
        """The user receives a possible notification at ``t``: its P(open), then the state it leaves."""
        exposure = self.exposure(t, keys)
        p = sigmoid(static - self.penalty(exposure))
        if not self.stationary:
            app, subject, channel = keys
            (va, vs, vc), (ta, ts, tc) = self.values, self.times
            self.fatigue = exposure[0] + interrupts
            self.fatigue_time = t
            va[app] = exposure[1] + 1.0
            vs[subject] = exposure[2] + 1.0
            vc[channel] = exposure[3] + 1.0
            ta[app] = ts[subject] = tc[channel] = t
        return p


class SimulatedUsers:
    """N users followed one notification at a time each, as arrays: values stored as of each
    key's last update and decayed on read. ``send`` needs ``parameters``; ``at`` and ``add`` not."""

    def __init__(self, n_users: int, n_channels: int, fatigue_tau_seconds: float,
                 parameters: EngagementParameters | None = None) -> None:
        self.parameters = parameters
        self.sizes = key_sizes(n_channels)
        self.tau = {"fatigue": fatigue_tau_seconds, **HABITUATION_TAUS}
        self.value = {k: np.zeros((n_users, self.sizes[k])) for k in HABITUATION_KEYS}
        self.value["fatigue"] = np.zeros((n_users, 1))
        self.time = {k: np.zeros_like(v) for k, v in self.value.items()}

    def reset(self, users: np.ndarray, start: dict[str, np.ndarray], at_seconds: np.ndarray) -> None:
        """Users ``users`` start from exposures ``start[key]`` (rows of (keys,)) as of ``at_seconds``."""
        for key, value in self.value.items():
            value[users] = start[key]
            self.time[key][users] = np.asarray(at_seconds, dtype=np.float64)[:, None]

    def snapshot(self) -> dict[str, dict[str, np.ndarray]]:
        """The state as it is, for ``restore``."""
        return {"value": {k: v.copy() for k, v in self.value.items()},
                "time": {k: v.copy() for k, v in self.time.items()}}

    def restore(self, snapshot: dict[str, dict[str, np.ndarray]]) -> None:
        """Back to the state of ``snapshot`` (from ``snapshot()``)."""
        for k in self.value:
            self.value[k][...] = snapshot["value"][k]
            self.time[k][...] = snapshot["time"][k]

    def _read(self, key: str, users: np.ndarray, index: np.ndarray, t: np.ndarray) -> np.ndarray:
        since = t - self.time[key][users, index]
        return self.value[key][users, index] * np.exp(-since / self.tau[key])

    def at(self, users: np.ndarray, t: np.ndarray, app: np.ndarray, subject: np.ndarray,
           channel: np.ndarray) -> Exposure:
        """Exposure of users ``users`` at times ``t`` to notifications with these keys."""
        keys = {"app": app, "subject": subject, "channel": np.maximum(channel, 0)}
        zero = np.zeros(len(users), dtype=np.int64)
        return Exposure(fatigue=self._read("fatigue", users, zero, t),
                        **{k: self._read(k, users, keys[k], t) for k in HABITUATION_KEYS})

    def add(self, users: np.ndarray, t: np.ndarray, app: np.ndarray, subject: np.ndarray,
            channel: np.ndarray, interrupts: np.ndarray, current: Exposure | None = None) -> None:
        """Users ``users`` receive notifications with these keys at times ``t``; ``current`` is
        ``at(users, t, ...)`` if the caller has it already."""
        if current is None:
            current = self.at(users, t, app, subject, channel)
        zero = np.zeros(len(users), dtype=np.int64)
        self.value["fatigue"][users, zero] = current.fatigue + interrupts
        self.time["fatigue"][users, zero] = t
        for key, index in (("app", app), ("subject", subject), ("channel", channel)):
            known = index >= 0  # an impossible notification has no channel
            u, i = users[known], index[known]
            self.value[key][u, i] = getattr(current, key)[known] + 1.0
            self.time[key][u, i] = t[known]

    def send(self, users: np.ndarray, parameter_rows: np.ndarray, row: RowTerms,
             terms: NotificationTerms, codes: dict[str, np.ndarray], t: np.ndarray) -> np.ndarray:
        """P(open) of notifications (``terms`` of ``codes``) for users ``users`` (parameter rows
        ``parameter_rows``) in rows ``row`` at times ``t``; the possible ones then reach them."""
        assert self.parameters is not None, "SimulatedUsers needs parameters to score"
        app, subject = (np.asarray(codes[f], dtype=np.int64) for f in ("postingApp", "subject"))
        exposure = self.at(users, t, app, subject, terms.channel)
        p = expit(combine(row, terms, exposure_penalty(self.parameters, parameter_rows, exposure)))
        ok = terms.possible
        interrupts = interruption(codes["priority"], codes["numberOfUpdates"])
        k = slice(None) if ok.all() else ok  # impossible notifications never reach the user
        self.add(users[k], t[k], app[k], subject[k], terms.channel[k], interrupts[k], exposure.take(k))
        return p


class PlannedUser:
    """One user as a planner steps it, every candidate (``keys[key]``: its app, subject and
    channel codes; ``interrupts``) scored at once: habituation as one vector over the key slots
    end to end, and fatigue, decayed from context to context (``decays``, then ``advance``)."""

    def __init__(self, parameters: EngagementParameters, parameter_row: int, initial: dict[str, np.ndarray],
                 keys: dict[str, np.ndarray], interrupts: np.ndarray) -> None:
        scalars, taus = parameters.scalars, HABITUATION_TAUS
        sizes = {k: len(initial[k]) for k in HABITUATION_KEYS}
        offsets = dict(zip(HABITUATION_KEYS, np.cumsum([0, *sizes.values()])[:-1].tolist(), strict=True))
        self.of_candidate = [keys[k] + offsets[k] for k in HABITUATION_KEYS]  # 3 x (K,) slots
        self.weight = np.concatenate([np.full(sizes[k], float(scalars[f"habituation_{k}"][parameter_row]))
                                      for k in HABITUATION_KEYS])
        self.tau = np.concatenate([np.full(sizes[k], taus[k]) for k in HABITUATION_KEYS])
        self.exposure = np.concatenate([np.asarray(initial[k], dtype=np.float64) for k in HABITUATION_KEYS])
        self.fatigue = float(initial["fatigue"][0])
        self.fatigue_weight = float(scalars["fatigue_weight"][parameter_row])
        self.fatigue_tau = parameters.fatigue_tau_seconds
        self.interrupts = interrupts

    def decays(self, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For steps of ``steps`` seconds: each slot's decay ``(n, slots)`` and fatigue's ``(n,)``."""
        return np.exp(-steps[:, None] / self.tau), np.exp(-steps / self.fatigue_tau)

    def advance(self, decay: np.ndarray, fatigue_decay: float) -> None:
        """Time passes: the exposures decay by ``decay`` (per slot), fatigue by ``fatigue_decay``."""
        self.exposure *= decay
        self.fatigue *= fatigue_decay

    def habituated(self, scores: np.ndarray) -> np.ndarray:
        """``scores`` (per candidate) less each candidate's habituation penalty now."""
        penalty = self.weight * np.sqrt(self.exposure)
        first, second, third = self.of_candidate
        return scores - (penalty[first] + penalty[second] + penalty[third])

    def send(self, j: int) -> np.ndarray:
        """Candidate ``j`` reaches the user: the exposures to its keys just before (3,)."""
        key = [slots[j] for slots in self.of_candidate]
        before = self.exposure[key]
        self.exposure[key] += 1.0
        self.fatigue += self.interrupts[j]
        return before


def sequence_p_open(parameters: EngagementParameters, parameter_rows: np.ndarray, row: RowTerms,
                    terms: NotificationTerms, codes: dict[str, np.ndarray], user: np.ndarray,
                    t: np.ndarray, start: dict[str, np.ndarray], start_row: np.ndarray) -> np.ndarray:
    """P(open) of whole episodes of notifications at once: ``user`` and ``t`` per notification
    (each user's in time order), each judged with the state the ones before it leave, from the
    state ``start[key][start_row]`` (its user's exposures as of time 0)."""
    possible = terms.possible
    keys = {"app": np.asarray(codes["postingApp"], dtype=np.int64),
            "subject": np.asarray(codes["subject"], dtype=np.int64), "channel": terms.channel}
    # a user's own notifications, keyed by (user, key): impossible ones never reach it
    weights = possible.astype(np.float64)
    interrupts = interruption(codes["priority"], codes["numberOfUpdates"]) * weights
    exposure = {"fatigue": keyed_exposure(t, user, parameters.fatigue_tau_seconds, interrupts)}
    for key in HABITUATION_KEYS:
        combined = user * (int(keys[key].max(initial=0)) + 2) + (keys[key] + 1)
        exposure[key] = keyed_exposure(t, combined, HABITUATION_TAU_DAYS[key] * 86400.0, weights)
    taus = {"fatigue": parameters.fatigue_tau_seconds, **HABITUATION_TAUS}
    index = {"fatigue": np.zeros(len(t), dtype=np.int64), **{k: np.maximum(keys[k], 0)
                                                              for k in HABITUATION_KEYS}}
    for key in EXPOSURE_FIELDS:
        exposure[key] = exposure[key] + start[key][start_row, index[key]] * np.exp(-t / taus[key])
    penalty = exposure_penalty(parameters, parameter_rows, Exposure(**exposure))
    return expit(combine(row, terms, penalty))


def logged_p_open(parameters: EngagementParameters, codes: dict[str, np.ndarray], channel: np.ndarray,
                  row_state: RowState, exposure: Exposure) -> np.ndarray:
    """The generator's user (parameter row 0): P(open) of its logged notifications, with the
    exposure they leave (``logged_exposure``)."""
    return open_probability(parameters, np.zeros(len(row_state.hour), dtype=np.int64), codes,
                            row_state, exposure, channel)


__all__ = ["PlannedUser", "SimulatedUser", "SimulatedUsers", "logged_exposure", "logged_p_open",
           "sequence_p_open", "sigmoid", "static_logit"]
