"""Long-term value (model 4): how much a user puts up with, and how unwanted each notification is.

Users turn an app's notifications off (or one of its channels, which Android lets them do), and
sometimes stop using the app, when it sends them more than they want or the wrong thing at the
wrong time (Localytics 2017; O'Brien et al. 2022). Two nodes carry it:

- ``tolerance`` (static): the user's **tolerance**, the unwanted notifications a week
  from one app that the user puts up with. The survey's bands (one a week, 2-5, 6-10, more) hold
  ``priors.tolerance_band_shares`` of users; within a band the tolerance is log-uniform.
- ``unwanted_weights`` (per notification, deterministic): how much a dismissal of it counts,
  ``unwanted_scale * KIND_WEIGHT[app's kind] * CATEGORY_WEIGHT[category]`` (an ongoing
  notification: ``ONGOING_WEIGHT``; the user's main app: times ``MAIN_APP_WEIGHT``), and how much
  its context makes it worse:
  ``1 + CONTEXT_WEIGHT["asleep"] * asleep + ... ["silent"] * silent ringer + ... ["busy"] *
  (vehicle, running or cycling)``.

The simulated user (``pushgen.model.simulated_user.long_term``) steps the state they drive: the
annoyance with an app, a decaying sum over its delivered notifications of
``weight * ((1 - p) * (context + REPEAT_WEIGHT * min(1, subject exposure)) - goodwill * p)``
(time constant ``annoyance_tau_days``, so a steady stream of r unwanted notifications a week
holds it near r), and the hazards it sets at each delivery: of turning the app off,
``1 - exp(-disable_rate * max(0, annoyance / tolerance - 1))`` (of which
``channel_disable_share`` turn off only the notification's channel), and of abandoning it,
the same with ``abandon_rate`` and ``abandon_tolerance_ratio * tolerance``. What is turned off
delivers nothing afterwards; nothing is turned back on (no published rate supports one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from pushgen import schemas
from pushgen.model.catalog import AppCatalog
from pushgen.model.priors import Priors
from pushgen.model.sampling import choice

TOLERANCE_BAND_EDGES = (0.5, 1.5, 5.5, 10.5, 40.0)  # a week: one, 2-5, 6-10, more (up to 40)
BAND_NAMES = ("1 a week", "2-5 a week", "6-10 a week", "more than 10")  # the survey's bands
KIND_WEIGHT = {  # how much an unwanted notification of an app of each kind counts: people's
    # messages (messaging, calls, email) least, promotions most
    "messaging": 0.03, "calls": 0.05, "email": 0.1, "calendar": 0.2, "clock": 0.1, "system": 0.2,
    "productivity": 0.4, "finance": 0.4, "health": 0.6, "travel": 0.6, "audio": 0.5, "video": 1.0,
    "social": 0.7, "news": 1.2, "dating": 1.0, "games": 1.5, "shopping_food": 1.5,
}
CATEGORY_WEIGHT = {"recommendation": 1.5, "status": 0.5, "service": 0.5, "transport": 0.5,
                   "alarm": 0.3, "call": 0.3, "msg": 0.5}  # others 1
ONGOING_WEIGHT = 0.1  # a music player or a download in progress is not sent, it is shown
CONTEXT_WEIGHT = {"asleep": 2.0, "silent": 0.5, "busy": 0.5}
MAIN_APP_WEIGHT = 0.2  # the app the user lives in (most notifications a day) is one they keep
REPEAT_WEIGHT = 0.5  # more when it repeats a subject the user was just sent
BUSY_ACTIVITIES = ("vehicle", "foot running", "bicycle")
KEPT_KINDS = ("system", "calls", "clock")  # turned off, perhaps, but never abandoned
EVENTS = ("app_off", "channel_off", "abandoned")  # what a delivery can lead to (codes 1, 2, 3)


@dataclass(frozen=True)
class LongTermConstants:
    """The population constants of the long-term model (the priors of the same names).

    Examples
    --------
    >>> LongTermConstants.from_priors(Priors()).annoyance_tau_days
    7.0
    """

    unwanted_scale: float
    goodwill_per_open: float
    annoyance_tau_days: float
    disable_rate: float
    abandon_rate: float
    abandon_tolerance_ratio: float
    channel_disable_share: float

    @classmethod
    def from_priors(cls, priors: Priors) -> LongTermConstants:
        return cls(**{f.name: float(getattr(priors, f.name)) for f in fields(cls)})

    def app_weight(self, catalog: AppCatalog) -> np.ndarray:
        """(apps,) ``unwanted_scale * KIND_WEIGHT`` of each app's kind, by app code."""
        kind_weight = self.unwanted_scale * np.array([KIND_WEIGHT[kind] for kind in catalog.kinds])
        return kind_weight[catalog.kind_of_app]


