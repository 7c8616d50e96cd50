"""A small split folder for the environment and evaluator tests, built once per test run."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pushgen
from pushgen.data.writer import write_dataset
from pushgen.splits import SplitSpec, make_split

SPEC = SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=2)


@cache
def small_split() -> Path:
    """5 users over 2 months: task 1 has users 0-2, task 2 (cold start) users 3-4."""
    root = Path(tempfile.mkdtemp(prefix="pushgen-envs-"))
    atexit.register(shutil.rmtree, root, True)
    write_dataset(pushgen.generate(users=5, months=2, seed=11), root / "dataset")
    return make_split(root / "dataset", root / "split", SPEC)
