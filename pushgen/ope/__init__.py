"""Off-policy evaluation: logged bandit feedback from a known stochastic logging policy in the
selection environment, the estimators, converters to other libraries' formats, and the ground
truth (the on-policy value of any policy) that checks them.

>>> from pushgen.ope import log_policy, write_log, policy_value, estimate_all
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "BanditLog": "pushgen.ope.log",
    "log_policy": "pushgen.ope.log",
    "write_log": "pushgen.ope.folder",
    "read_log": "pushgen.ope.folder",
    "validate_log": "pushgen.ope.folder",
    "propensity_check": "pushgen.ope.card",
    "to_obp": "pushgen.ope.converters",
    "to_vw": "pushgen.ope.converters",
    "to_minari": "pushgen.ope.converters",
    "policy_value": "pushgen.ope.truth",
    "PolicyValue": "pushgen.ope.truth",
    "frozen_value": "pushgen.ope.truth",
    "Feedback": "pushgen.ope.feedback",
    "Estimate": "pushgen.ope.feedback",
    "OPEWarning": "pushgen.ope.estimators",
    "estimate_all": "pushgen.ope.estimators",
    "ipw": "pushgen.ope.estimators",
    "snipw": "pushgen.ope.estimators",
    "dm": "pushgen.ope.estimators",
    "dr": "pushgen.ope.estimators",
    "Slates": "pushgen.ope.slates",
    "UniformPolicy": "pushgen.ope.policies",
    "SoftmaxPolicy": "pushgen.ope.policies",
    "GreedyPolicy": "pushgen.ope.policies",
    "EpsilonGreedyPolicy": "pushgen.ope.policies",
    "HoldHeavyPolicy": "pushgen.ope.policies",
    "HoldPolicy": "pushgen.ope.policies",
    "MIN_TEMPERATURE": "pushgen.ope.policies",
    "Trajectories": "pushgen.ope.trajectories",
    "estimate_trajectories": "pushgen.ope.trajectories",
    "TRAJECTORY_ESTIMATORS": "pushgen.ope.trajectories",
    "bootstrap_interval": "pushgen.ope.trajectories",
    "EpisodeLog": "pushgen.ope.episodes",
    "EpisodePolicy": "pushgen.ope.episodes",
    "log_episodes": "pushgen.ope.episodes",
    "true_value": "pushgen.ope.episodes",
    "write_episode_log": "pushgen.ope.episode_folder",
    "read_episode_log": "pushgen.ope.episode_folder",
    "validate_episode_log": "pushgen.ope.episode_folder",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pushgen.ope' has no attribute {name!r}")
