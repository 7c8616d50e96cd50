from __future__ import annotations

import json
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from envs_split import small_split
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pushgen
from pushgen import schemas
from pushgen.cli import main
from pushgen.data.dataset import DatasetError
from pushgen.envs import GENERATION_ID, record_run
from pushgen.envs.recording import DECISION_FLOOR_SECONDS
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.publishing.access import resolve_split
from pushgen.replay import metrics
from pushgen.replay.submission import SubmissionError
from pushgen.splits import read_part

COLUMNS = ["context_id", *NOTIFICATION_FEATURES]


@pytest.fixture(scope="module")
def split():
    return small_split()


@pytest.fixture(scope="module")
def test_part(split) -> pd.DataFrame:
    """Task 1's answer key: the logged notifications of the test contexts (the scorer's table)."""
    return read_part(split, "scorer/task1/test")


@pytest.fixture
def logged(test_part) -> pd.DataFrame:
    """The logged notifications as a submission, booleans as true/false strings."""
    frame = test_part[COLUMNS].astype({f: object for f in NOTIFICATION_FEATURES})
    frame["ongoing"] = frame["ongoing"].map({True: "true", False: "false"})
    return frame.reset_index(drop=True)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_logged_submission_scores_the_logged_outcome_in_sampled_mode(split, test_part, logged, tmp_path,
                                                                    suffix):
    path = tmp_path / f"logged.{suffix}"
    getattr(logged, f"to_{suffix}")(path, index=False)
    result = pushgen.evaluate(split, task=1, submission=path, mode="sampled")
    opened = (test_part["action"] == "opened").to_numpy()
    assert result.overall["steps"] == len(test_part)
    assert result.overall["total_reward"] == opened.sum()
    assert result.overall["generated_open_rate"] == result.overall["logged_open_rate"] == opened.mean()
    by_user = test_part.assign(opened=opened).groupby("user_id")["opened"].sum()
    assert result.per_user["total_reward"].to_dict() == by_user.astype(float).to_dict()


def test_expected_mode_is_the_default_and_uses_p_open(split, test_part, logged):
    truth = (pq.read_table(resolve_split(split) / "scorer" / "ground_truth" / "engagement_rows.parquet")
             .to_pandas().set_index("notification_id").loc[test_part["notification_id"]])
    p = truth["p_open"].to_numpy()
    opened = (test_part["action"] == "opened").to_numpy()
    result = pushgen.evaluate(split, submission=logged)
    assert result.mode == "expected"
    want = np.where(opened, 2 * p - 1, 2 * p).sum()
    assert result.overall["total_reward"] == pytest.approx(want, rel=1e-5)
    assert result.overall["generated_open_rate"] == pytest.approx(p.mean(), rel=1e-5)


def test_cli_table_json_and_user_subset(split, test_part, logged, tmp_path, capsys):
    path = tmp_path / "logged.csv"
    logged.to_csv(path, index=False)
    code, out, _ = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path),
                       "--mode", "sampled")
    assert code == 0
    lines = out.splitlines()
    assert "task 1, mode sampled: 3 users" in lines[0]
    table = pd.read_csv(tmp_path / "logged.csv")
    per_user = pushgen.evaluate(split, submission=table, mode="sampled").per_user["mean_reward"]
    low, high = stats.t.interval(0.95, len(per_user) - 1, loc=per_user.mean(), scale=stats.sem(per_user))
    assert lines[1] == (f"mean reward {per_user.mean():.4f}, 95% interval [{low:.4f}, {high:.4f}]: "
                        "each user's mean reward per context, averaged over the 3 users "
                        "(as the leaderboard ranks)")
    assert lines[2].split()[:3] == ["user", "steps", "total"]
    assert "open rate" in lines[2] and "logged open rate" in lines[2]
    assert lines[-2].startswith("mean over users") and lines[-1].startswith("pooled over rows")
    assert lines[-2].split()[3] == "-" and lines[-2].split()[5] == f"{per_user.mean():.4f}"
    code, out, _ = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path),
                       "--user", "1", "--json")
    document = json.loads(out)
    assert code == 0 and [u["user_id"] for u in document["users"]] == [1]
    assert document["pooled_over_rows"]["steps"] == int((test_part["user_id"] == 1).sum())
    assert document["score"]["users"] == 1 and document["score"]["ci_low"] is None
    assert document["score"]["mean_reward"] == document["users"][0]["mean_reward"]
    assert document["mode"] == "expected" and document["task"] == 1


