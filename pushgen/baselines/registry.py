"""The leaderboard's rows: every baseline policy, probe and bound, by name, in order (see
``pushgen.baselines``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

import pushgen.baselines.fixed as fixed
import pushgen.baselines.oracle as oracle
from pushgen.baselines.bandit import ThompsonPolicy
from pushgen.baselines.base import Policy, Setting, Truth
from pushgen.baselines.frequency import ContextFrequencyPolicy
from pushgen.baselines.learned import LearnedPolicy
from pushgen.baselines.rotation import RateRotationPolicy, RotationPolicy
from pushgen.baselines.uniform import RandomPolicy

Factory = Callable[[Setting], Policy]
Bound = Callable[[Truth], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Baseline:
    """A leaderboard row: a policy (``make``) or a bound computed from the true model (``bound``).

    Attributes
    ----------
    name, label : str
        The row's short name and its description.
    make : Factory, optional
        Makes the policy from a setting.
    bound : Bound, optional
        Computes a bound from the simulated user (exactly one of ``make`` and ``bound``).
    tasks : tuple of int, default (1, 2)
        The tasks it runs on.
    reads_truth : bool, default False
        Told the simulated user: a yardstick, not a model.
    upper_bound : bool, default False
        Proven: no policy scores above it.

    Raises
    ------
    ValueError
        When it has both or neither of ``make`` and ``bound``, or a bound does not read the truth.

    Examples
    --------
    >>> from pushgen.baselines import BASELINES
    >>> oracle = BASELINES["oracle"]
    >>> oracle.reads_truth, oracle.upper_bound
    (True, False)
    """

    name: str
    label: str
    make: Factory | None = None
    bound: Bound | None = None
    tasks: tuple[int, ...] = (1, 2)
    reads_truth: bool = False
    upper_bound: bool = False

    def __post_init__(self) -> None:
        if (self.make is None) == (self.bound is None):
            raise ValueError(f"baseline {self.name!r} needs exactly one of make and bound")
        if self.bound is not None and not self.reads_truth:
            raise ValueError(f"baseline {self.name!r}: a bound reads the true model")


BASELINES: dict[str, Baseline] = {b.name: b for b in (
    Baseline("random", "random (uniform over every published value)", RandomPolicy),
    Baseline("best-fixed-overall", "best fixed notification overall (public history; never learns)",
             fixed.BestFixedOverallPolicy),
    Baseline("best-fixed-history", "best fixed notification per user from its history",
             fixed.BestFixedFromHistoryPolicy, tasks=(1,)),
    Baseline("rotation", "probe: the user's 45 most opened history notifications in turn (no model, "
             "no context)", RotationPolicy, tasks=(1,)),
    Baseline("rate-rotation", "probe: the user's best smoothed-open-rate history notifications in turn "
             "(tuned on the history's last weeks; no model, no context)", RateRotationPolicy, tasks=(1,)),
    Baseline("context-frequency", "most opened notification in similar contexts", ContextFrequencyPolicy),
    Baseline("learned-diverse", "learned, diversity knob on (temperature 0.5)",
             partial(LearnedPolicy, temperature=0.5)),
    Baseline("learned", "learned (logistic regression, context x notification, own-repeat penalty)",
             LearnedPolicy),
    Baseline("bandit", "bandit (linear Thompson sampling, online; learns the user's apps)", ThompsonPolicy),
    Baseline("apps-aware-reference", "reference without feedback: the best public notification the "
             "user's apps post (knows its apps, not its tastes)", fixed.AppsAwareReferencePolicy, tasks=(2,),
             reads_truth=True),
    Baseline("best-fixed-user", "best fixed notification per user (true model, exhaustive search)",
             oracle.BestFixedPerUserPolicy, reads_truth=True),
    Baseline("myopic-oracle", "greedy on the true P(open), blind to the state it leaves",
             oracle.myopic_oracle, reads_truth=True),
    Baseline("context-blind-oracle", "oracle blind to the context (true model, each context replaced by "
             "the user's average)", oracle.context_blind_oracle, reads_truth=True),
    Baseline("oracle", "oracle (true model; plans for the fatigue and habituation it causes)",
             oracle.OraclePolicy, reads_truth=True),
    Baseline("upper-bound", "upper bound (provable: best P(open) per context at a fresh state)",
             bound=oracle.upper_bound, reads_truth=True, upper_bound=True),
)}
