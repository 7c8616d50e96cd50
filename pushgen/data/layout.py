"""The names of a dataset folder's files, and its manifest read back (the few things the modules
that write, verify and read dataset folders all need)."""

from __future__ import annotations

from pathlib import Path

from pushgen.data.outputs import DatasetError, read_json_object

FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"
CARD = "README.md"
REPORT = "report.html"  # the visual report (pushgen report), when one was made
TRUTH = "ground_truth"
MODEL_FILE = f"{TRUTH}/engagement_model.json"
# the users table's columns of numbers (float64): CSV writes a whole one as "52", which a CSV
# reader takes for an integer
USER_NUMBERS = ("notifications_per_day", "chattiness", "night_charging")


def first_line(error: Exception) -> str:
    """An exception's message cut to its first line (its class name if it has none)."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{folder} is not a pushgen dataset: no {MANIFEST}")
    return read_json_object(path)
