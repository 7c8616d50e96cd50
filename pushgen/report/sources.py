"""What a report shows: a dataset, a split or a benchmark run, read once into plain tables.

A path is a benchmark results folder when it holds ``benchmark.json``, a split folder when it
holds ``split.json`` and a dataset folder otherwise; a name that is no path is a standard split
(fetched or from the cache). A split's figures describe its history parts; of its test parts only
their contexts' users and times are read, and nothing under ``scorer/`` (the answer key) is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.calibration import with_realism
from pushgen.data.dataset import DatasetError
from pushgen.data.describe import describe, describe_tables
from pushgen.data.describe_long_term import dataset_long_term
from pushgen.data.generator import Dataset
from pushgen.data.verify import verify_split
from pushgen.publishing.access import resolve_split
from pushgen.replay.results import RESULTS_FILE, read_results
from pushgen.splits import MODEL_PARTS, SCORER, SPLIT_FILE, SplitSpec, boundaries, read_part

LEADERBOARD = "leaderboard"
HISTORY_PARTS = ("task1/train", "task1/validation")
PART_COLUMNS = ["part", "user_id", "posted_at"]


@dataclass(frozen=True)
class Benchmark:
    """A benchmark results folder's tables and description (``pushgen benchmark`` wrote them): the
    leaderboard, the per-user scores and learning curves where the folder has them, and any other
    table it holds (by file name), shown as it is."""

    description: dict
    leaderboard: pd.DataFrame
    per_user: pd.DataFrame | None = None
    curves: pd.DataFrame | None = None
    other_tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def labels(self) -> dict[str, str]:
        baselines = self.description.get("baselines", {})
        return dict(baselines) if isinstance(baselines, dict) else {}


@dataclass(frozen=True)
class Source:
    """The data of a report: ``kind`` is "dataset", "split" or "benchmark"."""

    kind: str
    title: str
    notifications: pd.DataFrame | None = None
    users: pd.DataFrame | None = None
    stats: dict | None = None  # describe's statistics with the realism figures
    parts: pd.DataFrame | None = None  # a split: part, user_id and posted_at of every row
    test_span: tuple[np.datetime64, np.datetime64] | None = None  # a split: its test months
    benchmark: Benchmark | None = None
    facts: dict[str, str] = field(default_factory=dict)  # shown at the top of the report


def load_source(source: str | Path | Dataset, title: str | None = None) -> Source:
    """The ``Source`` of a dataset (folder or ``Dataset``), split (folder or name) or results folder;
    ``title`` names it in the report [default: the folder's or the split's name]."""
    loaded = _load(source)
    return loaded if title is None else replace(loaded, title=title)


def _load(source: str | Path | Dataset) -> Source:
    if isinstance(source, Dataset):
        stats = {**describe(source.notifications, source.users), "long_term": dataset_long_term(source)}
        return _dataset_source("generated dataset", source.notifications, source.users, stats)
    if not isinstance(source, (str, Path)) or not str(source):
        raise DatasetError(f"a report is of a dataset, split or benchmark folder; got {source!r}")
    path = Path(source)
    if not path.exists():
        if isinstance(source, str) and len(path.parts) == 1 and not source.startswith("."):
            try:
                folder = resolve_split(source)
            except DatasetError as error:
                raise DatasetError(f"no folder {source}, and {error}") from None
            return _split_source(folder, source)
        raise DatasetError(f"{path} does not exist")
    if not path.is_dir():
        raise DatasetError(f"{path} is not a folder: give a dataset, split or benchmark results folder")
    if (path / RESULTS_FILE).is_file():
        return _benchmark_source(path)
    if (path / SPLIT_FILE).is_file():
        return _split_source(path, path.name)
    described = describe_tables(path)
    return _dataset_source(path.resolve().name, described.notifications, described.users, described.stats)


def _dataset_source(title: str, notifications: pd.DataFrame, users: pd.DataFrame | None,
                    stats: dict | None) -> Source:
    stats = describe(notifications, users) if stats is None else stats
    facts = {"notifications": f"{stats['rows']:,}", "users": f"{stats['users']:,}",
             "days": f"{stats['days']:,} ({stats['first_day']} to {stats['last_day']})"}
    return Source("dataset", title, notifications, users, with_realism(stats, notifications, users),
                  facts=facts)


def _split_source(folder: Path, title: str) -> Source:
    """The history parts' rows for the figures, and every model part's user and time for its sizes;
    nothing under ``scorer/`` is opened (the answer key stays with the evaluator)."""
    description = verify_split(folder, unread=SCORER)
    history, parts, tests = [], [], []
    for part in MODEL_PARTS:
        if not (folder / f"{part}.parquet").is_file():
            continue
        if part in HISTORY_PARTS:
            rows = read_part(folder, part).assign(part=part)
            history.append(rows)
            parts.append(rows[PART_COLUMNS])
        else:
            parts.append(_test_contexts(folder, part))
            tests.append(part)
    if not history:
        raise DatasetError(f"{folder} has no history part ({', '.join(HISTORY_PARTS)}) to describe")
    frame = schemas.apply_dtypes(pd.concat(history, ignore_index=True).sort_values(
        ["user_id", "posted_at"], kind="stable")).reset_index(drop=True)
    stats = with_realism(describe(frame), frame)
    name = f"{description.get('name', title)} {description.get('version', '')}".strip()
    spec = description.get("split", {})
    facts = {"split": name,
             "figures of": f"the history parts ({', '.join(HISTORY_PARTS)}): {stats['rows']:,} notifications "
                           f"of {stats['users']:,} users",
             "history days": f"{stats['days']:,} ({stats['first_day']} to {stats['last_day']})",
             "test parts": f"{', '.join(tests)}: contexts only, shown by week; their answers (scorer/) "
                           "are not read",
             "parameters": ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in spec.items()),
             "fingerprint": str(description.get("fingerprint", ""))[:16]}
    return Source("split", name, frame, None, stats, parts=pd.concat(parts, ignore_index=True),
                  test_span=_test_span(description), facts=facts)


def _test_contexts(folder: Path, part: str) -> pd.DataFrame:
    """A test part's user and posting time (NaT where the part carries no ``posted_at``)."""
    path = folder / f"{part}.parquet"
    columns = [c for c in ("user_id", "posted_at") if c in pq.read_schema(path).names]
    table = pq.read_table(path, columns=columns).to_pandas()
    if "posted_at" not in table:
        table["posted_at"] = pd.NaT
    table["posted_at"] = pd.to_datetime(table["posted_at"]).astype("datetime64[ms]")
    return table.assign(part=part)[PART_COLUMNS]


