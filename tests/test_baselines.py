from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import pushgen
from pushgen import schemas
from pushgen.baselines import BASELINES, LearnedPolicy, OraclePolicy, Policy, PolicyAgent, RandomPolicy
from pushgen.baselines.base import as_codes
from pushgen.baselines.candidates import distinct, notification_matrix, union
from pushgen.baselines.design import Design
from pushgen.benchmark import PolicyError, make_setting, run_episode, run_policy, task_data
from pushgen.envs import GENERATION_ID
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES, decode
from pushgen.model.engagement import open_logit

SPLIT = "pushgen-mini-v1"
SIZES = {f: len(schemas.values(f)) for f in NOTIFICATION_FEATURES}


@pytest.fixture(scope="module", params=[1, 2])
def data(request):
    return request.param, task_data(SPLIT, request.param)


@pytest.fixture(scope="module")
def runs(data):
    task, prepared = data
    return task, {name: run_policy(prepared, task, name, b.make) for name, b in BASELINES.items()}


def test_every_baseline_is_a_policy(data):
    task, prepared = data
    for name, baseline in BASELINES.items():
        policy = baseline.make(make_setting(prepared, task, name, prepared.users[0]))
        assert isinstance(policy, Policy), name


def test_every_baseline_generates_valid_codes_for_every_feature(runs):
    task, by_name = runs
    for name, user_runs in by_name.items():
        for run in user_runs:
            assert run.generated.shape == (len(run.reward), len(NOTIFICATION_FEATURES))
            for j, f in enumerate(NOTIFICATION_FEATURES):
                codes = run.generated[:, j]
                assert codes.min() >= 0 and codes.max() < SIZES[f], (task, name, f)
            decode(dict(zip(NOTIFICATION_FEATURES, run.generated[0].tolist(), strict=True)))


def test_oracle_beats_random_and_bounds_the_others(runs):
    task, by_name = runs
    mean = {name: np.mean([r.reward.mean() for r in user_runs]) for name, user_runs in by_name.items()}
    assert mean["oracle"] > mean["random"] + 0.5
    assert mean["oracle"] == max(mean.values()), (task, mean)
    assert mean["learned"] > mean["random"]


def test_oracle_picks_the_argmax_of_the_true_engagement_model(data):
    task, prepared = data
    user = prepared.users[0]
    setting = make_setting(prepared, task, "oracle", user)
    oracle = OraclePolicy(setting)
    history = prepared.history(user)
    oracle.fit(history)
    episode = prepared.part.episode(user)
    rows = np.linspace(0, len(episode) - 1, 40).astype(int)
    contexts = {f: episode.codes[f][rows] for f in CONTEXT_FEATURES}
    chosen = oracle.act(contexts)
    candidates = union(notification_matrix(history), setting.pool, setting.truth.own)
    params = setting.truth.parameters
    for k, row in enumerate(rows):
        codes = {f: np.full(len(candidates), contexts[f][k]) for f in CONTEXT_FEATURES}
        codes.update(as_codes(candidates))
        state = episode.truth.state.take(np.full(len(candidates), row))
        logit = open_logit(params, np.full(len(candidates), episode.parameter_row), codes, state)
        best = logit.max()
        picked = next(i for i, c in enumerate(candidates)
                      if all(c[j] == chosen[f][k] for j, f in enumerate(NOTIFICATION_FEATURES)))
        assert logit[picked] == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("name", ["bandit", "random"])
def test_batch_runner_equals_stepping_the_environment(name):
    prepared = task_data(SPLIT, 2)
    user = prepared.users[0]
    make = BASELINES[name].make
    batch = run_episode(make(make_setting(prepared, 2, name, user)), prepared.part.episode(user),
                        prepared.history(user), 2)
    env = gym.make(GENERATION_ID, split=SPLIT, task=2, user=user, history_in_info=False)
    agent = PolicyAgent(make(make_setting(prepared, 2, name, user)))
    observation, info = env.reset(seed=0)
    rewards, generated, done = [], [], False
    while not done:
        action = agent(observation, info)
        generated.append([action[f] for f in NOTIFICATION_FEATURES])
        observation, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        done = terminated or truncated
    env.close()
    assert np.array_equal(np.array(generated), batch.generated)
    assert np.array_equal(np.array(rewards), batch.reward)
    assert info["metrics"]["mean_reward"] == pytest.approx(batch.reward.mean(), rel=1e-12)


