"""Runs that are killed, interrupted or started twice: no orphaned workers, no traceback, one writer."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

PUSHGEN = [sys.executable, "-m", "pushgen"]
BIG = ["make", "--users", "400", "--months", "6"]  # minutes of work: it is always stopped


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([*PUSHGEN, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def workers(parent: psutil.Process) -> list[psutil.Process]:
    """The parent's worker processes (multiprocessing's resource tracker is not one)."""
    return [p for p in parent.children(recursive=True)
            if "resource_tracker" not in " ".join(p.cmdline())]


def running(processes: list[psutil.Process]) -> list[int]:
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_workers_end_when_make_is_killed_and_the_next_run_clears_its_leftovers(tmp_path):
    child = start([*BIG, "--jobs", "2", "--out", "big"], tmp_path)
    parent = psutil.Process(child.pid)
    wait_for(lambda: len(workers(parent)) == 2 and list(tmp_path.glob(".big.partial-*")))
    time.sleep(1.0)  # the workers are simulating their first buckets
    family = parent.children(recursive=True)
    child.kill()
    child.wait(timeout=10)
    wait_for(lambda: not running(family), timeout=5)
    out, _ = child.communicate(timeout=5)  # nobody holds its stdout open any more
    assert out == ""
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".big.partial-")]

    done = subprocess.run([*PUSHGEN, "make", "--users", "1", "--days", "2", "--out", "big"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_two_runs_to_the_same_folder_one_is_refused(tmp_path):
    first = start([*BIG, "--out", "d"], tmp_path)
    try:
        wait_for(lambda: (tmp_path / ".d.lock").exists())
        second = subprocess.run([*PUSHGEN, "make", "--users", "1", "--days", "2", "--out", "d", "--force"],
                                cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "the first run ended before the second could meet it"
        assert second.returncode == 2
        assert second.stderr.splitlines() == [
            "pushgen make: error: d is being written by another pushgen run (it holds .d.lock); "
            "wait for it to finish or choose another --out"]
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("delay", [0.3, 0.5])
def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path, delay):
    child = start(["make", "--users", "1", "--days", "2", "--out", "d"], tmp_path)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert err == "Interrupted; nothing was written.\n"
    assert list(tmp_path.iterdir()) == []