def default_constants() -> LongTermConstants:
    return LongTermConstants.from_priors(Priors())


def app_kinds(catalog: AppCatalog) -> np.ndarray:
    return np.asarray(catalog.kinds)[catalog.kind_of_app]


def abandonable(catalog: AppCatalog) -> np.ndarray:
    """(apps,) whether a user can abandon each app (kinds not in ``KEPT_KINDS``)."""
    return np.array([kind not in KEPT_KINDS for kind in catalog.kinds])[catalog.kind_of_app]


def tolerance_band(tolerance: np.ndarray) -> np.ndarray:
    """The survey band (0: one a week, 1: 2-5, 2: 6-10, 3: more) of each tolerance."""
    return np.searchsorted(np.asarray(TOLERANCE_BAND_EDGES[1:-1]), tolerance, side="right")


def tolerance(priors: Priors, rng: np.random.Generator) -> float:
    """Unwanted notifications a week from one app that the user puts up with: a survey band with
    probability ``priors.tolerance_band_shares``, then log-uniform within it.

    Examples
    --------
    >>> import numpy as np
    >>> 0.5 <= tolerance(Priors(), np.random.default_rng(0)) <= 40.0
    True
    """
    band = choice(priors.tolerance_band_shares, rng)
    low, high = math.log(TOLERANCE_BAND_EDGES[band]), math.log(TOLERANCE_BAND_EDGES[band + 1])
    return float(math.exp(rng.uniform(low, high)))


_CATEGORY = np.array([CATEGORY_WEIGHT.get(v, 1.0) for v in schemas.values("category")])
_BUSY = np.isin(np.asarray(schemas.values("activity"), dtype=object), BUSY_ACTIVITIES)
_SILENT = schemas.field("ringerMode").code("silent")
_ONGOING = schemas.field("ongoing").code(True)


def unwanted_weights(codes: dict[str, np.ndarray], asleep: np.ndarray, app_weight: np.ndarray,
                     main_app: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic: each notification's unwanted weight, and its context's multiplier
    (``app_weight``: ``LongTermConstants.app_weight``; the user's ``main_app``, the one with the
    most notifications a day, weighs ``MAIN_APP_WEIGHT`` of that).

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen import schemas
    >>> from pushgen.model.catalog import app_catalog
    >>> app_weight = default_constants().app_weight(app_catalog())
    >>> codes = {"postingApp": np.array([0]), "category": np.array([0]), "ongoing": np.array([0]),
    ...          "ringerMode": np.array([schemas.field("ringerMode").code("silent")]),
    ...          "activity": np.array([0])}
    >>> [float(x[0]) for x in unwanted_weights(codes, np.array([True]), app_weight)]  # email, asleep, silent
    [0.1, 3.5]
    """
    ongoing = np.asarray(codes["ongoing"]) == _ONGOING
    by_app = np.where(np.arange(len(app_weight)) == main_app, app_weight * MAIN_APP_WEIGHT, app_weight)
    kind = by_app[np.asarray(codes["postingApp"])]
    weight = kind * np.where(ongoing, ONGOING_WEIGHT, _CATEGORY[codes["category"]])
    context = (1.0 + CONTEXT_WEIGHT["asleep"] * np.asarray(asleep, dtype=np.float64)
               + CONTEXT_WEIGHT["silent"] * (np.asarray(codes["ringerMode"]) == _SILENT)
               + CONTEXT_WEIGHT["busy"] * _BUSY[codes["activity"]])
    return weight, context