def test_batch_runner_agrees_with_the_evaluator():
    prepared = task_data(SPLIT, 1)
    runs = run_policy(prepared, 1, "context-frequency", BASELINES["context-frequency"].make)
    part = prepared.part
    frames = []
    for run in runs:
        rows = part.rows_of(run.user_id)
        frame = pd.DataFrame({f: np.asarray(schemas.values(f), dtype=object)[run.generated[:, j]]
                              for j, f in enumerate(NOTIFICATION_FEATURES)})
        frames.append(frame.assign(context_id=part.context_ids[rows]))
    result = pushgen.evaluate(SPLIT, task=1, submission=pd.concat(frames, ignore_index=True))
    for run in runs:
        assert result.per_user.loc[run.user_id, "mean_reward"] == pytest.approx(run.reward.mean(),
                                                                                 rel=1e-12)


def test_the_bandit_learns_online():
    prepared = task_data(SPLIT, 2)
    (run,) = run_policy(prepared, 2, "bandit", BASELINES["bandit"].make)
    quarter = len(run.reward) // 4
    assert run.reward[-quarter:].mean() > run.reward[:quarter].mean() + 0.05


def test_the_diversity_knob_trades_reward_for_variety():
    prepared = task_data(SPLIT, 1)
    greedy = run_policy(prepared, 1, "learned", LearnedPolicy)
    diverse = run_policy(prepared, 1, "learned", lambda s: LearnedPolicy(s, temperature=1.0))
    variety = [len(np.unique(r.generated, axis=0)) for r in (*greedy, *diverse)]
    assert min(variety[len(greedy):]) > max(variety[: len(greedy)])
    assert np.mean([r.reward.mean() for r in diverse]) < np.mean([r.reward.mean() for r in greedy])


def test_random_draws_the_same_in_batches_and_steps():
    prepared = task_data(SPLIT, 1)
    user = prepared.users[0]
    contexts = {f: prepared.part.episode(user).codes[f][:30] for f in CONTEXT_FEATURES}
    whole = RandomPolicy(make_setting(prepared, 1, "random", user)).act(contexts)
    stepper = RandomPolicy(make_setting(prepared, 1, "random", user))
    steps = [stepper.act({f: c[i:i + 1] for f, c in contexts.items()}) for i in range(30)]
    for f in NOTIFICATION_FEATURES:
        assert np.array_equal(whole[f], np.concatenate([s[f] for s in steps]))


class Broken:
    def fit(self, history):
        return None

    def act(self, contexts):
        n = len(contexts["day"])
        return {f: np.full(n, SIZES[f] if f == "priority" else 0) for f in NOTIFICATION_FEATURES}

    def update(self, contexts, notifications, opened):
        return None


def test_invalid_codes_from_a_policy_are_named():
    with pytest.raises(PolicyError, match=r"priority code 6, outside 0\.\.5"):
        run_policy(SPLIT, 2, "broken", lambda setting: Broken())


def test_the_diversity_sampler_draws_from_the_softmax_of_the_scores():
    design = Design()
    prepared = task_data(SPLIT, 1)
    user = prepared.users[0]
    candidates = distinct(notification_matrix(prepared.history(user)))[0][:50]
    rng = np.random.default_rng(1)
    weights = rng.normal(0, 1, design.size)
    episode = prepared.part.episode(user)
    n = 40_000
    contexts = {f: np.full(n, episode.codes[f][7]) for f in CONTEXT_FEATURES}
    drawn = design.sample(weights, candidates, contexts, 0.7, rng.random(n))
    scores = design.scores(weights, candidates, {f: c[:1] for f, c in contexts.items()})[0] / 0.7
    expected = np.exp(scores - scores.max())
    expected /= expected.sum()
    observed = np.bincount(drawn, minlength=len(candidates)) / n
    assert np.abs(observed - expected).max() < 0.015
