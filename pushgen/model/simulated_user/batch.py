"""Many users at once, as arrays: the judge and the vector environments (``SimulatedUsers``),
whole episodes judged at once (``sequence_p_open``), the generator's user (``logged_p_open``),
and the state a user's logged notifications leave (``received_exposure``)."""

from __future__ import annotations

import numpy as np

from pushgen.model.engagement import (
    EngagementParameters,
    NotificationTerms,
    RowState,
    RowTerms,
    notification_matrix,
    possible_for,
)
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_KEYS,
    HABITUATION_TAUS,
    Exposure,
    interruption,
    key_sizes,
    keyed_exposure,
)
from pushgen.model.exposure_kernel import received_exposures
from pushgen.model.feasibility import channel_of
from pushgen.model.simulated_user.formula import (
    combine,
    exposure_penalty,
    notification_logit,
    open_probability,
    p_open,
)


class SimulatedUsers:
    """N users followed one notification at a time each, as arrays: each user's exposures (fatigue,
    then every app, subject and channel, end to end) stored as of each one's last update and
    decayed on read. ``send`` needs ``parameters``; ``at`` and ``add`` not."""

    def __init__(self, n_users: int, n_channels: int, fatigue_tau_seconds: float,
                 parameters: EngagementParameters | None = None) -> None:
        self.parameters = parameters
        self.sizes = {"fatigue": 1, **key_sizes(n_channels)}
        ends = np.cumsum([self.sizes[k] for k in EXPOSURE_FIELDS])
        self.slots = {k: slice(int(end) - self.sizes[k], int(end)) for k, end in zip(EXPOSURE_FIELDS, ends,
                                                                                     strict=True)}
        self.offsets = np.array([self.slots[k].start for k in EXPOSURE_FIELDS])
        self.tau = np.array([fatigue_tau_seconds, *(HABITUATION_TAUS[k] for k in HABITUATION_KEYS)])
        self.value = np.zeros((n_users, int(ends[-1])))
        self.time = np.zeros_like(self.value)

    def layout(self, start: dict[str, np.ndarray]) -> np.ndarray:
        """Exposures ``start[key]`` (rows of (keys,)) as rows of the state, for ``reset``."""
        return np.concatenate([np.asarray(start[key], dtype=np.float64).reshape(-1, self.sizes[key])
                               for key in EXPOSURE_FIELDS], axis=1)

    def reset(self, users: np.ndarray, start: dict[str, np.ndarray] | np.ndarray,
              at_seconds: np.ndarray) -> None:
        """Users ``users`` start from exposures ``start[key]`` (rows of (keys,); or rows of
        ``layout(start)``) as of ``at_seconds``."""
        self.value[users] = self.layout(start) if isinstance(start, dict) else start
        self.time[users] = np.asarray(at_seconds, dtype=np.float64)[:, None]

    def snapshot(self) -> dict[str, np.ndarray]:
        """The state as it is, for ``restore``."""
        return {"value": self.value.copy(), "time": self.time.copy()}

    def restore(self, snapshot: dict[str, np.ndarray]) -> None:
        """Back to the state of ``snapshot`` (from ``snapshot()``)."""
        self.value[...] = snapshot["value"]
        self.time[...] = snapshot["time"]

    def _cells(self, users: np.ndarray, app: np.ndarray, subject: np.ndarray,
               channel: np.ndarray) -> np.ndarray:
        """(n, 4): where each user's fatigue and exposure to each notification's keys are stored, as
        flat positions in ``value`` and ``time`` (channel -1 read as 0)."""
        keys = np.stack([np.zeros(len(app), dtype=np.int64), app, subject, np.maximum(channel, 0)], axis=1)
        return (np.asarray(users, dtype=np.int64) * self.value.shape[1])[:, None] + keys + self.offsets

    def _receive(self, cells: np.ndarray, t: np.ndarray, interrupts: np.ndarray, reaches: np.ndarray,
                 with_channel: np.ndarray) -> np.ndarray:
        """(n, 4): the exposures at ``cells`` at times ``t``; then the notifications that ``reaches``
        are added (``received_exposures``)."""
        return received_exposures(self.value.reshape(-1), self.time.reshape(-1), cells,
                                  np.asarray(t, dtype=np.float64), self.tau,
                                  np.asarray(interrupts, dtype=np.float64), reaches, with_channel)

    def at(self, users: np.ndarray, t: np.ndarray, app: np.ndarray, subject: np.ndarray,
           channel: np.ndarray) -> Exposure:
        """Exposure of users ``users`` at times ``t`` to notifications with these keys."""
        none = np.zeros(len(app), dtype=bool)
        return Exposure(*self._receive(self._cells(users, app, subject, channel), t, none, none, none).T)

    def add(self, users: np.ndarray, t: np.ndarray, app: np.ndarray, subject: np.ndarray,
            channel: np.ndarray, interrupts: np.ndarray) -> None:
        """Users ``users`` receive notifications with these keys at times ``t`` (a notification with
        no channel, -1, adds to none)."""
        self._receive(self._cells(users, app, subject, channel), t, interrupts, np.ones(len(app), dtype=bool),
                      np.asarray(channel) >= 0)

    def send(self, users: np.ndarray, parameter_rows: np.ndarray, row: RowTerms,
             codes: dict[str, np.ndarray], t: np.ndarray) -> np.ndarray:
        """P(open) of notifications ``codes`` for users ``users`` (parameter rows ``parameter_rows``)
        in rows ``row`` at times ``t``; the possible ones then reach them."""
        assert self.parameters is not None, "SimulatedUsers needs parameters to score"
        matrix = notification_matrix(codes)  # checked codes, as the kernel takes them
        channel = channel_of(codes)
        possible = possible_for(self.parameters, parameter_rows, codes["postingApp"], channel)
        interrupts = interruption(codes["priority"], codes["numberOfUpdates"])
        cells = self._cells(users, codes["postingApp"], codes["subject"], channel)
        current = self._receive(cells, t, interrupts, possible, possible)
        return p_open(notification_logit(self.parameters, parameter_rows, row, matrix, channel, possible,
                                         current))


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
        exposure[key] = keyed_exposure(t, combined, HABITUATION_TAUS[key], weights)
    taus = {"fatigue": parameters.fatigue_tau_seconds, **HABITUATION_TAUS}
    index = {"fatigue": np.zeros(len(t), dtype=np.int64), **{k: np.maximum(keys[k], 0)
                                                              for k in HABITUATION_KEYS}}
    for key in EXPOSURE_FIELDS:
        exposure[key] = exposure[key] + start[key][start_row, index[key]] * np.exp(-t / taus[key])
    penalty = exposure_penalty(parameters, parameter_rows, Exposure(**exposure))
    return p_open(combine(row, terms, penalty))


