"""Progress bars on a terminal, nothing on a pipe, and ``--quiet`` silencing bars and notes."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pandas as pd
import pytest

from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.progress import bar, counter, note, shown, stages, terminal_progress

PUSHGEN = [sys.executable, "-m", "pushgen"]


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def on_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run pushgen with stderr on a pseudo-terminal; its exit code, stdout and what the terminal got."""
    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    child = subprocess.Popen([*PUSHGEN, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=secondary,
                             stdin=subprocess.DEVNULL, text=True, preexec_fn=default_sigint)
    os.close(secondary)
    received = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: every writer of the terminal has closed it
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    out, _ = child.communicate(timeout=600)
    reader.join(timeout=600)
    os.close(main)
    return child.returncode, out, received.decode(errors="replace")


def on_pipe(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*PUSHGEN, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          preexec_fn=default_sigint)


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("progress")
    for args in (["make", "--users", "6", "--months", "3", "--out", "ds"],
                 ["split", "ds", "--out", "sp", "--train-months", "1", "--test-months", "1",
                  "--cold-start-users", "2"]):
        done = on_pipe(args, root)
        assert done.returncode == 0, done.stderr
    # the logged notifications as a task 1 submission (a test may read the scorer's folder)
    logged = pd.read_parquet(root / "sp" / "scorer" / "task1" / "test.parquet")
    logged[["context_id", *NOTIFICATION_FEATURES]].to_parquet(root / "logged.parquet")
    return root


@pytest.mark.parametrize(("args", "label"), [
    (["describe", "ds"], "describe: "),
    (["validate", "ds"], "validate: "),
    (["validate", "sp"], "validate: sha256"),
    (["make", "--users", "2", "--days", "3", "--out", "made"], "pushgen: "),
    (["split", "ds", "--out", "again", "--train-months", "1", "--test-months", "1"], "split: "),
    (["evaluate", "--split", "sp", "--submission", "logged.parquet"], "evaluate: "),
    (["report", "ds", "--out", "ds.html"], "report: "),
])
def test_a_terminal_shows_a_bar_that_is_cleared_at_the_end(folders, args, label):
    code, out, terminal = on_terminal(args, folders)
    assert code == 0, terminal
    assert out.strip()
    assert label in terminal
    assert "\r" in terminal  # redrawn in place
    assert "Traceback" not in terminal


@pytest.mark.parametrize("args", [
    ["describe", "ds", "--quiet"],
    ["validate", "sp", "-q"],
    ["evaluate", "--split", "sp", "--submission", "logged.parquet", "-q"],
    ["make", "--users", "2", "--days", "3", "--out", "quiet-made", "--quiet"],
    # the split leaves a month out: its note is silenced too
    ["split", "ds", "--out", "quiet-split", "--train-months", "1", "--test-months", "1", "-q"],
])
def test_quiet_leaves_the_terminal_empty(folders, args):
    code, out, terminal = on_terminal(args, folders)
    assert code == 0
    assert out.strip()
    assert terminal == ""


def test_a_pipe_gets_no_bar_but_the_notes(folders):
    done = on_pipe(["describe", "ds"], folders)
    assert done.returncode == 0 and done.stderr == ""
    (folders / "short").mkdir()
    done = on_pipe(["split", "ds", "--out", "short/sp", "--train-months", "1", "--test-months", "1"],
                   folders)
    assert done.returncode == 0
    assert done.stderr.startswith("Note: ") and "\r" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_errors_are_shown_even_when_quiet(folders):
    done = on_pipe(["describe", "no-such-folder", "--quiet"], folders)
    assert done.returncode == 2
    assert done.stderr == ("pushgen describe: error: no-such-folder does not exist, and no standard split "
                           "has that name (`pushgen list` shows them)\n")


def test_outside_a_command_the_library_draws_nothing(capsys):
    assert not shown()
    with stages("job", 2) as begin:
        begin("one")
        begin("two")
    list(bar(range(3), desc="loop"))
    note("a remark")
    assert capsys.readouterr().err == "a remark\n"
    with terminal_progress(quiet=True):
        assert not shown()
        note("hidden")
    assert capsys.readouterr().err == ""


def test_a_counter_not_drawn_imports_no_tqdm_and_a_drawn_one_counts(capsys):
    script = ("import sys\nfrom pushgen.progress import counter\n"
              "with counter(desc='job', total=3, unit='user', drawn=False) as advance:\n"
              "    advance(3)\nprint(sorted(m for m in sys.modules if m.startswith('tqdm')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]" and done.stderr == ""
    with counter(desc="job", total=3, unit="user", drawn=True) as advance:
        advance(2)
        advance(1)
    drawn = capsys.readouterr().err
    assert "job" in drawn and "3/3" in drawn
