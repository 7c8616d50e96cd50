"""The leaderboard's rows: every baseline policy, probe and bound, by name, in order (see
``pushgen.baselines``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pushgen.baselines.fixed as fixed
import pushgen.baselines.oracle as oracle
from pushgen.baselines.bandit import ThompsonPolicy
from pushgen.baselines.base import Baseline, Policy, Setting, named_rows
from pushgen.baselines.frequency import ContextFrequencyPolicy
from pushgen.baselines.learned import LearnedPolicy
from pushgen.baselines.rotation import RateRotationPolicy, RotationPolicy
from pushgen.baselines.uniform import RandomPolicy

Factory = Callable[[Setting], Policy]


BASELINES: dict[str, Baseline[Setting, Policy]] = named_rows(
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
)
