"""Baseline notification models, probes and bounds (``pushgen.baselines.base`` has the interface).

``BASELINES`` names them, in leaderboard order from the lower to the upper bound:

- models that see only public data: ``random``, ``best-fixed-overall``, ``best-fixed-history``,
  ``rotation`` (a probe with no model and no context: the user's most opened history
  notifications in turn), ``context-frequency``, ``learned``, ``learned-diverse``, ``bandit``;
- yardsticks that read the simulated user (``reads_truth``): ``apps-aware-reference`` (task 2's
  reference without feedback: the best public notification the user's apps post),
  ``best-fixed-user`` (what ignoring the context costs), ``myopic-oracle``,
  ``context-blind-oracle`` (the oracle's planner blind to each context: what knowing the
  context is worth), ``oracle`` and ``upper-bound``, the one row marked as a provable upper
  bound (a bound computed from the true model, not a policy).

A user's own model implements the same ``Policy`` interface and runs with
``pushgen.benchmark.run_policy``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pushgen.baselines.agent import PolicyAgent
    from pushgen.baselines.bandit import ThompsonPolicy
    from pushgen.baselines.base import Baseline, Bound, Policy, Setting, Truth
    from pushgen.baselines.fixed import (
        AppsAwareReferencePolicy,
        BestFixedFromHistoryPolicy,
        BestFixedOverallPolicy,
    )
    from pushgen.baselines.frequency import ContextFrequencyPolicy
    from pushgen.baselines.learned import LearnedPolicy
    from pushgen.baselines.oracle import (
        BestFixedPerUserPolicy,
        OraclePolicy,
        context_blind_oracle,
        myopic_oracle,
        upper_bound,
    )
    from pushgen.baselines.registry import BASELINES, Factory
    from pushgen.baselines.rotation import RotationPolicy
    from pushgen.baselines.uniform import RandomPolicy

# the public names load their modules when first used: the environments import
# ``pushgen.baselines.possible`` without the models and their scipy
_LAZY = {
    "BASELINES": "registry", "Baseline": "base", "Bound": "base", "Factory": "registry",
    "AppsAwareReferencePolicy": "fixed", "BestFixedFromHistoryPolicy": "fixed",
    "BestFixedOverallPolicy": "fixed", "BestFixedPerUserPolicy": "oracle",
    "ContextFrequencyPolicy": "frequency", "LearnedPolicy": "learned", "OraclePolicy": "oracle",
    "Policy": "base", "PolicyAgent": "agent", "RandomPolicy": "uniform", "RotationPolicy": "rotation",
    "Setting": "base", "ThompsonPolicy": "bandit", "Truth": "base",
    "context_blind_oracle": "oracle", "myopic_oracle": "oracle", "upper_bound": "oracle",
}
__all__ = [
    "BASELINES",
    "AppsAwareReferencePolicy",
    "Baseline",
    "BestFixedFromHistoryPolicy",
    "BestFixedOverallPolicy",
    "BestFixedPerUserPolicy",
    "Bound",
    "ContextFrequencyPolicy",
    "Factory",
    "LearnedPolicy",
    "OraclePolicy",
    "Policy",
    "PolicyAgent",
    "RandomPolicy",
    "RotationPolicy",
    "Setting",
    "ThompsonPolicy",
    "Truth",
    "context_blind_oracle",
    "myopic_oracle",
    "upper_bound",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"pushgen.baselines.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pushgen.baselines' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