def test_recorded_task2_run_scores_like_the_environment(split, tmp_path):
    frames, p_open = [], []
    for user in (3, 4):
        env = gym.make(GENERATION_ID, split=split, user=user)
        env.action_space.seed(user)
        actions: list[dict] = []
        history = record_run(env, lambda observation, info, env=env, actions=actions:
                             actions.append(env.action_space.sample()) or actions[-1],
                             tmp_path / f"run{user}.parquet", seed=0)
        frames.append(pd.read_parquet(tmp_path / f"run{user}.parquet"))
        assert len(history) == len(env.unwrapped.episode) and frames[-1]["p_open"].isna().all()
        evaluation = gym.make(GENERATION_ID, split=split, user=user, mode="expected")  # P(open), the scorer's
        evaluation.reset(seed=0)
        p_open += [evaluation.step(action)[4]["p_open"] for action in actions]
    run = pd.concat(frames, ignore_index=True)
    run.to_parquet(tmp_path / "run.parquet")
    result = pushgen.evaluate(split, task=2, submission=tmp_path / "run.parquet", mode="sampled")
    assert result.overall["total_reward"] == run["reward"].sum()
    assert result.per_user["total_reward"].to_dict() == run.groupby("user_id")["reward"].sum().to_dict()
    assert result.overall["response_p95_seconds"] >= result.overall["response_p50_seconds"] > 0
    assert np.isfinite(result.overall["over_reference"])
    printed = result.table()
    assert "p95 ms" in printed and "vs no-feedback ref." in printed
    gone = ("learning_slope_per_1000_steps", "learning_quarter_gain", "learning_area")
    assert not set(gone) & set(result.overall) and not set(gone) & set(result.per_user.columns)
    assert "quarter gain" not in printed and "slope" not in printed and "learning" not in printed
    expected = pushgen.evaluate(split, task=2, submission=run.drop(columns="reward"))
    actions = read_part(split, "scorer/task2/test").set_index("context_id").loc[run["context_id"], "action"]
    logged_opened = (actions == "opened").to_numpy()
    p = np.array(p_open)
    want = np.where(logged_opened, 2 * p - 1, 2 * p).sum()
    assert expected.overall["total_reward"] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("claimed", [0.0, 5e-8])
def test_a_recording_claiming_less_than_the_measurable_decision_time_is_refused(split, tmp_path, capsys,
                                                                               claimed):
    env = gym.make(GENERATION_ID, split=split, task=2, user=3)
    env.action_space.seed(0)
    history = record_run(env, lambda observation, info: env.action_space.sample(), tmp_path / "run.parquet",
                         seed=0)
    assert history.decision_seconds.min() >= DECISION_FLOOR_SECONDS  # measured: above the floor
    run = pd.read_parquet(tmp_path / "run.parquet")
    assert pushgen.evaluate(split, task=2, submission=run, users=3).overall["steps"] == len(run)
    run.loc[7, "decision_seconds"] = claimed
    run.to_parquet(tmp_path / "claimed.parquet")
    code, out, err = cli(capsys, "evaluate", "--split", str(split), "--task", "2", "--submission",
                         str(tmp_path / "claimed.parquet"), "--user", "3")
    assert code == 2 and out == "" and err.strip().count("\n") == 0 and "Traceback" not in err
    assert f"context {run.loc[7, 'context_id']} claims {claimed:.3g} s, below the 1e-07 s" in err
    assert "pushgen.envs.record_run" in err


