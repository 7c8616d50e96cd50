"""Inputs pushgen cannot serve and names it cannot use: one line, exit code 2, nothing written;
leftovers of killed runs cleared; no credentials printed; library writers stay in their root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fault_cases import made_folders
from fault_families_inputs import old_model, unknown_app

import pushgen
from pushgen.cli import main
from pushgen.data.folder_lock import claim
from pushgen.data.generator import make_recipe
from pushgen.data.outputs import DatasetError
from pushgen.ope.converters import to_minari
from pushgen.publishing.download import DownloadError, fetch_split
from pushgen.publishing.standard import build_split
from pushgen.splits import SplitSpec


@pytest.fixture(scope="module")
def dataset():
    return made_folders()[0]


def damaged_copy(dataset: Path, to: Path, damage) -> Path:
    shutil.copytree(dataset, to)
    damage(to)
    return to


def one_line(capsys, args: list[str]) -> str:
    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error, error
    return error


@pytest.mark.parametrize("command", ["split", "describe", "report"])
def test_a_dataset_of_an_old_engagement_model_is_named_with_its_release(dataset, tmp_path, capsys, command):
    old = damaged_copy(dataset, tmp_path / "old", old_model)
    out = ["--out", str(tmp_path / "out")] if command != "describe" else []
    error = one_line(capsys, [command, str(old), *out])
    assert "simulated with engagement model 1 by pushgen 0.1.0" in error
    assert "read it with pushgen 0.1.0, or make a new dataset with this pushgen" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]


@pytest.mark.parametrize("command", ["split", "describe", "report"])
def test_a_resigned_value_outside_the_schemas_is_one_line(dataset, tmp_path, capsys, command):
    bad = damaged_copy(dataset, tmp_path / "bad", unknown_app)
    out = ["--out", str(tmp_path / "out")] if command != "describe" else []
    error = one_line(capsys, [command, str(bad), *out])
    assert "notifications.parquet: column 'postingApp': 'com.nonexistent' is not one of" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad"]


def test_a_name_that_is_not_utf8_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    error = one_line(capsys, ["make", "--users", "2", "--days", "10", "--out", "bad\udcff"])
    assert "bad\\udcff is not valid UTF-8 text" in error and list(tmp_path.iterdir()) == []


def test_a_long_legal_name_is_written_and_replaced(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "a" * 240  # its temporary names would pass 255 bytes
    for force in ([], ["--force"]):
        assert main(["make", "--users", "1", "--days", "3", "--out", name, *force, "-q"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_an_unusable_matplotlib_backend_is_one_line(dataset, tmp_path):
    env = {**os.environ, "MPLBACKEND": "nonsense"}
    done = subprocess.run([sys.executable, "-m", "pushgen", "report", str(dataset), "--out",
                           str(tmp_path / "r.html")], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "unset MPLBACKEND or set it to agg" in done.stderr and not list(tmp_path.iterdir())


def test_a_split_name_that_is_not_text_is_one_line(tmp_path):
    with pytest.raises(DatasetError, match="a standard split is named by text, such as 'pushgen' or "
                                           "'pushgen-v4'; got PosixPath 'pushgen-mini'") as raised:
        pushgen.development_split(Path("pushgen-mini"), tmp_path / "dv1", 5)
    assert "\n" not in str(raised.value) and not list(tmp_path.iterdir())


def test_leftovers_of_killed_builds_are_cleared_by_the_next_build(tmp_path):
    killed, running = tmp_path / ".s.dataset-killed", tmp_path / ".s.dataset-running"
    for folder in (killed, running):
        (folder / "dataset").mkdir(parents=True)
    held = claim(running)  # a run still at work holds its folder
    try:
        build_split(make_recipe(users=2, months=2), SplitSpec(1, 1, 0), tmp_path / "s", "s")
    finally:
        os.close(held)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.dataset-running", "s"]


def test_credentials_of_the_data_url_are_never_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("PUSHGEN_DATA_URL", "http://user:secret@127.0.0.1:9/")  # nothing listens on port 9
    with pytest.raises(DownloadError) as raised:
        fetch_split("pushgen-mini-v4", cache=tmp_path, prefer_packaged=False)
    error = str(raised.value)
    assert "cannot download" in error and "http://127.0.0.1:9/" in error and "\n" not in error
    assert "secret" not in error and "user" not in error
    assert "secret" not in str(DownloadError("PUSHGEN_DATA_URL must be an http(s) URL; got 'ftp://u:secret@h'"))


@pytest.mark.parametrize("dataset_id", ["../../escape/x-v0", "/abs/x-v0", "a/../../x-v0", "a\\..\\x-v0", ""])
def test_to_minari_refuses_an_id_that_leaves_its_root_before_creating_anything(tmp_path, dataset_id):
    root = tmp_path / "deep" / "root"
    root.mkdir(parents=True)
    with pytest.raises(DatasetError, match="must be a Minari id such as 'pushgen/uniform-v0'"):
        to_minari(None, dataset_id, root=root)  # refused before the log is looked at
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")] == ["deep", "deep/root"]
