"""How large a dataset will be, estimated before it is made, and whether it fits on the disk."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from pushgen.data.generator import Recipe
from pushgen.data.outputs import DatasetError
from pushgen.text_tables import counted

# Measured on `pushgen make --users 20 --months 1` (default priors): 35,264 notifications in
# 620 user-days; the folder (tables, ground truth, card) 3.1 MB as Parquet, 10.5 MB as CSV.
ROWS_PER_USER_DAY = 57
BYTES_PER_ROW = {"parquet": 90, "csv": 300}


@dataclass(frozen=True)
class Estimate:
    """The expected size of a dataset."""

    rows: int
    bytes: int


def estimate(recipe: Recipe, fmt: str = "parquet") -> Estimate:
    """The notifications and bytes a dataset of ``recipe`` is expected to have."""
    rows = recipe.users * recipe.days * ROWS_PER_USER_DAY
    return Estimate(rows, rows * BYTES_PER_ROW[fmt])


def disk_of(path: Path) -> Path:
    """The nearest existing folder of ``path``: where its disk is asked about."""
    folder = Path(path).resolve()
    while not folder.exists():
        folder = folder.parent
    return folder


def free_bytes(path: Path) -> int:
    """Free space on the disk that holds ``path`` (or its nearest existing parent)."""
    return shutil.disk_usage(disk_of(path)).free


def human_bytes(count: float) -> str:
    if count < 1000:
        return f"{count:.0f} B"
    for unit in ("kB", "MB", "GB"):
        count /= 1000
        if count < 1000:
            return f"{count:.1f} {unit}"
    return f"{count / 1000:.1f} TB"


def check_fits(recipe: Recipe, out: Path, fmt: str = "parquet") -> Estimate:
    """Refuse (``DatasetError``) a dataset that cannot fit in the free space where ``out`` goes."""
    expected = estimate(recipe, fmt)
    disk = disk_of(Path(out).parent if str(Path(out).parent) else Path("."))
    if shutil.disk_usage(disk).total == 0:
        raise DatasetError(f"cannot write {out}: the filesystem of {disk} holds no files "
                           "(its size is 0 B); choose another --out")
    free = free_bytes(disk)
    if expected.bytes > free:
        raise DatasetError(
            f"{counted(recipe.users, 'user')} over {counted(recipe.days, 'day')} would take about "
            f"{human_bytes(expected.bytes)} (about {expected.rows:,} notifications) but the disk of "
            f"{out} has {human_bytes(free)} free; choose fewer --users or days, or another --out")
    return expected
