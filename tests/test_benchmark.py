from __future__ import annotations

import json
import re
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import pushgen
import pushgen.benchmark.run
import pushgen.publishing.access
from pushgen.baselines import BASELINES
from pushgen.benchmark.summary import interval, leaderboard
from pushgen.cli import main
from pushgen.data.writer import write_dataset
from pushgen.extras import install_line
from pushgen.splits import SplitSpec, make_split

SPLIT = "pushgen-mini-v4"
TEXT_FILES = ("leaderboard.md", "leaderboard.csv", "per_user.csv", "curves.csv", "benchmark.json")
SELECTION_FILES = ("selection.csv",)  # a full benchmark also runs the selection task


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "results"
    assert main(["benchmark", "--split", SPLIT, "--out", str(out)]) == 0
    return out


def test_cli_writes_the_results_folder(folder):
    names = {p.name for p in folder.iterdir()}
    assert names == {*TEXT_FILES, *SELECTION_FILES, "timings.json", "learning_curves.png", "open_rate.png",
                     "diversity.png"}
    board = pd.read_csv(folder / "leaderboard.csv")
    assert sorted(board["task"].unique()) == [1, 2]
    assert set(board["baseline"]) == set(BASELINES)
    bound = board[board["baseline"] == "upper-bound"]
    assert (bound["rank"] == 1).all() and bound["upper_bound"].all()
    assert board.loc[board["baseline"] != "upper-bound", "upper_bound"].eq(False).all()
    oracle = board[board["baseline"] == "oracle"]
    assert (oracle["rank"] == 2).all() and oracle["uses_true_model"].all()
    text = (folder / "leaderboard.md").read_text()
    # legend + 2 tasks + the selection task
    assert "**[upper bound]**" in text and text.count("**[upper bound]**") == 4
    score = board.set_index(["task", "baseline"])["mean_reward"]
    worth = score[(1, "oracle")] - score[(1, "context-blind-oracle")]
    prose = " ".join(text.split())
    assert worth > 0 and f"The context is worth {worth:.3f}: the oracle's lead" in prose
    models = board[(board["task"] == 1) & ~board["uses_true_model"] & (board["baseline"] != "rotation")]
    best = models.sort_values("mean_reward").iloc[-1]
    below = best["mean_reward"] - score[(1, "rotation")]
    assert f"`rotation` scores {below:.3f} below the best model, `{best['baseline']}`" in prose
    task2 = [name for name, b in BASELINES.items() if 2 in b.tasks]
    curves = pd.read_csv(folder / "curves.csv")
    assert set(curves["baseline"]) == set(task2) and (curves["task"] == 2).all()
    per_user = pd.read_csv(folder / "per_user.csv")
    task1 = [name for name, b in BASELINES.items() if 1 in b.tasks]
    assert len(per_user) == len(task1) * 3 + len(task2) * 1
    reference = board[(board["task"] == 2) & (board["baseline"] == "apps-aware-reference")]
    assert len(reference) == 1 and abs(float(reference["over_reference"].iloc[0])) < 1e-12
    assert not {"learning_area", "learning_quarter_gain", "learning_slope_per_1000_steps"} & {
        *board.columns, *per_user.columns}
    timings = json.loads((folder / "timings.json").read_text())
    assert timings["total_seconds"] > 0 and "task2/bandit" in timings
    for png in folder.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_refuses_to_overwrite_without_force(folder, capsys):
    before = (folder / "leaderboard.md").read_text()
    code, _, err = cli(capsys, "benchmark", "--split", SPLIT, "--out", str(folder),
                       "--baselines", "random")
    assert code == 2
    assert err.strip().count("\n") == 0 and "already exists" in err and "--force" in err
    assert (folder / "leaderboard.md").read_text() == before


def test_results_are_the_same_bytes_on_a_second_run(folder, tmp_path, capsys):
    again = tmp_path / "again"
    code, out, _ = cli(capsys, "benchmark", "--split", SPLIT, "--out", str(again))
    assert code == 0 and out == (folder / "leaderboard.md").read_text()
    for name in (*TEXT_FILES, *SELECTION_FILES):
        assert (again / name).read_bytes() == (folder / name).read_bytes(), name


