"""Many users at once, as arrays: the judge and the vector environments (``SimulatedUsers``),
whole episodes judged at once (``sequence_p_open``), the generator's user (``logged_p_open``),
and the state a user's logged notifications leave (``received_exposure``)."""

from __future__ import annotations

import numpy as np

from pushgen.model.engagement import EngagementParameters, NotificationTerms, RowState, RowTerms
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_KEYS,
    HABITUATION_TAU_DAYS,
    Exposure,
    interruption,
    key_sizes,
    keyed_exposure,
)
from pushgen.model.simulated_user.formula import combine, exposure_penalty, open_probability, p_open
from pushgen.model.simulated_user.scalar import HABITUATION_TAUS


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
        p = p_open(combine(row, terms, exposure_penalty(self.parameters, parameter_rows, exposure)))
        ok = terms.possible
        interrupts = interruption(codes["priority"], codes["numberOfUpdates"])
        k = slice(None) if ok.all() else ok  # impossible notifications never reach the user
        self.add(users[k], t[k], app[k], subject[k], terms.channel[k], interrupts[k], exposure.take(k))
        return p


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
        amount[key] = np.exp(-age / (HABITUATION_TAU_DAYS[key] * 86400.0))
    return {key: (index[key], amount[key]) for key in EXPOSURE_FIELDS}
