"""The native vector environment steps like the single environments it stands for."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from pushgen import schemas
from pushgen.envs import GENERATION_ID
from pushgen.envs.spaces import NOTIFICATION_FEATURES

SPLIT = "pushgen-mini-v4"


@pytest.mark.parametrize("mode", ["expected", "sampled"])
def test_rewards_equal_single_environments_step_by_step_across_autoreset(mode):
    """Given outcome entropy E, environment i steps as a single environment given E + i (its
    stream goes on across the autoreset); P(open) is shown in the expected mode only."""
    vector = gym.make_vec(GENERATION_ID, num_envs=4, vectorization_mode="vector_entry_point",
                          split=SPLIT, task=1, mode=mode)
    users = list(vector.unwrapped.users)
    assert users == [0, 1, 2, 0]  # round-robin over the task's test users
    singles = [gym.make(GENERATION_ID, split=SPLIT, task=1, user=int(u), history_in_info=False,
                        mode=mode).unwrapped for u in users]
    observation, _ = vector.reset(seed=0, options={"outcome_entropy": 20})
    single_observations = [env.reset(seed=0, options={"outcome_entropy": 20 + i})[0]
                           for i, env in enumerate(singles)]
    streams = [env._outcomes for env in singles]  # the vector env's stream goes on after autoreset
    lengths = vector.unwrapped._length
    rng = np.random.default_rng(0)
    catalog = [env.episode for env in singles]
    done = np.zeros(4, dtype=bool)
    resets = 0
    for step in range(int(lengths.min()) + 5):  # past the end of the shortest episode
        for i in range(len(singles)):
            assert {f: int(observation[f][i]) for f in observation} == single_observations[i]
        # mostly logged notifications of the users (possible), sometimes anything
        pick = rng.integers(0, 50, 4)
        action = {f: np.array([int(catalog[i].codes[f][pick[i]]) for i in range(4)])
                  for f in NOTIFICATION_FEATURES}
        if step % 7 == 0:
            action = {f: np.asarray(v) for f, v in vector.action_space.sample().items()}
        observation, reward, terminated, truncated, infos = vector.step(action)
        for i, env in enumerate(singles):
            if done[i]:  # next-step autoreset: the vector env resets, the action is ignored
                assert reward[i] == 0.0 and not terminated[i] and not infos["_opened"][i]
                single_observations[i] = env.reset(seed=0)[0]
                env._outcomes = streams[i]
                done[i] = False
                resets += 1
                continue
            single_observations[i], r, t, _, info = env.step({f: action[f][i] for f in action})
            assert reward[i] == pytest.approx(r, abs=1e-12) and bool(terminated[i]) == t
            assert infos["opened"][i] == info["opened"]
            if mode == "expected":
                assert infos["p_open"][i] == pytest.approx(info["p_open"], abs=1e-12)
            else:
                assert "p_open" not in infos and "p_open" not in info
            done[i] = t
        assert not truncated.any()
    assert resets >= 1


def test_flat_actions_are_multidiscrete_in_schema_order():
    single = gym.make(GENERATION_ID, split=SPLIT, task=1, user=0, flat_actions=True)
    assert isinstance(single.action_space, gym.spaces.MultiDiscrete)
    np.testing.assert_array_equal(single.action_space.nvec,
                                  [len(schemas.values(f)) for f in NOTIFICATION_FEATURES])
    assert list(single.action_space.nvec[[0, 4]]) == [len(schemas.values("postingApp")), 6]
    dict_env = gym.make(GENERATION_ID, split=SPLIT, task=1, user=0)
    single.reset(seed=0, options={"outcome_entropy": 3})
    dict_env.reset(seed=0, options={"outcome_entropy": 3})
    episode = dict_env.unwrapped.episode
    for k in range(20):
        codes = [int(episode.codes[f][k]) for f in NOTIFICATION_FEATURES]
        _, flat_reward, *_ = single.step(np.array(codes))
        _, dict_reward, *_ = dict_env.step(dict(zip(NOTIFICATION_FEATURES, codes, strict=True)))
        assert flat_reward == dict_reward
    with pytest.raises(ValueError, match=r"a flat action is an array of shape \(7,\)"):
        single.unwrapped.step(np.zeros(6, dtype=np.int64))
    with pytest.raises(ValueError, match="whole-number codes; got dtype float64"):
        single.unwrapped.step(np.zeros(7))


def test_the_env_checker_accepts_the_flat_environment():
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make(GENERATION_ID, split=SPLIT, task=1, user=0, flat_actions=True).unwrapped,
              skip_render_check=True)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_envs": 0}, "num_envs must be a whole number >= 1"),
    ({"num_envs": 2, "users": [99]}, "user 99 is not in"),
])
def test_bad_vector_arguments_are_named(kwargs, message):
    with pytest.raises(Exception, match=message):
        gym.make_vec(GENERATION_ID, vectorization_mode="vector_entry_point", split=SPLIT, task=1, **kwargs)


def test_bad_vector_actions_are_named():
    envs = gym.make_vec(GENERATION_ID, num_envs=2, vectorization_mode="vector_entry_point", split=SPLIT,
                        task=1, flat_actions=True)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2, 7\)"):
        envs.step(np.zeros((3, 7), dtype=np.int64))
    bad = np.zeros((2, 7), dtype=np.int64)
    bad[1, 4] = 6
    with pytest.raises(ValueError, match=r"action priority: code 6 is outside 0\.\.5"):
        envs.step(bad)


def test_single_fast_path_equals_the_batched_judge_over_a_whole_sampled_episode():
    """The single environment follows the user in Python floats, the vector one with ``Judge``:
    P(open) within 1e-12 (expected mode) and, from the same outcome entropy, the same sampled
    responses and rewards over a whole episode."""
    from pushgen.envs.online import PossibleNotifications, apps_of

    single = gym.make(GENERATION_ID, split=SPLIT, user=3, history_in_info=False).unwrapped
    vector = gym.make_vec(GENERATION_ID, num_envs=1, vectorization_mode="vector_entry_point",
                          split=SPLIT, users=[3])
    evaluation = gym.make_vec(GENERATION_ID, num_envs=1, vectorization_mode="vector_entry_point",
                              split=SPLIT, users=[3], mode="expected")
    single.reset(seed=0, options={"outcome_entropy": 8})
    vector.reset(seed=0, options={"outcome_entropy": 8})
    evaluation.reset(seed=0)
    possible = PossibleNotifications(apps_of(single.replay, 3)).matrix
    rng = np.random.default_rng(4)
    for step in range(single._n):
        codes = possible[rng.integers(len(possible))] if step % 9 else vector.action_space.sample()
        action = ({f: int(codes[j]) for j, f in enumerate(NOTIFICATION_FEATURES)} if step % 9
                  else {f: int(v[0]) for f, v in codes.items()})
        _, r, terminated, _, info = single.step(action)
        _, rv, tv, _, infos = vector.step({f: np.array([c]) for f, c in action.items()})
        p = evaluation.step({f: np.array([c]) for f, c in action.items()})[4]["p_open"][0]
        assert single._last[2] == pytest.approx(p, abs=1e-12, rel=0)
        assert r == rv[0] and info["opened"] == infos["opened"][0] and terminated == tv[0]
    assert terminated