def test_force_replaces_the_folder(folder, tmp_path, capsys):
    out = tmp_path / "results"
    shutil.copytree(folder, out)  # an earlier benchmark's folder
    code, _, _ = cli(capsys, "benchmark", "--split", SPLIT, "--out", str(out), "--force", "--task", "1",
                     "--baselines", "random,oracle", "--no-plots", "--mode", "sampled")
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*TEXT_FILES, "timings.json"])
    board = pd.read_csv(out / "leaderboard.csv")
    assert list(board["baseline"]) == ["oracle", "random"] and (board["task"] == 1).all()
    assert json.loads((out / "benchmark.json").read_text())["mode"] == "sampled"


@pytest.mark.parametrize("names", ["random,foo", "", "oracle, Random", "random,oracle,random"])
def test_bad_baseline_names_are_one_line_errors_listing_the_valid_ones(names, tmp_path, capsys):
    out = tmp_path / "results"
    code, _, err = cli(capsys, "benchmark", "--split", SPLIT, "--out", str(out), "--baselines", names)
    assert code == 2
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert "choose from " + ", ".join(BASELINES) in err
    assert names != "random,oracle,random" or "baseline 'random' is named twice; choose from" in err
    assert not out.exists()


def test_the_split_it_reads_is_never_its_out(tmp_path, capsys):
    split = tmp_path / "split"
    shutil.copytree(pushgen.publishing.access.resolve_split(SPLIT), split)
    before = sorted(p.relative_to(split) for p in split.rglob("*"))
    for out in (split, tmp_path):
        code, _, err = cli(capsys, "benchmark", "--split", str(split), "--out", str(out), "--force",
                           "--baselines", "random", "--no-plots")
        assert code == 2 and err.strip().count("\n") == 0
        assert f"holds the input {split}" in err
    assert sorted(p.relative_to(split) for p in split.rglob("*")) == before
    code, _, err = cli(capsys, "benchmark", "--split", str(split), "--out", str(split / "results"),
                       "--baselines", "random", "--no-plots")
    assert code == 2 and "is inside the pushgen split" in err


def test_unknown_split_is_a_one_line_error(tmp_path, capsys):
    code, _, err = cli(capsys, "benchmark", "--split", "no-such-split", "--out", str(tmp_path / "x"))
    assert code == 2 and err.strip().count("\n") == 0 and "Traceback" not in err


def test_interval_is_the_student_t_interval_of_the_mean():
    low, high = interval(np.array([1.0, 2.0, 3.0, 4.0]))
    assert (low + high) / 2 == pytest.approx(2.5)
    assert high - low == pytest.approx(2 * 3.182446305284263 * np.std([1, 2, 3, 4], ddof=1) / 2)
    assert np.isnan(interval(np.array([1.0]))[0])


def test_leaderboard_ranks_by_mean_reward_per_task():
    per_user = pd.DataFrame({
        "task": [1, 1, 1, 1, 2, 2],
        "baseline": ["a", "a", "b", "b", "a", "b"],
        "user_id": [0, 1, 0, 1, 9, 9],
        "mean_reward": [0.0, 0.2, 1.0, 1.2, 0.5, 0.4],
    })
    board = leaderboard(per_user, {"a": "A", "b": "B"})
    assert list(zip(board["task"], board["rank"], board["baseline"], strict=True)) == [
        (1, 1, "b"), (1, 2, "a"), (2, 1, "a"), (2, 2, "b")]
    assert board.loc[0, "mean_reward"] == pytest.approx(1.1) and board.loc[0, "label"] == "B"


