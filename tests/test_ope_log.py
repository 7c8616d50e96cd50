"""Logged bandit feedback: the log's tables, its folder, ``pushgen log``, the converters read back by
their libraries, and the ground truth that checks the estimators."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from envs_split import small_split
from scipy.stats import chi2

from pushgen.commands import main
from pushgen.ope import (
    GreedyPolicy,
    HoldHeavyPolicy,
    OPEWarning,
    SoftmaxPolicy,
    UniformPolicy,
    estimate_all,
    frozen_value,
    log_policy,
    policy_value,
    propensity_check,
    read_log,
    to_obp,
    to_vw,
    validate_log,
    write_log,
)
from pushgen.ope.policies import Slates

PRIORITY = 4  # the priority code's column among the notification features


def by_priority(slates: Slates) -> np.ndarray:
    """A public scorer: the candidate with the highest priority code (no answer key)."""
    return slates.candidates[:, :, PRIORITY].astype(float) + 0.01 * np.arange(slates.mask.shape[1])


@pytest.fixture(scope="module")
def split():
    return small_split()


@pytest.fixture(scope="module")
def softmax_log(split):
    return log_policy(split, "softmax", 0.3, users=3, seed=5)


@pytest.fixture(scope="module")
def log_folder(split, tmp_path_factory, softmax_log):
    out = tmp_path_factory.mktemp("logs") / "softmax"
    write_log(softmax_log, out)
    return out


def test_propensities_sum_to_one_and_match_the_chosen_rows(softmax_log):
    rounds, candidates = softmax_log.rounds, softmax_log.candidates
    totals = candidates.groupby("round_id")["propensity"].sum().to_numpy()
    assert np.abs(totals - 1).max() < 1e-12
    chosen = candidates[candidates["chosen"]].set_index("round_id").sort_index()
    assert len(chosen) == len(rounds)
    assert (chosen["slot"].to_numpy() == rounds["slot"].to_numpy()).all()
    assert (chosen["propensity"].to_numpy() == rounds["propensity"].to_numpy()).all()
    assert (chosen["p_open"].to_numpy() == rounds["p_open"].to_numpy()).all()
    assert (chosen["reward"].to_numpy(dtype=int) == rounds["reward"].to_numpy()).all()
    hold = candidates[candidates["hold"]]
    assert len(hold) == len(rounds) and (hold["slot"] == softmax_log.k).all()
    assert hold["postingApp"].isna().all() and hold["ongoing"].isna().all() and (hold["p_open"] == 0).all()
    assert candidates.loc[~candidates["hold"], "postingApp"].notna().all()
    assert candidates.loc[~candidates["chosen"], "reward"].isna().all()
    assert rounds["held"].equals(rounds["slot"] == softmax_log.k)
    assert (rounds.loc[rounds["held"], "reward"] == 0).all()


def test_softmax_propensities_are_the_policy_of_the_logged_state(softmax_log):
    slates = softmax_log.slates(with_state=True)
    expected = SoftmaxPolicy(0.3).probabilities(slates)
    assert np.abs(softmax_log.action_table("propensity") - expected).max() < 1e-12


def test_logged_choices_follow_the_propensities(split):
    """Chosen shares per propensity bin agree with the mean propensity (chi-square over bins)."""
    log = log_policy(split, "softmax", 0.2, seed=9)
    table = propensity_check(log)
    expected = table["mean_propensity"] * table["actions"]
    observed = table["chosen_share"] * table["actions"]
    statistic = float((((observed - expected) ** 2) / (expected * (1 - table["mean_propensity"]))).sum())
    assert chi2.sf(statistic, len(table)) > 0.001, table
    assert table["actions"].sum() == len(log.candidates)


def test_a_log_is_the_same_for_a_seed_and_differs_for_another(split, tmp_path, softmax_log, log_folder):
    again = tmp_path / "again"
    write_log(log_policy(split, "softmax", 0.3, users=3, seed=5), again)
    assert (again / "log.json").read_bytes() == (log_folder / "log.json").read_bytes()
    for name in ("rounds.parquet", "candidates.parquet", "croissant.json", "README.md"):
        assert (again / name).read_bytes() == (log_folder / name).read_bytes()
    other = log_policy(split, "softmax", 0.3, users=3, seed=6)
    assert not np.array_equal(other.rounds["slot"], softmax_log.rounds["slot"])
    assert other.rounds["context_id"].equals(softmax_log.rounds["context_id"])


def test_the_folder_reads_back_and_validates(log_folder, softmax_log):
    log = read_log(log_folder)
    pd.testing.assert_frame_equal(log.rounds, softmax_log.rounds, check_dtype=False, check_categorical=False)
    assert log.recipe["policy"] == "softmax" and log.recipe["temperature"] == 0.3
    assert validate_log(log_folder) == []
    described = json.loads((log_folder / "log.json").read_text())
    assert described["rounds"] == len(softmax_log.rounds)
    assert set(described["files"]) == {"rounds.parquet", "candidates.parquet"}
    card = (log_folder / "README.md").read_text()
    assert "## Answer key" in card and "true P(open) of the split's test users" in card
    croissant = json.loads((log_folder / "croissant.json").read_text())
    assert {r["name"] for r in croissant["recordSet"]} >= {"rounds", "candidates"}


def test_validate_finds_a_changed_file_and_an_unlisted_one(log_folder, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(log_folder, copy)
    with open(copy / "rounds.parquet", "ab") as handle:
        handle.write(b"x")
    assert "rounds.parquet has" in validate_log(copy)[0]
    shutil.rmtree(copy)
    shutil.copytree(log_folder, copy)
    (copy / "notes.txt").write_text("mine")
    assert "notes.txt is not listed in log.json" in validate_log(copy)[0]
    result = CliRunner().invoke(main_cli(), ["validate", str(copy)])
    assert result.exit_code == 1


def main_cli():
    from pushgen.commands import cli

    return cli


def test_pushgen_validate_accepts_a_log(log_folder, capsys):
    assert main(["validate", str(log_folder)]) == 0
    assert "valid:" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--policy", "softmax", "--temperature", "nan"], "'nan' is not a finite number"),
    (["--policy", "softmax", "--temperature", "inf"], "'inf' is not a finite number"),
    (["--policy", "softmax", "--temperature", "0.05"], "0.05 is below 0.1, the lowest temperature"),
    (["--policy", "softmax", "--temperature", "warm"], "'warm' is not a valid number"),
    (["--temperature", "0.5"], "--temperature goes with --policy softmax or softmax-learned"),
    (["--policy", "greedy"], "'greedy' is not one of 'uniform', 'softmax', 'softmax-learned'"),
    (["--users", "0"], "0 is not in the range x>=1"),
    (["--users", "99"], "users must be from 1 to 5 (the split's test users); got 99"),
    (["--user", "77"], "user 77 is not a test user of the split; test users: 0, 1, 2, 3, 4"),
    (["--users", "1", "--user", "0"], "give --users or --user, not both"),
    (["--k", "65"], "65 is not in the range 1<=x<=64"),
    (["--seed", "-1"], "-1 is not in the range"),
])
def test_bad_options_are_one_line_errors_and_write_nothing(split, tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["log", str(split), "--out", str(out), *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_out_rules(split, tmp_path, capsys):
    out = tmp_path / "log"
    assert main(["log", str(split), "--users", "1", "--out", str(out)]) == 0
    assert " rounds of 1 user (" in capsys.readouterr().out
    assert main(["log", str(split), "--users", "1", "--out", str(out)]) == 2
    assert "already exists; choose another --out or pass --force" in capsys.readouterr().err
    assert main(["log", str(split), "--users", "1", "--seed", "2", "--out", str(out), "--force"]) == 0
    assert read_log(out).recipe["seed"] == 2
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["log", str(split), "--users", "1", "--out", str(mine), "--force"]) == 2
    assert "not empty and not a pushgen output" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "keep"
    assert main(["log", str(split), "--users", "1", "--out", str(split / "inside")]) == 2
    assert "is inside the pushgen split" in capsys.readouterr().err
    assert main(["log", str(split), "--users", "1", "--out", str(out / "inside")]) == 2
    assert "is inside the pushgen log" in capsys.readouterr().err


def test_to_obp_is_a_bandit_feedback(softmax_log):
    feedback = to_obp(softmax_log)
    n, k = len(softmax_log), softmax_log.k
    assert feedback["n_rounds"] == n and feedback["n_actions"] == k + 1
    assert feedback["context"].shape == (n, 11)
    assert feedback["action_context"].shape == (n, k + 1, 7)
    assert np.array_equal(feedback["action_context"], feedback["candidate_features"])
    slates = softmax_log.slates()
    assert np.array_equal(feedback["action_context"][:, :k][slates.mask], slates.candidates[slates.mask])
    assert feedback["pi_b"].shape == (n, k + 1, 1) and feedback["expected_reward"].shape == (n, k + 1)
    assert np.allclose(feedback["pi_b"][:, :, 0].sum(axis=1), 1.0)
    assert np.array_equal(feedback["pi_b"][np.arange(n), feedback["action"], 0], feedback["pscore"])
    assert np.array_equal(feedback["reward"], softmax_log.rounds["reward"].to_numpy(float))
    assert (feedback["candidate_features"][:, k] == -1).all()
    assert (feedback["candidate_features"][:, :k][~slates.mask] == -1).all()


def test_obp_style_direct_method_on_the_candidates_features_finds_the_truth(split):
    """Open Bandit Pipeline's ``RegressionModel`` fits its base model on (context,
    action_context[action]) and predicts every action's reward from (context, action_context[a]);
    its DM is the target's probabilities times those predictions. With the candidates' features
    as ``action_context`` that DM meets the true value of a stationary log; with the one-hot of
    the slot (which says nothing about the notification) it cannot."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    log = log_policy(split, "uniform", users=3, seed=2, stationary=True)
    target = GreedyPolicy(by_priority)
    truth = policy_value(target, split, users=3, stationary=True).value
    feedback = to_obp(log)
    n, actions = feedback["n_rounds"], feedback["n_actions"]
    probabilities = log.target_probabilities(target)

    def direct_method(action_context) -> float:
        model = HistGradientBoostingClassifier(random_state=0)
        model.fit(np.c_[feedback["context"], action_context(feedback["action"])], feedback["reward"])
        predicted = np.column_stack([
            model.predict_proba(np.c_[feedback["context"], action_context(np.full(n, a))])[:, 1]
            for a in range(actions)])
        return float((probabilities * predicted).sum(axis=1).mean())

    features = direct_method(lambda a: feedback["action_context"][np.arange(n), a])
    slot = direct_method(lambda a: np.eye(actions)[a])
    assert abs(features - truth) < 0.015, (features, truth)
    assert abs(features - truth) < abs(slot - truth) / 2, (features, slot, truth)


