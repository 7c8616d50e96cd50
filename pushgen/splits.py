"""Train/validation/test splits of a dataset for the two benchmark tasks.

Layout of a split folder::

    split.json                 recipe, split parameters, parts (rows, users), files (sha256)
    users.parquet              every user of the dataset
    task1/train.parquet        task 1 users: the training months, less the validation weeks
    task1/validation.parquet   task 1 users: the last validation weeks of the training months
    task1/test.parquet         task 1 users: the test months
    task2/test.parquet         cold-start users (held out entirely): their test months only
    ground_truth/              the simulated user, as in a dataset folder

Every part holds the dataset's notification columns after ``context_id`` (equal to
``notification_id``), the key of a submission's rows; all parts share one schema, so tools that
expect a dataset's splits to have the same columns (Hugging Face ``datasets``) read them as one.

``split.json`` also holds a content fingerprint of every table (``pushgen.fingerprint.fingerprint``,
independent of the Parquet writer) and ``fingerprint``, the sha256 of them all together: two
splits with the same fingerprint hold the same data.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.dataset import (
    MODEL_FILE,
    TRUTH,
    DatasetError,
    atomic_folder,
    read_arrow,
    read_manifest,
    read_parameters,
    sha256_file,
    truth_path,
    write_table,
)
from pushgen.fingerprint import fingerprint
from pushgen.model.engagement import EngagementParameters
from pushgen.model.timegrid import add_months

SPLIT_FILE = "split.json"
TRUTH_TABLES = ("engagement_users", "engagement_weights", "engagement_rows")
PARTS = ("task1/train", "task1/validation", "task1/test", "task2/test")
TASKS = (1, 2)


@dataclass(frozen=True)
class SplitSpec:
    train_months: int = 3
    test_months: int = 3
    validation_weeks: int = 2
    cold_start_users: int = 0

    def __post_init__(self) -> None:
        for name, low in (("train_months", 1), ("test_months", 1), ("validation_weeks", 0),
                          ("cold_start_users", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                option = "--" + name.replace("_", "-")
                raise DatasetError(f"{option} must be a whole number of at least {low}; got {value!r}")

    def to_dict(self) -> dict:
        return {
            "train_months": self.train_months,
            "test_months": self.test_months,
            "validation_weeks": self.validation_weeks,
            "cold_start_users": self.cold_start_users,
        }


def _boundaries(start: dt.date, spec: SplitSpec) -> tuple[np.datetime64, np.datetime64, np.datetime64]:
    train_end = add_months(start, spec.train_months)
    validation_start = train_end - dt.timedelta(weeks=spec.validation_weeks)
    test_end = add_months(train_end, spec.test_months)
    return (np.datetime64(validation_start, "ms"), np.datetime64(train_end, "ms"),
            np.datetime64(test_end, "ms"))


def split_tables(notifications: pa.Table, start: dt.date, user_ids: np.ndarray,
                 spec: SplitSpec) -> dict[str, pa.Table]:
    """The four parts of ``notifications`` (an Arrow table of a dataset)."""
    if spec.cold_start_users >= len(user_ids):
        raise DatasetError(
            f"--cold-start-users must be below the dataset's {len(user_ids)} users; "
            f"got {spec.cold_start_users}")
    validation_start, train_end, test_end = _boundaries(start, spec)
    cold = np.sort(user_ids)[len(user_ids) - spec.cold_start_users:]
    posted = notifications.column("posted_at")
    is_cold = pc.is_in(notifications.column("user_id"), value_set=pa.array(cold, pa.int32()))
    before_validation = pc.less(posted, pa.scalar(validation_start, pa.timestamp("ms")))
    before_test = pc.less(posted, pa.scalar(train_end, pa.timestamp("ms")))
    in_test = pc.and_(pc.invert(before_test), pc.less(posted, pa.scalar(test_end, pa.timestamp("ms"))))
    warm = pc.invert(is_cold)
    parts = {
        "task1/train": pc.and_(warm, before_validation),
        "task1/validation": pc.and_(warm, pc.and_(pc.invert(before_validation), before_test)),
        "task1/test": pc.and_(warm, in_test),
        "task2/test": pc.and_(is_cold, in_test),
    }
    keyed = notifications.add_column(0, "context_id", notifications.column("notification_id"))
    return {part: keyed.filter(mask) for part, mask in parts.items()}


def table_fingerprints(folder: Path) -> dict[str, str]:
    """Content fingerprint of every table of a split folder, read back from its files."""
    folder = Path(folder)
    names = [*PARTS, "users", *(f"{TRUTH}/{p.stem}" for p in sorted((folder / TRUTH).glob("*.parquet")))]
    out = {name: fingerprint(pq.read_table(folder / f"{name}.parquet")) for name in names}
    out[MODEL_FILE] = json_fingerprint(folder / MODEL_FILE)
    return out


def json_fingerprint(path: Path) -> str:
    """sha256 of a JSON file's content in canonical form (sorted keys, no whitespace)."""
    content = json.loads(Path(path).read_text())
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def combine_fingerprints(fingerprints: dict[str, str]) -> str:
    """One fingerprint for a split: the sha256 of its tables' names and fingerprints."""
    lines = "".join(f"{name}\t{value}\n" for name, value in sorted(fingerprints.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def make_split(dataset: Path, out: Path, spec: SplitSpec = SplitSpec(), force: bool = False,
               name: str | None = None, version: str | None = None,
               describe: Callable[[Path], None] | None = None) -> Path:
    """Write the split folder ``out`` from the dataset folder ``dataset``.

    ``describe``, if given, is called with the finished folder before it takes the place of
    ``out`` (to add a dataset card, or to check the content): if it raises, nothing is written.
    """
    dataset = Path(dataset)
    manifest = read_manifest(dataset)
    recipe = manifest["recipe"]
    months = recipe.get("months")
    needed = spec.train_months + spec.test_months
    start = dt.date.fromisoformat(recipe["start"])
    if (add_months(start, needed) - start).days > recipe["days"]:
        raise DatasetError(
            f"the dataset covers {recipe['days']} days ({months or '?'} months); "
            f"--train-months + --test-months = {needed} months do not fit")
    if spec.validation_weeks * 7 >= (add_months(start, spec.train_months) - start).days:
        raise DatasetError("--validation-weeks must be shorter than the training months")
    notifications = read_arrow(dataset, "notifications", manifest)
    users = read_arrow(dataset, "users", manifest)
    user_ids = np.asarray(users.column("user_id"))
    parts = split_tables(notifications, start, user_ids, spec)
    with atomic_folder(Path(out), force, keep=(dataset,)) as work:
        files = {}
        for part, table in parts.items():
            (work / part).parent.mkdir(exist_ok=True)
            files[part] = write_table(table, work / part, "parquet")
        files["users"] = write_table(users, work / "users", "parquet")
        (work / TRUTH).mkdir()
        shutil.copyfile(dataset / MODEL_FILE, work / MODEL_FILE)
        files[MODEL_FILE] = work / MODEL_FILE
        for table in TRUTH_TABLES:  # one file each, also from a partitioned dataset
            files[f"{TRUTH}/{table}"] = write_table(pq.read_table(truth_path(dataset, table)),
                                                    work / TRUTH / table, "parquet")
        fingerprints = table_fingerprints(work)
        description = {
            "name": name or Path(out).name,
            "version": version,
            "recipe": recipe,
            "pushgen_version": manifest.get("pushgen_version"),
            "split": spec.to_dict(),
            "fingerprint": combine_fingerprints(fingerprints),
            "fingerprints": fingerprints,
            "parts": {
                part: {
                    "rows": table.num_rows,
                    "users": sorted(set(np.asarray(table.column("user_id")).tolist())),
                    "fingerprint": fingerprints[part],
                }
                for part, table in parts.items()
            },
            "users": users.num_rows,
            "files": {
                path.relative_to(work).as_posix(): {"bytes": path.stat().st_size,
                                                    "sha256": sha256_file(path)}
                for path in sorted(files.values())
            },
        }
        (work / SPLIT_FILE).write_text(json.dumps(description, indent=1) + "\n")
        if describe is not None:
            describe(work)
    return Path(out)


@dataclass
class Split:
    """One task's view of a split folder."""

    folder: Path
    task: int
    description: dict
    train: pd.DataFrame  # empty for task 2 (cold start)
    validation: pd.DataFrame  # empty for task 2
    test: pd.DataFrame
    users: pd.DataFrame

    @property
    def parameters(self) -> EngagementParameters:
        return read_parameters(self.folder)

    @property
    def truth_rows(self) -> pd.DataFrame:
        return pq.read_table(self.folder / TRUTH / "engagement_rows.parquet").to_pandas()


def read_part(folder: Path, part: str) -> pd.DataFrame:
    return schemas.apply_dtypes(pq.read_table(Path(folder) / f"{part}.parquet").to_pandas())


def resolve_split(source: str | Path) -> Path:
    """A split folder from a path, or a standard split's name (fetched or from the cache)."""
    path = Path(source)
    if path.is_dir():
        if not (path / SPLIT_FILE).is_file():
            raise DatasetError(f"{path} is not a split folder: no {SPLIT_FILE}")
        return path
    if path.exists():
        raise DatasetError(f"{path} is not a split folder")
    if isinstance(source, Path) or len(path.parts) > 1 or str(source).startswith("."):
        raise DatasetError(f"no split folder at {source}")
    from pushgen.download import fetch_split

    return fetch_split(str(source))


def load_split(source: str | Path, task: int = 1) -> Split:
    """Load task ``task`` (1: offline, 2: cold start) of a split folder or standard split."""
    if task not in TASKS:
        raise DatasetError(f"task must be 1 or 2; got {task!r}")
    folder = resolve_split(source)
    description = json.loads((folder / SPLIT_FILE).read_text())
    test = read_part(folder, f"task{task}/test")
    history = test.iloc[0:0] if task == 2 else None
    return Split(
        folder=folder,
        task=task,
        description=description,
        train=read_part(folder, "task1/train") if task == 1 else history,
        validation=read_part(folder, "task1/validation") if task == 1 else history,
        test=test,
        users=pq.read_table(folder / "users.parquet").to_pandas(),
    )