def logged_p_open(parameters: EngagementParameters, codes: dict[str, np.ndarray], channel: np.ndarray,
                  row_state: RowState, exposure: Exposure) -> np.ndarray:
    """The generator's user (parameter row 0): P(open) of its logged notifications, with the
    exposure they leave (``logged_exposure``)."""
    return open_probability(parameters, np.zeros(len(row_state.hour), dtype=np.int64), codes,
                            row_state, exposure, channel)


def received_exposure(age: np.ndarray, codes: dict[str, np.ndarray], channel: np.ndarray,
                      fatigue_tau_seconds: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """What each of notifications received ``age`` seconds ago (``codes`` of their features,
    ``channel``) adds now to each exposure key: per key of ``EXPOSURE_FIELDS``, the key's index
    (the app, subject or channel code; 0 for fatigue) and the decayed amount."""
    index = {"fatigue": np.zeros(len(age), dtype=np.int64), "app": codes["postingApp"],
             "subject": codes["subject"], "channel": channel}
    amount = {"fatigue": interruption(codes["priority"], codes["numberOfUpdates"])
              * np.exp(-age / fatigue_tau_seconds)}
    for key in HABITUATION_KEYS:
        amount[key] = np.exp(-age / HABITUATION_TAUS[key])
    return {key: (index[key], amount[key]) for key in EXPOSURE_FIELDS}
