"""What the benchmark claims on the standard split ``pushgen-v2``, on a few users each."""

from __future__ import annotations

import numpy as np
import pytest

import pushgen
from pushgen.baselines import BASELINES
from pushgen.benchmark import run_baseline, task_data
from pushgen.replay.metrics import learning
from pushgen.schemas import CONTEXT_FEATURES

SPLIT = "pushgen-v2"


@pytest.fixture(scope="module")
def task1():
    return task_data(SPLIT, 1)


@pytest.fixture(scope="module")
def task2():
    return task_data(SPLIT, 2)


def per_user(data, task: int, name: str, users: list[int]) -> dict[int, float]:
    return {r.user_id: float(r.reward.mean()) for r in run_baseline(data, task, BASELINES[name], users=users)}


def test_context_decides_the_best_fixed_notification_per_user_is_clearly_below_the_oracle(task1):
    users = task1.users[:3]
    oracle = per_user(task1, 1, "oracle", users)
    fixed = per_user(task1, 1, "best-fixed-user", users)
    assert all(oracle[u] > fixed[u] for u in users), (oracle, fixed)
    assert np.mean(list(oracle.values())) - np.mean(list(fixed.values())) >= 0.15


def test_a_learned_context_aware_model_beats_the_best_fixed_notification_from_history(task1):
    users = task1.users[3:7]
    learned = per_user(task1, 1, "learned", users)
    fixed = per_user(task1, 1, "best-fixed-history", users)
    assert np.mean(list(learned.values())) > np.mean(list(fixed.values())) + 0.1


def test_task2_learning_beats_the_non_learning_reference(task2):
    users = task2.users[:3]
    bandit = run_baseline(task2, 2, BASELINES["bandit"], users=users)
    fixed = run_baseline(task2, 2, BASELINES["best-fixed-overall"], users=users)
    assert np.mean([r.reward.mean() for r in bandit]) >= np.mean([r.reward.mean() for r in fixed]) + 0.10
    gain = [learning(r.reward, r.reference_reward)["learning_quarter_gain"] for r in bandit]
    reference_gain = [learning(r.reward, r.reference_reward)["learning_quarter_gain"]
                      for r in fixed]
    assert np.mean(gain) > 0.1
    assert np.abs(reference_gain).max() < 1e-12


def test_models_read_contexts_only_in_the_test_parts():
    for task in (1, 2):
        test = pushgen.load_split(SPLIT, task=task).test
        assert list(test.columns) == ["user_id", "context_id", *CONTEXT_FEATURES]
        assert len(test) > 0