def _test_span(description: dict) -> tuple[np.datetime64, np.datetime64] | None:
    """The test months of a split: from the end of training to the end of the test months."""
    try:
        spec = SplitSpec(**description["split"])
        start = dt.date.fromisoformat(description["recipe"]["start"])
    except (KeyError, TypeError, ValueError, DatasetError):
        return None
    _, train_end, test_end = boundaries(start, spec)
    return train_end, test_end


def _benchmark_source(folder: Path) -> Source:
    results = read_results(folder, needed=(f"{LEADERBOARD}.csv",))
    description = results.description
    tables = {Path(name).stem: table for name, table in sorted(results.tables.items())}
    board = tables.pop(LEADERBOARD)
    benchmark = Benchmark(description, board, tables.pop("per_user", None), tables.pop("curves", None),
                          tables)
    baselines = board["baseline"].nunique()
    facts = {"split": str(description.get("split", "")),
             "fingerprint": str(description.get("fingerprint", ""))[:16],
             "reward mode": str(description.get("mode", "")), "seed": str(description.get("seed", "")),
             "baselines": str(baselines),
             "pushgen": str(description.get("pushgen_version", ""))}
    return Source("benchmark", f"benchmark on {description.get('split', folder.name)}",
                  benchmark=benchmark, facts={k: v for k, v in facts.items() if v})
