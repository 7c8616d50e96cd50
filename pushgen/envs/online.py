"""One simulated user stepped in plain Python floats: the single environments' fast path.

The engagement logit of a notification in a row splits into a static part (row, notification
and their situation interaction: ``pushgen.model.engagement.combine`` with no exposure) and the
exposure penalty that the notifications sent before leave. ``static_logits`` computes the
first once per episode, for every candidate of every row, with the very functions the judge
(``pushgen.replay.scoring``) uses; ``UserExposure`` follows the second one notification at a
time. ``UserExposure`` is ``pushgen.model.exposure.ExposureState`` for one user written with
``math`` instead of numpy (the same definition, term for term: a key's value decays as
``exp(-(t - t_last) / tau)``; receiving a notification adds its interruption to fatigue and
one unit to its app, subject and channel), and ``penalty`` is
``pushgen.model.engagement.exposure_penalty`` in the same order of operations, so P(open)
agrees with the batched judge to rounding (a test steps both over whole episodes).
"""

from __future__ import annotations

import math

import numpy as np

from pushgen.baselines.possible import possible_notifications
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.engagement import HABITUATION_SCALARS, RowTerms, combine, notification_terms
from pushgen.model.exposure import HABITUATION_KEYS, HABITUATION_TAU_DAYS, interruption
from pushgen.replay.parts import ReplayPart

KEY_FIELDS = {"app": "postingApp", "subject": "subject"}


