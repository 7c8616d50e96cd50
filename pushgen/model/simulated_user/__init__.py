"""The simulated user: the one place where fatigue, habituation and the long-term state (annoyance,
apps and channels turned off, apps abandoned: ``long_term``) are stepped and P(open) is
asked of the engagement model (``engagement``: the formula; ``exposure``: what a notification
adds and how it decays). It answers three questions, for one user or a batch:

- P(open) of this notification in this context now;
- send it (the state it leaves: its interruption added to fatigue, one unit to habituation to
  its app, its subject and its channel, each decaying with its own time constant);
- snapshot and restore (a planner's "what if": ``snapshot()``, try, ``restore(saved)``).

``SimulatedUser`` is one user in plain Python floats (the single environments' fast path,
``scalar``); ``SimulatedUsers`` N users as arrays (the judge, the vector environments, ``batch``);
``PlannedUser`` one user with every possible notification scored at once (the oracle's planner,
its shadow prices and the best fixed notification, ``planned``); ``logged_p_open`` the
generator's user, driven by the notifications it logs. ``formula`` holds the formula's last
steps (``combine``, ``exposure_penalty``, ``p_open``). No other module steps fatigue or
habituation or evaluates those (``tests/test_simulated_user.py`` checks the imports). P(open)
agrees between them to rounding (tests step them against each other). An impossible
notification (no channel, or an app the user does not have) has P(open) = 0 and never reaches
the user.
"""


from pushgen.model.exposure import interruption, logged_exposure
from pushgen.model.simulated_user.batch import (
    SimulatedUsers,
    logged_p_open,
    received_exposure,
    sequence_p_open,
)
from pushgen.model.simulated_user.formula import (
    combine,
    exposure_penalty,
    open_logit,
    open_probability,
    p_open,
    penalty_weights,
    sigmoid,
)
from pushgen.model.simulated_user.lived import Lived, lived
from pushgen.model.simulated_user.long_term import (
    ABANDONED,
    APP_OFF,
    CHANNEL_OFF,
    DELIVERED,
    NOT_DELIVERED,
    LongTermUser,
    hazard,
    unwanted_amount,
)
from pushgen.model.simulated_user.planned import PlannedUser, Prices, row_blocks
from pushgen.model.simulated_user.scalar import HABITUATION_TAUS, SimulatedUser, static_logit

__all__ = [
    "ABANDONED",
    "APP_OFF",
    "CHANNEL_OFF",
    "DELIVERED",
    "HABITUATION_TAUS",
    "NOT_DELIVERED",
    "Lived",
    "LongTermUser",
    "PlannedUser",
    "Prices",
    "SimulatedUser",
    "SimulatedUsers",
    "combine",
    "exposure_penalty",
    "hazard",
    "interruption",
    "lived",
    "logged_exposure",
    "logged_p_open",
    "open_logit",
    "open_probability",
    "p_open",
    "penalty_weights",
    "received_exposure",
    "row_blocks",
    "sequence_p_open",
    "sigmoid",
    "static_logit",
    "unwanted_amount",
]
