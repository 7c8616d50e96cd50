"""Off-policy estimators over episodes, checked against the exact value of a small known task."""

from __future__ import annotations

import numpy as np
import pytest

from pushgen.ope.trajectories import TRAJECTORY_ESTIMATORS, Trajectories, estimate_trajectories

HORIZON = 6
P_OPEN = np.array([0.6, 0.3, 0.05])  # by annoyance level 0, 1, 2 (2: the app is as good as off)


def step(level: int, send: bool) -> int:
    """Sending raises the annoyance level; holding lets it fall."""
    return min(level + 1, 2) if send else max(level - 1, 0)


def exact_value(send_p: float) -> float:
    """A policy that sends with probability ``send_p`` at every step, from level 0: its expected
    opens over the horizon, by dynamic programming over the three levels."""
    at = np.array([1.0, 0.0, 0.0])
    total = 0.0
    for _ in range(HORIZON):
        total += send_p * float(at @ P_OPEN)
        following = np.zeros(3)
        for level in range(3):
            following[step(level, True)] += at[level] * send_p
            following[step(level, False)] += at[level] * (1 - send_p)
        at = following
    return total


def logged(episodes: int, logging_send: float, target_send: float, seed: int) -> Trajectories:
    rng = np.random.default_rng(seed)
    rows = {k: [] for k in ("episode", "step", "state", "logging_p", "target_p", "reward", "q", "v")}
    model = P_OPEN * 0.9  # a model that is somewhat off
    for e in range(episodes):
        level = 0
        for t in range(HORIZON):
            send = rng.random() < logging_send
            reward = float(send and rng.random() < P_OPEN[level])
            for key, value in (("episode", e), ("step", t), ("state", level),
                               ("logging_p", logging_send if send else 1 - logging_send),
                               ("target_p", target_send if send else 1 - target_send), ("reward", reward),
                               ("q", model[level] if send else 0.0), ("v", target_send * model[level])):
                rows[key].append(value)
            level = step(level, send)
    return Trajectories(**{k: np.asarray(v) for k, v in rows.items()})


@pytest.mark.parametrize("estimator", TRAJECTORY_ESTIMATORS)
def test_each_estimator_finds_the_exact_value_of_a_stateful_task(estimator):
    truth = exact_value(0.3)
    log = logged(20_000, logging_send=0.6, target_send=0.3, seed=1)
    estimate = estimate_trajectories(log, estimator)
    assert abs(estimate.value - truth) < 0.03, (estimator, estimate.value, truth)
    if estimator != "WPDIS":
        assert estimate.low <= truth <= estimate.high


def test_state_marginalised_ratios_vary_less_than_whole_episode_products():
    truth = exact_value(0.2)
    spread = {name: [] for name in ("PDIS", "MIS")}
    for seed in range(20):
        log = logged(400, logging_send=0.7, target_send=0.2, seed=seed)
        for name in spread:
            spread[name].append(estimate_trajectories(log, name).value - truth)
    assert np.std(spread["MIS"]) < np.std(spread["PDIS"])
    assert abs(np.mean(spread["MIS"])) < 0.1


def test_the_logger_evaluating_itself_is_its_mean_return():
    log = logged(500, logging_send=0.5, target_send=0.5, seed=3)
    returns = np.bincount(log.episode, weights=log.reward)
    for name in ("PDIS", "WPDIS", "MIS"):
        assert estimate_trajectories(log, name).value == pytest.approx(returns.mean())


def test_bad_logs_and_names_are_refused():
    log = logged(3, 0.5, 0.5, seed=0)
    with pytest.raises(ValueError, match="estimator must be one of PDIS, WPDIS, DR, MIS"):
        estimate_trajectories(log, "IPW")
    with pytest.raises(ValueError, match="logging_p must be > 0"):
        Trajectories(**{**log.__dict__, "logging_p": np.zeros(len(log.step))})
    with pytest.raises(ValueError, match="in step order from 0"):
        Trajectories(**{**log.__dict__, "step": log.step[::-1].copy()})
