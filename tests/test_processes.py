"""Runs that are killed, interrupted or started twice: no orphaned workers, no traceback, one writer.

No test here depends on how fast the machine is: each waits for an event (a process, a file, a
written part) with only a long safety limit (SAFETY seconds), never a short sleep or timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

PUSHGEN = [sys.executable, "-m", "pushgen"]
BIG = ["make", "--users", "400", "--months", "6"]  # minutes of work: it is always stopped
SAFETY = 600  # seconds; only a hung run reaches it


def default_sigint() -> None:
    """Ctrl-C at its default in the child (pytest-xdist's workers ignore SIGINT, and children inherit it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: list[str], cwd: Path, command: list[str] = PUSHGEN) -> subprocess.Popen:
    return subprocess.Popen([*command, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=default_sigint)


def wait_for(condition, timeout: float = SAFETY) -> None:
    """Poll ``condition`` until it holds; fail only after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)  # ok-timing: a polling interval, it decides nothing


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
    child = start([*BIG, "--jobs", "3", "--out", "big"], tmp_path)  # make simulates too: 2 workers
    parent = psutil.Process(child.pid)
    wait_for(lambda: len(workers(parent)) == 2 and list(tmp_path.glob(".big.partial-*")))
    wait_for(lambda: list(tmp_path.glob(".big.partial-*/notifications/part-*")))  # the workers are writing
    family = parent.children(recursive=True)
    child.kill()
    child.wait(timeout=SAFETY)
    wait_for(lambda: not running(family))
    out, _ = child.communicate(timeout=SAFETY)  # nobody holds its stdout open any more
    assert out == ""
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".big.partial-")]

    done = subprocess.run([*PUSHGEN, "make", "--users", "1", "--days", "2", "--out", "big"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=SAFETY, preexec_fn=default_sigint)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_ctrl_c_in_a_terminal_stops_make_and_its_workers_in_one_line(tmp_path):
    # a terminal's Ctrl-C reaches every process of its group: make and its workers
    child = subprocess.Popen([*PUSHGEN, *BIG, "--jobs", "2", "--out", "big"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint, process_group=0)
    wait_for(lambda: list(tmp_path.glob(".big.partial-*/notifications/part-*")))  # the workers are writing
    family = workers(psutil.Process(child.pid))
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=SAFETY)
    assert child.returncode == 130, err
    assert err.lstrip("\n") == "Interrupted; nothing was written.\n"  # click ends the "^C" line first
    wait_for(lambda: not running(family))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("run", range(3))
def test_ctrl_c_in_a_terminal_while_a_worker_starts_is_one_line(tmp_path, run):
    # the worker has just been spawned: it is importing pushgen, and make may still be sending it
    # its first task; neither may print a traceback
    child = subprocess.Popen([*PUSHGEN, *BIG, "--jobs", "2", "--out", "big"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint, process_group=0)
    parent = psutil.Process(child.pid)
    wait_for(lambda: workers(parent) or child.poll() is not None)
    family = workers(parent)
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=SAFETY)  # the workers' standard error too: they share it
    assert (child.returncode, err.lstrip("\n")) == (130, "Interrupted; nothing was written.\n")
    wait_for(lambda: not running(family))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("started", ["a worker process", "a bucket written"])
def test_ctrl_c_in_a_terminal_stops_a_local_dask_cluster_in_one_line(tmp_path, started):
    # the cluster's nanny and worker processes are in the terminal's group too
    pytest.importorskip("distributed")
    child = subprocess.Popen([*PUSHGEN, *BIG, "--engine", "dask", "--jobs", "2", "--out", "big"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint, process_group=0)
    parent = psutil.Process(child.pid)
    if started == "a worker process":
        wait_for(lambda: workers(parent) or child.poll() is not None)
    else:
        wait_for(lambda: list(tmp_path.glob(".big.partial-*/notifications/part-*"))
                 or child.poll() is not None)
    family = workers(parent)
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=SAFETY)
    assert (child.returncode, err.lstrip("\n")) == (130, "Interrupted; nothing was written.\n")
    wait_for(lambda: not running(family))
    assert list(tmp_path.iterdir()) == []


def test_two_runs_to_the_same_folder_one_is_refused(tmp_path):
    first = start([*BIG, "--out", "d"], tmp_path)
    try:
        wait_for(lambda: (tmp_path / ".d.lock").exists())
        second = subprocess.run([*PUSHGEN, "make", "--users", "1", "--days", "2", "--out", "d", "--force"],
                                cwd=tmp_path, capture_output=True, text=True, timeout=SAFETY,
                                preexec_fn=default_sigint)
        assert first.poll() is None, "the first run ended before the second could meet it"
        assert second.returncode == 2
        assert second.stderr.splitlines() == [
            "pushgen make: error: d is being written by another pushgen run (it holds .d.lock); "
            "wait for it to finish or choose another --out"]
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=SAFETY)
    assert first.returncode == 130
    assert list(tmp_path.iterdir()) == []


# pushgen, but it stops when pushgen.commands (its Ctrl-C handler installed) first imports MODULE:
# it touches MARKER and waits there, in the middle of loading, for the test's Ctrl-C
PAUSED_WHILE_LOADING = """
import pathlib, sys, time
module, marker, *args = sys.argv[1:]

class Pause:
    def find_spec(self, name, path=None, target=None):
        if name == module and "pushgen.commands" in sys.modules:
            sys.meta_path.remove(self)
            pathlib.Path(marker).touch()
            time.sleep(600)
        return None

sys.meta_path.insert(0, Pause())
from pushgen.cli import main
sys.exit(main(args))
"""


@pytest.mark.parametrize("module", ["click", "pyarrow"])
def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path, module):
    marker, cwd = tmp_path / "loading", tmp_path / "run"
    cwd.mkdir()
    child = start([module, str(marker), "make", "--users", "1", "--days", "2", "--out", "d"], cwd,
                  command=[sys.executable, "-c", PAUSED_WHILE_LOADING])
    wait_for(lambda: marker.exists() or child.poll() is not None)
    assert child.poll() is None, child.communicate()[1]
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=SAFETY)
    assert child.returncode == 130, err
    assert err == "Interrupted; nothing was written.\n"
    assert list(cwd.iterdir()) == []


# the pushgen program as its console script starts it, paused when MODULE first loads after
# pushgen.stopping (from pushgen's first import on)
PROGRAM_PAUSED_WHILE_LOADING = PAUSED_WHILE_LOADING.replace(
    '"pushgen.commands" in', '"pushgen.stopping" in').replace(
    "from pushgen.cli import main\nsys.exit(main(args))",
    "sys.argv = ['pushgen', *args]\nfrom pushgen.cli import program\nsys.exit(program())")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("module", ["numpy", "click", "pyarrow"])
def test_a_stop_from_the_programs_first_import_is_one_line(tmp_path, module, stop):
    marker, cwd = tmp_path / "loading", tmp_path / "run"
    cwd.mkdir()
    child = start([module, str(marker), "make", "--users", "1", "--days", "2", "--out", "d"], cwd,
                  command=[sys.executable, "-c", PROGRAM_PAUSED_WHILE_LOADING])
    wait_for(lambda: marker.exists() or child.poll() is not None)
    assert child.poll() is None, child.communicate()[1]
    child.send_signal(stop)
    _, err = child.communicate(timeout=SAFETY)
    assert (child.returncode, err) == (130, "Interrupted; nothing was written.\n")
    assert list(cwd.iterdir()) == []


def test_a_worker_starts_and_ends_as_a_process_of_pushgens_own():
    script = ("import atexit, gc, os, signal\nfrom pushgen.data.engines import start_worker\n"
              "print(gc.get_threshold()[0])\nstart_worker()\nbefore = gc.get_freeze_count()\n"
              "os.kill(os.getpid(), signal.SIGINT)\n"  # left to the parent: nothing happens here
              "atexit._run_exitfuncs()\nprint(gc.get_threshold()[0], before, gc.get_freeze_count() > 0)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["700", "10000", "0", "True"]
