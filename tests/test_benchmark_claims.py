"""What the benchmark claims on a standard split, on a few users each.

The margins are measured on each split and are parameters of the claims (``CLAIMS``): a new
standard version gets a row with the margins measured on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import pushgen
from pushgen.baselines import BASELINES, ThompsonPolicy
from pushgen.baselines.attacks import SabotagedPolicy
from pushgen.baselines.candidates import notification_matrix
from pushgen.benchmark import run_baseline, run_policy, task_data
from pushgen.benchmark.runner import score
from pushgen.benchmark.summary import user_metrics
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.replay.metrics import over_reference
from pushgen.schemas import CONTEXT_FEATURES


@dataclass(frozen=True)
class Claims:
    split: str
    users: int  # task 1 users each claim is checked on
    context_gap: float  # the oracle over the context-blind oracle
    fixed_gap: float  # the oracle over the best fixed notification per user
    learned_over_probe: float  # the learned model over the context-free rotation probe
    learned_over_history: float  # the learned model over the best fixed notification from history
    bandit_over_reference: float  # task 2: the bandit's mean reward over the reference without feedback


CLAIMS = {claims.split: claims for claims in (
    # measured on pushgen-mini-v4: 0.152, 0.416, 0.054, 0.260 and 0.648 (task 2's one cold-start user)
    Claims("pushgen-mini-v4", users=3, context_gap=0.06, fixed_gap=0.2, learned_over_probe=0.02,
           learned_over_history=0.1, bandit_over_reference=0.3),
)}


@pytest.fixture(scope="module", params=sorted(CLAIMS))
def claims(request) -> Claims:
    return CLAIMS[request.param]


@pytest.fixture(scope="module")
def task1(claims):
    return task_data(claims.split, 1)


@pytest.fixture(scope="module")
def task2(claims):
    return task_data(claims.split, 2)


def per_user(data, task: int, name: str, users: list[int]) -> dict[int, float]:
    return {r.user_id: float(r.reward.mean()) for r in run_baseline(data, task, BASELINES[name], users=users)}


def mean(scores: dict[int, float]) -> float:
    return float(np.mean(list(scores.values())))


def test_the_context_decides_the_oracle_is_clearly_above_its_context_blind_self_and_a_fixed_one(
        task1, claims):
    users = task1.users[:claims.users]
    oracle = per_user(task1, 1, "oracle", users)
    blind = per_user(task1, 1, "context-blind-oracle", users)
    fixed = per_user(task1, 1, "best-fixed-user", users)
    assert all(oracle[u] > blind[u] > fixed[u] for u in users), (oracle, blind, fixed)
    assert mean(oracle) - mean(blind) >= claims.context_gap
    assert mean(oracle) - mean(fixed) >= claims.fixed_gap


def test_a_learned_context_aware_model_beats_the_context_free_probe_and_the_best_fixed_one(task1, claims):
    users = task1.users[:claims.users]
    learned = per_user(task1, 1, "learned", users)
    probe = per_user(task1, 1, "rotation", users)
    fixed = per_user(task1, 1, "best-fixed-history", users)
    assert mean(learned) >= mean(probe) + claims.learned_over_probe, (learned, probe)
    assert mean(learned) >= mean(fixed) + claims.learned_over_history, (learned, fixed)


def test_task2_learning_beats_the_reference_and_sabotage_does_not_pay(task2, claims):
    users = task2.users[:claims.users]
    bandit = run_baseline(task2, 2, BASELINES["bandit"], users=users)
    reference = run_baseline(task2, 2, BASELINES["apps-aware-reference"], users=users)

    def sabotaged(setting):  # impossible notifications in the first quarter of each episode
        first = len(task2.episodes([setting.user_id]).rows(setting.user_id)) // 4
        return SabotagedPolicy(ThompsonPolicy(setting), first)

    sabotage = run_policy(task2, 2, "bandit", sabotaged, users=users)
    area = {name: np.array([over_reference(r.reward, r.reference_reward) for r in runs])
            for name, runs in (("bandit", bandit), ("reference", reference), ("sabotage", sabotage))}
    assert np.mean([r.reward.mean() for r in bandit]) >= (np.mean([r.reward.mean() for r in reference])
                                                          + claims.bandit_over_reference)
    assert area["bandit"].mean() >= claims.bandit_over_reference
    assert np.abs(area["reference"]).max() < 1e-12
    assert (area["sabotage"] <= area["bandit"]).all(), area
    assert all((~r.possible[:len(r.possible) // 4]).all() for r in sabotage)


def test_sprinkling_each_value_of_the_history_buys_distinct_values_but_no_useful_variety(task1, claims):
    users = task1.users[:claims.users]
    runs = run_baseline(task1, 1, BASELINES["learned"], users=users)
    episodes = task1.episodes(users)
    generated = np.zeros((len(task1.part.user_ids), len(NOTIFICATION_FEATURES)), dtype=np.int64)
    rng = np.random.default_rng(0)
    for run in runs:
        history = notification_matrix(task1.history(run.user_id))
        extra = np.array([history[np.flatnonzero(history[:, j] == value)[0]]
                          for j in range(history.shape[1]) for value in np.unique(history[:, j])])
        rows = episodes.rows(run.user_id)
        mine = run.generated.copy()
        mine[rng.choice(len(rows), size=len(extra), replace=False)] = extra
        generated[rows] = mine
    sprinkled = score(episodes, generated, "expected", {}, np.zeros(len(task1.part.user_ids)))
    honest = [user_metrics(run, "expected", 1) for run in runs]
    gamed = [user_metrics(run, "expected", 1) for run in sprinkled]
    def average(runs, key):
        return float(np.mean([r[key] for r in runs]))

    assert average(gamed, "mean_reward") < average(honest, "mean_reward")
    assert average(gamed, "distinct_ratio") > average(honest, "distinct_ratio") + 0.1
    # the sprinkled sends only move the state the other sends meet, which can tip a value by a hair;
    # where they displace many repeats (a tenth of pushgen-mini-v4's user 0: distinct ratio +0.31),
    # the others are met less habituated and a few of their values tip (useful variety +0.04)
    assert all(g["useful_variety"] - h["useful_variety"]
               <= max(0.01, 0.15 * (g["distinct_ratio"] - h["distinct_ratio"]))
               for g, h in zip(gamed, honest, strict=True))
    assert average(honest, "useful_variety") > 0.2


def test_models_read_contexts_only_in_the_test_parts(claims):
    for task in (1, 2):
        test = pushgen.load_split(claims.split, task=task).test
        assert list(test.columns) == ["user_id", "context_id", "posted_at", *CONTEXT_FEATURES]
        assert len(test) > 0
