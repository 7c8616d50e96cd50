"""The public API is typed: mypy --strict passes on code that uses it and catches its misuse.

mypy runs outside the repository, so it finds pushgen as an installed package: only the
``py.typed`` marker makes it read the package's types instead of treating it as ``Any``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import pushgen

ROOT = Path(__file__).resolve().parents[1]
USE = ROOT / "tests" / "mypy_cases" / "public_api_use.py"
MISUSE = ROOT / "tests" / "mypy_cases" / "public_api_misuse.py"
MARK = re.compile(r"#\s*error:\s*([\w-]+)\s*$")
REPORTED = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


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
