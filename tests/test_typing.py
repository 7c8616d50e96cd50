"""The package is typed: mypy passes on all of it with the project's settings, and mypy --strict
passes on code that uses the public API and catches its misuse.

The public API checks run mypy outside the repository, so it finds pushgen as an installed
package: only the ``py.typed`` marker makes it read the package's types instead of treating it
as ``Any``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pushgen

ROOT = Path(__file__).resolve().parents[1]
USE = ROOT / "tests" / "mypy_cases" / "public_api_use.py"
MISUSE = ROOT / "tests" / "mypy_cases" / "public_api_misuse.py"
MARK = re.compile(r"#\s*error:\s*([\w-]+)\s*$")
REPORTED = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")
CHECKED = re.compile(r"in (\d+) source files?\)?$")


def mypy(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--cache-dir", str(cwd / ".mypy_cache"), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, str]]]:
    """mypy's errors per file (line, code), both files checked in one run."""
    done = mypy(tmp_path_factory.mktemp("mypy"), str(USE), str(MISUSE))
    assert done.returncode in (0, 1), done.stderr
    errors: dict[str, list[tuple[int, str]]] = {USE.name: [], MISUSE.name: []}
    for line in done.stdout.splitlines():
        match = REPORTED.match(line)
        if match:
            errors[Path(match["file"]).name].append((int(match["line"]), match["code"]))
    return errors


def test_the_package_ships_its_types() -> None:
    assert (Path(pushgen.__file__).parent / "py.typed").is_file()


def test_code_using_every_public_name_passes_mypy_strict(checked: dict[str, list[tuple[int, str]]]) -> None:
    text = USE.read_text()
    for name in pushgen.__all__:
        assert f"pushgen.{name}" in text, f"{USE.name} does not use pushgen.{name}"
    assert checked[USE.name] == []


def test_mypy_reports_every_misuse_of_the_public_api(checked: dict[str, list[tuple[int, str]]]) -> None:
    expected = {(number, match[1]) for number, line in enumerate(MISUSE.read_text().splitlines(), 1)
                if (match := MARK.search(line))}
    assert len(expected) >= len(pushgen.__all__)
    reported = set(checked[MISUSE.name])
    assert expected <= reported, f"not reported: {sorted(expected - reported)}"
    assert {line for line, _ in reported} == {line for line, _ in expected}


def test_mypy_passes_on_the_whole_package(tmp_path: Path) -> None:
    """``mypy`` with no arguments, as a contributor runs it: pyproject.toml's settings, every module."""
    pytest.importorskip("mypy")
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert "pushgen" in settings["files"]
    strict = [o for o in settings.get("overrides", []) if o.get("disallow_untyped_defs")]
    assert strict and "pushgen" in strict[0]["module"], "the front door is held to --strict's flags"
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / ".mypy_cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr
    checked = CHECKED.search(done.stdout.strip())
    assert checked, done.stdout
    assert int(checked[1]) >= len(list((ROOT / "pushgen").rglob("*.py")))
