"""The long-horizon training script's warm start: the thresholded LinUCB it clones, and the cloning."""

from __future__ import annotations

import numpy as np
import pytest
from scripts_loader import script

from pushgen.baselines.long_horizon import CappedLinUCB, HorizonSetting
from pushgen.benchmark.long_horizon import play
from pushgen.envs.long_horizon import LongHorizonEnv

SPLIT = "pushgen-mini-v4"
USER = 3


class ReadOff:
    """The demonstrator as a policy of its own: the script's estimates, then its rule."""

    def __init__(self, k: int, theta: float, cap: int) -> None:
        self.estimates = script("train_long_horizon").OnlineEstimates(k)
        self.k, self.theta, self.cap = k, theta, cap

    def act(self, observation: dict) -> int:
        self.seen = self.estimates.augment(observation)
        return script("long_horizon_warm_start").demonstrator_action(self.seen, self.k, self.theta, self.cap)

    def update(self, observation: dict, action: int, opened: bool) -> None:
        self.estimates.learn(self.seen, action, opened)


@pytest.mark.parametrize(("theta", "cap"), [(0.7, 50), (0.0, 3), (2.0, 50)])
def test_the_demonstrator_is_the_boards_thresholded_linucb(theta, cap):
    env = LongHorizonEnv(SPLIT, user=USER, horizon_days=5)
    setting = HorizonSetting(env.k, np.random.SeedSequence(0), theta=theta, cap=cap)
    board = play(env, CappedLinUCB(setting), 11)
    read_off = play(env, ReadOff(env.k, theta, cap), 11)
    assert read_off == board
    assert (board[2] == 0) == (theta > 1)  # a bound of at least 2 never comes: it holds throughout


def test_the_demonstrator_holds_below_its_threshold_and_at_its_cap():
    rule = script("long_horizon_warm_start").demonstrator_action
    observation = {"candidate_mask": np.array([1, 0, 1, 1]), "app_counts": np.array([2.0, 0, 0, 0]),
                   "candidate_estimates": np.array([[0.75], [0.99], [0.8], [0.1]])}
    assert rule(observation, 4, 0.7, 50) == 2  # the best allowed bound, not the masked slot's
    assert rule(observation, 4, 0.85, 50) == 4 and rule(observation, 4, 0.7, 2) == 4
    assert rule({**observation, "candidate_mask": np.zeros(4)}, 4, 0.0, 50) == 4


def test_cloning_fits_the_policy_to_the_demonstrations():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from pushgen.baselines.slot_scorer import read_scores, slot_policy_kwargs

    training = script("train_long_horizon")
    warm = script("long_horizon_warm_start")
    torch.manual_seed(0)
    def make(user: int) -> LongHorizonEnv:
        return training.with_estimates(LongHorizonEnv(SPLIT, user=user, task=1, horizon_days=3))

    envs = DummyVecEnv([lambda u=u: make(u) for u in (0, 1)])
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=16, batch_size=32, seed=0, device="cpu",
                        policy_kwargs=slot_policy_kwargs())
    read_scores(model)
    data = warm.demonstrate(envs, 600, 8, 0.7, 50, 0.99)
    assert len(data) == 600 and data.masks[np.arange(600), data.actions].all()
    assert 0 < (data.actions == 8).mean() < 1  # it sends and it holds
    assert data.returns.min() >= 0 and data.returns.max() > 0  # opens, discounted
    _, agree_before = warm.clone(model, data, epochs=0)
    loss, agree = warm.clone(model, data, epochs=40, batch=64, seed=0)
    assert agree > 0.85 > agree_before and loss < 0.3  # the demonstrator's actions, most of them
