"""stable-baselines3 and sb3-contrib on the selection environment: the action masks through the
wrappers ``gym.make`` adds, and the native vector environment through ``pushgen.envs.sb3``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from pushgen.envs import SELECTION_ID

pytest.importorskip("sb3_contrib", reason="needs the rl extra: pip install 'pushgen[rl]'")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from pushgen.envs.sb3 import SB3VecEnv

SPLIT = "pushgen-mini-v4"


@pytest.fixture(autouse=True)
def one_torch_thread():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small networks: threads cost more than they give
    yield
    torch.set_num_threads(threads)


def vector(num_envs: int, **kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(SELECTION_ID, num_envs=num_envs, vectorization_mode="vector_entry_point",
                        split=SPLIT, **kwargs)


def test_action_masks_are_reached_through_the_wrappers_of_gym_make():
    env = gym.make(SELECTION_ID, split=SPLIT, user=3)
    env.reset(seed=0)
    with pytest.raises(AttributeError):
        env.action_masks()  # gymnasium's wrappers forward no attributes
    expected = env.unwrapped.action_masks()
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), expected)
    assert is_masking_supported(env) and np.array_equal(get_action_masks(env), expected)
    # MaskablePPO finds the masks on its own: its rollouts never send an empty slot (which raises)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps == 128


def test_the_adapter_resets_in_the_step_that_ends_an_episode():
    native = vector(2, task=2)
    envs = SB3VecEnv(native)
    assert envs.num_envs == 2 and envs.observation_space == native.single_observation_space
    envs.seed(5)
    first = envs.reset()
    assert envs.reset_infos[0]["user_id"] == 3
    first_masks = envs.env_method("action_masks")
    assert np.array_equal(np.stack(first_masks), native.action_masks())
    length = len(native.unwrapped.replay.episode(3))
    hold = np.full(2, native.unwrapped.k)
    for _ in range(length - 1):
        envs.step_async(hold)
        observation, reward, done, infos = envs.step_wait()
        assert not done.any() and (reward == 0).all()
    envs.step_async(hold)
    observation, reward, done, infos = envs.step_wait()
    assert done.all()
    last = infos[0]["terminal_observation"]
    assert last["hours_since_last"][0] == 168.0  # nothing sent all episode: the cap
    for name, value in observation.items():
        assert np.array_equal(value, first[name]), name
    assert np.array_equal(np.stack(envs.env_method("action_masks")), np.stack(first_masks))
    assert envs.get_attr("action_masks") and envs.has_attr("action_masks")
    # the native environment's own reset step: no reward, the first context again, then on
    first_slot = np.flatnonzero(first_masks[0])[0]
    envs.step_async(np.full(2, first_slot))
    observation, reward, done, infos = envs.step_wait()
    assert (reward == 0).all() and not done.any()
    assert np.array_equal(observation["candidates"], first["candidates"])
    envs.step_async(np.full(2, first_slot))
    _, reward, _, infos = envs.step_wait()
    # sampled: the reward is the response, opened or not
    assert set(reward.tolist()) <= {0.0, 1.0} and all(info["sent"] for info in infos)
    assert [float(r) for r in reward] == [float(info["opened"]) for info in infos]
    envs.close()


def held_out_reward(choose) -> float:
    """Mean reward per context over the whole episode of task 2's held-out user, in the evaluation
    mode (expected: P(open) of what is sent, so a fixed policy is scored without sampling noise)."""
    env = vector(1, task=2, mode="expected")
    observation, _ = env.reset(seed=0)
    total, steps = 0.0, 0
    while True:
        observation, reward, terminated, _, _ = env.step(choose(observation, env.action_masks()))
        total, steps = total + float(reward[0]), steps + 1
        if terminated[0]:
            return total / steps


def test_maskable_ppo_trained_through_the_adapter_beats_random_on_a_held_out_user():
    from pushgen.baselines.slot_scorer import read_scores, slot_policy_kwargs

    envs = SB3VecEnv(vector(12, task=1))  # the three training users, four environments each
    envs.seed(0)
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=64, batch_size=256, n_epochs=4, learning_rate=1e-3,
                        gamma=0.9, ent_coef=0.01, seed=0, device="cpu", policy_kwargs=slot_policy_kwargs())
    read_scores(model)
    model.learn(6144)
    rng = np.random.default_rng(0)
    trained = held_out_reward(lambda o, masks: model.predict(o, action_masks=masks, deterministic=True)[0])
    uniform = held_out_reward(lambda o, masks: np.array([rng.choice(np.flatnonzero(masks[0]))]))
    assert trained > uniform + 0.03, (trained, uniform)
