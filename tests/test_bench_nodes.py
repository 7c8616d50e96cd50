"""``scripts/bench_nodes.py`` times every node of the DBN and compares two checkouts' values."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pushgen.model.graph import NODES

ROOT = Path(__file__).resolve().parents[1]


def script():
    spec = importlib.util.spec_from_file_location("bench_nodes", ROOT / "scripts" / "bench_nodes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_node_is_timed_and_a_checkout_against_itself_has_the_same_values(capsys):
    arguments = ["--users", "1", "--months", "1", "--repeat", "1", "--rounds", "1", "--baseline", str(ROOT)]
    assert script().main(arguments) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert set(rows) == {node.name for node in NODES} | {"generate"}
    assert all(row[-1] == "yes" for name, row in rows.items() if name != "generate")
    assert all(float(value) >= 0 for row in rows.values() for value in row[:2])


def test_a_baseline_without_pushgen_is_refused_with_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        script().main(["--baseline", str(tmp_path)])
    assert exit_.value.code == 2
    assert f"--baseline {tmp_path}: no pushgen checkout there" in capsys.readouterr().err