def test_a_recorded_run_is_verified_and_an_edited_or_hand_made_one_is_not(split, test_part, tmp_path):
    frames = []
    for user in (3, 4):
        env = gym.make(GENERATION_ID, split=split, user=user)
        env.action_space.seed(user)
        record_run(env, lambda observation, info, env=env: env.action_space.sample(),
                   tmp_path / f"run{user}.parquet", seed=0)
        frames.append(pd.read_parquet(tmp_path / f"run{user}.parquet"))
    run = pd.concat(frames, ignore_index=True)
    assert run.groupby("user_id")["run_entropy"].nunique().eq(1).all() and run["run_digest"].is_unique
    result = pushgen.evaluate(split, task=2, submission=run)
    assert result.verified == (3, 4) and "recorded run verified" in result.headline()
    assert json.loads(result.to_json())["verified_users"] == [3, 4]
    edited = run.copy()  # user 4's first notification replaced by its second
    first = int(np.flatnonzero(edited["user_id"] == 4)[0])
    for feature in NOTIFICATION_FEATURES:
        edited.loc[first, feature] = edited.loc[first + 1, feature]
    swapped = run.copy()  # two of user 3's digests exchanged: the order played is not the order shown
    swapped.loc[[0, 1], "run_digest"] = swapped.loc[[1, 0], "run_digest"].to_numpy()
    features = list(NOTIFICATION_FEATURES)
    changed = not (edited.loc[first, features] == run.loc[first, features]).all()
    assert changed and pushgen.evaluate(split, task=2, submission=edited).verified == (3,)
    assert pushgen.evaluate(split, task=2, submission=swapped).verified == (4,)
    made = pushgen.evaluate(split, task=2, submission=run.drop(columns=["run_entropy", "run_digest"]))
    assert made.verified == () and "UNVERIFIED run: users [3, 4]" in made.headline()
    assert made.score == result.score  # reported as unverified, scored the same
    assert pushgen.evaluate(split, task=1, submission=test_part).verified is None


def test_a_run_whose_responses_rewards_or_entropy_were_edited_is_unverified(split, tmp_path):
    """The scorer re-derives every response and sampled reward from the recorded outcome entropy
    and the notifications: a table claiming other responses or rewards is not the run played."""
    env = gym.make(GENERATION_ID, split=split, user=3)
    env.action_space.seed(3)
    record_run(env, lambda observation, info: env.action_space.sample(), tmp_path / "run.parquet", seed=0)
    run = pd.read_parquet(tmp_path / "run.parquet")
    result = pushgen.evaluate(split, task=2, submission=run, mode="sampled", users=3)
    assert result.verified == (3,) and result.overall["total_reward"] == run["reward"].sum()
    dismissed = int(np.flatnonzero(run["action"] == "dismissed")[0])
    edits = {"response": ("action", dismissed, "opened"),
             "reward": ("reward", dismissed, run.loc[dismissed, "reward"] + 1.0),
             "entropy": ("run_entropy", slice(None), str(int(run.loc[0, "run_entropy"]) + 1)),
             **{f"entropy {text[:8]!r}": ("run_entropy", slice(None), text)
                for text in ("9" * 5000, "abc", "-5", "\u00b2", "")}}  # 5,000 digits: more than int() reads
    for name, (column, at, value) in edits.items():
        edited = run.copy()
        edited.loc[at, column] = value
        verdict = pushgen.evaluate(split, task=2, submission=edited, users=3)
        assert verdict.verified == () and "UNVERIFIED run: users [3]" in verdict.headline(), name
    with pytest.raises(ValueError, match="record_run records a run played in sampled mode"):
        record_run(gym.make(GENERATION_ID, split=split, user=3, mode="expected"),
                   lambda observation, info: env.action_space.sample(), tmp_path / "expected.parquet")


def test_record_run_and_the_policy_agent_name_what_they_are_given(split, tmp_path):
    from pushgen.baselines import PolicyAgent, RandomPolicy
    from pushgen.benchmark import PolicyError, make_setting, task_data

    env = gym.make(GENERATION_ID, split=split, user=3)
    with pytest.raises(TypeError, match=r"^record_run records a pushgen/NotificationGeneration-v0 run "
                                        r"\(an environment from gym\.make\); got str, whose runs it "
                                        r"cannot score$"):
        record_run(GENERATION_ID, lambda observation, info: None, tmp_path / "a.parquet")
    with pytest.raises(TypeError, match=r"^record_run's policy is called as policy\(observation, info\) -> "
                                        r"action \(a function, or "
                                        r"pushgen\.baselines\.PolicyAgent\(policy\)\); got None$"):
        record_run(env, None, tmp_path / "b.parquet")
    with pytest.raises(PolicyError, match=r"^the policy is None, which has no fit\(\) and no act\(\) and no "
                                          r"update\(\)"):
        PolicyAgent(None)

    class Silent(RandomPolicy):  # forgets to return its notifications
        def act(self, contexts):
            super().act(contexts)

    agent = PolicyAgent(Silent(make_setting(task_data(split, 2), 2, "silent", 3)))
    with pytest.raises(PolicyError, match=r"^act\(\) returned None; it must return a dict of code arrays"):
        record_run(env, agent, tmp_path / "c.parquet")
    assert not (tmp_path / "c.parquet").exists() and not (tmp_path / "a.parquet").exists()


