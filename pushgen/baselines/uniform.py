"""Random: every notification feature uniform over its published values (the lower bound)."""

from __future__ import annotations

import numpy as np

from pushgen import schemas
from pushgen.baselines.base import Codes, NoHistory, Setting, StaticPolicy, as_codes, batch_size
from pushgen.envs.spaces import NOTIFICATION_FEATURES


class RandomPolicy(NoHistory, StaticPolicy):
    """Uniform over all valid notifications, as ``notification_space().sample()`` would be.

    One row of 7 uniform numbers per context, so a batch of n contexts draws exactly what n
    single steps would.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode; it draws from ``setting.rng()``.

    Examples
    --------
    >>> from pushgen.baselines import RandomPolicy
    >>> from pushgen.benchmark import run_policy
    >>> [run] = run_policy("pushgen-mini-v4", 1, "random", RandomPolicy, users=[0])
    >>> float(run.possible.mean())  # none of its notifications could reach this user
    0.0
    """

    def __init__(self, setting: Setting) -> None:
        self.rng = setting.rng()
        self.sizes = np.array([len(schemas.values(f)) for f in NOTIFICATION_FEATURES])

    def act(self, contexts: Codes) -> Codes:
        u = self.rng.random((batch_size(contexts), len(self.sizes)))
        return as_codes(np.minimum((u * self.sizes).astype(np.int64), self.sizes - 1))