def test_learners_a_paired_test_separates_are_shown_separated():
    rng = np.random.default_rng(3)
    users = np.arange(12)
    ability = rng.normal(0.9, 0.3, len(users))  # users differ far more than the policies do
    rewards = {"learned": ability, "better": ability + 0.02 + rng.normal(0, 0.005, len(users)),
               "tied": ability + rng.normal(0, 0.005, len(users))}
    per_user = pd.DataFrame([{"task": 1, "baseline": name, "user_id": int(u), "mean_reward": float(r)}
                             for name, values in rewards.items() for u, r in zip(users, values, strict=True)])
    board = leaderboard(per_user, {}).set_index("baseline")
    unpaired = [(board.loc[n, "ci_low"], board.loc[n, "ci_high"]) for n in ("better", "learned")]
    assert unpaired[0][0] < unpaired[1][1]  # the unpaired intervals overlap
    differences = rewards["better"] - rewards["learned"]
    assert board.loc["better", "paired_reference"] == "learned"
    assert board.loc["better", "paired_difference"] == pytest.approx(differences.mean())
    assert (board.loc["better", "paired_low"], board.loc["better", "paired_high"]) == pytest.approx(
        interval(differences))
    assert board.loc["better", "paired_p"] < 1e-6
    assert board.loc["better", "tier"] == 1 and board.loc["learned", "tier"] == 2
    assert board.loc["tied", "tier"] == board.loc["learned", "tier"]
    assert np.isnan(leaderboard(per_user, {}, references={1: "absent"})["paired_difference"]).all()


def test_evaluate_prints_the_paired_comparison_of_the_leaderboard(folder, capsys):
    board = pd.read_csv(folder / "leaderboard.csv").set_index(["task", "baseline"])
    submission = folder.parent / "constant.csv"
    test = pushgen.load_split(SPLIT, task=1).test
    constant = pd.DataFrame({"context_id": test["context_id"], "postingApp": "com.whatsapp",
                             "category": "msg", "numberOfUpdates": "none",
                             "subject": "text & instant messaging", "priority": "max", "ongoing": False,
                             "visibility": "private"})
    constant.to_csv(submission, index=False)
    code, out, _ = cli(capsys, "evaluate", "--split", SPLIT, "--submission", str(submission),
                       "--paired-with", str(folder), "--json")
    assert code == 0
    result = json.loads(out)
    learned = pd.read_csv(folder / "per_user.csv").query("task == 1 and baseline == 'learned'")
    mine = pd.DataFrame(result["users"]).set_index("user_id")["mean_reward"]
    expected = (mine - learned.set_index("user_id")["mean_reward"]).to_numpy()
    assert result["paired"]["reference"] == "learned"
    assert result["paired"]["difference"] == pytest.approx(expected.mean())
    assert (result["paired"]["low"], result["paired"]["high"]) == pytest.approx(interval(expected))
    assert board.loc[(1, "learned"), "paired_difference"] == 0
    code, _, err = cli(capsys, "evaluate", "--split", SPLIT, "--submission", str(submission),
                       "--paired-with", str(folder), "--reference", "nobody")
    assert code == 2 and err.strip().count("\n") == 0
    assert "--reference 'nobody' has no task 1 results" in err and "learned" in err
    code, _, err = cli(capsys, "evaluate", "--split", SPLIT, "--submission", str(submission),
                       "--paired-with", str(folder), "--reference", "")
    assert code == 2 and "--reference '' has no task 1 results" in err and err.strip().count("\n") == 0


def test_evaluate_paired_with_results_of_the_other_task_only_says_so(tmp_path, capsys):
    results = tmp_path / "task2"
    assert main(["benchmark", "--split", SPLIT, "--task", "2", "--baselines", "random", "--no-plots",
                 "--out", str(results)]) == 0
    test = pushgen.load_split(SPLIT, task=1).test
    submission = tmp_path / "constant.csv"
    pd.DataFrame({"context_id": test["context_id"], "postingApp": "com.whatsapp", "category": "msg",
                  "numberOfUpdates": "none", "subject": "text & instant messaging", "priority": "max",
                  "ongoing": False, "visibility": "private"}).to_csv(submission, index=False)
    capsys.readouterr()
    code, out, err = cli(capsys, "evaluate", "--split", SPLIT, "--submission", str(submission),
                         "--paired-with", str(results))
    assert (code, out) == (2, "")
    assert err == (f"pushgen evaluate: error: --paired-with {results} holds no task 1 results "
                   "(its tasks: 2); run pushgen benchmark --task 1 on the split\n")


