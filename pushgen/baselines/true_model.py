"""The simulated user's view of every notification it could receive: what the oracle and the probes
built on the true model compute with (``pushgen.model.engagement``'s decomposition of the logit).

For a user, every possible notification c (``pushgen.baselines.possible``) and a context row i:

    logit[i, c] = row.base[i] + base[c] + row.situations[i] . per_situation[c] - penalty[i, c]

where ``penalty`` (fatigue, and habituation to c's app, subject and channel) is >= 0 and
depends on what the user was sent before; everything else is fixed by the row and c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen.baselines.base import Truth, as_codes
from pushgen.baselines.possible import possible_notifications
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.engagement import notification_terms
from pushgen.model.simulated_user import interruption

APP, SUBJECT = NOTIFICATION_FEATURES.index("postingApp"), NOTIFICATION_FEATURES.index("subject")
PRIORITY, UPDATES = NOTIFICATION_FEATURES.index("priority"), NOTIFICATION_FEATURES.index("numberOfUpdates")


@dataclass(frozen=True)
class TrueCandidates:
    """A user's possible notifications and their parts of the true logit."""

    matrix: np.ndarray  # (K, 7) codes
    keys: dict[str, np.ndarray]  # app, subject, channel of each
    base: np.ndarray  # (K,)
    per_situation: np.ndarray  # (K, situations)
    interrupts: np.ndarray  # (K,) fatigue each adds

    def __len__(self) -> int:
        return len(self.matrix)

    def scores(self, truth: Truth, rows: slice | np.ndarray) -> np.ndarray:
        """(rows, K): the logit at fresh state less the row's own base (the same for every c)."""
        return self.base + truth.row_terms.situations[rows] @ self.per_situation.T


def true_candidates(truth: Truth) -> TrueCandidates:
    matrix, channel = possible_notifications(truth.has_app, truth.parameters.channels_on(truth.parameter_row))
    rows = np.full(len(matrix), truth.parameter_row)
    terms = notification_terms(truth.parameters, rows, as_codes(matrix))
    if not terms.possible.all() or not np.array_equal(terms.channel, channel):
        raise RuntimeError("the catalog of possible notifications disagrees with the engagement model")
    return TrueCandidates(
        matrix=matrix,
        keys={"app": matrix[:, APP], "subject": matrix[:, SUBJECT], "channel": channel},
        base=terms.base,
        per_situation=terms.per_situation,
        interrupts=interruption(matrix[:, PRIORITY], matrix[:, UPDATES]),
    )
