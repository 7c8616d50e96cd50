"""The generation environment's responses: drawn from per-reset entropy, never the true P(open)."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

import pushgen
from pushgen.envs import GENERATION_ID
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.replay.outcomes import outcome_generator
from pushgen.replay.scoring import sequence_probabilities

SPLIT = "pushgen-mini-v4"
gym.register_envs(pushgen)


def logged(env, i: int) -> dict[str, int]:
    return {f: int(env.episode.codes[f][i]) for f in NOTIFICATION_FEATURES}


def public_predictions(env, seed: int, steps: int, p: np.ndarray) -> tuple[list[bool], dict[str, list[bool]]]:
    """The responses to the user's logged notifications after ``reset(seed=seed)``, and each
    public stream's guess of them (a draw below the notification's P(open), ``p``)."""
    env.reset(seed=seed)
    streams = {"np_random": copy.deepcopy(env.np_random), "seed": np.random.default_rng(seed),
               "seed and stream": outcome_generator(seed)}
    predicted: dict[str, list[bool]] = {name: [] for name in (*streams, "split's own draw")}
    opened = []
    for i in range(steps):
        for name, stream in streams.items():
            predicted[name].append(bool(stream.random() < p[i]))
        predicted["split's own draw"].append(bool(env.episode.draw[i] < p[i]))
        opened.append(bool(env.step(logged(env, i))[4]["opened"]))
    return opened, predicted


def test_a_policy_knowing_every_public_seed_predicts_no_outcome_better_than_chance():
    """Responses come from entropy drawn at each reset: no stream derived from the public reset
    seed, nor the split's own draws (the ground truth behind the logged actions), agrees with
    them more often than a guess drawn apart from them does."""
    env = gym.make(GENERATION_ID, split=SPLIT, user=3).unwrapped
    steps = 300
    rows = np.arange(env.episode.rows.start, env.episode.rows.start + steps)
    p = sequence_probabilities(env.replay, rows, {f: c[:steps] for f, c in env.episode.codes.items()
                                                  if f in NOTIFICATION_FEATURES})
    assert 0.1 < p.mean() < 0.9
    chance_per_episode = float(np.sum(p**2 + (1 - p) ** 2))
    agree: dict[str, int] = {}
    episodes = 4
    for seed in range(episodes):
        opened, predicted = public_predictions(env, seed, steps, p)
        for name, guesses in predicted.items():
            agree[name] = agree.get(name, 0) + sum(g == o for g, o in zip(guesses, opened, strict=True))
    chance, spread = episodes * chance_per_episode, np.sqrt(episodes * steps * 0.25)
    assert len(agree) == 4
    for name, count in agree.items():
        assert count < chance + 4 * spread, (name, count, chance)
    first, _ = public_predictions(env, 7, 200, p)
    second, _ = public_predictions(env, 7, 200, p)
    assert first != second  # the same public seed, other responses


def test_sampled_mode_shows_no_p_open_and_rewards_only_the_response():
    env = gym.make(GENERATION_ID, split=SPLIT, user=3)
    assert env.unwrapped.mode == "sampled"
    _, info = env.reset(seed=0)
    for i in range(200):
        _, reward, _, _, info = env.step(logged(env.unwrapped, i))
        assert "p_open" not in info
        assert reward == {(True, True): 1.0, (True, False): -1.0, (False, True): 2.0,
                          (False, False): 0.0}[(info["logged_opened"], info["opened"])]
    assert np.isnan(info["history"].p_open).all() and "P(open)" not in (env.unwrapped.render() or "")
    vector = gym.make_vec(GENERATION_ID, num_envs=2, vectorization_mode="vector_entry_point", split=SPLIT)
    vector.reset(seed=0)
    _, rewards, _, _, infos = vector.step(vector.action_space.sample())
    assert "p_open" not in infos and set(rewards) <= {-1.0, 0.0, 1.0, 2.0}


def test_the_scorer_replays_a_run_from_its_outcome_entropy():
    env = gym.make(GENERATION_ID, split=SPLIT, user=3).unwrapped
    env.reset(seed=1)
    entropy = env.outcome_entropy
    assert entropy >= 2**64  # 128 bits from the operating system
    first = [env.step(logged(env, i))[4]["opened"] for i in range(200)]
    env.reset(seed=1)
    assert env.outcome_entropy != entropy  # drawn afresh at every reset
    env.reset(seed=2, options={"outcome_entropy": entropy})
    assert [env.step(logged(env, i))[4]["opened"] for i in range(200)] == first
    with pytest.raises(ValueError, match="outcome_entropy must be a whole number >= 0; got 'x'"):
        env.reset(options={"outcome_entropy": "x"})
