"""What a report shows: a dataset, a split or a benchmark run, read once into plain tables.

A path is a benchmark results folder when it holds ``benchmark.json``, a split folder when it
holds ``split.json`` and a dataset folder otherwise; a name that is no path is a standard split
(fetched or from the cache). A split's rows are its parts put back together: the history parts
and each test context joined with its logged notification from ``scorer/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from pushgen import schemas
from pushgen.data.calibration import with_realism
from pushgen.data.dataset import DatasetError
from pushgen.data.describe import describe, describe_tables
from pushgen.data.generator import Dataset
from pushgen.publishing.access import resolve_split
from pushgen.splits import MODEL_PARTS, SCORER, SPLIT_FILE, read_part

BENCHMARK_FILE = "benchmark.json"
BENCHMARK_TABLES = ("leaderboard", "per_user", "curves")


@dataclass(frozen=True)
class Benchmark:
    """A benchmark results folder's tables and description (``pushgen benchmark`` wrote them)."""

    description: dict
    leaderboard: pd.DataFrame
    per_user: pd.DataFrame
    curves: pd.DataFrame

    @property
    def labels(self) -> dict[str, str]:
        return dict(self.description.get("baselines", {}))


@dataclass(frozen=True)
class Source:
    """The data of a report: ``kind`` is "dataset", "split" or "benchmark"."""

    kind: str
    title: str
    notifications: pd.DataFrame | None = None
    users: pd.DataFrame | None = None
    stats: dict | None = None  # describe's statistics with the realism figures
    parts: pd.DataFrame | None = None  # a split: part, user_id and posted_at of every row
    benchmark: Benchmark | None = None
    facts: dict[str, str] = field(default_factory=dict)  # shown at the top of the report


def load_source(source: str | Path | Dataset, title: str | None = None) -> Source:
    """The ``Source`` of a dataset (folder or ``Dataset``), split (folder or name) or results folder;
    ``title`` names it in the report [default: the folder's or the split's name]."""
    loaded = _load(source)
    return loaded if title is None else replace(loaded, title=title)


def _load(source: str | Path | Dataset) -> Source:
    if isinstance(source, Dataset):
        return _dataset_source("generated dataset", source.notifications, source.users, None)
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
    if (path / BENCHMARK_FILE).is_file():
        return _benchmark_source(path)
    if (path / SPLIT_FILE).is_file():
        return _split_source(resolve_split(path), path.name)
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
    description = json.loads((folder / SPLIT_FILE).read_text())
    frames = []
    for part in MODEL_PARTS:
        if not (folder / f"{part}.parquet").is_file():
            continue
        rows = read_part(folder, part)
        if part.endswith("/test"):
            answers = read_part(folder, f"{SCORER}/{part}")
            rows = rows.merge(answers.drop(columns=["user_id"]), on="context_id", how="inner")
        frames.append(rows.assign(part=part))
    frame = pd.concat(frames, ignore_index=True)
    frame = schemas.apply_dtypes(frame.sort_values(["user_id", "posted_at"], kind="stable"))
    frame = frame.reset_index(drop=True)
    users_file = folder / SCORER / "users.parquet"
    users = pd.read_parquet(users_file) if users_file.is_file() else None
    stats = with_realism(describe(frame, users), frame, users)
    name = f"{description.get('name', title)} {description.get('version', '')}".strip()
    spec = description.get("split", {})
    facts = {"split": name, "notifications": f"{stats['rows']:,}", "users": f"{stats['users']:,}",
             "days": f"{stats['days']:,} ({stats['first_day']} to {stats['last_day']})",
             "parameters": ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in spec.items()),
             "fingerprint": str(description.get("fingerprint", ""))[:16]}
    return Source("split", name, frame, users, stats, parts=frame[["part", "user_id", "posted_at"]],
                  facts=facts)


def _benchmark_source(folder: Path) -> Source:
    description = json.loads((folder / BENCHMARK_FILE).read_text())
    tables = {}
    for name in BENCHMARK_TABLES:
        path = folder / f"{name}.csv"
        if not path.is_file():
            raise DatasetError(f"{folder} is not a complete benchmark results folder: no {path.name}")
        tables[name] = pd.read_csv(path)
    benchmark = Benchmark(description, **tables)
    facts = {"split": str(description.get("split", "")),
             "fingerprint": str(description.get("fingerprint", ""))[:16],
             "reward mode": str(description.get("mode", "")), "seed": str(description.get("seed", "")),
             "baselines": str(len(benchmark.labels)),
             "pushgen": str(description.get("pushgen_version", ""))}
    return Source("benchmark", f"benchmark on {description.get('split', folder.name)}",
                  benchmark=benchmark, facts=facts)
