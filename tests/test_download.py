from __future__ import annotations

import dataclasses
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from packaging.requirements import Requirement

import pushgen
from pushgen.cli import main
from pushgen.data import dataset, writer
from pushgen.data.generator import pseudonyms
from pushgen.data.outputs import sha256_file
from pushgen.publishing import download, registry
from pushgen.publishing.download import DownloadError, FingerprintMismatch, cache_dir, fetch_split
from pushgen.publishing.registry import lookup
from pushgen.publishing.standard import build_split
from pushgen.splits import SPLIT_FILE

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
MINI = lookup("pushgen-mini-v4")
REMOTE = dataclasses.replace(MINI, name="pushgen-remote")  # same files, never shipped
EXP = np.lib.introspect.opt_func_info(func_name="^exp$", signature="d.*").get("exp", {}).get("dd", {})
AVX512 = EXP.get("current") == "X86_V4"  # numpy 2's name of AVX-512, on which the standard splits were built
FLOAT_PARTS = ["scorer/ground_truth/engagement_rows", "scorer/ground_truth/initial_state"]  # P(open) in them
REBUILD = ("the generator no longer reproduces the published split. If the change is on purpose, "
           "bump the split's version (a new entry in STANDARD in scripts/build_standard_splits.py, "
           "see docs/versioning.md) and rebuild with `python scripts/build_standard_splits.py`; "
           "a version not yet published may simply be rebuilt")


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; counts requests; breaks off the files named in ``cut``."""

    requests: list[str]
    cut: set[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        relative = self.path.lstrip("/")
        if relative in self.cut:
            data = (Path(self.directory) / relative).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data) + 1000))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def serve(monkeypatch):
    """Start a server of a folder on 127.0.0.1; PUSHGEN_DATA_URL points at it."""
    servers = []

    def start(root: Path, cut: tuple[str, ...] = ()) -> list[str]:
        handler = type("Counting", (Handler,), {"requests": [], "cut": set(cut)})
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        monkeypatch.setenv("PUSHGEN_DATA_URL", f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        return handler.requests

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def remote(tmp_path, monkeypatch) -> Path:
    """A served copy of the mini split under a name that no package ships."""
    root = tmp_path / "served"
    shutil.copytree(GENERATED / MINI.name / MINI.version, root / REMOTE.name / REMOTE.version)
    monkeypatch.setattr(registry, "load_registry", lambda: (*registry.read_registry(), REMOTE))
    return root


def files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def one_line_error(capsys) -> str:
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error, error
    return error


def test_download_through_the_data_url_then_from_the_cache(serve, tmp_path):
    requests = serve(GENERATED)
    cache = tmp_path / "cache"
    folder = fetch_split("pushgen-mini-v4", cache=cache, prefer_packaged=False)
    assert folder == cache / "pushgen-mini" / "v4"
    assert sorted(requests) == sorted(f"/pushgen-mini/v4/{name}" for name in MINI.files)
    for name, expected in MINI.files.items():
        assert sha256_file(folder / name) == expected["sha256"], name
    assert download.checked_copy(MINI, folder) == folder

    assert fetch_split("pushgen-mini", "v4", cache=cache, prefer_packaged=False) == folder
    assert len(requests) == len(MINI.files)
    split = pushgen.load_split(folder, task=2)
    assert len(split.test) == MINI.rows["task2/test"]


def test_a_cached_copy_that_changed_is_downloaded_again(serve, tmp_path):
    requests = serve(GENERATED)
    folder = fetch_split("pushgen-mini-v4", cache=tmp_path, prefer_packaged=False)
    (folder / "users.parquet").write_bytes(b"changed")
    assert fetch_split("pushgen-mini-v4", cache=tmp_path, prefer_packaged=False) == folder
    assert len(requests) == 2 * len(MINI.files)
    assert sha256_file(folder / "users.parquet") == MINI.files["users.parquet"]["sha256"]


def test_a_tampered_file_is_refused_and_nothing_invalid_stays(serve, remote, tmp_path, capsys):
    target = remote / REMOTE.name / REMOTE.version / "task1/test.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    serve(remote)
    cache = tmp_path / "cache"
    assert main(["download", "pushgen-remote-v4", "--cache", str(cache)]) == 2
    error = one_line_error(capsys)
    assert error.startswith("pushgen download: error: pushgen-remote-v4: task1/test.parquet from http://127.0.0.1")
    assert f"failed its checksum: sha256 expected {MINI.files['task1/test.parquet']['sha256']}" in error
    assert f"got {sha256_file(target)}" in error
    assert files_in(cache) == []


def test_a_connection_cut_mid_file_is_refused(serve, remote, tmp_path, capsys):
    requests = serve(remote, cut=(f"{REMOTE.name}/{REMOTE.version}/task1/train.parquet",))
    cache = tmp_path / "cache"
    assert main(["download", "pushgen-remote", "--version", "v4", "--cache", str(cache)]) == 2
    error = one_line_error(capsys)
    assert "pushgen-remote-v4: cannot download task1/train.parquet" in error
    assert "the connection broke off before the whole file arrived; nothing was kept" in error
    assert f"/{REMOTE.name}/{REMOTE.version}/task1/train.parquet" in requests
    assert files_in(cache) == []


def test_a_missing_file_or_server_says_so(serve, remote, tmp_path, capsys):
    (remote / REMOTE.name / REMOTE.version / "split.json").unlink()
    serve(remote)
    cache = tmp_path / "cache"
    with pytest.raises(DownloadError, match=r"cannot download split.json from .*: HTTP 404"):
        fetch_split("pushgen-remote-v4", cache=cache)
    assert files_in(cache) == []
    with pytest.raises(DownloadError, match="PUSHGEN_DATA_URL must be an http"):
        fetch_split("pushgen-remote-v4", cache=cache, url="file:///nowhere")


def test_unknown_names_and_versions_list_what_exists(capsys):
    assert main(["download", "pushgen-v9"]) == 2
    assert "pushgen has no version 'v9'; versions: v1, v2, v3, v4" in one_line_error(capsys)
    assert main(["download", "cifar10"]) == 2
    error = one_line_error(capsys)
    assert ("no standard split named 'cifar10'; standard splits: pushgen-v1, pushgen-v2, pushgen-v3, "
            "pushgen-v4, pushgen-mini-v1, pushgen-mini-v2, pushgen-mini-v3, pushgen-mini-v4") in error


def test_the_installed_command_prints_no_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pushgen", "download", "nope", "--cache", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "pushgen download: error: no standard split named 'nope'; "
        "standard splits: pushgen-v1, pushgen-v2, pushgen-v3, pushgen-v4, pushgen-mini-v1, pushgen-mini-v2, "
        "pushgen-mini-v3, pushgen-mini-v4"]


def test_published_pseudonyms_come_from_the_pinned_faker_range():
    """The pseudonyms are part of the fingerprinted content, so what keeps a regenerated split's
    bytes equal is the pin: pyproject.toml allows only the faker releases that
    scripts/faker_names.py showed to give the published names (docs/versioning.md)."""
    pin = next(Requirement(line) for line in
               tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
               if line.startswith("faker"))
    assert {spec.operator for spec in pin.specifier} == {">=", "<"}, "faker must stay pinned to a range"
    installed = metadata.version("faker")
    assert installed in pin.specifier, f"faker {installed} is outside the proven range {pin.specifier}"
    published = pd.read_parquet(GENERATED / "pushgen-mini" / "v4" / "users.parquet")
    assert pseudonyms(MINI.recipe["seed"], published["user_id"].tolist()) == published["name"].tolist(), (
        f"faker {installed} names users differently from the published splits: narrow the faker pin "
        "in pyproject.toml (scripts/faker_names.py finds the releases that give the published names)")


def which_library(changed: list[str]) -> str:
    """What each part of the published bytes depends on, for a failure message."""
    faker = metadata.version("faker")
    names = (f"the users tables changed: their pseudonyms come from faker ({faker} installed, pinned in "
             "pyproject.toml to the releases scripts/faker_names.py proved to give the published names); "
             if any(t.endswith("users") for t in changed) else "")
    return (f"{names}{'every other value' if names else 'the values'} come from numpy's generators and "
            "pushgen's model; the Parquet "
            f"writer (pyarrow {metadata.version('pyarrow')}) is outside the fingerprints, which hash "
            "values, not file bytes (only the files' sha256 depend on it)")


def test_regenerating_mini_reproduces_the_committed_fingerprints(tmp_path, monkeypatch):
    """Byte-equal content: the fingerprints cover every table's values, pseudonyms included (faker
    is pinned to a proven range, see the test above); they do not depend on the Parquet writer."""
    rebuilt = build_split(MINI.make_recipe(), MINI.make_spec(), tmp_path / "rebuilt", MINI.name, MINI.version)
    ours = json.loads((rebuilt / SPLIT_FILE).read_text())
    committed = json.loads((GENERATED / "pushgen-mini" / "v4" / SPLIT_FILE).read_text())
    changed = [t for t in committed["fingerprints"]
               if ours["fingerprints"].get(t) != committed["fingerprints"][t]]
    if not AVX512:  # numpy's exp rounds P(open) otherwise here (docs/versioning.md): the rest must hold
        assert not [t for t in changed if t not in FLOAT_PARTS], f"pushgen-mini-v4 changed: {REBUILD}"
        pytest.skip("P(open) in the ground truth reproduces only where numpy computes exp with AVX-512")
    assert not changed, (f"pushgen-mini-v4 changed in {', '.join(changed)} ({which_library(changed)}): "
                         f"{REBUILD}")
    assert ours["fingerprint"] == committed["fingerprint"] == MINI.fingerprint, REBUILD

    # another Parquet writer (here: snappy, default encodings) writes other bytes for the same values
    other_writer = {"compression": "snappy"}
    for module in (dataset, writer):
        monkeypatch.setattr(module, "parquet_options", lambda schema: other_writer)
    folder = fetch_split("pushgen-mini-v4", cache=tmp_path / "cache", regenerate=True, progress=False)
    assert folder == tmp_path / "cache" / "pushgen-mini" / "v4"
    assert download.checked_copy(MINI, folder) == folder
    assert json.loads((folder / SPLIT_FILE).read_text())["fingerprint"] == MINI.fingerprint
    # the files' bytes differ from the published ones, and the regenerated copy stands on its content
    # fingerprint (checked_copy above)
    rewritten = [name for name, entry in MINI.files.items()
                 if name.endswith(".parquet") and sha256_file(folder / name) != entry["sha256"]]
    assert "scorer/task1/test.parquet" in rewritten
    assert fetch_split("pushgen-mini-v4", cache=tmp_path / "cache", prefer_packaged=False,
                       url="http://127.0.0.1:9") == folder


@pytest.mark.parametrize(("old", "model", "new", "release", "revision"), [
    ("pushgen-mini-v1", 1, "pushgen-mini-v4", "0.1.0", "d2d059378dac"),
    ("pushgen-mini-v3", 3, "pushgen-mini-v4", "0.3.0", "5e065af05207"),
])
def test_regenerating_a_split_of_another_engagement_model_is_refused_in_one_line(tmp_path, capsys, old, model,
                                                                                  new, release, revision):
    assert main(["download", old, "--regenerate", "--cache", str(tmp_path)]) == 2
    error = one_line_error(capsys)
    assert f"{old} was simulated with engagement model {model}" in error
    assert (f"use {new}, which supersedes it, or install pushgen {release}, which built it (the "
            f"repository at {revision})") in error
    assert files_in(tmp_path) == []


def test_regenerate_that_does_not_match_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    wrong = dataclasses.replace(REMOTE, fingerprint="0" * 64)
    monkeypatch.setattr(registry, "load_registry", lambda: (wrong,))
    assert main(["download", "pushgen-remote-v4", "--regenerate", "--cache", str(tmp_path)]) == 2
    error = one_line_error(capsys)
    assert error.startswith(
        "pushgen download: error: pushgen-remote-v4: the regenerated split does not match")
    # the parts that differ are named, then why, if it can tell (the CPU's exp where only the ground
    # truth's floats differ, the versions that differ from the publishing machine's)
    assert re.search(f"expected fingerprint {'0' * 64}, got [0-9a-f]{{64}}; parts that differ: [^;]+"
                     r"(; [^;]+)*; nothing was kept", error)
    assert "pushgen download pushgen-remote-v4" in error
    assert files_in(tmp_path) == []
    with pytest.raises(FingerprintMismatch):
        fetch_split("pushgen-remote-v4", cache=tmp_path, regenerate=True)
    here = {**wrong.environment, "faker": "24.0.0", "numpy": wrong.environment["numpy"]}
    monkeypatch.setattr(download, "environment", lambda: here)
    faker = wrong.environment["faker"]
    reasons = r"; parts that differ: [^;]+(; [^;]+)?"  # the parts, and the CPU's exp where it tells
    with pytest.raises(FingerprintMismatch, match=rf"got [0-9a-f]{{64}}{reasons}; faker "
                                                  rf"{faker} there, 24\.0\.0 here; nothing was kept"):
        fetch_split("pushgen-remote-v4", cache=tmp_path, regenerate=True)


def test_a_regenerated_split_whose_ground_truth_floats_alone_differ_is_told_so(tmp_path, monkeypatch, capsys):
    truth = [part for part in REMOTE.fingerprints if part.startswith("scorer/ground_truth/")]
    wrong = dataclasses.replace(REMOTE, fingerprint="0" * 64,
                                fingerprints={**REMOTE.fingerprints, **dict.fromkeys(truth, "0" * 64)})
    monkeypatch.setattr(registry, "load_registry", lambda: (wrong,))
    monkeypatch.setattr(download, "environment", lambda: wrong.environment)
    assert main(["download", "pushgen-remote-v4", "--regenerate", "--cache", str(tmp_path)]) == 2
    error = one_line_error(capsys)
    assert f"; parts that differ: {', '.join(truth)}; {download.FLOATS_DIFFER}; nothing was kept" in error
    assert files_in(tmp_path) == []


@pytest.mark.skipif(not AVX512, reason="numpy computes exp without AVX-512 here already")
def test_regenerating_without_avx512_names_the_ground_truth_it_cannot_reproduce(tmp_path):
    # numpy's float64 exp differs in the last bit without AVX-512: P(open) in the ground truth
    # follows it, the notifications and their outcomes do not
    environment = {**os.environ, "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
    done = subprocess.run([sys.executable, "-m", "pushgen", "download", "pushgen-mini-v4", "--regenerate",
                           "--cache", str(tmp_path)], capture_output=True, text=True, env=environment)
    assert done.returncode == 2, done.stderr
    # then the versions that differ from the publishing machine's, if any
    assert f"; parts that differ: {', '.join(FLOAT_PARTS)}; {download.FLOATS_DIFFER}; " in done.stderr
    assert "; nothing was kept. Download it instead: pushgen download pushgen-mini-v4" in done.stderr
    assert files_in(tmp_path) == []


def test_download_command_prints_the_folder(capsys, tmp_path):
    assert main(["download", "pushgen-mini-v4", "--cache", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    folder = Path(out.strip())
    assert (folder / SPLIT_FILE).is_file() and folder.name == "v4"
    assert f"pushgen-mini-v4: every file's sha256 checked ({MINI.fingerprint[:16]})" in err


def test_load_split_by_name_needs_no_network(tmp_path, monkeypatch):
    monkeypatch.setenv("PUSHGEN_CACHE", str(tmp_path))
    monkeypatch.setenv("PUSHGEN_DATA_URL", "http://127.0.0.1:9")
    split = pushgen.load_split("pushgen-mini-v4", task=1)
    assert len(split.train) == MINI.rows["task1/train"] and len(split.test) == MINI.rows["task1/test"]
    assert str(split.train["postingApp"].dtype) == "category"
    assert files_in(tmp_path) == []


def test_cache_folder_comes_from_the_argument_the_environment_or_the_platform(tmp_path, monkeypatch):
    assert cache_dir(tmp_path) == tmp_path
    monkeypatch.setenv("PUSHGEN_CACHE", str(tmp_path / "env"))
    assert cache_dir() == tmp_path / "env"
    monkeypatch.delenv("PUSHGEN_CACHE")
    assert cache_dir().name == "pushgen"


def test_offline_download_names_regenerate_and_fetches_from_the_split_s_own_revision(tmp_path, monkeypatch,
                                                                                    capsys):
    monkeypatch.setattr(registry, "load_registry", lambda: (REMOTE,))
    monkeypatch.setenv("PUSHGEN_DATA_URL", "http://127.0.0.1:9/{revision}/generated")
    assert main(["download", "pushgen-remote-v4", "--cache", str(tmp_path)]) == 2
    error = one_line_error(capsys)
    assert f"from http://127.0.0.1:9/{REMOTE.published_at}/generated/pushgen-remote/v4/" in error
    assert error.rstrip().endswith("nothing was kept. Without network: pushgen download pushgen-remote-v4 "
                          "--regenerate (rebuilds it from its recipe)")
    assert files_in(tmp_path) == []


def test_every_published_split_is_fetched_from_a_revision_that_does_not_move(monkeypatch):
    monkeypatch.delenv("PUSHGEN_DATA_URL", raising=False)
    for entry in registry.load_registry():
        assert entry.published_at == (entry.revision or entry.label)
        assert entry.published_at not in ("main", "master", "HEAD")
        assert entry.revision is None or re.fullmatch("[0-9a-f]{40}", entry.revision), entry.revision
        assert download.data_url(None, entry.published_at) == (
            f"https://raw.githubusercontent.com/pushgen/pushgen/{entry.published_at}/generated")
    assert download.standard_url("pushgen", "v3") == (
        "https://raw.githubusercontent.com/pushgen/pushgen/pushgen-v3/generated/pushgen/v3")
