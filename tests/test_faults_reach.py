"""The faults beyond damaged bytes: a file the description does not list, a kill between the
renames of ``--force``, and a server that sends too much or too slowly."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fault_cases import damaged_copy, dataset_commands, made_folders, run_cli, split_commands, submission_for
from fault_families import killed_between_renames
from fault_servers import data_url, faulty_server, listener
from test_download_faults import remote  # noqa: F401  (a fixture)

import pushgen
from pushgen.data.build import make_dataset
from pushgen.data.dataset import read_manifest
from pushgen.data.generator import make_recipe
from pushgen.data.outputs import leftovers, lock_path
from pushgen.publishing import transfer
from pushgen.publishing.download import fetch_split

SPLIT_ARGS = ["--train-months", "1", "--test-months", "1", "--validation-weeks", "1"]


@pytest.fixture(scope="module")
def folders():
    return made_folders()


@pytest.fixture(scope="module")
def partitioned(tmp_path_factory) -> Path:
    """A partitioned dataset (one Parquet part per user) of 3 users over 2 months."""
    folder = tmp_path_factory.mktemp("partitioned") / "dataset"
    make_dataset(make_recipe(users=3, months=2, seed=3), folder, partitioned=True, bucket_users=1)
    return folder


def test_an_extra_part_is_refused_by_every_reading_command(partitioned):
    """A copy of a part under a name the manifest does not list would be read twice."""
    for command in dataset_commands():
        with damaged_copy(partitioned) as (dataset, scratch):
            shutil.copy(dataset / "notifications" / "part-00001.parquet",
                        dataset / "notifications" / "part-00008.parquet")
            outcome = command.run(dataset, scratch)
            assert outcome.code in command.codes and not outcome.escaped, (command.name, outcome)
            extra = "notifications/part-00008.parquet"
            expected = (f"{extra}: not listed in manifest.json" if command.name == "pushgen validate"
                        else f"{dataset}/{extra} is not listed in {dataset}/manifest.json")
            assert expected in outcome.out + outcome.err, (command.name, outcome)
            assert sorted(p.name for p in scratch.iterdir()) == ["copy"]


@pytest.mark.parametrize("extra", ["task1/train-copy.parquet", "scorer/notes.txt", "extra.parquet", ".hidden",
                                   "scorer/.x.parquet"])
def test_a_file_a_split_does_not_list_is_refused_by_every_reading_command(folders, extra):
    _, split = folders
    for command in split_commands(split):
        with damaged_copy(split) as (copy, scratch):
            (copy / extra).write_bytes((copy / "task1" / "train.parquet").read_bytes())
            outcome = command.run(copy, scratch)
            assert outcome.code in command.codes and len(outcome.error_lines) == 1, (command.name, outcome)
            refusal = (f"{extra}: not listed in split.json" if command.name == "pushgen validate"
                       else f"{copy}/{extra} is not listed in {copy}/split.json")
            assert refusal in outcome.out + outcome.err, (command.name, outcome)
            assert sorted(p.name for p in scratch.iterdir()) == ["copy"]


def test_the_environments_refuse_a_split_with_an_unlisted_file(folders):
    import gymnasium as gym

    from pushgen.data.outputs import DatasetError
    from pushgen.envs import GENERATION_ID

    with damaged_copy(folders[1]) as (copy, _):
        (copy / "task2" / "test-2.parquet").write_bytes(b"")
        with pytest.raises(DatasetError, match=r"task2/test-2\.parquet is not listed in"):
            gym.make(GENERATION_ID, split=copy)


MAKE = ["make", "--users", "1", "--days", "3"]
def test_a_kill_between_the_renames_of_force_loses_nothing(tmp_path):
    out = tmp_path / "d"
    assert run_cli([*MAKE, "--seed", "1", "--out", str(out)]).code == 0
    killed = killed_between_renames([*MAKE, "--seed", "2", "--out", str(out), "--force"])
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not out.exists()
    [moved] = [p for p in leftovers(out) if p.name.startswith(".d.old-")]
    assert read_manifest(moved / "d")["recipe"]["seed"] == 1

    refused = run_cli([*MAKE, "--seed", "3", "--out", str(out)])  # no --force: the old one comes back
    assert refused.code == 2 and f"{out} already exists" in refused.err
    assert read_manifest(out)["recipe"]["seed"] == 1
    assert leftovers(out) == [] and not lock_path(out).exists()
    assert run_cli(["validate", str(out)]).code == 0


def test_a_kill_between_the_renames_then_force_again_replaces_it(tmp_path):
    out = tmp_path / "d"
    assert run_cli([*MAKE, "--seed", "1", "--out", str(out)]).code == 0
    assert killed_between_renames([*MAKE, "--seed", "2", "--out", str(out), "--force"]).returncode != 0
    assert run_cli([*MAKE, "--seed", "3", "--out", str(out), "--force"]).code == 0
    assert read_manifest(out)["recipe"]["seed"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


@pytest.fixture
def faulty(tmp_path, monkeypatch, remote):  # noqa: F811
    with faulty_server(tmp_path / "served") as server:
        monkeypatch.setenv("PUSHGEN_DATA_URL", data_url(server))
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        yield server


@pytest.mark.parametrize(("mode", "limits", "reason"), [
    ("endless", {}, "the server sent more than the listed {size:,} bytes"),
    ("trickle", {"MIN_SECONDS": 2, "MIN_BYTES_PER_SECOND": 10**12, "STALL_SECONDS": 30},
     "it took longer than the 2 s allowed for {size:,} bytes ("),
    ("stall", {"STALL_SECONDS": 1}, "no data arrived for 1 s"),
])
def test_a_download_stops_at_its_limits_and_releases_the_cache(faulty, remote, tmp_path,  # noqa: F811
                                                               monkeypatch, mode, limits, reason):
    for name, value in limits.items():
        monkeypatch.setattr(transfer, name, value)
    faulty.mode = mode
    cache = tmp_path / "cache"
    outcome = run_cli(["download", remote.label, "--cache", str(cache)])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert f"{remote.label}: cannot download {faulty.target} from http://127.0.0.1:" in outcome.err
    assert reason.format(size=faulty.size) in outcome.err and outcome.err.endswith("; nothing was kept\n")
    assert not cache.exists()  # no partial file, no lock
    faulty.mode = "normal"
    assert (fetch_split(remote.label, cache=cache) / faulty.target).stat().st_size == faulty.size


def test_the_size_estimate_is_near_what_make_writes(tmp_path):
    from pushgen.data.capacity import estimate

    manifest = read_manifest(make_dataset(make_recipe(users=6, months=1, seed=5), tmp_path / "d"))
    expected = estimate(make_recipe(users=6, months=1, seed=5))
    written = sum(entry["bytes"] for entry in manifest["files"].values())
    assert 0.6 < manifest["rows"]["notifications"] / expected.rows < 1.6
    assert 0.5 < written / expected.bytes < 2.0


def test_make_refuses_a_run_that_cannot_fit_before_it_starts(tmp_path, monkeypatch):
    from pushgen.data import capacity

    monkeypatch.setattr(capacity, "free_bytes", lambda path: 5_000_000)
    outcome = run_cli(["make", "--users", "50", "--months", "6", "--out", str(tmp_path / "d")])
    rows = 50 * 181 * capacity.ROWS_PER_USER_DAY
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert (f"50 users over 181 days would take about {capacity.human_bytes(rows * 90)} (about {rows:,} "
            f"notifications) but the disk of {tmp_path / 'd'} has 5.0 MB free") in outcome.err
    assert list(tmp_path.iterdir()) == []


def test_the_size_refusal_counts_one_user_and_one_day_in_the_singular(tmp_path, monkeypatch):
    from pushgen.data import capacity

    monkeypatch.setattr(capacity, "free_bytes", lambda path: 10)
    outcome = run_cli(["make", "--users", "1", "--days", "1", "--out", str(tmp_path / "d")])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert "error: 1 user over 1 day would take about " in outcome.err
    assert list(tmp_path.iterdir()) == []


def test_make_into_a_filesystem_of_no_size_names_it_instead_of_its_free_space(tmp_path, monkeypatch):
    import shutil

    from pushgen.data import capacity

    monkeypatch.setattr(capacity.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(0, 0, 0))
    outcome = run_cli(["make", "--users", "1", "--days", "1", "--out", str(tmp_path / "d")])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert (f"error: cannot write {tmp_path / 'd'}: the filesystem of {tmp_path} holds no files "
            "(its size is 0 B); choose another --out") in outcome.err
    assert list(tmp_path.iterdir()) == []


def test_make_of_ten_million_users_is_refused_on_this_disk(tmp_path):
    from pushgen.data.capacity import free_bytes

    if free_bytes(tmp_path) > 10**14:
        pytest.skip("a disk of more than 100 TB free")
    outcome = run_cli(["make", "--users", "10000000", "--months", "6", "--out", str(tmp_path / "d")])
    assert outcome.code == 2 and "would take about 9.3 TB" in outcome.err and not (tmp_path / "d").exists()


@pytest.mark.parametrize(("args", "message"), [
    (lambda ds, s: ["split", str(ds), *SPLIT_ARGS, "--out", str(ds / "mysplit")],
     "--out {ds}/mysplit is inside the pushgen dataset {ds} (it holds manifest.json)"),
    (lambda ds, s: ["make", "--users", "1", "--days", "2", "--out", str(ds / "ground_truth" / "nested")],
     "--out {ds}/ground_truth/nested is inside the pushgen dataset {ds} (it holds manifest.json)"),
    (lambda ds, s: ["split", str(ds), *SPLIT_ARGS, "--out", str(s / "task1" / "x")],
     "--out {s}/task1/x is inside the pushgen split {s} (it holds split.json)"),
    (lambda ds, s: ["report", str(s), "--out", str(ds / "report.html")],
     "--out {ds}/report.html is inside the pushgen dataset {ds} (it holds manifest.json)"),
])
def test_an_output_inside_an_input_or_output_is_refused(folders, args, message):
    dataset, split = folders
    with damaged_copy(dataset) as (ds, _), damaged_copy(split) as (s, _):
        before = sorted(p.relative_to(ds) for p in ds.rglob("*"))
        outcome = run_cli(args(ds, s))
        assert outcome.code == 2 and message.format(ds=ds, s=s) in outcome.err, outcome.err
        assert sorted(p.relative_to(ds) for p in ds.rglob("*")) == before
        assert run_cli(["validate", str(ds)]).code == 0


DEEP = "[" * 150_000 + "]" * 150_000


@pytest.mark.parametrize(("edit", "message"), [
    (lambda text: text[:-2] + f', "x": {DEEP}}}', "is nested more than 64 levels deep"),
    (lambda text: text[:-2] + ', "x": ' + "[" * 70 + "]" * 70 + "}", "is nested more than 64 levels deep"),
    (lambda text: text[:-2] + f', "x": {"9" * 5001}}}', "holds a 5,001-digit integer (at most 40 digits)"),
])
def test_a_description_beyond_the_json_limits_is_one_line(folders, edit, message):
    dataset, split = folders
    for folder, description, commands in ((dataset, "manifest.json", dataset_commands()),
                                          (split, "split.json", split_commands(split))):
        for command in commands:
            with damaged_copy(folder) as (copy, scratch):
                path = copy / description
                path.write_text(edit(path.read_text().rstrip()))
                outcome = command.run(copy, scratch)
                assert outcome.code in command.codes and not outcome.escaped, (command.name, outcome.escaped)
                assert message in outcome.out + outcome.err, (command.name, outcome)


def test_a_5001_digit_seed_or_count_is_one_short_line():
    digits = "9" * 5001
    for args, option in ((["make", "--seed", digits], "--seed"), (["make", "--users", digits], "--users"),
                         (["evaluate", "--split", "x", "--submission", "y", "--user", digits], "--user")):
        outcome = run_cli(args)
        assert outcome.code == 2 and len(outcome.error_lines) == 1 and len(outcome.err) < 200, outcome.err
        expected = f"Invalid value for '{option}': a 5,001-digit number is too long; give a whole number"
        assert expected in outcome.err
    seed = r"seed must be a whole number from 0 to \d+; got a whole number of about 5,001 digits"
    with pytest.raises(pushgen.GenerationError, match=seed):
        pushgen.generate(users=1, days=1, seed=10**5000)


@pytest.mark.parametrize(("greeting", "message"), [
    (b"", "did not answer as a Dask scheduler within 1 s (is it another service?)"),
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", "does not speak Dask's protocol (is it another service?)"),
])
def test_a_scheduler_that_is_not_dask_is_one_line_in_time(monkeypatch, tmp_path, greeting, message):
    pytest.importorskip("distributed")
    from pushgen.data import engines

    monkeypatch.setattr(engines, "SCHEDULER_TIMEOUT_SECONDS", 1)
    with listener(greeting) as port:
        outcome = run_cli(["make", "--users", "1", "--days", "2", "--engine", "dask",
                           "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "d")])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert f"tcp://127.0.0.1:{port} {message}" in outcome.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("url", "message"), [
    ("http://[::1", "PUSHGEN_DATA_URL is not a usable URL (Invalid IPv6 URL); got 'http://[::1'"),
    ("http://host:port", "PUSHGEN_DATA_URL is not a usable URL (Port could not be cast"),
    ("http://", "PUSHGEN_DATA_URL must be an http(s) URL; got 'http:'"),
])
def test_a_bad_data_url_is_one_line(remote, monkeypatch, tmp_path, url, message):  # noqa: F811
    monkeypatch.setenv("PUSHGEN_DATA_URL", url)
    outcome = run_cli(["download", remote.label, "--cache", str(tmp_path / "cache")])
    assert outcome.code == 2 and len(outcome.error_lines) == 1 and message in outcome.err, outcome.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["describe", "{ds}"], ["list"], ["--version"], ["--help"]])
def test_a_full_standard_output_is_one_line(folders, args):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "pushgen", *(a.format(ds=folders[0]) for a in args)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"pushgen{' ' + args[0] if not args[0].startswith('-') else ''}: error: cannot write to standard "
        "output: No space left on device"]


def pushgen_process(args: list[str], **streams) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pushgen", *args], text=True, timeout=300, **streams)


@pytest.mark.parametrize(("args", "code"), [
    (["--version"], 0), (["list"], 0), (["describe", "{ds}"], 0), (["validate", "{broken}"], 1),
    (["make", "--users", "1", "--days", "2", "--out", "{out}"], 0)])
def test_a_closed_standard_output_or_pipe_does_the_work_and_keeps_the_code(folders, tmp_path, args, code):
    """``pushgen ... >&-`` and ``pushgen ... | head -1``: the output has nowhere to go; the command
    does its work and ends quietly with its own exit code, whenever the reader left."""
    with damaged_copy(folders[0]) as (broken, _):
        (broken / "users.parquet").unlink()
        closed = pushgen_process([a.format(ds=folders[0], broken=broken, out=tmp_path / "closed")
                                  for a in args], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
        reader, writer = os.pipe()
        os.close(reader)
        try:
            piped = pushgen_process([a.format(ds=folders[0], broken=broken, out=tmp_path / "piped")
                                     for a in args], stdout=writer, stderr=subprocess.PIPE)
        finally:
            os.close(writer)
    for done in (closed, piped):
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr and (code or done.stderr == ""), done.stderr
    if args[0] == "make":
        assert all(run_cli(["validate", str(tmp_path / out)]).code == 0 for out in ("closed", "piped"))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_an_error_that_cannot_be_written_keeps_its_exit_code(tmp_path):
    with open("/dev/full", "w") as full:
        done = pushgen_process(["describe", str(tmp_path / "nonexist")], stderr=full, stdout=subprocess.PIPE)
    assert done.returncode == 2 and done.stdout == ""


EMPTY = "the path is empty; give a folder or a standard split's name"


@pytest.mark.parametrize(("args", "message"), [
    (["make", "--users", "1", "--days", "2", "--out", "afile.txt/sub"],
     "cannot write afile.txt/sub: afile.txt is a file, not a folder"),
    (["report", "{ds}", "--out", "afile.txt/r.html"],
     "--out afile.txt/r.html: afile.txt is a file, not a folder; choose another --out"),
    (["describe", "/dev/null"], "/dev/null is neither a folder nor a regular file; describe reads a dataset "
                                "folder or a notifications table file"),
    (["make", "--users", "1", "--days", "2", "--out", ""],
     "Invalid value for '--out': the path is empty; give a file or folder name"),
    (["evaluate", "--split", "{split}", "--submission", ""],
     "Invalid value for '--submission': the path is empty; give a file or folder name"),
    (["describe", ""], EMPTY),
    (["validate", ""], EMPTY),
])
def test_a_path_that_is_no_folder_is_named_as_what_it_is(folders, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile.txt").write_text("notes")
    outcome = run_cli([a.format(ds=folders[0], split=folders[1]) for a in args])
    assert outcome.code == 2 and not outcome.escaped, outcome.escaped
    assert outcome.error_lines == [f"pushgen {args[0]}: error: {message}"]
    assert [p.name for p in tmp_path.iterdir()] == ["afile.txt"]


def test_messages_name_the_type_of_a_user_id_and_show_plain_values(folders, tmp_path):
    import gymnasium as gym
    import pandas as pd

    from pushgen.envs import GENERATION_ID

    _, split = folders
    refusal = r"^user must be a whole number \(a user id of task 1's test part of split .*\); got 1\.0$"
    with pytest.raises(pushgen.DatasetError, match=refusal):
        gym.make(GENERATION_ID, split=split, user=1.0, task=1)
    contexts = pushgen.load_split(split, task=2).test["context_id"]
    notification = pd.read_parquet(submission_for(split)).drop(columns="context_id").iloc[0]
    run = pd.DataFrame({"context_id": contexts, **notification.to_dict(), "decision_seconds": -1.0})
    run.to_parquet(tmp_path / "run.parquet")
    outcome = run_cli(["evaluate", "--split", str(split), "--task", "2",
                       "--submission", str(tmp_path / "run.parquet")])
    assert outcome.code == 2
    assert "column 'decision_seconds' row 0: -1.0 is not a number of seconds >= 0" in outcome.err


def test_a_download_refused_as_busy_suggests_another_cache(remote, tmp_path):  # noqa: F811
    from pushgen.data.outputs import writer_lock

    with writer_lock(tmp_path / "cache" / remote.name / remote.version):
        outcome = run_cli(["download", remote.label, "--cache", str(tmp_path / "cache")])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err
    assert outcome.err.rstrip().endswith("wait for it to finish or choose another --cache")


def test_an_output_under_another_programs_manifest_is_allowed(tmp_path):
    (tmp_path / "manifest.json").write_text('{"name": "a web app", "files": []}')
    outcome = run_cli(["make", "--users", "1", "--days", "2", "--out", str(tmp_path / "d")])
    assert outcome.code == 0, outcome.err


def test_read_dataset_refuses_an_extra_part(partitioned):
    from pushgen.data.dataset import read_dataset

    with damaged_copy(partitioned) as (dataset, _):
        assert len(read_dataset(dataset).notifications) == read_manifest(dataset)["rows"]["notifications"]
        parts = dataset / "notifications"
        shutil.copy(parts / "part-00001.parquet", parts / "part-00008.parquet")
        with pytest.raises(pushgen.DatasetError, match=r"notifications/part-00008\.parquet is not listed in"):
            read_dataset(dataset)


def test_task_2_on_a_split_without_cold_start_users_is_one_line(folders, tmp_path):
    from pushgen.ope.episodes import log_episodes

    split = tmp_path / "no-cold-start"
    assert run_cli(["split", str(folders[0]), *SPLIT_ARGS, "--out", str(split), "-q"]).code == 0
    submission = str(submission_for(folders[1]))
    evaluated = run_cli(["evaluate", "--split", str(split), "--task", "2", "--submission", submission])
    logged = run_cli(["log", str(split), "--task", "long-horizon", "--out", str(tmp_path / "log")])
    for outcome, message in (
            (evaluated, f"pushgen evaluate: error: split {split.name} has no task 2 test users (it holds no "
                        "cold-start users)"),
            (logged, f"pushgen log: error: split {split} has no held-out user the long-horizon task can play "
                     "(it holds no cold-start users)")):
        assert outcome.code == 2 and not outcome.escaped, outcome.escaped
        assert outcome.error_lines == [message]
    with pytest.raises(pushgen.DatasetError, match=r"^split no-cold-start has no task 2 test users"):
        pushgen.evaluate(split, task=2, submission=submission)
    with pytest.raises(pushgen.DatasetError, match=r"has no held-out user the long-horizon task can play"):
        log_episodes(str(split))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["no-cold-start"]
