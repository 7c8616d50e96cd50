"""The faults beyond damaged bytes: a file the description does not list, a kill between the
renames of ``--force``, and a server that sends too much or too slowly."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from fault_cases import damaged_copy, dataset_commands, made_folders, run_cli, split_commands
from test_download_faults import Quiet, remote  # noqa: F401  (a fixture)

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


@pytest.mark.parametrize("extra", ["task1/train-copy.parquet", "scorer/notes.txt", "extra.parquet"])
def test_a_file_a_split_does_not_list_is_refused_by_every_reading_command(folders, extra):
    _, split = folders
    for command in split_commands(split):
        with damaged_copy(split) as (copy, scratch):
            (copy / extra).write_bytes((copy / "task1" / "train.parquet").read_bytes())
            outcome = command.run(copy, scratch)
            assert outcome.code == 2 and len(outcome.error_lines) == 1, (command.name, outcome)
            assert f"{copy}/{extra} is not listed in {copy}/split.json" in outcome.err
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
KILLED_BETWEEN_RENAMES = """
    import os, signal, sys
    import pushgen.data.dataset
    pushgen.data.dataset.after_moving_aside = lambda out: os.kill(os.getpid(), signal.SIGKILL)
    from pushgen.cli import main
    sys.exit(main({args!r}))
"""


def killed_between_renames(args: list[str]) -> subprocess.CompletedProcess:
    code = textwrap.dedent(KILLED_BETWEEN_RENAMES).format(args=args)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


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


class Faulty(Quiet):
    """Serves the mini split; the file ``server.target`` is served as ``server.mode`` says:
    endless (no length, never ends), trickle (a byte a second) or stall (headers, then nothing).
    Each stops by itself (a bounded number of bytes or seconds) or when the test ends."""

    def do_GET(self) -> None:
        server = self.server
        if not self.path.endswith(server.target) or server.mode == "normal":
            return super().do_GET()
        self.send_response(200)
        if server.mode != "endless":
            self.send_header("Content-Length", str(server.size))
        self.end_headers()
        try:
            for _ in range(2000 if server.mode == "endless" else 60):
                if server.mode == "endless":
                    self.wfile.write(b"\0" * 65536)
                elif server.mode == "trickle":
                    self.wfile.write(b"\0")
                    self.wfile.flush()
                if server.mode != "endless" and server.ended.wait(1.0):
                    return
        except OSError:  # the client stopped reading
            return


@pytest.fixture
def faulty(tmp_path, monkeypatch, remote):  # noqa: F811
    import functools
    import http.server

    from test_download_faults import GENERATED, REMOTE

    root = tmp_path / "served"
    shutil.copytree(GENERATED / "pushgen-mini" / "v2", root / REMOTE / "v2")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Faulty, directory=str(root)))
    httpd.daemon_threads = True
    httpd.target, httpd.size = next(iter(remote.files.items()))
    httpd.size = httpd.size["bytes"]
    httpd.mode, httpd.ended = "normal", threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("PUSHGEN_DATA_URL", f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    yield httpd
    httpd.ended.set()
    httpd.shutdown()
    httpd.server_close()


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
