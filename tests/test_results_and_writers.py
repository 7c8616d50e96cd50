"""Benchmark results folders are verified before use; one-file outputs (``pushgen report``,
``record_run``) follow the writer rule of the folder outputs."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from envs_split import small_split
from fault_families_inputs import resign, results_folder

from pushgen.cli import main
from pushgen.data.outputs import DatasetError, OutputBusy, sha256_file, writer_lock
from pushgen.envs import GENERATION_ID, SELECTION_ID, record_run
from pushgen.replay.evaluation import Evaluation
from pushgen.replay.results import read_results
from pushgen.replay.submission import SubmissionError
from pushgen.report import write_report

FINGERPRINT = "0" * 64  # of the results folder's split


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A results folder of two policies on task 1, three users each."""
    return results_folder(tmp_path_factory.mktemp("bench"))


@pytest.fixture(scope="module")
def split():
    return small_split()


def copy(results, tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(results, folder)
    return folder


def evaluation(mine: float = 0.0) -> Evaluation:
    per_user = pd.DataFrame({"mean_reward": [mine] * 3}, index=pd.Index(range(3), name="user_id"))
    return Evaluation(split="s", task=1, mode="expected", per_user=per_user, overall={},
                      fingerprint=FINGERPRINT)


def test_a_verified_results_folder_pairs_user_by_user(results):
    assert read_results(results).tables["per_user.csv"].shape == (6, 5)
    paired = evaluation(1.0).paired_with(results, "learned").paired
    assert paired["reference"] == "learned" and paired["difference"] == pytest.approx(1.0 - 0.1)


def edit_per_user(folder):
    table = pd.read_csv(folder / "per_user.csv")
    table.loc[table["baseline"] == "learned", "mean_reward"] = -5.0
    table.to_csv(folder / "per_user.csv", index=False)


def drop_task(folder):
    pd.read_csv(folder / "per_user.csv").drop(columns="task").to_csv(folder / "per_user.csv", index=False)
    resign(folder, "benchmark")


def text_users(folder):
    table = pd.read_csv(folder / "per_user.csv").astype({"user_id": str})
    table.loc[0, "user_id"] = "first"
    table.to_csv(folder / "per_user.csv", index=False)
    resign(folder, "benchmark")


@pytest.mark.parametrize(("damage", "message"), [
    (edit_per_user, "per_user.csv differs from its entry in benchmark.json (the file changed)"),
    (lambda f: shutil.copy(f / "per_user.csv", f / "per_user_2.csv"),
     "per_user_2.csv is not listed in"),
    (lambda f: (f / "benchmark.json").write_text("[]"), "is not a JSON object (it holds an array)"),
    (lambda f: (f / "benchmark.json").write_text("[" * 200_000 + "]" * 200_000),
     "is nested more than 64 levels deep"),
    (lambda f: (f / "benchmark.json").write_text(json.dumps({"split": "s", "mode": "expected", "files": {}})),
     "'fingerprint' must be text, not null"),
    (drop_task, "per_user.csv has no column 'task'"),
    (text_users, "the column 'user_id' must hold whole numbers"),
    (lambda f: (f / "per_user.csv").unlink(), "per_user.csv is missing; benchmark.json lists it"),
])
def test_a_results_folder_that_is_not_as_written_is_refused_in_one_line(results, tmp_path, damage, message,
                                                                          capsys):
    folder = copy(results, tmp_path)
    damage(folder)
    with pytest.raises(SubmissionError) as raised:
        evaluation().paired_with(folder, "learned")
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert str(raised.value).startswith("--paired-with: ")
    assert main(["validate", str(folder)]) == 1  # pushgen validate finds the same
    out, err = capsys.readouterr()
    assert message in out and out.count("\n") == 1 and err == f"invalid: {folder} (1 problem)\n"


def test_validate_checks_a_results_folder(results, capsys):
    assert main(["validate", str(results)]) == 0
    files = len(json.loads((results / "benchmark.json").read_text())["files"])
    assert capsys.readouterr().out == (f"valid: {results} (benchmark results, {files} files; every file's "
                                       "sha256 and every table's columns checked)\n")


def test_report_refuses_a_forged_leaderboard(results, tmp_path, capsys):
    folder = copy(results, tmp_path)
    board = pd.read_csv(folder / "leaderboard.csv")
    board.loc[:, "mean_reward"] = 99.0
    board.to_csv(folder / "leaderboard.csv", index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(folder), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "leaderboard.csv differs from its entry in benchmark.json" in error
    assert not out.exists()


def test_report_replaces_only_a_report_and_never_with_another_writer(results, tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert main(["report", str(results), "--out", str(notes), "--force"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a report pushgen wrote; --force replaces only those" in error
    assert notes.read_text() == "my notes\n"
    out = tmp_path / "r.html"
    assert main(["report", str(results), "--out", str(out)]) == 0
    first = sha256_file(out)
    assert main(["report", str(results), "--out", str(out), "--force"]) == 0  # its own report: replaced
    assert sha256_file(out) == first
    capsys.readouterr()
    with writer_lock(out), pytest.raises(OutputBusy, match="is being written by another pushgen run"):
        write_report(results, out, force=True)
    assert sha256_file(out) == first and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "r.html"]


def test_report_of_the_root_folder_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for out in ([], ["--out", str(tmp_path / "r.html")]):
        assert main(["report", "/", *out]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "is inside the input /" in error, error
    assert not list(tmp_path.iterdir())


def test_record_run_refuses_the_selection_environment_before_playing(split, tmp_path):
    env = gym.make(SELECTION_ID, split=split)
    calls = []
    with pytest.raises(TypeError, match=r"records a pushgen/NotificationGeneration-v0 run \(an environment "
                                        r"from gym.make\); got NotificationSelectionEnv, whose runs"):
        record_run(env, lambda observation, info: calls.append(1), tmp_path / "run.parquet")
    assert calls == [] and not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["run.csv", "run", "run.parquet.tmp"])
def test_record_run_refuses_a_path_evaluate_would_not_read_as_parquet_before_playing(split, tmp_path, name):
    env = gym.make(GENERATION_ID, split=split, user=3)
    calls = []
    with pytest.raises(ValueError, match=rf"^record_run writes Parquet, which pushgen evaluate reads from a "
                                         rf"\.parquet file; got path '.*/{re.escape(name)}': give a path "
                                         r"ending in \.parquet$"):
        record_run(env, lambda observation, info: calls.append(1), tmp_path / name)
    assert calls == [] and not list(tmp_path.iterdir())


def test_record_run_writes_only_where_it_may(split, tmp_path):
    env = gym.make(GENERATION_ID, split=split, user=3)
    env.action_space.seed(0)
    calls = []

    def policy(observation, info):
        calls.append(1)
        return env.action_space.sample()

    before = sorted(p.relative_to(split).as_posix() for p in split.rglob("*"))
    for inside in (split / "task2" / "run.parquet", split / "task2" / "test.parquet"):
        with pytest.raises(DatasetError, match="is inside the pushgen split"):
            record_run(env, policy, inside)
    assert sorted(p.relative_to(split).as_posix() for p in split.rglob("*")) == before and calls == []
    other = tmp_path / "other.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(other)
    with pytest.raises(DatasetError, match="already exists; choose another path or pass --force"):
        record_run(env, policy, other)
    with pytest.raises(DatasetError, match="is not a recording pushgen wrote"):
        record_run(env, policy, other, force=True)
    assert calls == [] and list(pd.read_parquet(other).columns) == ["x"]
    run = tmp_path / "run.parquet"
    history = record_run(env, policy, run, seed=0)
    assert len(pd.read_parquet(run)) == len(history) == len(calls) > 0
    record_run(env, policy, run, seed=0, force=True)  # a recording: replaced
    assert len(pd.read_parquet(run)) == len(history)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.parquet", "run.parquet"]
    assert np.isfinite(pd.read_parquet(run)["decision_seconds"]).all()


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_one_file_outputs_get_the_mode_of_the_umask_as_folder_outputs_do(results, split, tmp_path, umask):
    env = gym.make(GENERATION_ID, split=split, user=3)
    env.action_space.seed(0)
    before = os.umask(umask)
    try:
        assert main(["report", str(results), "--out", str(tmp_path / "r.html")]) == 0
        record_run(env, lambda observation, info: env.action_space.sample(), tmp_path / "run.parquet", seed=0)
        assert main(["make", "--users", "1", "--days", "2", "--out", str(tmp_path / "d"), "-q"]) == 0
    finally:
        os.umask(before)
    files = 0o666 & ~umask
    assert {name: stat.S_IMODE((tmp_path / name).stat().st_mode)
            for name in ("r.html", "run.parquet", "d/manifest.json", "d")} == {
        "r.html": files, "run.parquet": files, "d/manifest.json": files, "d": 0o777 & ~umask}


def test_a_bucket_made_without_its_tables_says_so():
    import pyarrow as pa

    from pushgen.data.writer import Bucket

    empty = pa.table({"user_id": pa.array([], pa.int32())})
    bucket = Bucket(index=3, user_ids=[], users=empty, engagement_users=empty, constants={}, digests=None,
                    rows={}, opened=0, posted=[])
    with pytest.raises(ValueError, match=r"bucket 3 did not keep its tables \(made with keep_tables=False\)"):
        bucket.kept()
