"""The command lines of the README and of the pages a reader follows from it (in the order of the
site's navigation) run as written, in order, in one folder: no step collides with an earlier one
("already exists"). A command shown on two pages is one step. The lines that cannot run here are
named with the reason."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pushgen.commands import main

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "docs/getting-started.md", "docs/dataset.md", "docs/splits.md",
             "docs/use-it-with.md", "docs/environments/index.md", "docs/tasks.md")
PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b|\||\[--")
NOT_HERE = {  # a fragment of the line -> why it does not run in a test
    "pushgen-v4": "fetches or scores the 80-user standard split (network, minutes)",
    "--users 500 --months 12": "a 500-user dataset for a year (minutes)",
    "pushgen-mini-dev": "reads what the Python examples before it write (test_development.py runs them)",
}


def command_lines() -> list[str]:
    """Every ``pushgen`` command of the documents' console blocks, in order, comments removed."""
    lines: list[str] = []
    for document in DOCUMENTS:
        inside, console = False, False
        for line in (ROOT / document).read_text().splitlines():
            if line.startswith("```"):
                inside, console = not inside, line == "```"
                continue
            if inside and console:
                command = line.split("#")[0].strip()
                command = command.split("&&")[-1].strip()
                if command.startswith("pushgen ") and command not in lines:
                    lines.append(command)
    return lines


def test_the_readme_commands_are_found():
    lines = command_lines()
    assert "pushgen make --users 50 --months 6" in lines
    assert lines.index("pushgen make --users 50 --months 6") < lines.index(
        "pushgen split pushgen-50u-6m-seed0 --cold-start-users 5")


def test_the_readme_steps_run_in_order_in_one_folder(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    ran, skipped = [], []
    for line in command_lines():
        reason = next((why for fragment, why in NOT_HERE.items() if fragment in line), None)
        if reason is not None or PLACEHOLDER.search(line.removeprefix("pushgen ")):
            skipped.append(line)
            continue
        code = main(shlex.split(line)[1:])
        error = capsys.readouterr().err
        assert code == 0, f"{line}: {error}"
        ran.append(line)
    assert ran[:2] == ["pushgen make --users 50 --months 6", "pushgen report pushgen-50u-6m-seed0"]
    assert "pushgen split pushgen-50u-6m-seed0 --cold-start-users 5" in ran
    assert {"pushgen-50u-6m-seed0", "pushgen-50u-6m-seed0-split", "pushgen-50u-6m-seed0-report.html",
            "pushgen-mini-report.html"} <= {p.name for p in tmp_path.iterdir()}
    assert all(PLACEHOLDER.search(line) or any(f in line for f in NOT_HERE) for line in skipped)
