"""Baseline notification models, each a ``Policy`` (``pushgen.baselines.base``).

``BASELINES`` names them, in leaderboard order from the lower to the upper bound; a
user's own model implements the same ``Policy`` interface and runs with
``pushgen.benchmark.run_policy``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pushgen.baselines.agent import PolicyAgent
from pushgen.baselines.bandit import ThompsonPolicy
from pushgen.baselines.base import Policy, Setting, Truth
from pushgen.baselines.frequency import ContextFrequencyPolicy, MostFrequentPolicy
from pushgen.baselines.learned import LearnedPolicy
from pushgen.baselines.oracle import OraclePolicy
from pushgen.baselines.uniform import RandomPolicy

Factory = Callable[[Setting], Policy]


@dataclass(frozen=True)
class Baseline:
    name: str
    label: str
    make: Factory


def _diverse(setting: Setting) -> Policy:
    return LearnedPolicy(setting, temperature=0.5)


BASELINES: dict[str, Baseline] = {b.name: b for b in (
    Baseline("random", "random (uniform over valid notifications)", RandomPolicy),
    Baseline("most-frequent", "most frequent notification of the history", MostFrequentPolicy),
    Baseline("context-frequency", "most opened notification in similar contexts",
             ContextFrequencyPolicy),
    Baseline("learned-diverse", "learned, diversity knob on (temperature 0.5)", _diverse),
    Baseline("learned", "learned (logistic regression; best candidate)", LearnedPolicy),
    Baseline("bandit", "bandit (linear Thompson sampling, online)", ThompsonPolicy),
    Baseline("oracle", "oracle (upper bound; uses the true model)", OraclePolicy),
)}

__all__ = [
    "BASELINES",
    "Baseline",
    "ContextFrequencyPolicy",
    "Factory",
    "LearnedPolicy",
    "MostFrequentPolicy",
    "OraclePolicy",
    "Policy",
    "PolicyAgent",
    "RandomPolicy",
    "Setting",
    "ThompsonPolicy",
    "Truth",
]
