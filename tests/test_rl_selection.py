"""A small PPO agent trained on the selection environment's training users beats random on held-out users."""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from pushgen.envs import SELECTION_ID

pytest.importorskip("stable_baselines3", reason="needs the rl extra: pip install 'pushgen[rl]'")

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SPLIT = "pushgen-mini-v4"
STEPS = 6144
CONTEXTS = 800  # the held-out user's first contexts


def mean_reward(choose, user: int = 3) -> float:
    env = gym.make(SELECTION_ID, split=SPLIT, user=user, task=2, mode="expected").unwrapped  # scored
    observation, _ = env.reset(seed=0)
    total = 0.0
    for _ in range(CONTEXTS):
        observation, reward, _, _, _ = env.step(choose(observation, env))
        total += reward
    return total / CONTEXTS


def test_a_small_agent_trained_on_other_users_beats_random_on_a_held_out_user(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import torch
    import train_selection

    torch.set_num_threads(1)
    model, curve, algorithm, train_users, test_users = train_selection.train(
        SPLIT, steps=STEPS, k=8, candidate_seed=0, seed=0, eval_every=10**9, quiet=True, evaluate=False,
        copies=1, n_steps=64, batch_size=64)
    assert train_users == [0, 1, 2] and test_users == [3] and model.num_timesteps >= STEPS
    assert curve == []
    rng = np.random.default_rng(0)
    masks = algorithm == "MaskablePPO"
    trained = mean_reward(lambda o, env: int(model.predict(
        o, deterministic=True, **({"action_masks": env.action_masks()} if masks else {}))[0]))
    uniform = mean_reward(lambda o, env: int(rng.integers(8)))
    assert trained > uniform + 0.03, (trained, uniform)
    sys.modules.pop("train_selection", None)
