"""numba's JIT and its on-disk cache: the first compile in a process says so on stderr (the library
and the program alike, never on a warm run, never with ``--quiet``), and a cache folder that is
not writable or holds a damaged entry falls back to compiling in the process, with the same
results and no traceback."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from kernel_references import autoregression as reference_autoregression

from pushgen.data.outputs import sha256_file
from pushgen.model import compiled
from pushgen.progress import terminal_progress

ROOT = Path(__file__).resolve().parents[1]
SHOCKS = [1.0, -2.0, 0.5]
CHILD = f"""
import json, sys
import numpy as np
import pushgen
from pushgen.model.engagement_kernel import autoregression
print(json.dumps({{"package": pushgen.__file__,
                  "level": autoregression(np.array({SHOCKS!r}), 0.5).tolist()}}))
"""
EXPECTED = reference_autoregression(np.array(SHOCKS), 0.5).tolist()


def _environment(path: Path, **variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHONPATH"))}
    return {**env, "PYTHONPATH": str(path), "PYTHONDONTWRITEBYTECODE": "1", **variables}


def _child(tmp_path: Path, env: dict[str, str]) -> tuple[dict, str]:
    """The child's answer and its stderr; it must succeed."""
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1]), run.stderr


def _fresh_kernel() -> compiled.Kernel:
    """A kernel numba cannot cache (its source is in no file): it compiles at every first call."""
    scope: dict = {}
    exec("def twice(x):\n    return 2.0 * x\n", scope)
    return compiled.Kernel(scope["twice"])


@pytest.fixture
def announcing(monkeypatch):
    """This process says that it compiles, as a library user's does, and has not said it yet."""
    monkeypatch.setattr(compiled, "_announce", True)
    monkeypatch.setattr(compiled, "_announced", False)


def test_a_library_call_says_once_that_it_compiles(announcing, capsys):
    assert _fresh_kernel()(1.5) == 3.0
    assert capsys.readouterr().err == compiled.COMPILING + "\n"
    assert _fresh_kernel()(2.0) == 4.0  # another compile in the same process: said already
    assert capsys.readouterr().err == ""


def test_quiet_and_a_worker_of_make_say_nothing(announcing, monkeypatch, capsys):
    with terminal_progress(quiet=True):
        assert _fresh_kernel()(1.0) == 2.0
    monkeypatch.setattr(compiled, "_announce", False)
    assert _fresh_kernel()(1.0) == 2.0
    assert capsys.readouterr().err == ""


def test_numba_compiling_other_code_says_nothing(announcing, capsys):
    compiled._numba()  # the listener is in place
    assert numba.njit(lambda x: x + 1)(1) == 2
    assert capsys.readouterr().err == ""


def test_the_program_says_it_compiles_on_its_first_run_only_and_makes_the_same_bytes(tmp_path):
    env = _environment(ROOT, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    said = []
    for run in ("cold", "warm"):
        done = subprocess.run([sys.executable, "-m", "pushgen", "make", "--users", "2", "--days", "3",
                               "--out", run], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                              env=env)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr and compiled.COMPILING not in done.stdout
        said.append(done.stderr.count(compiled.COMPILING))
    assert said == [1, 0]
    cold, warm = (sorted(p.relative_to(tmp_path / run) for p in (tmp_path / run).rglob("*.parquet"))
                  for run in ("cold", "warm"))
    assert cold == warm and cold
    for path in cold:
        assert sha256_file(tmp_path / "cold" / path) == sha256_file(tmp_path / "warm" / path), path


def _read_only_copy(tmp_path: Path) -> Path:
    """This checkout's package copied into a folder where numba cannot write its cache beside the
    kernels: read-only, and a file where it would make its ``__pycache__`` (root writes anyway)."""
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "pushgen", copy / "pushgen", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "pushgen" / "model" / "__pycache__").write_text("not a folder")
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return copy


def _writable_again(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.mark.parametrize("user_cache", ["writable", "blocked"])
def test_a_read_only_package_computes_the_same_with_or_without_a_user_cache(tmp_path, user_cache):
    copy = _read_only_copy(tmp_path)
    cache = tmp_path / "user-cache"
    if user_cache == "blocked":
        cache.write_text("not a folder")  # numba's per-user cache folder cannot be made either
    env = _environment(copy, HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(cache))
    try:
        said = []
        for _ in range(2):
            answer, stderr = _child(tmp_path, env)
            assert Path(answer["package"]).is_relative_to(copy)
            assert answer["level"] == EXPECTED
            assert "Traceback" not in stderr
            said.append(stderr.count(compiled.COMPILING))
        cached = list(cache.rglob("*.nbi")) if cache.is_dir() else []
        assert not list(copy.rglob("*.nbi"))
    finally:
        _writable_again(copy)
    if user_cache == "writable":
        assert said == [1, 0] and cached  # compiled once, then loaded from the per-user cache
    else:
        assert said == [1, 1] and not cached  # compiled in every process


def _damage_index(folder: Path) -> None:
    for index in folder.rglob("*.nbi"):
        index.write_bytes(b"\x00not a pickle")


def _damage_index_after_its_version(folder: Path) -> None:
    for index in folder.rglob("*.nbi"):
        index.write_bytes(pickle.dumps(numba.__version__) + b"\x80\x05garbage")


def _damage_data(folder: Path) -> None:
    for data in folder.rglob("*.nbc"):
        data.write_bytes(data.read_bytes()[:20])


@pytest.mark.parametrize("damage", [_damage_index, _damage_index_after_its_version, _damage_data])
def test_a_damaged_cache_entry_is_compiled_anew_with_the_same_result(tmp_path, damage):
    cache = tmp_path / "cache"
    env = _environment(ROOT, NUMBA_CACHE_DIR=str(cache))
    answer, stderr = _child(tmp_path, env)
    assert answer["level"] == EXPECTED and stderr.count(compiled.COMPILING) == 1
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))
    damage(cache)
    answer, stderr = _child(tmp_path, env)
    assert answer["level"] == EXPECTED
    assert stderr == compiled.COMPILING + "\n"  # no traceback, no warning: compiled in the process
