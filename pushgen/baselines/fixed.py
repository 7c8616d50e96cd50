"""Fixed notifications from public data: one notification sent in every context, never learning.

- ``BestFixedOverallPolicy``: the notification with the best open rate among those at least two
  users received in the public task 1 training rows (ties: the more often received), sent to
  every user.
- ``AppsAwareReferencePolicy``: the best of them that one of the user's apps can post (it is
  told which apps the user has, nothing of its tastes): task 2's reference without feedback,
  whose reward over the reference is 0 by construction.
- ``BestFixedFromHistoryPolicy``: the user's own most opened notification in its history, by
  open rate shrunk towards the user's overall open rate (``SMOOTHING`` pseudo-rows), so a
  notification seen once does not win by luck. Without history, the overall one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen.baselines.base import Codes, NoHistory, Setting, StaticPolicy, as_codes, batch_size
from pushgen.baselines.candidates import ranked
from pushgen.replay.reference import first_possible, rank_by_open_rate

SMOOTHING = 10.0


def ranked_public(setting: Setting) -> np.ndarray:
    """The public notifications by open rate (``rank_by_open_rate``), ranked once per run."""
    if "ranked public notifications" not in setting.shared:
        setting.shared["ranked public notifications"] = rank_by_open_rate(setting.public)
    return setting.shared["ranked public notifications"]


class FixedPolicy(NoHistory, StaticPolicy):
    """Always ``self.choice``."""

    choice: np.ndarray

    def act(self, contexts: Codes) -> Codes:
        return as_codes(np.tile(self.choice, (batch_size(contexts), 1)))


class BestFixedOverallPolicy(FixedPolicy):
    """The public history's best notification, sent to every user in every context; never learns.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode; it reads the public history (``setting.public``).

    Examples
    --------
    >>> from pushgen.baselines import BestFixedOverallPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> data = task_data("pushgen-mini-v4", 1)
    >>> first, second = (BestFixedOverallPolicy(make_setting(data, 1, "best", user)) for user in (0, 1))
    >>> bool((first.choice == second.choice).all())  # one notification for every user and context
    True
    """

    def __init__(self, setting: Setting) -> None:
        self.choice = ranked_public(setting)[0]


class BestFixedFromHistoryPolicy(FixedPolicy):
    """The user's own best notification of their history (the public best without history), sent
    in every context.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode; without history, it sends the public best.

    Examples
    --------
    >>> from pushgen.baselines import BestFixedFromHistoryPolicy, BestFixedOverallPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> data = task_data("pushgen-mini-v4", 1)
    >>> setting = make_setting(data, task=1, name="own best", user=0)
    >>> policy = BestFixedFromHistoryPolicy(setting)
    >>> policy.fit(data.histories[0])                      # the user's history
    >>> bool((policy.choice == BestFixedOverallPolicy(setting).choice).all())  # not the public best
    False
    """

    def __init__(self, setting: Setting) -> None:
        self.overall = BestFixedOverallPolicy(setting).choice
        self.choice = self.overall

    def fit(self, history: pd.DataFrame) -> None:
        self.choice = ranked(history, 1, SMOOTHING)[0] if len(history) else self.overall


class AppsAwareReferencePolicy(FixedPolicy):
    """The best public notification that one of the user's apps can post (reads which apps).

    Task 2's reference without feedback: the "vs no-feedback ref." column measures a policy against it.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode, with the simulated user, of which it reads only
        which apps the user has (``make_setting(..., reads_truth=True)``).

    Examples
    --------
    >>> from pushgen.baselines import AppsAwareReferencePolicy
    >>> from pushgen.benchmark import run_policy
    >>> [run] = run_policy("pushgen-mini-v4", 2, "reference", AppsAwareReferencePolicy, reads_truth=True)
    >>> bool((run.reward == run.reference_reward).all())  # it is task 2's reference
    True
    """

    def __init__(self, setting: Setting) -> None:
        truth = setting.true_model("the reference without feedback")
        self.choice = first_possible(ranked_public(setting), truth.has_app)