def mutate(frame: pd.DataFrame, how: str) -> pd.DataFrame:
    frame = frame.copy()
    if how == "missing column":
        return frame.drop(columns="subject")
    if how == "renamed column":
        return frame.rename(columns={"priority": "Priority"})
    if how == "value outside the schema":
        frame.loc[3, "category"] = "Email"
        return frame
    if how == "boolean outside the schema":
        frame.loc[0, "ongoing"] = "yes"
        return frame
    if how == "missing value":
        frame.loc[4, "subject"] = None
        return frame
    if how == "missing context":
        return frame.drop(index=5)
    if how == "duplicated context":
        frame.loc[7, "context_id"] = frame.loc[6, "context_id"]
        return frame
    if how == "unknown context":
        frame.loc[2, "context_id"] = 999_999_999
        return frame
    if how == "not an integer id":
        frame["context_id"] = frame["context_id"].astype(object)
        frame.loc[1, "context_id"] = "abc"
        return frame
    if how == "wrong row count":
        return frame.iloc[:10]
    raise AssertionError(how)


CASES = {
    "missing column": "missing column 'subject'; required: context_id, postingApp",
    "renamed column": "missing column 'priority'; found unexpected column 'Priority'",
    "value outside the schema": "column 'category' row 3: 'Email' is not one of 'email', 'unknown'",
    "boolean outside the schema": "column 'ongoing' row 0: 'yes' is not true or false",
    "missing value": "column 'subject' row 4: missing value",
    "missing context": "no row for context_id {id5}: expected {n} rows",
    "duplicated context": "column 'context_id' row 7: context_id {id6} appears again (first at row 6)",
    "unknown context": "column 'context_id' row 2: 999999999 is not a context of task 1's test part",
    "not an integer id": "column 'context_id' row 1: 'abc' is not an integer",
    "wrong row count": "expected {n} rows, one per context of task 1's test part",
}


@pytest.mark.parametrize("how", list(CASES))
def test_malformed_submission_is_one_line_exit_2(split, logged, tmp_path, capsys, how):
    path = tmp_path / "bad.csv"
    mutate(logged, how).to_csv(path, index=False)
    code, out, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path))
    want = CASES[how].format(id5=logged.loc[5, "context_id"], id6=logged.loc[6, "context_id"],
                             n=len(logged))
    assert code == 2 and out == ""
    assert want in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("name", "content", "want"), [
    ("empty.csv", b"", "is empty"),
    ("header.csv", ",".join(COLUMNS).encode() + b"\n", "has no rows; expected"),
    ("garbage.parquet", b"this is not parquet at all", "is not a Parquet table"),
    ("binary.csv", bytes(range(256)) * 4, "is not a CSV table"),
    ("ragged.csv", b"context_id,postingApp\n1,a\n2,b,c,d\n", "is not a CSV table"),
    ("notes.txt", b"hello", "expected a .parquet or .csv file"),
])
def test_unreadable_submission_is_one_line_exit_2(split, tmp_path, capsys, name, content, want):
    path = tmp_path / name
    path.write_bytes(content)
    code, _, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path))
    assert code == 2 and want in err and len(err.strip().splitlines()) == 1, err


def test_a_frame_whose_index_holds_the_context_ids_is_told_to_reset_it(split, logged):
    with pytest.raises(SubmissionError, match=r"^missing column 'context_id' \(it is the frame's index: "
                                              r"reset_index\(\) makes it a column\); required: context_id"):
        pushgen.evaluate(split, task=1, submission=logged.set_index("context_id"))


def test_parquet_with_codes_instead_of_values_is_rejected(split, logged, tmp_path, capsys):
    path = tmp_path / "codes.parquet"
    logged.assign(category=np.arange(len(logged)) % 3).to_parquet(path)
    code, _, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path))
    assert code == 2 and "column 'category' row 0: 0 is not one of 'email'" in err, err


