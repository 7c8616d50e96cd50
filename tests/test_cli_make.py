from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pushgen import __version__
from pushgen.data.dataset import read_dataset
from pushgen.data.outputs import sha256_file

PUSHGEN = [sys.executable, "-m", "pushgen"]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*PUSHGEN, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_make_writes_a_dataset_folder_named_from_its_parameters(tmp_path):
    done = run("make", "--users", "3", "--days", "10", "--seed", "4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "pushgen-3u-10d-seed4"
    assert leftovers(tmp_path) == [out.name]
    assert "notifications of 3 users" in done.stdout and str(out.name) in done.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["pushgen_version"] == __version__
    assert manifest["recipe"]["users"] == 3 and manifest["recipe"]["seed"] == 4
    for name, entry in manifest["files"].items():
        assert sha256_file(out / name) == entry["sha256"]
    table = pq.read_table(out / "notifications.parquet")
    assert table.num_rows == manifest["rows"]["notifications"]
    group = pq.ParquetFile(out / "notifications.parquet").metadata.row_group(0)
    encodings = {name: group.column(table.schema.get_field_index(name)).encodings
                 for name in ("postingApp", "seenTime", "notification_id", "posted_at")}
    assert str(table.schema.field("postingApp").type) == "string"
    assert "RLE_DICTIONARY" in encodings["postingApp"]  # categoricals: dictionaries, floats not
    assert "BYTE_STREAM_SPLIT" in encodings["seenTime"] and "RLE_DICTIONARY" not in encodings["seenTime"]
    assert all("DELTA_BINARY_PACKED" in encodings[name] for name in ("notification_id", "posted_at"))
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "\n---\n" in card[4:] and "notifications" in card


def test_the_summary_counts_in_words_that_agree_with_the_numbers(tmp_path):
    done = run("make", "--users", "1", "--days", "1", "--out", "one", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert " of 1 user from 2026-01-05 to 2026-01-05 (1 day, seed 0); " in done.stdout
    card = (tmp_path / "one" / "README.md").read_text()
    assert "pretty_name: 'pushgen dataset: 1 user, 1 day, seed 0 (" in card
    assert " notifications of 1 user from 2026-01-05 to 2026-01-05 (1 day); open rate " in card
    croissant = json.loads((tmp_path / "one" / "croissant.json").read_text())
    assert croissant["description"].startswith(
        "Synthetic smartphone push notifications of 1 simulated user over 1 day from 2026-01-05,")
    valid = run("validate", "one", cwd=tmp_path)
    assert valid.returncode == 0 and valid.stdout.rstrip().endswith(" notifications, 1 user)"), valid.stdout


def test_the_same_command_writes_the_same_bytes(tmp_path):
    for name in ("a", "b"):
        assert run("make", "--users", "2", "--days", "8", "--out", name, cwd=tmp_path).returncode == 0
    a = json.loads((tmp_path / "a" / "manifest.json").read_text())
    b = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert a["files"] == b["files"]
    assert (tmp_path / "a" / "README.md").read_bytes() == (tmp_path / "b" / "README.md").read_bytes()


def test_csv_format_reads_back_to_the_same_content(tmp_path):
    assert run("make", "--users", "2", "--days", "5", "--out", "p", cwd=tmp_path).returncode == 0
    assert run("make", "--users", "2", "--days", "5", "--out", "c", "--format", "csv",
               cwd=tmp_path).returncode == 0
    assert (tmp_path / "c" / "notifications.csv").is_file()
    parquet = read_dataset(tmp_path / "p").notifications
    csv = read_dataset(tmp_path / "c").notifications
    assert parquet.drop(columns=["seenTime", "decisionTime", "responseTime"]).equals(
        csv.drop(columns=["seenTime", "decisionTime", "responseTime"]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--users", "0"], "'--users': 0 is not in the range 1<=x<="),
        (["--users", "-4"], "'--users': -4 is not in the range"),
        (["--users", "many"], "'--users': 'many' is not a valid integer."),
        (["--months", "0"], "'--months': 0 is not in the range 1<=x<=120"),
        (["--months", "100000"], "'--months': 100000 is not in the range 1<=x<=120"),
        (["--days", "0"], "'--days': 0 is not in the range"),
        (["--start", "2026-02-30"], "'--start': '2026-02-30' does not match the format"),
        (["--format", "xlsx"], "'--format': 'xlsx' is not one of 'parquet', 'csv'"),
        (["--months", "2", "--days", "3"], "give --months or --days, not both"),
        (["--start", "2250-01-01"], "start must be from 1970-01-01 to 2199-12-31; got 2250-01-01"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_code_2(tmp_path, args, message):
    done = run("make", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert leftovers(tmp_path) == []


def test_an_existing_output_is_kept_unless_forced(tmp_path):
    out = tmp_path / "d"
    assert run("make", "--users", "1", "--days", "2", "--out", "d", cwd=tmp_path).returncode == 0
    (out / "keep.txt").write_text("mine")
    before = (out / "manifest.json").read_text()
    done = run("make", "--users", "1", "--days", "3", "--out", "d", cwd=tmp_path)
    assert done.returncode == 2
    assert "d already exists; choose another --out or pass --force" in done.stderr
    assert (out / "manifest.json").read_text() == before and (out / "keep.txt").is_file()
    done = run("make", "--users", "1", "--days", "3", "--out", "d", "--force", cwd=tmp_path)
    assert done.returncode == 2  # keep.txt is not the dataset's: --force does not delete it
    assert "(keep.txt is not one of the dataset's files)" in done.stderr
    assert (out / "manifest.json").read_text() == before and (out / "keep.txt").read_text() == "mine"
    (out / "keep.txt").unlink()
    done = run("make", "--users", "1", "--days", "3", "--out", "d", "--force", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "manifest.json" in leftovers(out)
    assert (out / "manifest.json").read_text() != before
    assert leftovers(tmp_path) == ["d"]


def test_a_force_that_cannot_move_the_earlier_output_aside_leaves_nothing(tmp_path, monkeypatch, capsys):
    from pushgen.cli import main

    out = tmp_path / "d"
    assert main(["make", "--users", "1", "--days", "2", "--out", str(out), "-q"]) == 0
    before = (out / "manifest.json").read_text()
    original = os.replace

    def refuse_out(source, target):
        if Path(source) == out:
            raise PermissionError(1, "Operation not permitted", str(out))
        original(source, target)

    monkeypatch.setattr(os, "replace", refuse_out)
    assert main(["make", "--users", "1", "--days", "3", "--out", str(out), "--force", "-q"]) == 2
    assert capsys.readouterr().err.strip().endswith("nothing was written")
    assert (out / "manifest.json").read_text() == before
    assert leftovers(tmp_path) == ["d"]


def test_force_replaces_only_pushgen_output(tmp_path):
    mine = tmp_path / "documents"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    done = run("make", "--users", "1", "--days", "2", "--out", "documents", "--force", cwd=tmp_path)
    assert done.returncode == 2
    assert "documents is not empty and not a pushgen output; --force replaces only those" in done.stderr
    assert (mine / "thesis.tex").read_text() == "precious"
    done = run("make", "--users", "1", "--days", "2", "--out", ".", "--force", cwd=mine)
    assert done.returncode == 2 and "is the current folder or holds it" in done.stderr
    assert leftovers(tmp_path) == ["documents"] and leftovers(mine) == ["thesis.tex"]


def test_an_unwritable_output_is_refused_cleanly(tmp_path):
    done = run("make", "--users", "1", "--days", "2", "--out", "no/such/folder/d", cwd=tmp_path)
    assert done.returncode == 2
    assert "folder no/such/folder does not exist" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        done = run("make", "--users", "1", "--days", "2", "--out", "locked/d", cwd=tmp_path)
        assert done.returncode == 2 and "cannot write into locked" in done.stderr
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize(("stop", "jobs"), [(signal.SIGINT, "1"), (signal.SIGTERM, "2")])
def test_a_stopped_run_leaves_no_half_written_dataset(tmp_path, stop, jobs):
    child = subprocess.Popen(
        [*PUSHGEN, "make", "--users", "3000", "--months", "6", "--jobs", jobs, "--out", "big"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # pytest-xdist ignores SIGINT
    deadline = time.monotonic() + 600  # a safety limit only: the wait is for the event
    while not list(tmp_path.glob(".big.partial-*/notifications/part-*")) and child.poll() is None:
        assert time.monotonic() < deadline, "no part written"
        time.sleep(0.1)  # ok-timing: polls until the first part is written
    assert child.poll() is None, "the run ended before its first part was written"
    child.send_signal(stop)
    _, err = child.communicate(timeout=600)
    assert child.returncode == 130
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "Interrupted; nothing was written."
    assert leftovers(tmp_path) == []


def test_version():
    done = subprocess.run([*PUSHGEN, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"pushgen, version {__version__}"


def test_the_program_leaves_its_objects_to_the_exit_and_keeps_the_code(monkeypatch, capsys):
    import gc

    from pushgen import own_process
    from pushgen.cli import program
    from pushgen.model import compiled

    monkeypatch.setattr(compiled, "_probe_blas", True)  # restored after: this process runs other tests
    thresholds = gc.get_threshold()
    monkeypatch.setattr(sys, "argv", ["pushgen", "--version"])
    try:
        assert program() == 0
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (own_process.YOUNG_OBJECTS, *thresholds[1:])
        assert compiled._probe_blas is False
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    assert capsys.readouterr().out == f"pushgen, version {__version__}\n"
    monkeypatch.setattr(sys, "argv", ["pushgen", "make", "--users", "0"])
    try:
        assert program() == 2
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_python_dash_m_pushgen_makes_the_same_bytes_as_the_installed_program(tmp_path):
    installed = Path(sys.executable).with_name("pushgen")
    if not installed.is_file():
        pytest.skip("no pushgen program beside this interpreter")
    for runner, folder in (([str(installed)], "program"), (PUSHGEN, "module")):
        command = [*runner, "make", "--users", "2", "--days", "3", "--out", str(tmp_path / folder), "-q"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    made = {folder: json.loads((tmp_path / folder / "manifest.json").read_text())
            for folder in ("program", "module")}
    assert made["program"]["files"] == made["module"]["files"]
