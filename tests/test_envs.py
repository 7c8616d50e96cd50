from __future__ import annotations

import pickle
import re
import warnings

import gymnasium as gym
import numpy as np
import pyarrow.parquet as pq
import pytest
from envs_split import small_split
from gymnasium.utils.env_checker import check_env

import pushgen
from pushgen import schemas
from pushgen.data.dataset import DatasetError
from pushgen.envs import ENTRY_POINTS, GENERATION_ID, INBOX_ID, LONG_HORIZON_ID, SELECTION_ID, decode, encode
from pushgen.envs.spaces import CONTEXT_FEATURES, DISMISSED, NOTIFICATION_FEATURES, OPENED
from pushgen.publishing.access import load_split
from pushgen.replay.outcomes import outcome_generator
from pushgen.replay.scoring import sequence_probabilities

gym.register_envs(pushgen)


@pytest.fixture(scope="module")
def split():
    return small_split()


def logged_actions(env) -> list[dict[str, int]]:
    episode = env.unwrapped.episode
    return [{f: int(episode.codes[f][i]) for f in NOTIFICATION_FEATURES} for i in range(len(episode))]


def run(env, actions, seed=0):
    observation, info = env.reset(seed=seed)
    trajectory = [(observation, None, False, info["metrics"])]
    for action in actions:
        observation, reward, terminated, _, info = env.step(action)
        trajectory.append((observation, reward, terminated, info["metrics"]))
        if terminated:
            break
    return trajectory


def test_registered_on_import():
    assert GENERATION_ID in gym.registry and INBOX_ID in gym.registry
    assert gym.registry[GENERATION_ID].entry_point == "pushgen.envs.generation:NotificationGenerationEnv"


def test_environments_with_fresh_outcome_entropy_are_registered_nondeterministic():
    flags = {env_id: gym.spec(env_id).nondeterministic for env_id in ENTRY_POINTS}
    assert flags == {GENERATION_ID: True, SELECTION_ID: True, LONG_HORIZON_ID: True, INBOX_ID: False}


