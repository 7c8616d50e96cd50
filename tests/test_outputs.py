"""Which folders ``--force`` may replace (pushgen outputs, recognised by content), one writer per
output path, and the leftovers of killed runs."""

from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
import pytest
from fault_cases import BYTE_DAMAGE, Damage, apply, listed_files, made_folders, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.data.outputs import file_listing, lock_path, output_problem, sha256_file, writer_lock

SPLIT_ARGS = ["--train-months", "1", "--test-months", "1", "--validation-weeks", "1"]


@pytest.fixture(scope="module")
def folders():
    return made_folders()


def contents(folder) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line_error(args) -> str:
    outcome = run_cli(args)
    assert outcome.code == 2 and not outcome.escaped, outcome.escaped or outcome.err
    assert len(outcome.error_lines) == 1 and "Traceback" not in outcome.err, outcome.err
    return outcome.err


def benchmark_folder(root):
    """A results folder as ``pushgen benchmark`` writes it (a description listing its files)."""
    root.mkdir()
    (root / "leaderboard.md").write_text("# Leaderboard\n")
    (root / "timings.json").write_text("{}\n")
    description = {"split": "s", "fingerprint": "0" * 64, "mode": "expected", "seed": 0,
                   "files": file_listing(root, exclude=("timings.json",))}
    (root / "benchmark.json").write_text(json.dumps(description))
    return root


def test_outputs_of_each_kind_are_recognised(folders, tmp_path):
    dataset, split = folders
    assert output_problem(dataset) is None and output_problem(split) is None
    assert output_problem(benchmark_folder(tmp_path / "bench")) is None
    (tmp_path / "empty").mkdir()
    assert output_problem(tmp_path / "empty") is None


@pytest.mark.parametrize(("description", "content", "reason"), [
    ("manifest.json", "{}", "its manifest.json has no 'recipe'"),
    ("split.json", "{}", "its split.json has no 'recipe'"),
    ("benchmark.json", "{}", "its benchmark.json has no 'split'"),
    ("manifest.json", "[]", "its manifest.json is not a JSON object"),
    ("split.json", "{", "its split.json is not readable JSON"),
    ("notes.json", "{}", "it holds no manifest.json, split.json, benchmark.json or log.json"),
])
def test_a_file_name_alone_does_not_make_an_output(tmp_path, description, content, reason):
    (tmp_path / "Documents").mkdir()
    (tmp_path / "Documents" / "t.txt").write_text("a")
    (tmp_path / description).write_text(content)
    assert output_problem(tmp_path) == reason


def test_an_output_with_a_file_of_someone_else_is_not_replaceable(folders, tmp_path):
    copy = shutil.copytree(folders[0], tmp_path / "d")
    (copy / "notes.txt").write_text("mine")
    assert output_problem(copy) == "notes.txt is not one of the dataset's files"


@settings(max_examples=30, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_damage_to_a_listed_file_makes_the_folder_foreign(folders, tmp_path_factory, data):
    folder = data.draw(st.sampled_from(folders), label="folder")
    damage = data.draw(st.builds(Damage, kind=st.sampled_from(BYTE_DAMAGE),
                                 file=st.sampled_from(listed_files(folder)),
                                 at=st.floats(0, 0.999), mask=st.integers(1, 255)), label="damage")
    copy = shutil.copytree(folder, tmp_path_factory.mktemp("copy") / "out")
    apply(copy, damage)
    assert output_problem(copy) is not None


@pytest.mark.parametrize("command", ["make", "split", "benchmark", "log"])
def test_force_never_deletes_a_folder_pushgen_did_not_write(folders, tmp_path, command):
    dataset, split = folders
    out = tmp_path / "x"
    (out / "Documents").mkdir(parents=True)
    (out / "Documents" / "t.txt").write_text("a")
    description = {"make": "manifest.json", "split": "split.json", "benchmark": "benchmark.json",
                   "log": "log.json"}[command]
    (out / description).write_text("{}")
    args = {"make": ["make", "--users", "1", "--days", "2"],
            "split": ["split", str(dataset), *SPLIT_ARGS],
            "benchmark": ["benchmark", "--split", str(split), "--task", "1", "--baselines", "random",
                          "--no-plots"],
            "log": ["log", str(split), "--users", "1"]}[command]
    before = contents(out)
    error = one_line_error([*args, "--out", str(out), "--force"])
    assert f"{out} is not empty and not a pushgen output; --force replaces only those" in error
    assert contents(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["x"]


def test_force_replaces_an_earlier_output_only_once_the_new_one_is_complete(tmp_path, monkeypatch):
    out = tmp_path / "d"
    assert run_cli(["make", "--users", "1", "--days", "2", "--out", str(out)]).code == 0
    before = contents(out)

    def broken_disk(*args, **kwargs):
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as patched:
        patched.setattr(pq.ParquetWriter, "write_table", broken_disk)
        error = one_line_error(["make", "--users", "1", "--days", "3", "--out", str(out), "--force"])
    assert f"cannot write {out}: Input/output error; nothing was written" in error
    assert contents(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    assert run_cli(["make", "--users", "1", "--days", "3", "--out", str(out), "--force"]).code == 0
    assert json.loads((out / "manifest.json").read_text())["recipe"]["days"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_a_second_writer_of_the_same_path_is_refused(tmp_path):
    out = tmp_path / "d"
    with writer_lock(out):
        assert lock_path(out).is_file()
        for force in ([], ["--force"]):
            error = one_line_error(["make", "--users", "1", "--days", "2", "--out", str(out), *force])
            assert f"{out} is being written by another pushgen run (it holds .d.lock)" in error
        assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # the lock file goes with its run
    assert run_cli(["make", "--users", "1", "--days", "2", "--out", str(out)]).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_the_next_run_to_a_path_removes_what_killed_runs_left(tmp_path):
    for name in (".d.partial-k1ll3d_0", ".d.old-abc12345", ".other.partial-abc12345", ".d.partial"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "notifications.parquet").write_bytes(b"half")
    (tmp_path / ".d.lock").write_text("")  # the lock file of a killed run holds no lock
    assert run_cli(["make", "--users", "1", "--days", "2", "--out", str(tmp_path / "d")]).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".d.partial", ".other.partial-abc12345", "d"]


def test_split_and_benchmark_refuse_an_existing_output_before_any_work(folders, tmp_path):
    dataset, split = folders
    out = tmp_path / "taken"
    out.mkdir()
    (out / "mine.txt").write_text("a")
    for args in (["split", str(dataset), *SPLIT_ARGS], ["benchmark", "--split", str(split)]):
        assert "taken already exists; choose another --out or pass --force" in one_line_error(
            [*args, "--out", str(out)])
    assert "holds the input" in one_line_error(["split", str(dataset), *SPLIT_ARGS, "--out",
                                                str(dataset.parent), "--force"])


def test_an_unchanged_output_is_hashed_once_per_process_and_a_changed_one_again(folders, tmp_path,
                                                                                 monkeypatch):
    from pushgen.data import outputs

    copy = shutil.copytree(folders[0], tmp_path / "d")
    hashed = []
    monkeypatch.setattr(outputs, "output_problem",
                        lambda folder: hashed.append(folder) or output_problem(folder))
    outputs.check_replaceable(copy)
    outputs.check_replaceable(copy)
    assert len(hashed) == 1
    users = copy / "users.parquet"
    data = bytearray(users.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size; only the time and the content tell
    users.write_bytes(bytes(data))
    with pytest.raises(outputs.DatasetError, match=r"is not empty and not a pushgen output; --force.*users"):
        outputs.check_replaceable(copy)
    assert len(hashed) == 2
