"""``scripts/bench_phases.py`` splits the CPU of ``pushgen make`` into its phases, per row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_phases.py"


def test_every_phase_is_timed_and_the_phases_are_parts_of_the_run():
    done = subprocess.run([sys.executable, str(SCRIPT), "--recipes", "6x1,2x2", "--repeat", "1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = {line[:22].strip(): line[22:].split() for line in lines[2:-2]}
    assert lines[-2].startswith("whole run with every phase but the simulation flat in rows: ")
    assert set(rows) == {"simulate users", "tables", "pseudonyms", "Parquet writes", "digests",
                         "card and Croissant", "total"}
    per_row = {label: (float(a), float(b)) for label, (a, b, _) in rows.items()}
    assert all(a > 0 and b > 0 for a, b in per_row.values()), per_row  # every wrapped phase ran
    phases = sum(a for label, (a, _) in per_row.items() if label != "total")
    assert phases < per_row["total"][0]  # the phases are parts of the run, start-up not among them
    assert lines[-1].startswith("whole run with the simulation flat in rows: ")
    assert lines[-1].endswith("x; aim <= 1.15x)")