@pytest.mark.parametrize("env_id", sorted(ENTRY_POINTS))
def test_check_env_passes_without_warnings(split, env_id):
    env = gym.make(env_id, split=str(split), render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_the_agent_owns_the_selection_observations(split):
    env = gym.make(SELECTION_ID, split=str(split)).unwrapped
    observation, _ = env.reset(seed=0)
    candidates = observation["candidates"].copy()
    mask = observation["candidate_mask"].copy()
    assert mask.any()
    observation["candidates"][:] = 0
    observation["candidate_mask"][:] = 0
    again, _ = env.reset(seed=0)
    np.testing.assert_array_equal(again["candidates"], candidates)
    np.testing.assert_array_equal(again["candidate_mask"], mask)
    assert env.action_masks()[: env.k].astype(np.int8).tolist() == mask.tolist()
    _, _, _, _, info = env.step(0)
    assert info["sent"] and info["slot"] == 0 and env.last_p_open > 0 and "p_open" not in info


def test_spaces_come_from_the_schemas(split):
    env = gym.make(GENERATION_ID, split=split)
    assert set(env.observation_space.keys()) == set(CONTEXT_FEATURES)
    assert set(env.action_space.keys()) == set(NOTIFICATION_FEATURES)
    assert env.action_space["postingApp"].n == len(schemas.values("postingApp"))
    assert env.observation_space["day"].n == 7
    inbox = gym.make(INBOX_ID, split=split)
    assert set(inbox.observation_space.keys()) == set(NOTIFICATION_FEATURES + CONTEXT_FEATURES)
    assert inbox.action_space.n == 2
    assert schemas.values("action")[OPENED] == "opened"
    assert schemas.values("action")[DISMISSED] == "dismissed"


def test_observation_decodes_to_the_logged_context(split):
    env = gym.make(GENERATION_ID, split=split, task=1)
    observation, info = env.reset(seed=0)
    test = load_split(split, 1).test.set_index("context_id")
    row = test.loc[info["context_id"]]
    assert decode(observation) == {f: row[f] for f in CONTEXT_FEATURES}


def test_encode_and_decode_are_inverse():
    values = {"postingApp": "com.whatsapp", "category": "msg", "numberOfUpdates": "none",
              "subject": "news", "priority": "high", "ongoing": False, "visibility": "private"}
    codes = encode(values)
    assert codes["priority"] == schemas.values("priority").index("high")
    assert decode(codes) == values
    assert encode({"ongoing": "true"}) == {"ongoing": schemas.values("ongoing").index(True)}
    with pytest.raises(ValueError, match="priority: 'urgent' is not one of"):
        encode({"priority": "urgent"})
    with pytest.raises(ValueError, match=r"code 99 is outside 0\.\.2"):
        decode({"visibility": 99})


def test_default_user_and_unknown_user(split):
    assert gym.make(GENERATION_ID, split=split).unwrapped.user == 3  # task 2: cold-start users 3, 4
    assert gym.make(GENERATION_ID, split=split, task=1).unwrapped.user == 0
    assert gym.make(INBOX_ID, split=split).unwrapped.user == 0
    assert gym.make(GENERATION_ID, split=split, user=0).unwrapped.replay.task == 1
    assert gym.make(GENERATION_ID, split=split, user=4).unwrapped.replay.task == 2
    with pytest.raises(DatasetError, match=r"user 0 is not in task 2's test part .*"
                                           r"\(it is a user of task 1's test part: pass task=1\); "
                                           r"available users: 3, 4$"):
        gym.make(GENERATION_ID, split=split, user=0, task=2)
    with pytest.raises(DatasetError, match=r"user 42 is not in task 1's test part of split \S+; "
                                           r"available users: 0, 1, 2$"):
        gym.make(INBOX_ID, split=split, user=42)
    env = gym.make(GENERATION_ID, split=split)
    _, info = env.reset(options={"user": 4})
    assert env.unwrapped.user == 4 and info["user_id"] == 4


def test_unknown_split_is_a_clear_error(tmp_path):
    (tmp_path / "not-a-split").mkdir()
    with pytest.raises(DatasetError, match="is not a split folder"):
        gym.make(GENERATION_ID, split=tmp_path / "not-a-split")


def test_same_seed_and_actions_give_identical_trajectories(split):
    env_a = gym.make(GENERATION_ID, split=split, mode="sampled")
    env_b = gym.make(GENERATION_ID, split=split, mode="sampled")
    env_a.action_space.seed(5)
    actions = [env_a.action_space.sample() for _ in range(300)]
    first, second = run(env_a, actions, seed=1), run(env_b, actions, seed=1)
    assert len(first) == 301
    for (o1, r1, t1, m1), (o2, r2, t2, m2) in zip(first, second, strict=True):
        assert o1 == o2 and r1 == r2 and t1 == t2 and m1 == m2
    assert env_a.unwrapped.history == env_b.unwrapped.history


def stored_p_open(episode) -> np.ndarray:
    folder = episode.part.folder / "scorer"
    rows = pq.read_table(folder / "ground_truth" / "engagement_rows.parquet",
                         columns=["notification_id", "p_open"]).to_pandas().set_index("notification_id")
    answers = pq.read_table(folder / f"task{episode.part.task}" / "test.parquet",
                            columns=["context_id", "notification_id"]).to_pandas().set_index("context_id")
    return rows["p_open"].reindex(answers["notification_id"].loc[episode.context_ids]).to_numpy()


@pytest.mark.parametrize("task", [1, 2])
def test_logged_notifications_get_the_logged_p_open_and_responses_from_the_outcome_entropy(split, task):
    """Expected mode gives the stored P(open) of the logged notifications and their exact
    expected reward; sampled mode, with the same notifications, draws each response from the
    episode's outcome entropy (one draw a step), not from the split's own draws."""
    env = gym.make(GENERATION_ID, split=split, task=task, mode="expected")
    episode = env.unwrapped.episode
    trajectory = run(env, logged_actions(env))
    rewards_ = np.array([r for _, r, _, _ in trajectory[1:]])
    assert len(rewards_) == len(episode) and trajectory[-1][2] is True
    p = env.unwrapped.history.p_open.copy()
    np.testing.assert_allclose(p, stored_p_open(episode), atol=2e-6)
    np.testing.assert_allclose(rewards_, np.where(episode.logged_opened, 2 * p - 1, 2 * p), atol=1e-12)
    sampled = gym.make(GENERATION_ID, split=split, task=task).unwrapped
    sampled.reset(options={"outcome_entropy": 11})
    for action in logged_actions(env):
        sampled.step(action)
    history = sampled.history
    opened = outcome_generator(11).random(len(episode)) < p
    np.testing.assert_array_equal(history.opened, opened)
    np.testing.assert_array_equal(history.reward, np.where(episode.logged_opened, np.where(opened, 1, -1),
                                                           np.where(opened, 2, 0)))
    assert np.isnan(history.p_open).all() and not np.array_equal(opened, episode.logged_opened)


def shuffled_generation(episode, seed: int) -> dict[str, np.ndarray]:
    """The episode's own (possible) notifications in another order, every fifth one made impossible."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(episode))
    generated = {f: episode.codes[f][order].copy() for f in NOTIFICATION_FEATURES}
    generated["category"][::5] = schemas.field("category").code("transport")
    generated["postingApp"][::5] = schemas.field("postingApp").code("com.whatsapp")
    return generated


def test_expected_mode_rewards_are_the_exact_expectation(split):
    assert gym.make(GENERATION_ID, split=split, task=1).unwrapped.mode == "sampled"  # the default
    env = gym.make(GENERATION_ID, split=split, task=1, mode="expected")
    assert env.unwrapped.mode == "expected"
    episode = env.unwrapped.episode
    generated = shuffled_generation(episode, 1)
    actions = [{f: int(generated[f][i]) for f in NOTIFICATION_FEATURES} for i in range(200)]
    trajectory = run(env, actions)
    rows = np.arange(episode.rows.start, episode.rows.start + 200)
    p = sequence_probabilities(episode.part, rows, {f: c[:200] for f, c in generated.items()})
    want = np.where(episode.logged_opened[:200], p * 1 + (1 - p) * -1, p * 2 + (1 - p) * 0)
    got = np.array([r for _, r, _, _ in trajectory[1:]])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert (p[::5] == 0).all() and (p[1::5] > 0).all()


def test_the_user_state_follows_the_agents_own_notifications(split):
    """Sending one notification again and again makes it less likely opened than varying them."""
    env = gym.make(GENERATION_ID, split=split, task=1, mode="expected")
    episode = env.unwrapped.episode
    start = episode.rows.start
    # of the first 50 logged notifications, the one the user is likeliest to open first
    at_start = [sequence_probabilities(episode.part, np.array([start]),
                                       {f: episode.codes[f][k:k + 1] for f in NOTIFICATION_FEATURES})[0]
                for k in range(50)]
    k = int(np.argmax(at_start))
    first = {f: int(episode.codes[f][k]) for f in NOTIFICATION_FEATURES}
    env.reset(seed=0)
    repeated = [env.step(first)[4]["p_open"] for _ in range(300)]
    env.reset(seed=0)
    impossible = {**first, "category": schemas.field("category").code("transport"),
                  "postingApp": schemas.field("postingApp").code("com.whatsapp")}
    sparse = [env.step(first if i % 10 == 0 else impossible)[4]["p_open"] for i in range(300)]
    rows = np.arange(episode.rows.start, episode.rows.start + 300)
    alone = [sequence_probabilities(episode.part, rows[i:i + 1], {f: np.array([first[f]]) for f in first})[0]
             for i in range(200, 300)]  # the same rows, without the repeats before them
    assert np.mean(repeated[200:]) < np.mean(alone) - 0.03
    fresh = sequence_probabilities(episode.part, rows, {f: np.full(300, first[f]) for f in first})
    np.testing.assert_allclose(repeated, fresh, atol=1e-12)
    # the same notification sent a tenth as often (impossible ones never reach the user) stays fresher
    assert np.mean(sparse[200::10]) > np.mean(repeated[200::10]) + 0.05
    assert max(sparse[1::10]) == 0.0


def test_info_history_grows_in_place(split):
    env = gym.make(GENERATION_ID, split=split)
    _, info = env.reset(seed=0)
    history = info["history"]
    assert len(history) == 0
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(5)]
    for k, action in enumerate(actions, start=1):
        _, reward, _, _, info = env.step(action)
        assert info["history"] is history and len(history) == k
        assert history.reward[-1] == reward
    assert [int(c) for c in history.notification_codes["subject"]] == [int(a["subject"]) for a in actions]
    frame = history.frame()
    assert list(frame["step"]) == [0, 1, 2, 3, 4]
    assert {*CONTEXT_FEATURES, *NOTIFICATION_FEATURES, "action", "reward", "decision_seconds"} <= set(frame)
    assert frame["subject"].iloc[0] == schemas.values("subject")[int(actions[0]["subject"])]
    assert (frame["decision_seconds"] >= 0).all()
    snapshot = pickle.loads(pickle.dumps(history))
    assert snapshot == history and len(snapshot) == 5
    _, info = env.reset()
    assert info["history"] is not history and len(history) == 5


def test_episode_end_and_bad_actions(split):
    env = gym.make(GENERATION_ID, split=split)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action priority: code 6 is outside 0\.\.5"):
        env.step({**env.action_space.sample(), "priority": 6})
    with pytest.raises(ValueError, match="an action is a dict of codes"):
        env.step(3)
    unwrapped = env.unwrapped
    unwrapped._row = unwrapped._n - 1
    *_, terminated, truncated, _ = env.step(env.action_space.sample())
    assert terminated and not truncated
    with pytest.raises(gym.error.ResetNeeded):
        unwrapped.step(env.action_space.sample())


def test_inbox_rewards_match_the_logged_action(split):
    env = gym.make(INBOX_ID, split=split)
    episode = env.unwrapped.episode
    env.reset(seed=0)
    logged = np.where(episode.logged_opened, OPENED, DISMISSED)
    got = [env.step(int(logged[i]))[1] for i in range(20)]
    assert got == [1.0] * 20
    _, reward, _, _, info = env.step(int(1 - logged[20]))
    assert reward == -1.0 and info["action"] == logged[20]
    assert info["metrics"] == {"steps": 21, "total_reward": 19.0, "accuracy": 20 / 21}
    with pytest.raises(ValueError, match=r"an action is 0 \(opened\) or 1 \(dismissed\)"):
        env.step(2)


def test_render_is_ansi_text(split):
    env = gym.make(GENERATION_ID, split=split, render_mode="ansi", mode="sampled")
    env.reset(seed=0)
    action = env.action_space.sample()
    _, reward, *_ = env.step(action)
    text = env.render()
    assert "user 3" in text and "step 1/" in text
    assert f"postingApp={schemas.values('postingApp')[int(action['postingApp'])]}" in text
    assert f"reward {reward:+.3f}" in text
    inbox = gym.make(INBOX_ID, split=split, render_mode="ansi")
    inbox.reset(seed=0)
    inbox.step(OPENED)
    assert "predicted opened" in inbox.render()
    assert gym.make(INBOX_ID, split=split).unwrapped.render() is None


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_environments(split, mode):
    for env_id, kwargs in [(GENERATION_ID, {"history_in_info": False}), (INBOX_ID, {})]:
        envs = gym.make_vec(env_id, num_envs=3, vectorization_mode=mode, split=str(split), **kwargs)
        observations, _ = envs.reset(seed=0)
        assert observations["day"].shape == (3,)
        for _ in range(5):
            observations, rewards_, terminated, _, infos = envs.step(envs.action_space.sample())
        assert rewards_.shape == (3,) and not terminated.any()
        assert list(infos["metrics"]["steps"]) == [5, 5, 5]
        envs.close()


def test_standard_split_by_name_gives_its_logged_notifications_stored_p_open():
    env = gym.make(GENERATION_ID, split="pushgen-mini-v4", mode="expected")
    replay = env.unwrapped.replay
    assert replay.name == "pushgen-mini-v4" and env.unwrapped.user == replay.users[0]
    episode = env.unwrapped.episode
    run(env, logged_actions(env)[:500])
    np.testing.assert_allclose(env.unwrapped.history.p_open, stored_p_open(episode)[:500], atol=2e-6)


def test_a_split_without_cold_start_users_replays_task_1(tmp_path):
    from pushgen.data.writer import write_dataset
    from pushgen.splits import SplitSpec, make_split

    write_dataset(pushgen.generate(users=2, months=2, seed=1), tmp_path / "d")
    make_split(tmp_path / "d", tmp_path / "s", SplitSpec(1, 1, 1, 0))
    with pytest.raises(DatasetError, match=r"task 2's test part of split \S+ has no users"):
        gym.make(GENERATION_ID, split=tmp_path / "s", task=2)
    env = gym.make(GENERATION_ID, split=tmp_path / "s").unwrapped
    assert env.replay.task == 1 and env.user == 0
    assert gym.make(GENERATION_ID, split=tmp_path / "s", user=1).unwrapped.user == 1


@pytest.mark.parametrize(("change", "message"), [
    ({"priority": 1.5}, r"action priority: 1\.5 is not a whole-number code"),
    ({"priority": "1"}, r"action priority: '1' is not a whole-number code"),
    ({"ongoing": True}, r"action ongoing: True is not a whole-number code"),
    ({"ongoing": np.True_}, r"action ongoing: np\.True_ is not a whole-number code"),
    ({"priority": np.uint8(200)}, r"action priority: code 200 is outside 0\.\.\d+"),
    ({"extra": 0}, "an action is a dict of codes, one per notification feature"),
])
def test_generation_actions_must_be_whole_codes_of_exactly_the_features(change, message):
    env = gym.make(GENERATION_ID, split="pushgen-mini-v4", task=1, user=0)
    env.reset(seed=0)
    action = {**{f: 0 for f in NOTIFICATION_FEATURES}, **change}
    with pytest.raises(ValueError, match=message):
        env.unwrapped.step(action)
    _, reward, *_ = env.unwrapped.step({f: np.int64(0) for f in NOTIFICATION_FEATURES})
    assert np.isfinite(reward)


@pytest.mark.parametrize("env_id", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("task", [1.0, True, "1"])
def test_a_task_is_a_whole_number(env_id, task):
    with pytest.raises(DatasetError, match=rf"^task must be 1 or 2; got {re.escape(repr(task))}$"):
        gym.make(env_id, split="pushgen-mini-v4", task=task)


@pytest.mark.parametrize("action", [0.5, 1.0, "0", None, True])
def test_inbox_actions_must_be_whole_codes(action):
    env = gym.make(INBOX_ID, split="pushgen-mini-v4", user=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="an action is 0 \\(opened\\) or 1 \\(dismissed\\)"):
        env.unwrapped.step(action)


def test_the_generation_environment_plays_test_parts_only_and_steps_before_reset():
    with pytest.raises(ValueError, match="the generation environment plays a test part"):
        gym.make(GENERATION_ID, split="pushgen-mini-v4", task=1, part="train")
    env = gym.make(GENERATION_ID, split="pushgen-mini-v4", task=1, user=0).unwrapped
    _, reward, *_ = env.step({f: 0 for f in NOTIFICATION_FEATURES})  # before reset: the episode's start
    assert np.isfinite(reward)
