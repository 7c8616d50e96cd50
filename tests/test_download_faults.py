"""Downloads in a terminal, caches that changed, downloads that fail: the cache keeps only what
passed its checks, and nothing else is left behind."""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import http.server
import os
import select
import shutil
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from pathlib import Path

import pytest
from fault_cases import run_cli

from pushgen.data.dataset import DatasetError
from pushgen.publishing import registry
from pushgen.publishing.download import fetch_split

GENERATED = Path(__file__).resolve().parents[1] / "generated"
REMOTE = "pushgen-remote"  # the mini split under a name no package ships, so it is downloaded
REGISTER_REMOTE = """
    import dataclasses
    from pushgen.publishing import registry
    mini = registry.lookup("pushgen-mini-v4")
    remote = dataclasses.replace(mini, name="pushgen-remote")
    registry.load_registry = lambda: (*registry.read_registry(), remote)
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A server on 127.0.0.1 of the mini split as ``pushgen-remote/v4``; PUSHGEN_DATA_URL points at it."""
    root = tmp_path / "served"
    shutil.copytree(GENERATED / "pushgen-mini" / "v4", root / REMOTE / "v4")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("PUSHGEN_DATA_URL", f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    yield root
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def remote(monkeypatch):
    mini = registry.lookup("pushgen-mini-v4")
    entry = dataclasses.replace(mini, name=REMOTE)
    monkeypatch.setattr(registry, "load_registry", lambda: (*registry.read_registry(), entry))
    return entry


def in_terminal(code: str, timeout: float = 120) -> tuple[int, str]:
    """Run Python ``code`` with a pseudo-terminal as stdin, stdout and stderr; its exit code and output."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # rows, columns
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdin=slave, stdout=slave,
                             stderr=slave, close_fds=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if child.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # the terminal closed with the child
                break
            if not data:
                break
            output += data
        return child.wait(timeout=10), output.decode(errors="replace")
    finally:
        os.close(master)
        if child.poll() is None:
            child.kill()


def test_download_in_a_terminal_shows_progress_and_does_not_crash(server, tmp_path):
    cache = tmp_path / "cache"
    code, output = in_terminal(REGISTER_REMOTE + f"""
    import sys
    from pushgen.cli import main
    sys.exit(main(["download", "pushgen-remote-v4", "--cache", {str(cache)!r}]))
    """)
    assert code == 0, output
    assert "Traceback" not in output
    mini = registry.lookup("pushgen-mini-v4")
    assert all(f"pushgen-remote-v4 {name}:" in output for name in mini.files)  # a bar for each file
    assert "pushgen-remote-v4: every file's sha256 checked" in output
    assert (cache / REMOTE / "v4" / "split.json").is_file()


def test_a_quiet_download_in_a_terminal_prints_only_the_folder(server, tmp_path):
    cache = tmp_path / "cache"
    code, output = in_terminal(REGISTER_REMOTE + f"""
    import sys
    from pushgen.cli import main
    sys.exit(main(["download", "pushgen-remote-v4", "--cache", {str(cache)!r}, "--quiet"]))
    """)
    assert code == 0, output
    assert output.splitlines() == [str(cache / REMOTE / "v4")]  # no bar, no note: stdout alone
    assert (cache / REMOTE / "v4" / "split.json").is_file()


def test_load_split_by_name_in_a_terminal(server, tmp_path):
    code, output = in_terminal(REGISTER_REMOTE + f"""
    import os
    os.environ["PUSHGEN_CACHE"] = {str(tmp_path / "cache")!r}
    import pushgen
    print("rows", len(pushgen.load_split("pushgen-remote-v4", task=2).test))
    """)
    assert code == 0 and "Traceback" not in output, output
    assert "rows " in output


def test_list_shows_a_changed_cache_as_not_at_hand(server, remote, tmp_path):
    cache = tmp_path / "cache"
    folder = fetch_split(remote.label, cache=cache)

    def at_hand() -> str:
        outcome = run_cli(["list", "--cache", str(cache)])
        assert outcome.code == 0, outcome.err
        line = next(line for line in outcome.out.splitlines() if line.startswith(remote.label + " "))
        return line.split()[-2]  # the AT HAND column, before STATUS

    assert at_hand() == "cached"
    (folder / "task2" / "test.parquet").write_bytes(b"changed")
    assert at_hand() == "-"
    assert fetch_split(remote.label, cache=cache) == folder  # downloaded again
    assert at_hand() == "cached"


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "missing"])
def test_a_failed_download_leaves_no_folders(server, remote, tmp_path, monkeypatch, url):
    if url == "missing":
        shutil.rmtree(server / REMOTE)
    else:
        monkeypatch.setenv("PUSHGEN_DATA_URL", url)
    cache = tmp_path / "new" / "cache"
    outcome = run_cli(["download", remote.label, "--cache", str(cache)])
    assert outcome.code == 2 and len(outcome.error_lines) == 1, outcome.err + outcome.escaped
    assert not (tmp_path / "new").exists()


def test_a_cache_folder_holding_other_files_is_not_deleted(server, remote, tmp_path):
    folder = tmp_path / "cache" / REMOTE / "v4"
    folder.mkdir(parents=True)
    (folder / "thesis.tex").write_text("precious")
    with pytest.raises(DatasetError, match=r"holds thesis\.tex, which is not a file of pushgen-remote-v4"):
        fetch_split(remote.label, cache=tmp_path / "cache")
    assert (folder / "thesis.tex").read_text() == "precious"
