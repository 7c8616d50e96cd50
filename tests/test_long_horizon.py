"""The long-horizon task: pushgen/LongHorizon-v0, its baselines and its leaderboard."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from scripts_loader import script

import pushgen  # noqa: F401  (registers the environments)
from pushgen.baselines.base import Policy
from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting, horizon_bound
from pushgen.benchmark.long_horizon import Options, markdown, outcome_entropy, play, run_board, users
from pushgen.envs import LONG_HORIZON_ID
from pushgen.envs.horizon import playable_apps
from pushgen.envs.long_horizon import LongHorizonEnv

SPLIT = "pushgen-mini-v4"
USER = 3


@pytest.fixture(scope="module")
def env() -> LongHorizonEnv:
    return LongHorizonEnv(SPLIT, user=USER, horizon_days=10)


def policy(env: LongHorizonEnv, name: str, **knobs) -> Policy:
    made = HORIZON_BASELINES[name]
    return made.make(HorizonSetting(env.k, np.random.SeedSequence(1), **knobs,
                                    env=env if made.reads_truth else None))


def run(env: LongHorizonEnv, chooser, entropy: int) -> list[tuple]:
    """One episode: per step (action, reward, terminated, info's turned_off), and the env after it."""
    observation, _ = env.reset(options={"outcome_entropy": entropy})
    steps = []
    while True:
        action = chooser(observation)
        observation, reward, terminated, _, info = env.step(action)
        steps.append((action, reward, terminated, info["turned_off"], info["opened"]))
        if terminated:
            return steps


def hammer(env: LongHorizonEnv):
    """Send the first allowed slot every time."""
    return lambda observation: int(np.flatnonzero(env.action_masks())[0])


def test_registered_and_passes_check_env():
    made = gym.make(LONG_HORIZON_ID, split=SPLIT, user=USER, horizon_days=3)
    check_env(made.unwrapped, skip_render_check=True)
    observation, info = made.reset(seed=0)
    assert made.observation_space.contains(observation)
    assert info["app"] == playable_apps(made.unwrapped.replay, USER)[0]
    assert "annoyance" not in observation and "tolerance" not in observation


def test_the_user_turning_the_app_off_ends_the_episode(env):
    for entropy in range(20):
        steps = run(env, hammer(env), entropy)
        event = steps[-1][3]
        if event is not None and event["event"] in ("app_off", "abandoned"):
            break
    else:
        pytest.fail("no app turned off in 20 episodes of sending at every context")
    assert steps[-1][2] and event["day"] < 10 and len(steps) < env.terms.n
    assert all(step[3] is None or step[3]["event"] == "channel_off" for step in steps[:-1])
    with pytest.raises(gym.error.ResetNeeded):
        env.step(env.hold)


def test_a_channel_turned_off_masks_its_candidates(env):
    for entropy in range(60):
        observation, _ = env.reset(options={"outcome_entropy": entropy})
        while True:
            observation, _, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if terminated or info["turned_off"] is not None:
                break
        if info["turned_off"] is not None and info["turned_off"]["event"] == "channel_off" and not terminated:
            break
    else:
        pytest.fail("no channel turned off in 60 episodes")
    channel = info["turned_off"]["channel"]
    assert info["channels_off"] == [channel]
    assert observation["channels_on"][env.terms.channels.index(channel)] == 0
    i = env.next_context
    for j in range(env.k):
        if env.terms.channel[i][j] == channel:
            assert not env.action_masks()[j] and observation["candidate_mask"][j] == 0
            with pytest.raises(ValueError, match="masked slot"):
                env.step(j)
    off = [env.terms.channel[i][j] == channel for j in range(env.k)]
    assert env.candidate_probabilities()[off].sum() == 0


def test_no_hazard_below_the_tolerance(env):
    """A policy that keeps the annoyance below the tolerance never loses the app."""
    for entropy in range(3):
        below = policy(env, "planner", theta=0.0, rho=1.0)
        steps = run(env, below.act, entropy)
        assert len(steps) == env.terms.n and all(step[3] is None for step in steps)
        assert sum(step[0] != env.hold for step in steps) > 50  # it did send


def test_the_same_entropy_replays_the_episode(env):
    first = run(env, policy(env, "random").act, 123)
    again = run(env, policy(env, "random").act, 123)
    other = run(env, policy(env, "random").act, 124)
    assert first == again and first != other


def test_public_seeds_do_not_predict_outcomes(env):
    """Two episodes from the same public seed, the same sends: other entropy, other outcomes."""
    runs = []
    for _ in range(2):
        env.reset(seed=5)
        opened, terminated = [], False
        while not terminated and len(opened) < 300:
            _, _, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            opened.append(info["opened"])
        runs.append((env.outcome_entropy, opened))
    assert runs[0][0] != runs[1][0] and runs[0][1] != runs[1][1]


def test_observations_are_the_agents_own(env):
    observation, _ = env.reset(options={"outcome_entropy": 1})
    kept = {key: np.array(value, copy=True) for key, value in observation.items()}
    for value in observation.values():
        if isinstance(value, np.ndarray):
            value[...] = 0
    observation, _ = env.reset(options={"outcome_entropy": 1})
    assert all(np.array_equal(np.asarray(observation[key]), kept[key]) for key in kept)


def test_candidate_history_counts_the_apps_own_sends_by_channel_and_subject(env):
    observation, _ = env.reset(options={"outcome_entropy": 3})
    assert np.array_equal(observation["candidate_history"], np.tile([0.0, 0.5, 0.0, 0.5], (env.k, 1)))
    sent: list[tuple[int, int, bool]] = []
    for _ in range(40):
        i, slot = env.next_context, int(np.flatnonzero(env.action_masks())[0])
        keys = (env.terms.channel[i][slot], env.terms.subject[i][slot])
        observation, _, terminated, _, info = env.step(slot)
        sent.append((*keys, info["opened"]))
        if terminated:
            break
    i = env.next_context
    for j in range(env.k):
        rows = [[opened for c, _, opened in sent if c == env.terms.channel[i][j]],
                [opened for _, s, opened in sent if s == env.terms.subject[i][j]]]
        expected = [v for opens in rows for v in (len(opens), (sum(opens) + 1) / (len(opens) + 2))]
        assert observation["candidate_history"][j] == pytest.approx(expected)
    assert env.observation_space.contains(observation)


@pytest.mark.parametrize("name", ["slot-0", "random", "history-cap", "greedy", "threshold", "planner",
                                  "linucb"])
@pytest.mark.parametrize("send_cost", [0.0, 0.2])
def test_no_policy_beats_the_bound(name, send_cost):
    env = LongHorizonEnv(SPLIT, user=USER, horizon_days=5, send_cost=send_cost)
    bound = horizon_bound(env)
    for replicate in range(2):
        knobs = {"theta": 0.2, "rho": 0.8} if name in ("threshold", "planner") else {}
        made = policy(env, name, **knobs)
        assert isinstance(made, Policy)  # the one policy interface
        _, expected, _ = play(env, made, outcome_entropy(USER, replicate, 0))
        assert expected <= bound + 1e-9  # trajectory by trajectory: the sends' P(open) less their cost


@settings(max_examples=15, deadline=None)
@given(send_rate=st.floats(0, 1), entropy=st.integers(0, 2**64))
def test_no_random_sender_beats_the_bound(env, send_rate, entropy):
    rng = np.random.default_rng(entropy % 1000)
    bound = horizon_bound(env)
    env.reset(options={"outcome_entropy": entropy})
    expected, terminated = 0.0, False
    while not terminated:
        allowed = np.flatnonzero(env.action_masks())
        action = int(rng.choice(allowed)) if rng.random() < send_rate else env.hold
        _, _, terminated, _, info = env.step(action)
        expected += env.last_p_open - env.send_cost if info["sent"] else 0.0
    assert expected <= bound + 1e-9


@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_random_rate_sends_at_its_rate(env, rate):
    made = policy(env, "random", rate=rate)
    observation, _ = env.reset(options={"outcome_entropy": 9})
    sends = holds = 0
    for _ in range(600):
        action = made.act(observation)
        observation, _, terminated, _, info = env.step(action)
        sends, holds = sends + info["sent"], holds + (not info["sent"])
        if terminated:
            break
    share = sends / (sends + holds)
    assert abs(share - rate) < 4 * np.sqrt(rate * (1 - rate) / (sends + holds)) + 0.02


def test_history_cap_sends_the_best_observed_rate_under_its_cap(env):
    made = policy(env, "history-cap", cap=3)
    observation, _ = env.reset(options={"outcome_entropy": 11})
    terminated = False
    while not terminated:
        history = observation["candidate_history"]
        action = made.act(observation)
        if action != env.hold:
            allowed = np.flatnonzero(observation["candidate_mask"])
            best = np.maximum(history[allowed, 1], history[allowed, 3]).max()
            assert max(history[action, 1], history[action, 3]) == pytest.approx(best)
            assert observation["app_counts"][0] < 3
        observation, _, terminated, _, _ = env.step(action)
        assert observation["app_counts"][0] <= 3  # sends in the last 24 hours


def test_bad_options_are_one_line_errors():
    with pytest.raises(ValueError, match="horizon_days must be"):
        LongHorizonEnv(SPLIT, user=USER, horizon_days=0)
    for days in (1e308, 3660.5):  # 1e308 passes float32's range, which the observation space holds
        with pytest.raises(ValueError, match=r"^horizon_days must be a number of days above 0 and at most "
                                             r"3660 \(the longest dataset\); got "):
            LongHorizonEnv(SPLIT, user=USER, horizon_days=days)
    assert LongHorizonEnv(SPLIT, user=USER, horizon_days=3660).horizon_days == 3660
    with pytest.raises(ValueError, match="app must be one user 3 can play"):
        LongHorizonEnv(SPLIT, user=USER, app="com.whatsapp")
    with pytest.raises(ValueError, match="cost"):
        LongHorizonEnv(SPLIT, user=USER, send_cost=-1.0)


def test_a_failed_switch_of_user_leaves_the_episode_as_it_was():
    first, second = users(SPLIT, 1)[:2]
    env = LongHorizonEnv(SPLIT, user=first, task=1, horizon_days=7)
    _, info = env.reset()
    with pytest.raises(ValueError, match=f"app must be one user {second} can play"):
        env.reset(options={"user": second, "app": "com.nope"})
    _, again = env.reset()
    assert (env.user, again["app"], again["context_id"]) == (first, info["app"], info["context_id"])
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, _ = env.step(env.hold)
        steps += 1
    assert steps == env.terms.n  # the first user's decision points, start to end


def test_the_boards_draws_follow_a_fresh_key_not_a_public_seed():
    # a policy's seed names its user and replicate; the draws must also need the run's secret key
    first, second = Options(), Options()
    assert first.entropy != second.entropy
    assert outcome_entropy(USER, 0, first.entropy) != outcome_entropy(USER, 0, second.entropy)
    assert outcome_entropy(USER, 0, 7) == outcome_entropy(USER, 0, 7) != outcome_entropy(USER, 1, 7)


def test_the_board_prints_a_fresh_runs_figures(capsys, monkeypatch):
    monkeypatch.setattr("pushgen.benchmark.long_horizon.fresh_entropy", lambda: 5)  # the same draws twice
    options = Options(horizon_days=7, replicates=2, tune_replicates=1)
    printed = script("long_horizon_board").main(["--split", SPLIT, "--horizon-days", "7", "--replicates", "2",
                                                 "--tune-replicates", "1"])
    fresh = run_board(SPLIT, options)
    assert printed == markdown(fresh) and printed in capsys.readouterr().out
    means = fresh.rows.set_index("policy")["mean"]
    assert means["greedy"] < means["planning oracle"]
    assert means.drop("upper bound").max() <= means["upper bound"]
    assert f"| {means.index.get_loc('greedy') + 1} | greedy | {means['greedy']:.1f}" in printed


def test_the_agents_own_estimates_join_its_observation_and_its_slot_scores():
    torch = pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.preprocessing import preprocess_obs

    from pushgen.baselines.slot_scorer import SlotScorer

    env = script("train_long_horizon").with_estimates(LongHorizonEnv(SPLIT, user=USER, horizon_days=3))
    first, _ = env.reset(options={"outcome_entropy": 5})
    assert env.observation_space.contains(first)
    allowed = np.flatnonzero(first["candidate_mask"])
    estimates = first["candidate_estimates"][:, 0]
    assert (estimates[first["candidate_mask"] == 0] == 0).all() and (estimates[allowed] > 0).all()
    observation = first
    for _ in range(40):  # the estimates learn from the opens of what the agent sends
        observation, *_ = env.step(int(np.flatnonzero(observation["candidate_mask"])[0]))
    again = env.estimates.augment({k: v for k, v in first.items() if k != "candidate_estimates"})
    assert not np.allclose(again["candidate_estimates"][allowed, 0], estimates[allowed])

    torch.manual_seed(0)
    scorer = SlotScorer(env.observation_space)
    assert scorer.estimates_width == 1

    def scores(values: np.ndarray) -> np.ndarray:
        batch = {key: torch.as_tensor(np.asarray(value)[None]) for key, value in observation.items()}
        batch["candidate_estimates"] = torch.as_tensor(values[None], dtype=torch.float32)
        with torch.no_grad():
            return scorer(preprocess_obs(batch, env.observation_space))[0, : env.unwrapped.k].numpy()

    raised = observation["candidate_estimates"].copy()
    slot = int(np.flatnonzero(observation["candidate_mask"])[0])
    raised[slot, 0] += 5.0
    changed = scores(raised) != scores(observation["candidate_estimates"])
    assert changed[slot] and changed.sum() == 1  # one shared scorer, slot by slot
