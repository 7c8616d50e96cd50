"""Random: every notification feature uniform over its published values (the lower bound)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes, batch_size
from pushgen.envs.spaces import NOTIFICATION_FEATURES


class RandomPolicy(StaticPolicy):
    """Uniform over all valid notifications, as ``notification_space().sample()`` would be.

    One row of 7 uniform numbers per context, so a batch of n contexts draws exactly what n
    single steps would.

    Parameters
    ----------
    setting : Setting
        What the policy is told about its episode (``pushgen.benchmark.make_setting``).

    Examples
    --------
    >>> from pushgen.baselines import RandomPolicy
    >>> from pushgen.benchmark import make_setting, task_data
    >>> data = task_data("pushgen-mini-v4", 1)
    >>> policy = RandomPolicy(make_setting(data, task=1, name="random", user=0))
    >>> policy.fit(data.histories[0])                      # the user's history
    >>> notifications = policy.act({f: codes[:3] for f, codes in data.contexts.items()})
    >>> notifications["postingApp"].shape                  # one notification per context
    (3,)
    """

    def __init__(self, setting: Setting) -> None:
        self.rng = setting.rng()
        self.sizes = np.array([len(schemas.values(f)) for f in NOTIFICATION_FEATURES])

    def fit(self, history: pd.DataFrame) -> None:
        return None

    def act(self, contexts: Codes) -> Codes:
        u = self.rng.random((batch_size(contexts), len(self.sizes)))
        return as_codes(np.minimum((u * self.sizes).astype(np.int64), self.sizes - 1))