def static_logits(part: ReplayPart, rows: np.ndarray, codes: dict[str, np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The logit before exposure of notifications ``codes`` (arrays shaped ``(n, k)``) at part rows
    ``rows`` ``(n,)``, and each notification's channel; -inf where impossible."""
    rows = np.asarray(rows, dtype=np.int64)
    n, k = np.shape(codes["postingApp"])
    flat_rows = np.repeat(rows, k)
    param_rows = part.parameter_rows[flat_rows]
    terms = notification_terms(part.parameters, param_rows,
                               {f: np.asarray(c, dtype=np.int64).ravel() for f, c in codes.items()})
    row = RowTerms(part.row_terms.base[flat_rows], part.row_terms.situations[flat_rows])
    logit = combine(row, terms, np.zeros(len(flat_rows)))
    return logit.reshape(n, k), terms.channel.reshape(n, k)


def static_table(part: ReplayPart, rows: np.ndarray, user: int, codes: dict[str, np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The logit before exposure of each of ``m`` notifications ``codes`` (arrays ``(m,)``) of
    ``user`` at each of its part rows ``rows``: ``(n, m)``, -inf where impossible; and the channels."""
    rows = np.asarray(rows, dtype=np.int64)
    m = len(codes["postingApp"])
    param_rows = np.full(m, part.parameters.rows(np.array([user]))[0])
    terms = notification_terms(part.parameters, param_rows,
                               {f: np.asarray(c, dtype=np.int64) for f, c in codes.items()})
    row = RowTerms(part.row_terms.base[rows][:, None], part.row_terms.situations[rows][:, None, :])
    logit = combine(row, terms, np.zeros((len(rows), m)))
    return logit, terms.channel


def apps_of(part: ReplayPart, user: int) -> np.ndarray:
    """The apps ``user`` has (a boolean mask over app codes): the ground truth of a test part."""
    return part.parameters.has_app[part.parameters.rows(np.array([user]))[0]]


class PossibleNotifications:
    """One user's possible notifications (``pushgen.baselines.possible``), looked up by their codes."""

    def __init__(self, has_app: np.ndarray) -> None:
        self.matrix, self.channel = possible_notifications(np.asarray(has_app, dtype=bool))
        self.index = {tuple(row): j for j, row in enumerate(self.matrix.tolist())}
        by_feature = self.codes()
        self.app = by_feature["postingApp"].tolist()
        self.subject = by_feature["subject"].tolist()
        self.channels = self.channel.tolist()
        self.interrupts = interruptions(by_feature).tolist()

    def codes(self) -> dict[str, np.ndarray]:
        return {f: self.matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}


def sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class UserExposure:
    """Fatigue and habituation of one user, as ``ExposureState`` keeps them, in Python floats."""

    def __init__(self, part: ReplayPart, user: int, stationary: bool) -> None:
        params = part.parameters
        row = int(params.rows(np.array([user]))[0])
        self.stationary = stationary
        self.fatigue_weight = float(params.scalars["fatigue_weight"][row])
        self.habituation = tuple(float(params.scalars[name][row]) for name in HABITUATION_SCALARS)
        self.fatigue_tau = float(params.fatigue_tau_seconds)
        self.taus = tuple(HABITUATION_TAU_DAYS[k] * 86400.0 for k in HABITUATION_KEYS)
        index = part.user_index(user)
        self._initial = {key: part.truth.initial[key][index].tolist()
                         for key in ("fatigue", *HABITUATION_KEYS)}
        self.reset()

    def reset(self) -> None:
        """Back to the state the user's logged history left at the start of the test months (a
        stationary user: no exposure at all, for ever)."""
        fresh = self.stationary
        self.fatigue = 0.0 if fresh else self._initial["fatigue"][0]
        self.fatigue_time = 0.0
        self.values = tuple([0.0] * len(v) if fresh else list(v)
                            for v in (self._initial[k] for k in HABITUATION_KEYS))
        self.times = tuple([0.0] * len(v) for v in self.values)

    def snapshot(self) -> tuple:
        """The state as it is (for ``restore``)."""
        return (self.fatigue, self.fatigue_time, tuple(list(v) for v in self.values),
                tuple(list(v) for v in self.times))

    def restore(self, snapshot: tuple) -> None:
        self.fatigue, self.fatigue_time = snapshot[0], snapshot[1]
        for mine, saved in zip((*self.values, *self.times), (*snapshot[2], *snapshot[3]), strict=True):
            mine[:] = saved

    def exposure(self, t: float, keys: tuple[int, int, int]) -> tuple[float, float, float, float]:
        """(fatigue, app, subject, channel exposure) at time ``t`` for a notification with ``keys``."""
        app, subject, channel = keys
        (va, vs, vc), (ta, ts, tc), (tau_a, tau_s, tau_c) = self.values, self.times, self.taus
        return (self.fatigue * math.exp(-(t - self.fatigue_time) / self.fatigue_tau),
                va[app] * math.exp(-(t - ta[app]) / tau_a),
                vs[subject] * math.exp(-(t - ts[subject]) / tau_s),
                vc[channel] * math.exp(-(t - tc[channel]) / tau_c))

    def penalty(self, exposure: tuple[float, float, float, float]) -> float:
        f, a, s, c = exposure
        h_app, h_subject, h_channel = self.habituation
        return (self.fatigue_weight * f + h_app * math.sqrt(a) + h_subject * math.sqrt(s)
                + h_channel * math.sqrt(c))

    def receive(self, t: float, keys: tuple[int, int, int], interrupts: float,
                exposure: tuple[float, float, float, float]) -> None:
        """The user receives a notification with ``keys`` at ``t`` (``exposure`` read at ``t``)."""
        if self.stationary:
            return
        app, subject, channel = keys
        (va, vs, vc), (ta, ts, tc) = self.values, self.times
        self.fatigue = exposure[0] + interrupts
        self.fatigue_time = t
        va[app] = exposure[1] + 1.0
        vs[subject] = exposure[2] + 1.0
        vc[channel] = exposure[3] + 1.0
        ta[app] = ts[subject] = tc[channel] = t


def interruptions(codes: dict[str, np.ndarray]) -> np.ndarray:
    """How much each notification (arrays of any shape) interrupts."""
    priority = np.asarray(codes["priority"])
    updates = np.asarray(codes["numberOfUpdates"]).ravel()
    return interruption(priority.ravel(), updates).reshape(priority.shape)
