"""The single environments' fast path: an episode's terms precomputed, one simulated user stepped.

The engagement logit of a notification in a row splits into a static part (row, notification
and their situation interaction: ``pushgen.model.simulated_user.combine`` with no exposure) and the
exposure penalty that the notifications sent before leave. ``static_logits`` computes the
first once per episode, for every candidate of every row, with the very functions the judge
(``pushgen.replay.scoring``) uses; the episode's ``pushgen.model.simulated_user.SimulatedUser``
(``simulated_user``) follows the second one notification at a time, in plain Python floats, so
P(open) agrees with the batched judge to rounding (a test steps both over whole episodes).
"""

from __future__ import annotations

import numpy as np

from pushgen.baselines.possible import possible_notifications
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.engagement import RowTerms
from pushgen.model.exposure import EXPOSURE_FIELDS
from pushgen.model.renamed import moved
from pushgen.model.simulated_user import SimulatedUser, interruption, sigmoid, static_logit  # noqa: F401
from pushgen.replay.parts import ReplayPart


def static_logits(part: ReplayPart, rows: np.ndarray, codes: dict[str, np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The logit before exposure of notifications ``codes`` (arrays shaped ``(n, k)``) at part rows
    ``rows`` ``(n,)``, and each notification's channel; -inf where impossible."""
    rows = np.asarray(rows, dtype=np.int64)
    n, k = np.shape(codes["postingApp"])
    flat_rows = np.repeat(rows, k)
    row = RowTerms(part.row_terms.base[flat_rows], part.row_terms.situations[flat_rows])
    logit, channel = static_logit(part.test_parameters, part.parameter_rows[flat_rows], row,
                                  {f: np.asarray(c, dtype=np.int64).ravel() for f, c in codes.items()})
    return logit.reshape(n, k), channel.reshape(n, k)


def static_table(part: ReplayPart, rows: np.ndarray, user: int, codes: dict[str, np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The logit before exposure of each of ``m`` notifications ``codes`` (arrays ``(m,)``) of
    ``user`` at each of its part rows ``rows``: ``(n, m)``, -inf where impossible; and the channels."""
    rows = np.asarray(rows, dtype=np.int64)
    m = len(codes["postingApp"])
    row = RowTerms(part.row_terms.base[rows][:, None], part.row_terms.situations[rows][:, None, :])
    return static_logit(part.test_parameters, np.full(m, part.test_parameters.rows(np.array([user]))[0]), row,
                        {f: np.asarray(c, dtype=np.int64) for f, c in codes.items()})


def apps_of(part: ReplayPart, user: int) -> np.ndarray:
    """The apps ``user`` has (a boolean mask over app codes): the ground truth of a test part."""
    return part.test_parameters.has_app[part.test_parameters.rows(np.array([user]))[0]]


def channels_of(part: ReplayPart, user: int) -> np.ndarray | None:
    """The channels still on for ``user`` at the start of the test months (None: all)."""
    return part.test_parameters.channels_on(int(part.test_parameters.rows(np.array([user]))[0]))


class PossibleNotifications:
    """One user's possible notifications (``pushgen.baselines.possible``), looked up by their codes."""

    def __init__(self, has_app: np.ndarray, channels_on: np.ndarray | None = None) -> None:
        self.matrix, self.channel = possible_notifications(np.asarray(has_app, dtype=bool), channels_on)
        self.index = {tuple(row): j for j, row in enumerate(self.matrix.tolist())}
        by_feature = self.codes()
        self.app = by_feature["postingApp"].tolist()
        self.subject = by_feature["subject"].tolist()
        self.channels = self.channel.tolist()
        self.interrupts = interruptions(by_feature).tolist()

    def codes(self) -> dict[str, np.ndarray]:
        return {f: self.matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}


def simulated_user(part: ReplayPart, user: int, stationary: bool) -> SimulatedUser:
    """``user`` of the test part as a ``SimulatedUser``, starting from the state the user's
    logged history left at the start of the test months."""
    index = part.user_index(user)
    return SimulatedUser(part.test_parameters, user, {key: part.test_truth.initial[key][index].tolist()
                                                 for key in EXPOSURE_FIELDS}, stationary)


__getattr__ = moved(__name__, {"UserExposure": "pushgen.model.simulated_user.SimulatedUser (made by "
                                                "pushgen.envs.online.simulated_user)"})


def interruptions(codes: dict[str, np.ndarray]) -> np.ndarray:
    """How much each notification (arrays of any shape) interrupts."""
    priority = np.asarray(codes["priority"])
    updates = np.asarray(codes["numberOfUpdates"]).ravel()
    return interruption(priority.ravel(), updates).reshape(priority.shape)
