"""``scripts/bench_card.py`` times the dataset card and its statistics against a Parquet read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_card.py"


def test_every_measurement_is_printed_with_its_ratio_to_the_parquet_read():
    done = subprocess.run([sys.executable, str(SCRIPT), "--users", "3", "--months", "1", "--repeat", "1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.splitlines()
    assert header.startswith("3 users x 1 months: ") and header.endswith("CPU seconds, best of 1")
    names = [line[:16].strip() for line in lines]
    assert names == ["parquet read", "card", "statistics", "from pandas", "describe"]
    assert lines[0].endswith("1.00x the Parquet read")
    assert all(line.endswith("x the Parquet read") for line in lines)
