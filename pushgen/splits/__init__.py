"""Train/validation/test splits of a dataset for the two benchmark tasks.

Layout of a split folder::

    split.json                 recipe, split parameters, parts (rows, users), files (sha256)
    users.parquet              every user of the dataset: user_id and pseudonym
    task1/train.parquet        task 1 users: the training months, less the validation weeks
    task1/validation.parquet   task 1 users: the last validation weeks of the training months
    task1/test.parquet         task 1 users, the test months: contexts only
    task2/test.parquet         cold-start users (held out entirely), their test months: contexts only
    scorer/                    the answer key, read only by the evaluator and the environments:
      task1/test.parquet         the logged notification, action and timings of each test context
      task2/test.parquet
      users.parquet              every user's habit summary
      ground_truth/              the simulated user: parameters, test rows' hidden state, and the
                                 state each test user starts the test months in

The history parts hold the dataset's notification columns after ``context_id`` (a keyed hash
of the row, ``pushgen.splits.keyed_ids``: it counts no rows held out); the test parts hold
``user_id``, ``context_id`` (the key of a submission's rows), ``posted_at`` (when the
notification would be delivered; not a feature) and the 11 context features (the standard
splits up to version 2 have no ``posted_at`` there).
Models read the history and the test contexts; nothing a model reads carries a test row's
action, timings or notification.

``split.json`` also holds a content fingerprint of every table (``pushgen.data.fingerprint.fingerprint``,
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
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.dataset import (
    MODEL_FILE,
    DatasetError,
    atomic_folder,
    read_arrow,
    truth_path,
    write_table,
)
from pushgen.data.fingerprint import fingerprint
from pushgen.data.folder_lock import session
from pushgen.data.outputs import read_json_object, sha256_file
from pushgen.data.verify import verify_dataset
from pushgen.model.timegrid import add_months
from pushgen.progress import stages
from pushgen.splits.keyed_ids import context_ids, context_key
from pushgen.splits.scorer import (
    MODEL_USER_COLUMNS,
    SCORER,
    SCORER_TRUTH,
    answer_key,
    contexts_only,
    initial_state,
)
from pushgen.splits.spec import MODEL_PARTS as MODEL_PARTS
from pushgen.splits.spec import PARTS as PARTS
from pushgen.splits.spec import SPLIT_FILE as SPLIT_FILE
from pushgen.splits.spec import TASKS as TASKS
from pushgen.splits.spec import TEST_PARTS as TEST_PARTS
from pushgen.splits.spec import SplitSpec as SplitSpec
from pushgen.splits.spec import boundaries as boundaries
from pushgen.splits.spec import fill_months as fill_months
from pushgen.splits.spec import left_out as left_out
from pushgen.splits.spec import task_number as task_number
from pushgen.text_tables import counted, html_table

if TYPE_CHECKING:
    import pandas as pd

def split_tables(notifications: pa.Table, start: dt.date, user_ids: np.ndarray,
                 spec: SplitSpec) -> dict[str, pa.Table]:
    """The four parts of ``notifications`` (an Arrow table of a dataset)."""
    if spec.cold_start_users >= len(user_ids):
        raise DatasetError(
            f"--cold-start-users must be below the dataset's {len(user_ids)} users; "
            f"got {spec.cold_start_users}")
    validation_start, train_end, test_end = boundaries(start, spec)
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
    ids = context_ids(np.asarray(notifications.column("user_id")),
                      np.asarray(notifications.column("notification_id")), context_key(notifications))
    keyed = notifications.add_column(0, "context_id", pa.array(ids, pa.int64()))
    tables = {part: keyed.filter(mask) for part, mask in parts.items()}
    for task_part in ("task1/test", "task2/test"):
        tables[f"{SCORER}/{task_part}"] = answer_key(tables[task_part])
        tables[task_part] = contexts_only(tables[task_part])
    return tables


def table_fingerprints(folder: Path) -> dict[str, str]:
    """Content fingerprint of every table of a split folder, read back from its files."""
    folder = Path(folder)
    names = [*PARTS, "users", f"{SCORER}/users",
             *(f"{SCORER_TRUTH}/{p.stem}" for p in sorted((folder / SCORER_TRUTH).glob("*.parquet")))]
    out = {name: fingerprint(pq.read_table(folder / f"{name}.parquet")) for name in names}
    out[SCORER_MODEL_FILE] = json_fingerprint(folder / SCORER_MODEL_FILE)
    return out


def json_fingerprint(path: Path) -> str:
    """sha256 of a JSON file's content in canonical form (sorted keys, no whitespace)."""
    content = json.loads(Path(path).read_text())
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def combine_fingerprints(fingerprints: dict[str, str]) -> str:
    """One fingerprint for a split: the sha256 of its tables' names and fingerprints."""
    lines = "".join(f"{name}\t{value}\n" for name, value in sorted(fingerprints.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


@session()
def make_split(dataset: Path, out: Path, spec: SplitSpec = SplitSpec(), force: bool = False,
               name: str | None = None, version: str | None = None,
               describe: Callable[[Path], None] | None = None) -> Path:
    """Write the split folder ``out`` from the dataset folder ``dataset``.

    ``describe``, if given, is called with the finished folder before it takes the place of
    ``out`` (to add a dataset card, or to check the content): if it raises, nothing is written.
    """
    dataset = Path(dataset)
    manifest = verify_dataset(dataset)
    recipe = manifest["recipe"]
    months = recipe.get("months")
    needed = spec.train_months + spec.test_months
    start = dt.date.fromisoformat(recipe["start"])
    if (add_months(start, needed) - start).days > recipe["days"]:
        raise DatasetError(
            f"the dataset covers {recipe['days']} days" + (f" ({months} months)" if months else "") + "; "
            f"--train-months + --test-months = {needed} months do not fit")
    if spec.validation_weeks * 7 >= (add_months(start, spec.train_months) - start).days:
        raise DatasetError("--validation-weeks must be shorter than the training months")
    with stages("split", 4) as begin:
        begin("reading the dataset")
        notifications = read_arrow(dataset, "notifications", manifest)
        users = read_arrow(dataset, "users", manifest)
        user_ids = np.asarray(users.column("user_id"))
        begin("splitting")
        parts = split_tables(notifications, start, user_ids, spec)
        begin("the scorer's ground truth")
        truth = scorer_truth(dataset, notifications, parts, start, spec)
        begin("writing")
        return _write_split(dataset, out, spec, force, name, version, describe, manifest, parts, users,
                            truth)


def _write_split(dataset: Path, out: Path, spec: SplitSpec, force: bool, name: str | None,
                 version: str | None, describe: Callable[[Path], None] | None, manifest: dict,
                 parts: dict[str, pa.Table], users: pa.Table, truth: dict[str, pa.Table]) -> Path:
    recipe = manifest["recipe"]
    with atomic_folder(Path(out), force, keep=(dataset,)) as work:
        files = {}
        for part, table in parts.items():
            (work / part).parent.mkdir(parents=True, exist_ok=True)
            files[part] = write_table(table, work / part, "parquet")
        files["users"] = write_table(users.select(list(MODEL_USER_COLUMNS)), work / "users", "parquet")
        files[f"{SCORER}/users"] = write_table(users, work / SCORER / "users", "parquet")
        (work / SCORER_TRUTH).mkdir(parents=True)
        shutil.copyfile(dataset / MODEL_FILE, work / SCORER_MODEL_FILE)
        files[SCORER_MODEL_FILE] = work / SCORER_MODEL_FILE
        for table, content in truth.items():
            files[f"{SCORER_TRUTH}/{table}"] = write_table(content, work / SCORER_TRUTH / table, "parquet")
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


SCORER_MODEL_FILE = f"{SCORER_TRUTH}/{Path(MODEL_FILE).name}"


def scorer_truth(dataset: Path, notifications: pa.Table, parts: dict[str, pa.Table], start: dt.date,
                 spec: SplitSpec) -> dict[str, pa.Table]:
    """The ground-truth tables the scorer needs: parameters, test rows' state, initial state."""
    test_ids = pa.concat_arrays([parts[f"{SCORER}/{p}"].column("notification_id").combine_chunks()
                                 for p in TEST_PARTS.values()])
    all_rows = pq.read_table(truth_path(dataset, "engagement_rows"))
    rows = all_rows.filter(pc.is_in(all_rows.column("notification_id"), value_set=test_ids))
    test_users = np.unique(np.concatenate([np.asarray(parts[f"{SCORER}/{p}"].column("user_id"))
                                           for p in TEST_PARTS.values()]))
    constants = read_json_object(dataset / MODEL_FILE)
    _, test_start, _ = boundaries(start, spec)
    return {
        "engagement_users": pq.read_table(truth_path(dataset, "engagement_users")),
        "engagement_weights": pq.read_table(truth_path(dataset, "engagement_weights")),
        "engagement_rows": rows,
        "initial_state": initial_state(notifications, test_users, test_start,
                                       float(constants["fatigue_tau_seconds"]), np.datetime64(start),
                                       all_rows),
    }


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

    def _parts(self) -> list[tuple[str, int, int]]:
        return [(part, len(frame), frame["user_id"].nunique() if "user_id" in frame else 0)
                for part, frame in (("train", self.train), ("validation", self.validation),
                                    ("test", self.test))]

    def _title(self) -> str:
        name, version = self.description.get("name"), self.description.get("version")
        label = f"{name}-{version}" if version else str(name or Path(self.folder).name)
        return f"Split {label}, task {self.task}: {counted(len(self.users), 'user')} in users.parquet"

    def __repr__(self) -> str:
        parts = ", ".join(f"{part} {counted(rows, 'row')} ({counted(users, 'user')})"
                          for part, rows, users in self._parts())
        return f"<{self._title()}\n {parts}; folder {self.folder}>"

    def _repr_html_(self) -> str:
        return html_table(["part", "rows", "users"],
                          [(part, f"{rows:,}", f"{users:,}") for part, rows, users in self._parts()],
                          caption=self._title(),
                          right=[False, True, True])


def read_part(folder: Path, part: str) -> pd.DataFrame:
    categorical = [name for name, f in schemas.fields().items() if f.is_categorical]
    table = pq.read_table(Path(folder) / f"{part}.parquet", read_dictionary=categorical)  # 3x faster
    return schemas.apply_dtypes(table.to_pandas())