def test_a_task_without_test_users_is_skipped_or_refused(tmp_path, capsys, monkeypatch):
    dataset = write_dataset(pushgen.generate(users=2, days=70, seed=3), tmp_path / "dataset")
    split = make_split(dataset, tmp_path / "split", SplitSpec(train_months=1, test_months=1,
                                                              validation_weeks=1))
    code, _, err = cli(capsys, "benchmark", "--split", str(split), "--out", str(tmp_path / "b2"),
                       "--task", "2", "--baselines", "random")
    assert code == 2 and "no task 2 test users" in err and err.strip().count("\n") == 0
    code, out, _ = cli(capsys, "benchmark", "--split", str(split), "--out", str(tmp_path / "b"),
                       "--baselines", "random,oracle", "--no-plots")
    assert code == 0 and "Task 1" in out and "Task 2" not in out
    # by default every baseline, and the selection task only where task 2 has users to play it on
    code, out, err = cli(capsys, "benchmark", "--split", str(split), "--out", str(tmp_path / "all"),
                         "--no-plots")
    assert code == 0, err
    assert "## Task 1" in out and "## Task 2" not in out and "## Selection" not in out
    ran: list = []
    monkeypatch.setattr(pushgen.benchmark.run, "run_baseline", lambda *args, **kwargs: ran.append(args) or [])
    code, _, err = cli(capsys, "benchmark", "--split", str(split), "--out", str(tmp_path / "selection"),
                       "--selection", "all", "--baselines", "random", "--no-plots")
    assert (code, ran) == (2, [])  # refused before any baseline ran
    assert err == ("pushgen benchmark: error: the selection task plays task 2's test users: split split has "
                   "no task 2 test users (it holds no cold-start users)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all", "b", "dataset", "split"]


@pytest.mark.parametrize(("modules", "names", "needs"), [
    (("sklearn", "sklearn.linear_model"), "learned,random",
     "the benchmark needs scikit-learn (for the baselines learned, learned-diverse)"),
    (("matplotlib", "matplotlib.pyplot"), "random", "the benchmark needs matplotlib (for the plots)"),
    (("sklearn", "sklearn.linear_model", "matplotlib", "matplotlib.pyplot"), "learned-diverse",
     "the benchmark needs scikit-learn (for the baselines learned, learned-diverse) and matplotlib "
     "(for the plots)"),
])
def test_missing_extras_are_named_once_with_the_whole_install_line(modules, names, needs, monkeypatch,
                                                                     tmp_path, capsys):
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)
    code, _, err = cli(capsys, "benchmark", "--split", SPLIT, "--out", str(tmp_path / "b"),
                       "--baselines", names)
    assert code == 2 and err.strip().count("\n") == 0
    assert err.startswith(f"pushgen benchmark: error: {needs}: {install_line('bench')} ")
    assert err.count("pip install") == 1
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(("tasks", "message"), [
    ([1.0], "task must be 1 or 2; got 1.0"), ([True], "task must be 1 or 2; got True"),
    ("12", "task must be 1 or 2; got '1'"), ([3], "task must be 1 or 2; got 3"),
    ([], "tasks is empty; give 1, 2, both, or None for those with test users"),
])
def test_run_benchmark_names_a_task_that_is_not_1_or_2(tasks, message):
    from pushgen.benchmark.task_inputs import BenchmarkError, task_data

    with pytest.raises(BenchmarkError, match=f"^{re.escape(message)}$"):
        pushgen.run_benchmark(SPLIT, tasks=tasks, baselines=["random"])
    with pytest.raises(BenchmarkError, match=r"^task must be 1 or 2; got 1\.0$"):
        task_data(SPLIT, 1.0)


def test_run_benchmark_takes_one_task_alone():
    assert pushgen.run_benchmark(SPLIT, tasks=2, baselines=["random"]).tasks == [2]