def test_vowpal_wabbit_reads_the_log_and_evaluates_with_dr(softmax_log):
    vw = pytest.importorskip("vowpalwabbit")
    text = to_vw(softmax_log)
    examples = [block.split("\n") for block in text.strip("\n").split("\n\n")]
    assert len(examples) == len(softmax_log)
    first = examples[0]
    assert first[0].startswith("shared |c ") and len(first) == 1 + softmax_log.rounds["candidates"][0] + 1
    labelled = [line for line in first if line[0].isdigit()]
    slot, cost, probability = labelled[0].split(" ")[0].split(":")
    assert int(slot) == softmax_log.rounds["slot"][0]
    assert float(probability) == softmax_log.rounds["propensity"][0]
    assert float(cost) == -softmax_log.rounds["reward"][0]
    # an untrained Vowpal Wabbit sends slot 0 everywhere: its IPS and DR (model still 0) estimates
    # of that policy's cost are minus our IPW of it, from the text's labels and probabilities alone
    first_slot = GreedyPolicy(lambda s: -np.tile(np.arange(s.mask.shape[1], dtype=float), (len(s), 1)))
    ours = estimate_all(softmax_log.feedback(first_slot))["IPW"].value
    for cb_type in ("ips", "dr"):
        evaluator = vw.Workspace(f"--cb_adf --cb_type {cb_type} -t --quiet")
        for lines in examples:
            evaluator.learn(lines)
        assert evaluator.get_sum_loss() / evaluator.get_weighted_examples() == pytest.approx(-ours, abs=1e-6)
        evaluator.finish()
    workspace = vw.Workspace("--cb_adf --cb_type dr -q ca --quiet")
    for lines in examples:
        workspace.learn(lines)
    assert workspace.get_weighted_examples() == len(softmax_log)
    # VW's progressive DR estimate of its learned policy's cost: a negative open rate
    loss = workspace.get_sum_loss() / workspace.get_weighted_examples()
    assert -1.0 <= loss <= -0.05
    workspace.finish()


