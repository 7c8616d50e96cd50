"""What users do wrong, found by using pushgen as a new user would: each case is one line (a
command) or one clear exception (the library), never a traceback or a silent surprise."""

from __future__ import annotations

import json
import shutil

import gymnasium as gym
import pytest
from fault_cases import Command, Damage, check, damaged_copy, made_folders, run_cli

from pushgen.data.dataset import DatasetError
from pushgen.envs import GENERATION_ID, INBOX_ID, LONG_HORIZON_ID, SELECTION_ID
from pushgen.envs.horizon import playable_apps
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.ope import read_episode_log, write_episode_log
from pushgen.ope.episodes import HorizonOptions, log_episodes

VALIDATE = Command("pushgen validate", args=lambda d, s: ["validate", str(d)], codes=(1, 2))


@pytest.mark.parametrize("damage", [
    Damage("json-set", "split.json", path=("parts", "task1/test"), value=None),
    Damage("json-set", "split.json", path=("parts", "task1/validation"), value=-3),
    Damage("json-set", "split.json", path=("parts", "task1/test"), value=[]),
    Damage("json-set", "split.json", path=("files", "users.parquet"), value=None),
    Damage("json-set", "split.json", path=("files", "task1/train.parquet"), value="x"),
    Damage("json-deep-array", "split.json"),
], ids=str)
def test_validate_of_a_split_json_with_entries_of_another_type_lists_the_problem(damage):
    _, split = made_folders()
    assert check(VALIDATE, split, damage) is None


def validate_after(damage: Damage):
    _, split = made_folders()
    with damaged_copy(split, damage) as (copy, _):
        return run_cli(["validate", str(copy)])


def test_validate_names_the_split_json_entry_that_is_not_an_object():
    outcome = validate_after(Damage("json-set", "split.json", path=("parts", "task1/test"), value=None))
    assert outcome.code == 1 and not outcome.escaped
    assert "split.json: the part task1/test must give its rows and users as whole numbers" in outcome.out
    outcome = validate_after(Damage("json-set", "split.json", path=("files", "users.parquet"), value=None))
    assert (outcome.code, outcome.out) == (
        1, "split.json: the entry of users.parquet must give its bytes and sha256\n")


@pytest.fixture(scope="module")
def episode_log(tmp_path_factory):
    log = log_episodes("pushgen-mini-v4", replicates=1, options=HorizonOptions(horizon_days=0.25))
    folder = tmp_path_factory.mktemp("episodes") / "log"
    write_episode_log(log, folder)
    return folder


@pytest.mark.parametrize(("path", "value", "message"), [
    (("recipe",), None, "the recipe must give k"),
    (("recipe", "policy"), [], "the recipe must give k"),
    (("recipe", "policy", "theta"), "x", "the recipe must give k"),
    (("recipe", "k"), None, "the recipe must give k"),
    (("rounds",), "x", "rounds is 'x', but steps.parquet holds"),
    (("rounds",), -3, "rounds is -3, but steps.parquet holds"),
    (("episodes",), None, "episodes is None, but steps.parquet holds 1"),
])
def test_an_episode_log_json_edited_is_named_by_validate_and_the_reader(episode_log, tmp_path, path, value,
                                                                        message):
    copy = tmp_path / "copy"
    shutil.copytree(episode_log, copy)
    description = json.loads((copy / "log.json").read_text())
    *parents, last = path
    holder = description
    for key in parents:
        holder = holder[key]
    holder[last] = value
    (copy / "log.json").write_text(json.dumps(description))
    outcome = run_cli(["validate", str(copy)])
    assert (outcome.code, outcome.escaped) == (1, "")
    assert outcome.out.startswith(f"{copy / 'log.json'}: {message}") and outcome.out.count("\n") == 1
    with pytest.raises(DatasetError, match=message):
        read_episode_log(copy)


@pytest.mark.parametrize("env_id", [GENERATION_ID, INBOX_ID, SELECTION_ID, LONG_HORIZON_ID])
def test_a_reset_option_the_environment_does_not_take_is_refused(env_id):
    env = gym.make(env_id, split="pushgen-mini-v4")
    with pytest.raises(ValueError, match=r"reset has no option 'user_id'; its options: user\b"):
        env.reset(options={"user_id": 0})  # info's name for the user, not the option's
    with pytest.raises(ValueError, match=r"reset options are a dict \(of user"):
        env.reset(options=[("user", 0)])


def test_the_vector_environment_refuses_a_reset_option_it_does_not_take():
    env = gym.make_vec(GENERATION_ID, num_envs=2, vectorization_mode="vector_entry_point",
                       split="pushgen-mini-v4")
    with pytest.raises(ValueError, match="reset has no option 'user'; its options: outcome_entropy"):
        env.reset(options={"user": 3})


def test_a_long_horizon_reset_with_an_app_alone_switches_the_app_of_the_same_user():
    env = LongHorizonEnv("pushgen-mini-v4", user=3, horizon_days=1)
    _, first = env.reset()
    other = next(app for app in playable_apps(env.replay, 3) if app != first["app"])
    _, info = env.reset(options={"app": other})
    assert (info["user_id"], info["app"], env.reset()[1]["app"]) == (3, other, other)


@pytest.mark.parametrize("env_id", [GENERATION_ID, SELECTION_ID, LONG_HORIZON_ID])
def test_a_user_of_no_test_part_is_told_the_users_of_both_tasks(env_id):
    # without task=, a user of either test part is playable: the message must list both
    with pytest.raises(DatasetError, match=r"^user 99 is not a test user of split pushgen-mini-v4; "
                                           r"task 1's test users: 0, 1, 2; task 2's: 3$"):
        gym.make(env_id, split="pushgen-mini-v4", user=99)