@pytest.mark.parametrize(("column", "message"), [
    ("context_id", "column 'context_id' row 0: a list is not an integer (one context id per row)"),
    ("subject", "column 'subject' row 0: a list is not one of 'unknown', 'online communities'"),
])
def test_a_column_of_lists_is_one_line(split, logged, tmp_path, capsys, column, message):
    path = tmp_path / "nested.parquet"
    logged.assign(**{column: [[value] for value in logged[column]]}).to_parquet(path)
    code, out, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path))
    assert code == 2 and out == "" and err.startswith(f"pushgen evaluate: error: {message}"), err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(("context_id", "shown"), [
    (np.uint64(2**63 + 5), "9223372036854775813"),
    ("9" * 5000, "'9999999999999999999999999999999999999999'... (5,000 characters)"),
])
def test_a_context_id_no_split_could_hold_is_named_as_written(split, logged, context_id, shown):
    submitted = logged.astype({"context_id": np.uint64 if isinstance(context_id, np.uint64) else object})
    submitted.loc[submitted.index[0], "context_id"] = context_id
    with pytest.raises(SubmissionError, match=rf"^column 'context_id' row 0: {re.escape(shown)} is not an "
                                              r"integer \(one context id per row\)$"):
        pushgen.evaluate(split, task=1, submission=submitted)


@pytest.mark.parametrize("column", ["postingApp", "context_id"])
def test_a_column_name_given_twice_is_one_line(split, logged, column):
    twice = pd.concat([logged, logged[[column]]], axis=1)
    with pytest.raises(SubmissionError, match=rf"^column '{column}' appears 2 times; one column per name: "
                                              rf"context_id, postingApp, category, .*, visibility$"):
        pushgen.evaluate(split, task=1, submission=twice)


def test_other_user_errors_are_one_line(split, logged, tmp_path, capsys):
    path = tmp_path / "logged.csv"
    logged.to_csv(path, index=False)
    code, _, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(path),
                       "--user", "9")
    assert code == 2 and "user 9 is not in task 1's test part" in err and "available users: 0, 1, 2" in err
    code, _, err = cli(capsys, "evaluate", "--split", str(split), "--submission", str(tmp_path / "no.csv"))
    assert code == 2 and "does not exist" in err
    code, _, err = cli(capsys, "evaluate", "--split", str(split), "--task", "2", "--submission", str(path))
    assert code == 2 and "missing column 'decision_seconds'" in err


def test_python_api_errors(split, test_part, logged):
    with pytest.raises(SubmissionError, match="mode must be one of expected, sampled"):
        pushgen.evaluate(split, submission=logged, mode="mean")
    with pytest.raises(DatasetError, match="task must be 1 or 2"):
        pushgen.evaluate(split, task=3, submission=logged)
    subset = pushgen.evaluate(split, submission=logged[(test_part["user_id"] == 2).to_numpy()], users=2)
    assert list(subset.per_user.index) == [2]


def test_boolean_columns_may_be_real_booleans(split, test_part, logged):
    as_bool = logged.assign(ongoing=test_part["ongoing"].to_numpy())
    a = pushgen.evaluate(split, submission=as_bool).overall
    b = pushgen.evaluate(split, submission=logged).overall
    assert a == b


def test_a_nullable_boolean_column_with_a_missing_value_is_one_line(split, test_part, logged):
    ongoing = pd.array(test_part["ongoing"].to_numpy(), dtype="boolean")
    assert pushgen.evaluate(split, submission=logged.assign(ongoing=ongoing)).overall == \
        pushgen.evaluate(split, submission=logged).overall
    ongoing[5] = pd.NA
    with pytest.raises(SubmissionError, match=r"^column 'ongoing' row 5: missing value$"):
        pushgen.evaluate(split, submission=logged.assign(ongoing=ongoing))