def test_minari_reads_the_log_back(softmax_log, tmp_path, monkeypatch):
    pytest.importorskip("minari")
    import minari

    from pushgen.ope import to_minari

    to_minari(softmax_log, "pushgen/selection-softmax-v0", root=tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    dataset = minari.load_dataset("pushgen/selection-softmax-v0")
    assert dataset.total_episodes == len(softmax_log.recipe["users"])
    assert dataset.total_steps == len(softmax_log)
    actions = np.concatenate([episode.actions for episode in dataset.iterate_episodes()])
    assert np.array_equal(actions, softmax_log.rounds["slot"].to_numpy())
    rewards = np.concatenate([episode.rewards for episode in dataset.iterate_episodes()])
    assert rewards.sum() == softmax_log.rounds["reward"].sum()
    first = next(dataset.iterate_episodes())
    n = len(first.actions)
    assert np.array_equal(first.infos["propensity"][:n], softmax_log.rounds["propensity"][:n])

    # the recorded spec makes the environment that played the log, and its observations are the log's
    env = dataset.recover_environment()
    assert env.unwrapped.spec.id == "pushgen/NotificationSelection-v0"
    assert env.observation_space == dataset.observation_space
    assert env.unwrapped.k == softmax_log.k
    observation, _ = env.reset()
    assert env.unwrapped.user == softmax_log.rounds["user_id"][0]
    for t in range(n):
        for name, space in env.observation_space.spaces.items():
            recorded = first.observations[name][t]
            assert space.contains(np.asarray(recorded, dtype=space.dtype).reshape(space.shape)), name
            np.testing.assert_allclose(np.ravel(recorded), np.ravel(observation[name]), atol=1e-3,
                                       err_msg=f"{name} at step {t}")
        observation, *_ = env.step(int(first.actions[t]))
    env.close()

    with pytest.raises(FileExistsError, match="pass force=True to replace it"):
        to_minari(softmax_log, "pushgen/selection-softmax-v0", root=tmp_path)
    to_minari(softmax_log, "pushgen/selection-softmax-v0", root=tmp_path, force=True)
    assert minari.load_dataset("pushgen/selection-softmax-v0").total_steps == len(softmax_log)


def test_stationary_frozen_value_is_the_on_policy_value(split):
    """Without fatigue and habituation the state never matters: the value of a deterministic target
    frozen to the logged trajectory equals its on-policy value exactly."""
    log = log_policy(split, "uniform", users=3, seed=2, stationary=True)
    target = GreedyPolicy(by_priority)
    truth = policy_value(target, split, users=3, stationary=True)
    assert truth.low == truth.high == truth.value and truth.rollouts == 1
    assert frozen_value(target, log) == pytest.approx(truth.value, abs=1e-12)
    estimates = estimate_all(log.feedback(target))
    assert estimates["IPW"].covers(truth.value) and estimates["SNIPW"].covers(truth.value)


def test_the_full_model_separates_on_policy_and_frozen_values(split):
    """With fatigue and habituation, a target that holds most of the time meets a fresher user
    than the logging policy left: its on-policy value per send is higher than frozen."""
    log = log_policy(split, "uniform", users=3, seed=2)
    target = HoldHeavyPolicy(by_priority, hold=0.8)
    truth = policy_value(target, split, users=3, rollouts=3)
    assert truth.rollouts == 3 and truth.low < truth.value < truth.high
    assert 0.1 < truth.send_rate < 0.3
    assert truth.value > log.frozen_value(target) * 1.05


def test_uniform_target_on_uniform_log_estimates_the_mean_reward(split):
    log = log_policy(split, "uniform", users=2, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OPEWarning)
        estimate = estimate_all(log.feedback(UniformPolicy()))["IPW"]
    assert estimate.value == pytest.approx(log.rounds["reward"].mean())
    assert estimate.effective_rounds == pytest.approx(len(log))


def test_mlcroissant_validates_the_log_and_reads_its_rounds(log_folder, softmax_log, caplog):
    import logging

    mlc = pytest.importorskip("mlcroissant")
    with caplog.at_level(logging.WARNING):
        dataset = mlc.Dataset(jsonld=log_folder / "croissant.json")
    assert dataset.metadata.ctx.issues.errors == set()
    assert dataset.metadata.ctx.issues.warnings == set()
    first = next(iter(dataset.records(record_set="rounds")))
    assert first["rounds/propensity"] == pytest.approx(softmax_log.rounds["propensity"][0])
    described = json.loads((log_folder / "croissant.json").read_text())
    files = {d["@id"] for d in described["distribution"]}
    assert files == {p.name for p in log_folder.iterdir() if p.name != "croissant.json"}


def forged_copy(log_folder, copy, edit):
    """A copy of the log folder whose candidates table ``edit`` changed, with its listing and
    Croissant described again, as a forger would; the edited candidates."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from pushgen.data.outputs import file_listing
    from pushgen.ope.card import log_croissant
    from pushgen.ope.folder import TABLES

    shutil.copytree(log_folder, copy)
    candidates = pq.read_table(copy / "candidates.parquet").to_pandas()
    edit(candidates)
    pq.write_table(pa.Table.from_pandas(candidates, preserve_index=False), copy / "candidates.parquet")
    described = json.loads((copy / "log.json").read_text())
    described["files"] = file_listing(copy, exclude=("log.json", "README.md", "croissant.json"))
    (copy / "log.json").write_text(json.dumps(described))
    croissant = log_croissant(copy, described, TABLES, ("log.json", "README.md"))
    (copy / "croissant.json").write_text(json.dumps(croissant))
    return candidates


def test_validate_checks_the_tables_not_only_the_checksums(log_folder, tmp_path):
    """A log whose listing is right but whose propensities or choices are not is invalid."""
    def edit(candidates):
        candidates.loc[candidates.index[0], "propensity"] += 0.01
        candidates.loc[candidates.index[1], "chosen"] = ~candidates.loc[candidates.index[1], "chosen"]

    forged_copy(log_folder, tmp_path / "edited", edit)
    problems = validate_log(tmp_path / "edited")
    assert any("round 0: the propensities sum to 1.01" in p for p in problems), problems
    assert any("every round needs exactly one chosen action" in p for p in problems), problems


def test_validate_recomputes_every_propensity_from_the_logging_policy(log_folder, tmp_path):
    """Two propensities of a round swapped keep every sum at 1 and the chosen rows as they were."""
    swapped = []

    def edit(candidates):
        others = candidates[~candidates["chosen"]]
        first = others.groupby("round_id")["propensity"].nunique().gt(1).idxmax()
        in_round = others[others["round_id"] == first]
        a, b = in_round.index[in_round["propensity"].rank(method="first").isin([1, 2]).to_numpy()]
        candidates.loc[[a, b], "propensity"] = candidates.loc[[b, a], "propensity"].to_numpy()
        swapped.extend([a, b])

    candidates = forged_copy(log_folder, tmp_path / "swapped", edit)
    a, b = swapped
    assert validate_log(tmp_path / "swapped") == [
        f"candidate row {a}: propensity {candidates.loc[a, 'propensity']:.12g} is not the logging policy's "
        f"{candidates.loc[b, 'propensity']:.12g} (2 rows like it)"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"policy": "greedy"}, "unknown logging policy 'greedy'; policies: uniform, softmax, softmax-learned"),
    ({"policy": "uniform", "temperature": 0.5},
     "temperature goes with the softmax and softmax-learned policies, not uniform"),
    ({"policy": "softmax-learned", "temperature": 0.05}, "temperature must be a finite number >= 0.1"),
    ({"policy": "softmax", "temperature": float("nan")}, "temperature must be a finite number >= 0.1"),
    ({"seed": -3}, "seed must be a whole number >= 0; got -3"),
    ({"k": 0}, "k (candidates per context) must be a whole number from 1 to 64; got 0"),
    ({"users": [99]}, "user 99 is not a test user of the split"),
    ({"users": []}, "users is an empty list; give some user ids, a number of users, or None for every "
                    "test user"),
    ({"users": "0"}, "users must be a number of users, a list of user ids or None; got '0'"),
])
def test_the_python_api_refuses_bad_options_with_their_name(split, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        log_policy(split, **kwargs)


class Mine:
    """A target policy of one's own whose probabilities are ``answer(uniform probabilities)``."""

    name, reads_state = "mine", False

    def __init__(self, answer):
        self.answer = answer

    def probabilities(self, slates):
        return self.answer(UniformPolicy().probabilities(slates))


@pytest.mark.parametrize(("target", "error", "message"), [
    (GreedyPolicy(lambda slates: None), ValueError,
     "the scorer must give one number per candidate, shape (rounds, k) = ({n}, {k}); it gave None"),
    (GreedyPolicy(lambda slates: np.zeros(3)), ValueError, "it gave numpy.ndarray of shape (3,)"),
    (GreedyPolicy(lambda slates: np.full(slates.mask.shape, np.nan)), ValueError, "it gave a NaN score"),
    (GreedyPolicy(None), TypeError, "a scorer is a function of slates giving each candidate's score (n, k)"),
    (None, TypeError, "the policy must be a pushgen.ope policy (name, reads_state and probabilities(slates)"),
    (Mine(lambda p: p[:, :-1]), ValueError,
     "mine's probabilities(slates) must be an array of shape (rounds, k + 1) = ({n}, {k1}), each slot's "
     "probability and hold's last; got shape ({n}, {k})"),
    (Mine(lambda p: None), ValueError, "must be an array of shape (rounds, k + 1) = ({n}, {k1}), each slot's "
                                       "probability and hold's last; got None"),
    (Mine(lambda p: -p), ValueError, "mine's probabilities(slates) gave a probability that is negative"),
    (Mine(lambda p: 2 * p), ValueError,
     "mine's probabilities(slates): each row must sum to 1; row 0 sums to 2"),
])
def test_a_target_policy_or_scorer_that_gives_the_wrong_thing_is_named(split, softmax_log, target, error,
                                                                        message):
    message = message.format(n=len(softmax_log), k=softmax_log.k, k1=softmax_log.k + 1)
    with pytest.raises(error) as raised:
        softmax_log.feedback(target)
    assert message in str(raised.value)
    with pytest.raises(error) as raised:
        policy_value(target, split, users=[int(softmax_log.rounds["user_id"].iloc[0])], rollouts=1)
    assert message.split("(rounds")[0] in str(raised.value)


def test_a_target_policy_that_sends_an_empty_slot_is_named():
    from pushgen.ope.slates import probabilities_of

    slates = Slates(contexts={}, candidates=np.zeros((1, 2, 7), dtype=np.int64),
                    mask=np.array([[True, False]]))
    with pytest.raises(ValueError, match=r"^mine's probabilities\(slates\) gave an empty slot a probability"):
        probabilities_of(Mine(lambda p: np.full((1, 3), 1 / 3)), slates)
    assert probabilities_of(Mine(lambda p: p), slates).tolist() == [[0.5, 0.0, 0.5]]


def test_with_a_stationary_user_ipw_and_dr_hold_the_truth_for_every_target(split):
    """The honest log: uniform logging, no fatigue and no habituation; IPW's and DR's 95% intervals
    hold the on-policy value of a greedy, an epsilon-greedy and a hold-heavy target."""
    pytest.importorskip("sklearn")
    from pushgen.ope import EpsilonGreedyPolicy
    from pushgen.ope.models import reward_model

    log = log_policy(split, "uniform", seed=3, stationary=True)
    rewards = reward_model(log)
    assert rewards.shape == (len(log), log.k + 1) and (rewards[:, -1] == 0).all()
    for target in (GreedyPolicy(by_priority), EpsilonGreedyPolicy(by_priority, 0.1),
                   HoldHeavyPolicy(by_priority, 0.75)):
        truth = policy_value(target, split, stationary=True, rollouts=3)
        estimates = estimate_all(log.feedback(target, rewards))
        assert estimates["IPW"].covers(truth.value), (target.name, estimates["IPW"], truth)
        assert estimates["DR"].covers(truth.value), (target.name, estimates["DR"], truth)
        assert estimates["DR"].high - estimates["DR"].low < estimates["IPW"].high - estimates["IPW"].low


def test_users_is_a_count_a_list_of_ids_or_none(split):
    from pushgen.data.dataset import DatasetError
    from pushgen.ope.play import choose_users, test_users

    assert choose_users(split, 2) == test_users(split)[:2]
    with pytest.raises(DatasetError, match=r"users must be a number of users, a list of user ids or None; "
                       r"got True"):
        choose_users(split, True)


def test_the_readers_of_a_log_name_what_they_were_given_instead(tmp_path, monkeypatch):
    from pushgen.ope import to_minari, to_obp, to_vw, write_log

    monkeypatch.chdir(tmp_path)
    readers = {"to_obp": to_obp, "to_vw": to_vw, "to_minari": lambda given: to_minari(given, "a/b-v0"),
               "write_log": lambda given: write_log(given, "out")}
    for reader, call in readers.items():
        for given, named in ((None, "None"), (pd.DataFrame(), "pandas.DataFrame"), ({}, "dict")):
            expected = (rf"^{reader} reads a BanditLog \(from pushgen.ope.log_policy or read_log\); "
                        rf"got {named}$")
            with pytest.raises(TypeError, match=expected):
                call(given)
    assert list(tmp_path.iterdir()) == []
