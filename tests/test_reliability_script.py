"""``scripts/reliability.py`` runs every family of faults, and each meets the standard (one case
of each family here; the script runs them all)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reliability.py"
FAMILIES = ["--force killed between its renames", "arguments and surroundings",
            "dataset: JSON beyond the limits", "dataset: a file it does not list", "dataset: bytes of a file",
            "dataset: description JSON", "download beyond its limits",
            "make beyond the disk, output inside an input", "names the documents give",
            "split: JSON beyond the limits", "split: a file it does not list", "split: bytes of a file",
            "split: description JSON", "benchmark results folder", "one-file outputs, old datasets, names"]


def test_one_case_of_every_family_meets_the_standard(capsys):
    spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--per-family", "1"]) == 0, capsys.readouterr().out
    lines = capsys.readouterr().out.splitlines()
    rows = {line[:45].strip(): line[45:].split() for line in lines[1:len(FAMILIES) + 2]}
    assert sorted(rows) == sorted([*FAMILIES, "all"])
    assert all(row[:2] == ["1", "1"] for name, row in rows.items() if name != "all")
    assert rows["all"][:2] == [str(len(FAMILIES))] * 2
