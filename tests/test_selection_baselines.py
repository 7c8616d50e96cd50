"""The selection task's baselines: the bound holds, learners beat the cheap policies, the CLI writes it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.baselines.selection import SELECTION_BASELINES, SelectionSetting, fresh_bound
from pushgen.benchmark.selection import run_selection, selection_board
from pushgen.cli import main
from pushgen.envs import SELECTION_ID

SPLIT = "pushgen-mini-v4"


@pytest.fixture(scope="module")
def results():
    return run_selection(SPLIT)


def test_every_baseline_runs_and_the_ranking_is_sound(results):
    board = selection_board(results).set_index("baseline")
    assert set(board.index) == set(SELECTION_BASELINES)
    score = board["mean_reward"]
    assert board.loc["upper-bound", "rank"] == 1 and board.loc["upper-bound", "upper_bound"]
    assert score["hold"] == 0.0 and board.loc["hold", "send_rate"] == 0.0
    assert score["oracle"] >= score["greedy"] > score["linucb"]
    # the cheapest policies lose to both learners by a clear margin
    for cheap in ("random", "slot-0", "frequent-app", "hold"):
        assert score["linucb"] > score[cheap] + 0.05, cheap
        assert score["rdsm"] > score[cheap] + 0.05, cheap
    assert board.loc["greedy", "uses_true_model"] and not board.loc["linucb", "uses_true_model"]


def test_no_baseline_beats_the_bound_at_any_context(results):
    bound = results.rewards["upper-bound"]
    for name, per_user in results.rewards.items():
        for user, reward in per_user.items():
            assert (reward <= bound[user] + 1e-12).all(), name


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 10), cost=st.sampled_from([0.0, 0.05, 0.3]),
       hold_share=st.floats(0.0, 0.9))
def test_the_bound_is_never_exceeded_by_any_policy(seed, k, cost, hold_share):
    """Fatigue and habituation only lower P(open), so at every context the best candidate at a
    fresh state, less the cost (or 0: hold), bounds any policy's reward, whatever came before."""
    env = gym.make(SELECTION_ID, split=SPLIT, k=k, cost=cost, candidate_seed=seed % 1000,
                   mode="expected").unwrapped
    env.reset(seed=seed)
    bound = fresh_bound(env)
    rng = np.random.default_rng(seed)
    sticky = int(rng.integers(k))  # a policy that hammers one slot tires the user the most
    for i in range(600):
        action = k if rng.random() < hold_share else (sticky if rng.random() < 0.5 else int(rng.integers(k)))
        _, reward, _, _, _ = env.step(action)
        assert reward <= bound[i] + 1e-12


def test_the_bound_refuses_a_user_whom_exposure_could_help():
    env = gym.make(SELECTION_ID, split=SPLIT).unwrapped
    env.simulated_user.fatigue_weight = -0.1
    with pytest.raises(ValueError, match="negative fatigue or habituation weight"):
        fresh_bound(env)


def test_policies_without_the_truth_cannot_read_the_environment():
    setting = SelectionSetting(k=8, seed=np.random.SeedSequence(0), public=None)
    with pytest.raises(ValueError, match="greedy reads the simulated user"):
        SELECTION_BASELINES["greedy"].make(setting)


def test_one_policy_interface_for_every_decision():
    """The selection baselines and the off-policy policies are uses of the one ``Policy``."""
    from pushgen.baselines import selection
    from pushgen.baselines.base import Policy
    from pushgen.ope.policies import EpsilonGreedyPolicy, Slates, SoftmaxPolicy, UniformPolicy

    assert selection.SelectionPolicy is Policy
    setting = SelectionSetting(k=8, seed=np.random.SeedSequence(0), public=selection.PublicHistory(
        np.zeros((3, 7), dtype=np.int64), np.array([True, False, True])))
    for name in ("hold", "slot-0", "random", "frequent-app", "category-rate", "rdsm", "linucb"):
        policy = SELECTION_BASELINES[name].make(setting)
        assert isinstance(policy, Policy), name
        assert policy.fit(pd.DataFrame()) is None
    slates = Slates({}, np.zeros((2, 3, 7), dtype=np.int64), np.array([[True, True, False], [True] * 3]),
                    np.full((2, 3), 0.5))
    for policy in (UniformPolicy(), SoftmaxPolicy(), EpsilonGreedyPolicy(lambda s: s.p_open)):
        assert isinstance(policy, Policy)
        np.testing.assert_array_equal(policy.act(slates), policy.probabilities(slates))
        assert policy.update(slates, policy.act(slates), np.zeros(2, dtype=bool)) is None


def test_benchmark_writes_the_selection_section(tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["benchmark", "--split", SPLIT, "--task", "2", "--baselines", "random", "--no-plots",
                 "--selection", "hold,random,upper-bound", "--out", str(out)])
    assert code == 0
    text = (out / "leaderboard.md").read_text()
    assert "## Selection: pushgen/NotificationSelection-v0 (K = 8" in text
    per_user = pd.read_csv(out / "selection.csv")
    assert set(per_user["baseline"]) == {"hold", "random", "upper-bound"}
    assert capsys.readouterr().out == text


def test_bad_selection_names_are_one_line_errors(tmp_path, capsys):
    code = main(["benchmark", "--split", SPLIT, "--task", "2", "--baselines", "random", "--no-plots",
                 "--selection", "random,ppo", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and "unknown selection baseline 'ppo'; choose from hold, slot-0" in err
    assert err.strip().count("\n") == 0 and not (tmp_path / "x").exists()