def test_diversity_metrics():
    opened = np.array([True, True, True, False])
    generated = {"priority": np.array([0, 1, 1, 2]), "visibility": np.array([0, 0, 0, 1])}
    reference = {"priority": np.array([0, 1, 2, 3]), "visibility": np.array([0, 1, 1, 1])}
    assert metrics.distinct_ratio(generated, opened, reference) == pytest.approx((2 / 4 + 1 / 2) / 2)
    p = np.array([1 / 3, 2 / 3])
    priority = -(p * np.log(p)).sum() / np.log(len(schemas.values("priority")))
    assert metrics.entropy(generated, opened) == pytest.approx((priority + 0.0) / 2)
    assert metrics.entropy(generated, np.zeros(4, dtype=bool)) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60), st.lists(st.booleans(), max_size=60),
       st.lists(st.integers(0, 40), min_size=1, max_size=60))
def test_distinct_ratio_counts_distinct_values_as_sets_do(codes, opened, reference):
    n = min(len(codes), len(opened))
    generated, opened = np.array(codes[:n], dtype=np.int64), np.array(opened[:n], dtype=bool)
    expected = min(1.0, len(set(generated[opened].tolist())) / len(set(reference)))
    ratio = metrics.distinct_ratio({"f": generated}, opened, {"f": np.array(reference)})
    assert ratio == pytest.approx(expected)


def test_useful_variety_counts_values_by_the_opens_they_bring_above_the_logged_rate():
    logged = np.array([True, False] * 100)  # logged open rate 0.5, 100 opens: a value needs 1.0 excess
    p_open = np.full(200, 0.9)
    p_open[:10] = 0.55  # value 2 of priority: 10 x 0.05 = 0.5 excess, not enough
    priority = np.where(np.arange(200) < 10, 2, np.arange(200) % 2)
    generated = {"priority": priority}
    reference = {"priority": np.array([0, 1, 2, 3])}
    possible = np.ones(200, dtype=bool)
    assert metrics.useful_variety(generated, p_open, possible, logged, reference) == pytest.approx(2 / 4)
    p_open[:10] = 0.7  # 10 x 0.2 = 2.0 excess: now it counts
    assert metrics.useful_variety(generated, p_open, possible, logged, reference) == pytest.approx(3 / 4)
    assert metrics.useful_variety(generated, p_open, ~possible, logged, reference) == 0.0


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_sprinkling_rare_values_never_raises_useful_variety(data):
    n = data.draw(st.integers(50, 300))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    logged = rng.random(n) < data.draw(st.floats(0.1, 0.9))
    p_open = rng.random(n)
    generated = {"subject": rng.integers(0, 5, n), "priority": rng.integers(0, 3, n)}
    reference = {"subject": rng.integers(0, 40, n), "priority": rng.integers(0, 6, n)}
    possible = rng.random(n) < 0.9
    before = metrics.useful_variety(generated, p_open, possible, logged, reference)
    # each sprinkled value is new, in fewer contexts than can bring the excess a value needs
    most = int(metrics.MIN_OPEN_SHARE * max(logged.sum(), 1) / (1 - logged.mean()) - 1e-9)
    k = data.draw(st.integers(0, max(0, min(most, n))))
    at = rng.choice(n, size=k, replace=False)
    sprinkled = {"subject": generated["subject"].copy(), "priority": generated["priority"].copy()}
    sprinkled["subject"][at] = 5 + rng.integers(0, 30, k)
    sprinkled["priority"][at] = 3 + rng.integers(0, 3, k)
    p_after, possible_after = p_open.copy(), possible.copy()
    p_after[at], possible_after[at] = 1.0, True
    after = metrics.useful_variety(sprinkled, p_after, possible_after, logged, reference)
    assert after <= before + 1e-12


def test_time_metrics_and_the_removed_learning_metric():
    times = metrics.response_time(np.arange(1, 101, dtype=float))
    assert times == {"response_p50_seconds": 50.5, "response_p95_seconds": pytest.approx(95.05)}
    with pytest.raises(AttributeError, match=r"metrics\.learning is now .*metrics\.over_reference"):
        metrics.learning  # noqa: B018


def test_doing_badly_early_does_not_raise_the_reward_over_the_reference():
    rng = np.random.default_rng(0)
    reference = 0.5 + rng.normal(0, 0.05, 800)
    learner = np.linspace(0.2, 1.0, 800)
    sandbagger = learner.copy()
    sandbagger[:200] = -1.0  # impossible notifications on purpose in the first quarter
    assert metrics.over_reference(learner, reference) == pytest.approx(np.mean(learner - reference))
    assert metrics.over_reference(sandbagger, reference) < metrics.over_reference(learner, reference)
    assert metrics.over_reference(reference, reference) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 2), min_size=8, max_size=200), st.data())
