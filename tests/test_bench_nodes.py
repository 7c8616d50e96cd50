"""``scripts/bench_nodes.py`` times every node of the DBN and tells whether two checkouts' values differ."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from pushgen.model.graph import NODES

ROOT = Path(__file__).resolve().parents[1]


def script():
    spec = importlib.util.spec_from_file_location("bench_nodes", ROOT / "scripts" / "bench_nodes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_node_is_timed(capsys):
    assert script().main(["--users", "1", "--months", "1", "--repeat", "1", "--rounds", "1"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert set(rows) == {node.name for node in NODES} | {"generate"}
    assert all(len(row) == 1 and float(row[0]) >= 0 for row in rows.values())


def test_values_compare_equal_only_when_every_shared_array_is_bit_for_bit_the_same():
    bench = script()
    value = {"hour": np.arange(24.0), "state": np.zeros(24, dtype=np.int8),
             "labels": np.array(["a", None], dtype=object)}
    digests = bench.field_digests(value)
    assert set(digests) == {"hour", "state"}  # object arrays are left out
    assert bench.same_values([digests], [bench.field_digests({**value, "hour": np.arange(24.0)})])
    assert not bench.same_values([digests], [bench.field_digests({**value, "hour": np.arange(24.0) + 1e-12})])
    assert not bench.same_values([digests], [bench.field_digests({**value, "state": np.zeros(24, np.int16)})])
    assert bench.same_values([digests], [{"hour": digests["hour"], "new_field": "0" * 16}])  # only shared


def test_a_baseline_without_pushgen_is_refused_with_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        script().main(["--baseline", str(tmp_path)])
    assert exit_.value.code == 2
    assert f"--baseline {tmp_path}: no pushgen checkout there" in capsys.readouterr().err
