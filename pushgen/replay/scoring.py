"""The judge: P(open) of generated notifications, with the state they themselves leave.

Generated notifications are scored by the simulated user (``pushgen.model.simulated_user``,
the generator's own engagement model) with the split's ground-truth parameters, each row's hidden
state, and the fatigue and habituation that the *generated* notifications before it leave,
in time order, from the state the user's logged history left at the start of the test
months. Two ways, one result:

- ``sequence_probabilities``: a whole sequence at once (the evaluator, batch runs);
- ``Judge``: one notification per user at a time (the environments), any number of users
  stepping together.

An impossible notification (``pushgen.model.feasibility``) has P(open) = 0 and does not
reach the user: it leaves the state as it was.
"""

from __future__ import annotations

import numpy as np

from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import NotificationTerms, RowTerms, notification_terms
from pushgen.model.simulated_user import SimulatedUsers, sequence_p_open
from pushgen.replay.parts import ReplayPart


def sequence_probabilities(part: ReplayPart, rows: np.ndarray, codes: dict[str, np.ndarray],
                           terms: NotificationTerms | None = None) -> np.ndarray:
    """P(open) of generated notifications ``codes`` at ``rows`` of ``part``.

    ``rows`` are whole episodes (each user's rows, in time order, users in any order): every
    notification is judged with the state the ones before it at the user's earlier rows leave.
    ``terms``: the notifications' ``notification_terms`` for their users, if made already.
    """
    rows = np.asarray(rows, dtype=np.int64)
    param_rows = part.parameter_rows[rows]
    if terms is None:
        terms = notification_terms(part.test_parameters, param_rows, codes)
    user = part.user_ids[rows]
    row = RowTerms(part.row_terms.base[rows], part.row_terms.situations[rows])
    return sequence_p_open(part.test_parameters, param_rows, row, terms, codes, user, part.seconds[rows],
                           part.test_truth.initial, np.searchsorted(part.users, user))


class Judge:
    """Users of a part stepping through their episodes, one generated notification each per step."""

    def __init__(self, part: ReplayPart, users: np.ndarray) -> None:
        self.part = part
        self.users = np.asarray(users, dtype=np.int64)
        self.state = SimulatedUsers(len(self.users), len(app_catalog().channels.names),
                                    part.test_parameters.fatigue_tau_seconds, part.test_parameters)
        self.slots = np.arange(len(self.users))
        self.start = self.state.layout(part.test_truth.initial)  # per user of the part, as the state holds it

    def reset(self, slots: np.ndarray) -> None:
        """Users at ``slots`` start their episodes again, from their initial state."""
        slots = np.asarray(slots, dtype=np.int64)
        index = np.searchsorted(self.part.users, self.users[slots])
        self.state.reset(slots, self.start[index], np.zeros(len(slots)))

    def step(self, slots: np.ndarray, rows: np.ndarray, codes: dict[str, np.ndarray]) -> np.ndarray:
        """P(open) of notification ``codes`` for the users at ``slots`` at their part rows ``rows``;
        the notifications then reach the users (possible ones)."""
        part = self.part
        row = RowTerms(part.row_terms.base[rows], part.row_terms.situations[rows])
        return self.state.send(slots, part.parameter_rows[rows], row, codes, part.seconds[rows])
