"""The long-term state (model 4, ``pushgen.model.long_term``): annoyance with each app, the apps
and channels turned off, the apps abandoned; stepped here and in ``kernel`` only.

``LongTermUser`` is one user's state in Python floats (the environments); ``lived`` runs the
generator's user through its posts in one compiled pass: each post reaches the user unless its
app or channel is off, is scored with the fatigue and habituation the delivered ones before it
left, adds to the annoyance with its app, and may turn the app (or channel) off or make the user
abandon it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pushgen.model.long_term import REPEAT_WEIGHT, LongTermConstants

NOT_DELIVERED, DELIVERED, APP_OFF, CHANNEL_OFF, ABANDONED = -1, 0, 1, 2, 3  # a post's fate
DAY_SECONDS = 86400.0


def unwanted_amount(p: float, weight: float, context: float, subject_exposure: float,
                    goodwill: float) -> float:
    """What one delivered notification adds to the annoyance with its app: ``weight`` times its
    chance of being dismissed, made worse by its ``context`` and by repeating a subject the user
    was just sent, less the goodwill of its chance of being opened."""
    return weight * ((1.0 - p) * (context + REPEAT_WEIGHT * min(1.0, subject_exposure)) - goodwill * p)


def hazard(annoyance: float, threshold: float, rate: float) -> float:
    """P(an event) at a delivery that leaves ``annoyance``: ``1 - exp(-rate * max(0, annoyance /
    threshold - 1))``."""
    over = annoyance / threshold - 1.0
    return 1.0 - math.exp(-rate * over) if over > 0.0 else 0.0


@dataclass
class LongTermUser:
    """One user's long-term state in Python floats.

    Parameters
    ----------
    tolerance : float
        The user's tolerance (unwanted notifications a week from one app).
    constants : LongTermConstants
        The population constants.
    abandonable : numpy.ndarray
        Per app code, whether the user can abandon it (``long_term.abandonable``).

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.model.long_term import default_constants
    >>> user = LongTermUser(2.0, default_constants(), np.ones(3, dtype=bool))
    >>> user.reachable(app=1, channel=4)
    True
    >>> user.deliver(1, 4, t=0.0, p=0.0, weight=1.0, context=1.0, subject_exposure=0.0,
    ...              draws=(0.0, 1.0, 1.0))  # 1 unwanted a week against 2: no hazard yet
    0
    >>> round(user.annoyance(1, 7 * 86400.0), 3)  # a week later, decayed by exp(-1)
    0.368
    """

    tolerance: float
    constants: LongTermConstants
    abandonable: np.ndarray

    def __post_init__(self) -> None:
        self.tau = self.constants.annoyance_tau_days * DAY_SECONDS
        self.reset()

    def reset(self) -> None:
        """Nothing annoys, everything is on."""
        self.values: dict[int, float] = {}
        self.times: dict[int, float] = {}
        self.off_apps: set[int] = set()
        self.off_channels: set[int] = set()
        self.abandoned: set[int] = set()

    def snapshot(self) -> tuple:
        return (dict(self.values), dict(self.times), set(self.off_apps), set(self.off_channels),
                set(self.abandoned))

    def restore(self, saved: tuple) -> None:
        values, times, apps, channels, abandoned = saved
        self.values, self.times = dict(values), dict(times)
        self.off_apps, self.off_channels, self.abandoned = set(apps), set(channels), set(abandoned)

    def reachable(self, app: int, channel: int) -> bool:
        """Whether a notification of ``app`` on ``channel`` reaches the user."""
        return app not in self.off_apps and app not in self.abandoned and channel not in self.off_channels

    def annoyance(self, app: int, t: float) -> float:
        """The annoyance with ``app`` at time ``t``."""
        return self.values.get(app, 0.0) * math.exp(-(t - self.times.get(app, t)) / self.tau)

    def deliver(self, app: int, channel: int, t: float, p: float, weight: float, context: float,
                subject_exposure: float, draws: tuple[float, float, float]) -> int:
        """A notification (P(open) ``p``, ``long_term.unwanted_weights`` ``weight`` and ``context``,
        exposed ``subject_exposure`` to its subject) reaches the user at
        ``t``: its annoyance added, then the event its hazards and ``draws`` (uniforms: turn off,
        abandon, channel only) decide: ``DELIVERED`` (none), ``APP_OFF``, ``CHANNEL_OFF`` or
        ``ABANDONED``."""
        c = self.constants
        value = self.annoyance(app, t) + unwanted_amount(p, weight, context,
                                                         subject_exposure, c.goodwill_per_open)
        self.values[app], self.times[app] = value, t
        if self.abandonable[app] and draws[1] < hazard(value, self.tolerance * c.abandon_tolerance_ratio,
                                                       c.abandon_rate):
            self.abandoned.add(app)
            return ABANDONED
        if draws[0] < hazard(value, self.tolerance, c.disable_rate):
            if draws[2] < c.channel_disable_share:
                self.off_channels.add(channel)
                return CHANNEL_OFF
            self.off_apps.add(app)
            return APP_OFF
        return DELIVERED