def test_lowering_any_reward_never_raises_the_reward_over_the_reference(reward, data):
    reward = np.array(reward)
    reference = np.array(data.draw(st.lists(st.floats(-1, 2), min_size=len(reward), max_size=len(reward))))
    worse = reward.copy()
    at = data.draw(st.lists(st.integers(0, len(reward) - 1), min_size=1, max_size=len(reward)))
    worse[at] -= data.draw(st.floats(0, 3))
    assert metrics.over_reference(worse, reference) <= metrics.over_reference(reward, reference) + 1e-12


def test_odd_submissions_and_users_are_named_in_one_line(split, logged):
    with pytest.raises(SubmissionError, match="a submission is a pandas DataFrame or the path of a "
                                              "Parquet or CSV file; got dict"):
        pushgen.evaluate(split, task=1, submission={"context_id": [1]})
    with pytest.raises(SubmissionError, match="users is a user id or a list of them; got True"):
        pushgen.evaluate(split, task=1, submission=logged, users=True)
    holes = logged.assign(context_id=logged["context_id"].astype("Int64"))
    holes.loc[3, "context_id"] = pd.NA
    with pytest.raises(SubmissionError, match="column 'context_id' row 3: missing value"):
        pushgen.evaluate(split, task=1, submission=holes)



def test_a_frame_of_another_library_is_named_with_its_library(split, logged):
    with pytest.raises(SubmissionError, match=r"CSV file; got numpy\.ndarray$"):
        pushgen.evaluate(split, task=1, submission=logged.to_numpy())
    # a polars frame was "got DataFrame", as if it were a pandas one
    polars = pytest.importorskip("polars")
    with pytest.raises(SubmissionError) as raised:
        pushgen.evaluate(split, task=1, submission=polars.from_pandas(logged))
    assert str(raised.value) == ("a submission is a pandas DataFrame or the path of a Parquet or CSV file; "
                                 "got polars.DataFrame (its to_pandas() makes one)")

@settings(max_examples=200, deadline=None)
@given(probability=st.floats(0.001, 0.999).filter(lambda p: abs(p - 0.5) > 1e-6),
       degrees=st.integers(1, 3000))
def test_the_t_quantile_is_scipys_to_within_1e_10(probability, degrees):
    assert metrics.t_quantile(probability, degrees) == pytest.approx(stats.t.ppf(probability, degrees),
                                                                      rel=1e-10, abs=1e-12)


def test_the_t_quantile_is_symmetric_and_refuses_what_is_not_a_probability():
    assert metrics.t_quantile(0.975, 49) == -metrics.t_quantile(0.025, 49) == pytest.approx(2.0095752)
    assert metrics.t_quantile(0.5, 7) == 0.0
    for probability, degrees in [(0.0, 5), (1.0, 5), (0.9, 0)]:
        with pytest.raises(ValueError, match="t_quantile needs 0 < probability < 1 and degrees >= 1; got"):
            metrics.t_quantile(probability, degrees)


def test_the_program_evaluates_without_scipy_gymnasium_or_tqdm_and_the_library_registers(split, logged,
                                                                                        tmp_path):
    path = tmp_path / "logged.parquet"
    logged.to_parquet(path, index=False)
    script = ("import runpy, sys\n"
              "sys.argv = ['pushgen', 'evaluate', '--split', sys.argv[1], '--submission', sys.argv[2],"
              " '-q']\n"
              "try:\n    runpy.run_module('pushgen', run_name='__main__')\nexcept SystemExit:\n    pass\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'gymnasium', 'tqdm'}))\n")
    done = subprocess.run([sys.executable, "-c", script, str(split), str(path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("mean reward ")
    assert done.stdout.splitlines()[-1] == "[]"
    library = subprocess.run([sys.executable, "-c", "import pushgen, gymnasium as gym; "
                              "print(sorted(i for i in gym.registry if i.startswith('pushgen/')))"],
                             capture_output=True, text=True, timeout=300)
    assert library.stdout.strip() == str(sorted(pushgen.envs.ENTRY_POINTS))
