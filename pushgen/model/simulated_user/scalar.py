"""One user in plain Python floats: the single environments' fast path."""

from __future__ import annotations

import math

import numpy as np

from pushgen.model.engagement import HABITUATION_SCALARS, EngagementParameters, RowTerms, notification_terms
from pushgen.model.exposure import EXPOSURE_FIELDS, HABITUATION_KEYS, HABITUATION_TAUS
from pushgen.model.simulated_user.formula import combine, sigmoid

Keys = tuple[int, int, int]  # (app, subject, channel) codes of a notification
Snapshot = tuple[float, float, tuple[list[float], ...], tuple[list[float], ...]]


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
    notification and their interaction, ``formula.combine`` with no penalty), precomputed
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
        """What the exposure takes off the logit (``formula.exposure_penalty``, same order)."""
        f, a, s, c = exposure
        h_app, h_subject, h_channel = self.habituation
        return (self.fatigue_weight * f + h_app * math.sqrt(a) + h_subject * math.sqrt(s)
                + h_channel * math.sqrt(c))

    def p_open(self, static: float, t: float, keys: Keys) -> float:
        """P(open) now of a possible notification with logit before exposure ``static``, at ``t``."""
        return sigmoid(static - self.penalty(self.exposure(t, keys)))

    def send(self, static: float, t: float, keys: Keys, interrupts: float) -> float:
        """The user receives a notification at ``t``: its P(open), then the state it leaves (an
        impossible one, ``static`` -inf: 0, and it never reaches the user)."""
        exposure = self.exposure(t, keys)
        p = sigmoid(static - self.penalty(exposure))
        if not self.stationary and static != -math.inf:
            app, subject, channel = keys
            (va, vs, vc), (ta, ts, tc) = self.values, self.times
            self.fatigue = exposure[0] + interrupts
            self.fatigue_time = t
            va[app] = exposure[1] + 1.0
            vs[subject] = exposure[2] + 1.0
            vc[channel] = exposure[3] + 1.0
            ta[app] = ts[subject] = tc[channel] = t
        return p
