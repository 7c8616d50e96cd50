"""The selection environment: eligible candidates, hold, the fast path equal to the batched judge."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen.envs import SELECTION_ID
from pushgen.envs.selection import outcome_generator
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.replay.scoring import sequence_probabilities

SPLIT = "pushgen-mini-v4"


def make(**kwargs):
    return gym.make(SELECTION_ID, split=SPLIT, **kwargs)


def codes_of(matrix: np.ndarray) -> dict[str, np.ndarray]:
    return {f: matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}


@pytest.mark.parametrize(("task", "user"), [(2, 3), (1, 1)])
def test_fast_path_equals_the_batched_judge_over_whole_episodes(task, user):
    """The single environment (Python floats) and the vector environment (``Judge``) agree on
    P(open) to 1e-12 and on every response drawn from the same outcome entropy, over a whole
    episode and into the next."""
    single = make(task=task, user=user, mode="expected").unwrapped
    vector = gym.make_vec(SELECTION_ID, num_envs=1, vectorization_mode="vector_entry_point",
                          split=SPLIT, users=[user], mode="expected")
    single.reset(seed=5, options={"outcome_entropy": 5})
    vector.reset(seed=5, options={"outcome_entropy": 5})
    rng = np.random.default_rng(1)
    n = single._n
    sent = 0
    for step in range(n + 1 + 50):
        if step == n:  # the vector environment's autoreset step; the single one resets itself
            vector.step(np.array([0]))
            single.reset()
            continue
        action = int(rng.choice([*range(8), 8, 8]))  # holds one step in five
        _, r, terminated, _, info = single.step(action)
        _, rv, tv, _, infos = vector.step(np.array([action]))
        assert info["p_open"] == pytest.approx(infos["p_open"][0], abs=1e-12, rel=0)
        assert info["opened"] == infos["opened"][0] and terminated == tv[0]
        assert r == pytest.approx(rv[0], abs=1e-12, rel=0)
        sent += info["sent"]
    assert sent > 0.7 * n


def test_expected_rewards_equal_the_judges_whole_sequence_probabilities():
    env = make(user=3, mode="expected").unwrapped
    env.reset(seed=0)
    rng = np.random.default_rng(2)
    slots = rng.integers(0, 8, env._n)
    rewards = [env.step(int(s))[1] for s in slots]
    rows = np.arange(env.episode.rows.start, env.episode.rows.stop)
    codes = env.slates(3).codes[np.arange(env._n), slots]
    expected = sequence_probabilities(env.replay, rows, codes_of(codes))
    np.testing.assert_allclose(rewards, expected, rtol=0, atol=1e-9)


def test_candidates_are_possible_distinct_and_the_same_for_every_policy():
    a = make(user=3, candidate_seed=7).unwrapped
    b = make(user=3, candidate_seed=7).unwrapped
    other = make(user=3, candidate_seed=8).unwrapped
    slates = a.slates(3)
    np.testing.assert_array_equal(slates.codes, b.slates(3).codes)
    assert (slates.codes != other.slates(3).codes).any()
    has_app = a.replay.parameters.has_app[a.replay.parameters.rows(np.array([3]))[0]]
    flat = slates.codes.reshape(-1, len(NOTIFICATION_FEATURES))
    assert pushgen.is_possible(codes_of(flat), has_app).all()
    assert slates.mask.all()
    for row in slates.codes[:200]:
        assert len({tuple(c) for c in row}) == 8
    # what a policy sends does not change what it is offered next
    a.reset(seed=0)
    b.reset(seed=0)
    for _ in range(30):
        oa = a.step(0)[0]
        ob = b.step(8)[0]
        np.testing.assert_array_equal(oa["candidates"], ob["candidates"])
    # every app of the user is offered somewhere; no slot is better placed than another
    assert set(np.flatnonzero(has_app)) == set(slates.codes[:, :, 0].ravel().tolist())
    p = 1 / (1 + np.exp(-slates.static))
    spread = p.std() / np.sqrt(len(p))
    assert np.abs(p.mean(axis=0) - p.mean()).max() < 4 * spread


def test_observation_space_and_sb3_checker():
    env = make(user=3)
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert env.action_space == gym.spaces.Discrete(9)
    assert "candidate_p" not in info
    assert observation["candidates"].shape == (56,)
    assert observation["hours_since_last"].dtype == np.float32
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env
    check_env(make(user=3).unwrapped, warn=False)


def test_hold_earns_nothing_changes_nothing_and_cost_is_paid_per_send():
    env = make(user=3, cost=0.1, candidate_p_in_info=True, mode="expected").unwrapped
    _, info = env.reset(seed=0)
    before = info["candidate_p"]
    observation, reward, _, _, info = env.step(8)
    assert reward == 0.0 and not info["sent"] and info["slot"] == -1 and info["p_open"] == 0.0
    assert observation["hours_since_last"][0] > 0
    _, reward, _, _, info = env.step(2)
    assert info["sent"] and reward == pytest.approx(info["p_open"] - 0.1, abs=1e-15)
    assert 0.0 < info["p_open"] < 1.0
    assert len(before) == 8 and (before > 0).all()
    assert info["metrics"]["sends"] == 1


def test_candidate_p_is_the_p_open_of_the_candidate_sent():
    env = make(user=3, candidate_p_in_info=True, mode="expected").unwrapped
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(3)
    for _ in range(300):
        p = info["candidate_p"]
        slot = int(rng.integers(0, 8))
        _, _, _, _, info = env.step(slot)
        assert info["p_open"] == pytest.approx(p[slot], abs=1e-15)


def test_fatigue_lowers_p_open_and_stationary_freezes_the_fresh_state():
    dynamic = make(user=3, candidate_p_in_info=True, mode="expected").unwrapped
    frozen = make(user=3, candidate_p_in_info=True, stationary=True, mode="expected").unwrapped
    dynamic.reset(seed=0)
    frozen.reset(seed=0)
    fresh = 1 / (1 + np.exp(-dynamic.slates(3).static))
    ratios = []
    for i in range(400):
        _, _, _, _, info_d = dynamic.step(0)
        _, _, _, _, info_f = frozen.step(0)
        assert info_f["p_open"] == pytest.approx(fresh[i, 0], abs=1e-12)
        assert info_d["p_open"] <= info_f["p_open"] + 1e-12
        ratios.append(info_d["p_open"] / info_f["p_open"])
    assert np.mean(ratios) < 0.95  # sending every time tires the user


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"k": 0}, "k (candidates per context) must be a whole number from 1 to 64; got 0"),
    ({"k": "8"}, "k (candidates per context)"),
    ({"k": 65}, "got 65"),
    ({"candidate_seed": -1}, "candidate_seed must be a whole number >= 0; got -1"),
    ({"candidate_seed": 1.5}, "candidate_seed"),
    ({"cost": -0.5}, "cost (per notification sent) must be a finite number >= 0; got -0.5"),
    ({"cost": float("nan")}, "cost"),
    ({"stationary": "yes"}, "stationary must be True or False; got 'yes'"),
    ({"candidate_p_in_info": 1}, "candidate_p_in_info must be True or False"),
    ({"mode": "mean"}, "mode must be one of expected, sampled; got 'mean'"),
])
def test_bad_options_are_one_line_errors_naming_the_parameter(kwargs, message):
    with pytest.raises(ValueError) as error:
        make(user=3, **kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_bad_actions_are_refused():
    env = make(user=3, k=4).unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 5 is outside 0..4 \(slots 0..3, 4 = hold\)"):
        env.step(5)
    with pytest.raises(ValueError, match="an action is a whole number"):
        env.step(1.0)
    assert env.action_masks().tolist() == [True] * 5


@settings(max_examples=8, deadline=None)
@given(k=st.integers(1, 12), seed=st.integers(0, 2**31))
def test_any_k_and_seed_give_k_possible_distinct_candidates(k, seed):
    env = make(user=3, k=k, candidate_seed=seed).unwrapped
    observation, _ = env.reset()
    assert env.observation_space.contains(observation)
    codes = env.candidate_codes(0)
    assert codes.shape == (k, 7) and len({tuple(c) for c in codes}) == k
    has_app = env.replay.parameters.has_app[env.replay.parameters.rows(np.array([3]))[0]]
    assert pushgen.is_possible(codes_of(codes), has_app).all()


def public_predictions(env, seed: int, steps: int) -> tuple[list[bool], dict[str, list[bool]], float]:
    """``steps`` sends of slot 0 after ``reset(seed=seed)``: the responses, what each stream a
    policy could derive from the public seed predicts for them, and how many of them a guess
    drawn apart from the responses agrees with, in expectation (sum of p^2 + (1 - p)^2)."""
    env.reset(seed=seed)
    streams = {"np_random": copy.deepcopy(env.np_random), "seed": np.random.default_rng(seed),
               "seed and stream": outcome_generator(seed)}
    opened: list[bool] = []
    predicted: dict[str, list[bool]] = {name: [] for name in streams}
    chance = 0.0
    for _ in range(steps):
        p = env.candidate_probabilities()[0]
        for name, stream in streams.items():
            predicted[name].append(stream.random() < p)
        chance += p**2 + (1 - p) ** 2
        opened.append(env.step(0)[4]["opened"])
    return opened, predicted, chance


def test_a_policy_knowing_every_public_seed_predicts_no_outcome_better_than_chance():
    """Outcomes come from entropy drawn at reset: the same public seed gives other draws, and
    no stream derived from it agrees with the responses more often than chance does."""
    env = make(user=0, candidate_p_in_info=True).unwrapped
    agree = {name: 0 for name in ("np_random", "seed", "seed and stream")}
    chance, n = 0.0, 0
    for seed in range(3):
        opened, predicted, expected = public_predictions(env, seed, 300)
        for name, guesses in predicted.items():
            agree[name] += sum(g == o for g, o in zip(guesses, opened, strict=True))
        chance += expected
        n += len(opened)
    for name, count in agree.items():
        assert count < chance + 4 * np.sqrt(n * 0.25), name
    first, _, _ = public_predictions(env, 7, 200)
    second, _, _ = public_predictions(env, 7, 200)
    assert first != second  # the same public seed, other outcomes


def test_the_scorer_replays_a_run_from_its_recorded_outcome_entropy():
    env = make(user=0, candidate_p_in_info=True).unwrapped
    env.reset(seed=1)
    entropy = env.outcome_entropy
    assert entropy >= 2**64  # 128 bits from the operating system
    first = [env.step(0)[4]["opened"] for _ in range(200)]
    env.reset(seed=1, options={"outcome_entropy": entropy})
    assert [env.step(0)[4]["opened"] for _ in range(200)] == first
    env.reset(options={"outcome_entropy": entropy})
    private = outcome_generator(entropy)
    for _ in range(200):
        p = env.candidate_probabilities()[0]
        assert env.step(0)[4]["opened"] == (private.random() < p)  # one draw a step, after the action
    with pytest.raises(ValueError, match="outcome_entropy must be a whole number >= 0; got -1"):
        env.reset(options={"outcome_entropy": -1})


def test_the_learner_facing_mode_rewards_only_what_was_observed():
    """Sampled mode (the default): no P(open) in the info, and the reward is exactly the response
    less the cost, so a learner fed the reward learns what one fed ``opened`` learns."""
    env = make(user=3, cost=0.3).unwrapped
    assert env.mode == "sampled"
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        _, reward, _, _, info = env.step(int(rng.integers(0, 9)))
        assert "p_open" not in info and "candidate_p" not in info
        assert reward == (float(info["opened"]) - 0.3 if info["sent"] else 0.0)
    vector = gym.make_vec(SELECTION_ID, num_envs=2, vectorization_mode="vector_entry_point", split=SPLIT)
    vector.reset(seed=0)
    _, rewards, _, _, infos = vector.step(np.array([0, 1]))
    assert "p_open" not in infos and set(rewards) <= {0.0, 1.0}


def test_the_rendering_shows_p_open_only_in_the_expected_mode():
    """A learner may render its environment: in sampled mode the text names the response, never
    the P(open) of what was sent (reading it is worth +0.034 to LinUCB on pushgen-v4's cold-start
    users); the expected evaluation mode shows it, as ``info["p_open"]`` does."""
    for mode in ("sampled", "expected"):
        env = make(user=3, mode=mode, render_mode="ansi").unwrapped
        env.reset(seed=0)
        _, _, _, _, info = env.step(0)
        text = env.render()
        assert "sent [0]" in text and ("opened" in text or "dismissed" in text)
        assert ("P(open)" in text) == (mode == "expected")
        if mode == "expected":
            assert f"P(open) {info['p_open']:.3f}" in text
