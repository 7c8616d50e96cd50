"""Which apps a cold-start user has, learned from its responses.

A notification from an app the user does not have is never opened. Before any response, the
user has app a with the share of the public users who received notifications from it; each
unopened notification from a multiplies the odds by the chance that an owner leaves one
unopened (1 - the app's public open rate), and one open settles it. Thompson sampling draws
the apps to consider from these beliefs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.baselines.candidates import notification_matrix, opened
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog
from pushgen.model.logistic import expit

APP = NOTIFICATION_FEATURES.index("postingApp")
RATE_LIMITS = (0.02, 0.9)


class AppBeliefs:
    """P(the user has each app), from a prior and the responses to the notifications sent."""

    def __init__(self, prior: np.ndarray, open_rate: np.ndarray) -> None:
        self.prior = np.clip(np.asarray(prior, dtype=np.float64), 1e-6, 1 - 1e-6)
        self.log_miss = np.log1p(-np.clip(np.asarray(open_rate, dtype=np.float64), *RATE_LIMITS))
        self.misses = np.zeros(len(self.prior))
        self.confirmed = np.zeros(len(self.prior), dtype=bool)

    @classmethod
    def from_public(cls, public: pd.DataFrame) -> AppBeliefs:
        """Prior: the (smoothed) share of public users with notifications from each app; open
        rate: the app's public open rate, shrunk towards the overall one."""
        n_apps = len(app_catalog().apps)
        if not len(public):
            return cls(np.full(n_apps, 0.5), np.full(n_apps, 0.3))
        apps = notification_matrix(public)[:, APP]
        users = public["user_id"].to_numpy(dtype=np.int64)
        pairs = np.unique(np.column_stack([apps, users]), axis=0)
        owners = np.bincount(pairs[:, 0], minlength=n_apps)
        n_users = len(np.unique(users))
        was_opened = opened(public)
        overall = float(was_opened.mean())
        sent = np.bincount(apps, minlength=n_apps)
        opens = np.bincount(apps, weights=was_opened, minlength=n_apps)
        return cls((owners + 0.5) / (n_users + 1.0), (opens + 10 * overall) / (sent + 10))

    def observe(self, apps: np.ndarray, was_opened: np.ndarray) -> None:
        apps = np.asarray(apps, dtype=np.int64)
        was_opened = np.asarray(was_opened, dtype=bool)
        self.confirmed[apps[was_opened]] = True
        np.add.at(self.misses, apps[~was_opened], 1.0)

    def probability(self) -> np.ndarray:
        odds = np.log(self.prior) - np.log1p(-self.prior) + self.misses * self.log_miss
        return np.where(self.confirmed, 1.0, expit(odds))

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """A draw of which apps the user has."""
        return rng.random(len(self.prior)) < self.probability()
