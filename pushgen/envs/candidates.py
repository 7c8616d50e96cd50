"""The candidate generator of ``pushgen/NotificationSelection-v0``: K eligible notifications per context.

For a user and a context, the candidates are ``k`` distinct notifications drawn without
replacement from the user's possible notifications (``pushgen.baselines.possible``: every
channel of every app the user has, with each subject and numberOfUpdates level the channel
carries, so each candidate is possible by construction, by the one definition of
``pushgen.model.feasibility``). The draw weighs a notification as its apps could post it:

    weight = 1 / (apps the user has)                       the app, uniformly
           * share[channel] / share of the app's channels  the channel, as the app posts through it
           * topic_weight[channel, subject] / its sum      the subject, as the channel's mix
           * 1 / (levels the channel carries)              numberOfUpdates, uniformly

Sampling ``k`` without replacement with these weights is done with the Gumbel top-k trick
(keys ``log(weight) + Gumbel``; the ``k`` largest), then put in random slot order, so no
slot is better than another on average. The random numbers come from
``numpy.random.default_rng([seed, user])`` alone, one row of keys per context in time order,
so every policy meets the same candidates for a given ``candidate_seed``, whatever it sends,
and the single and vector environments show the same ones. A user with fewer than ``k``
possible notifications gets them all; the empty slots are masked.
"""

from __future__ import annotations

import numpy as np

from pushgen.baselines.possible import possible_notifications
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog

MAX_K = 64
CHUNK_ROWS = 512  # contexts whose keys are drawn at once (memory: rows x possible notifications)
APP = NOTIFICATION_FEATURES.index("postingApp")
SUBJECT = NOTIFICATION_FEATURES.index("subject")


def candidate_weights(matrix: np.ndarray, channel: np.ndarray) -> np.ndarray:
    """The draw weight of each possible notification (rows of ``matrix``, channels ``channel``)."""
    table = app_catalog().channels
    app = matrix[:, APP]
    subject = matrix[:, SUBJECT]
    apps, app_index = np.unique(app, return_inverse=True)
    channels, channel_index = np.unique(channel, return_inverse=True)
    share = np.maximum(table.share[channels], 1e-12)
    app_share = np.bincount(np.searchsorted(apps, table.app[channels]), weights=share, minlength=len(apps))
    topic = np.maximum(table.topic_weight[channel, subject], 1e-12)
    topic_total = np.bincount(channel_index, weights=topic, minlength=len(channels))
    levels = np.array([table.updates[c].sum() for c in channels], dtype=np.float64)
    weight = (1.0 / len(apps)) * (share[channel_index] / app_share[app_index]) \
        * (topic / topic_total[channel_index]) * (1.0 / levels[channel_index])
    return weight


class CandidateGenerator:
    """The candidates of one user's contexts: ``slates(n)`` -> codes ``(n, k, 7)`` and mask ``(n, k)``."""

    def __init__(self, has_app: np.ndarray, user: int, k: int, seed: int,
                 channels_on: np.ndarray | None = None) -> None:
        self.user = int(user)
        self.k = int(k)
        self.seed = int(seed)
        self.matrix, self.channel = possible_notifications(np.asarray(has_app, dtype=bool), channels_on)
        self.log_weight = np.log(candidate_weights(self.matrix, self.channel)) if len(self.matrix) else \
            np.zeros(0)

    def slates(self, n_contexts: int) -> tuple[np.ndarray, np.ndarray]:
        """Candidates of the user's first ``n_contexts`` contexts (in time order) and their mask."""
        m = len(self.matrix)
        taken = min(self.k, m)
        codes = np.zeros((n_contexts, self.k, len(NOTIFICATION_FEATURES)), dtype=np.int64)
        mask = np.zeros((n_contexts, self.k), dtype=bool)
        mask[:, :taken] = True
        if taken == 0:
            return codes, mask
        rng = np.random.default_rng([self.seed, self.user])
        for start in range(0, n_contexts, CHUNK_ROWS):
            stop = min(start + CHUNK_ROWS, n_contexts)
            keys = self.log_weight + rng.gumbel(size=(stop - start, m))
            top = np.argpartition(-keys, taken - 1, axis=1)[:, :taken] if taken < m else \
                np.broadcast_to(np.arange(m), (stop - start, m)).copy()
            chosen = rng.permuted(top, axis=1)  # slots in random order
            codes[start:stop, :taken] = self.matrix[chosen]
        return codes, mask
