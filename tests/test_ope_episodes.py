"""Logged episodes of the long-horizon task: the logging policy's propensities, the estimators on
a target equal to the logger, the episode log folder and ``pushgen log --task long-horizon``."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from pushgen.commands import main
from pushgen.data.outputs import DatasetError
from pushgen.ope import Trajectories, estimate_trajectories, read_log
from pushgen.ope.episode_folder import read_episode_log, validate_episode_log, write_episode_log
from pushgen.ope.episodes import (
    LOGGING_POLICY,
    TARGET_POLICIES,
    EpisodeLog,
    EpisodePolicy,
    HorizonOptions,
    log_episodes,
    true_value,
)

SPLIT = "pushgen-mini-v4"
SHORT = HorizonOptions(horizon_days=0.5)


@pytest.fixture(scope="module")
def log() -> EpisodeLog:
    return log_episodes(SPLIT, replicates=30, seed=5, options=SHORT)


def test_propensities_are_the_logging_policys_own(log):
    steps = log.steps
    own = log.probabilities(LOGGING_POLICY)
    np.testing.assert_allclose(own.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(own[np.arange(len(steps)), steps["slot"].to_numpy()],
                                  steps["propensity"].to_numpy())
    # the actions were drawn from them: chosen shares against propensities, binned (chi-square)
    action = np.zeros_like(own)
    action[np.arange(len(steps)), steps["slot"].to_numpy()] = 1
    held, best = own[:, -1], own[:, :-1].max(axis=1)
    observed = [action[:, -1].sum(), action[np.arange(len(steps)), own[:, :-1].argmax(axis=1)].sum()]
    expected = [held.sum(), best.sum()]
    variance = [(held * (1 - held)).sum(), (best * (1 - best)).sum()]
    statistic = sum((o - e) ** 2 / v for o, e, v in zip(observed, expected, variance, strict=True))
    assert statistic < chi2.ppf(0.999, 2)
    assert 0 < held.mean() < 1 and len(steps) > 1000


def test_a_target_equal_to_the_logger_gives_the_logged_mean_return(log):
    returns = log.steps.groupby("episode")["reward"].sum()
    trajectories = log.trajectories(LOGGING_POLICY)
    np.testing.assert_array_equal(trajectories.target_p, trajectories.logging_p)
    for name in ("PDIS", "WPDIS", "MIS"):
        assert estimate_trajectories(trajectories, name).value == pytest.approx(returns.mean(), rel=1e-12)
    different = log.trajectories(TARGET_POLICIES[2])  # greedy: a different policy, different weights
    assert estimate_trajectories(different, "PDIS").value != pytest.approx(returns.mean())


def test_the_logger_is_estimated_within_its_true_value():
    truth, se = true_value(SPLIT, LOGGING_POLICY, episodes=40, options=SHORT, seed=9)
    logged = log_episodes(SPLIT, replicates=40, seed=11, options=SHORT)
    estimate = estimate_trajectories(logged.trajectories(LOGGING_POLICY), "PDIS")
    assert se > 0 and abs(estimate.value - truth) < 4 * np.hypot(se, (estimate.high - estimate.value) / 1.96)


def test_the_state_key_and_the_reward_model(log):
    steps = log.steps
    assert steps["state"].between(0, 11).all() and steps.loc[steps.step == 0, "sends_1d"].eq(0).all()
    t: Trajectories = log.trajectories(TARGET_POLICIES[0])
    p_open = np.stack(steps["p_open"].to_numpy())
    held = steps["held"].to_numpy()
    assert (t.q[held] == 0).all()
    np.testing.assert_array_equal(t.q[~held], p_open[~held, steps["slot"].to_numpy()[~held]])
    assert (t.v >= 0).all() and (t.v <= p_open.max(axis=1) + 1e-12).all()


@settings(max_examples=60, deadline=None)
@given(p=st.lists(st.floats(0, 1), min_size=3, max_size=3),
       mask=st.lists(st.booleans(), min_size=3, max_size=3),
       theta=st.floats(0, 1), scale=st.sampled_from([0.0, 0.05, 0.3]), epsilon=st.floats(0, 1),
       sends=st.integers(0, 10), cap=st.integers(0, 10))
def test_policy_probabilities_sum_to_one_on_the_allowed_actions(p, mask, theta, scale, epsilon, sends, cap):
    allowed = np.array([*mask, True])
    policy = EpisodePolicy("x", theta=theta, scale=scale, cap=cap, epsilon=epsilon)
    out = policy.probabilities(np.array(p) * mask, allowed, np.array([sends]))[0]
    assert out.sum() == pytest.approx(1.0) and (out >= 0).all() and (out[~allowed] == 0).all()
    if sends >= cap:
        assert out[-1] == pytest.approx(1 - epsilon + epsilon / allowed.sum())


def test_the_folder_validates_and_reads_back_identically(log, tmp_path):
    out = tmp_path / "episodes"
    described = write_episode_log(log, out)
    assert validate_episode_log(out) == [] and described["episodes"] == log.episodes
    again = read_episode_log(out)
    pd.testing.assert_frame_equal(again.steps, log.steps)
    assert again.recipe == json.loads(json.dumps(log.recipe))
    wrong = EpisodeLog(log.steps.assign(propensity=log.steps["propensity"] * 0.5), log.recipe)
    write_episode_log(wrong, tmp_path / "wrong")
    problems = validate_episode_log(tmp_path / "wrong")
    assert len(problems) == 1 and "is not the logging policy's" in problems[0]
    (out / "steps.parquet").write_bytes(b"changed")
    assert "steps.parquet" in validate_episode_log(out)[0]


def test_pushgen_log_writes_episodes_that_validate(tmp_path, capsys):
    out = tmp_path / "log"
    assert main(["log", SPLIT, "--task", "long-horizon", "--replicates", "2", "--horizon-days", "0.25",
                 "--out", str(out)]) == 0
    assert "2 episodes (" in capsys.readouterr().out
    assert main(["validate", str(out)]) == 0
    assert "episode log, 2 episodes" in capsys.readouterr().out
    one = tmp_path / "one"
    assert main(["log", SPLIT, "--task", "long-horizon", "--replicates", "1", "--horizon-days", "0.25",
                 "--out", str(one)]) == 0
    written = capsys.readouterr().out
    assert ": 1 episode (" in written and " of 1 user (" in written
    assert main(["validate", str(one)]) == 0
    assert "episode log, 1 episode, " in capsys.readouterr().out
    # read as a bandit log, it is named for what it is and for its reader
    named = (rf"^{re.escape(str(one))} is an episode log \(pushgen log --task long-horizon\), not a bandit "
             r"log: pushgen\.ope\.read_episode_log reads it$")
    with pytest.raises(DatasetError, match=named):
        read_log(one)
    assert len(read_episode_log(one).steps) > 0


@pytest.mark.parametrize(("args", "message"), [
    (["--task", "long-horizon", "--policy", "softmax"], "--policy, --temperature and --stationary go with"),
    (["--task", "long-horizon", "--stationary"], "--policy, --temperature and --stationary go with"),
    (["--replicates", "2"], "--replicates and --horizon-days go with --task long-horizon"),
    (["--task", "long-horizon", "--replicates", "0"], "0 is not in the range x>=1"),
    (["--task", "long-horizon", "--replicates", "1001"], "1,001 is above 1,000, the most episodes per user"),
    (["--task", "long-horizon", "--replicates", "9" * 20],
     "99,999,999,999,999,999,999 is above 1,000, the most episodes per user"),
    (["--task", "long-horizon", "--horizon-days", "0"], "0 is not a number of days above 0 and at most 3660"),
    (["--task", "long-horizon", "--horizon-days", "1e308"],  # beyond the float32 of the observation
     "1e+308 is not a number of days above 0 and at most 3660 (the longest dataset)"),
    (["--task", "long-horizon", "--horizon-days", "nan"], "'nan' is not a finite number"),
    (["--task", "long-horizon", "--user", "0"], "--user must be a held-out user the long-horizon task"),
    (["--task", "long-horizon", "--users", "5"], "--users must be from 1 to 1"),
    (["--task", "planning"], "'planning' is not one of 'selection', 'long-horizon'"),
])
def test_bad_options_are_one_line_errors_and_write_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["log", SPLIT, "--out", str(out), *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error
    assert list(tmp_path.iterdir()) == []


def test_log_episodes_takes_from_1_to_max_replicates():
    from pushgen.ope.episodes import MAX_REPLICATES

    for bad in (0, MAX_REPLICATES + 1, 2.5, True):
        expected = rf"^replicates must be a whole number from 1 to {MAX_REPLICATES}; got "
        with pytest.raises(ValueError, match=expected):
            log_episodes(SPLIT, replicates=bad, options=SHORT)
