"""The README's examples and the documentation pages' run as written: the "Use it with" page's
(docs/use-it-with.md) and the dataset page's on small folders with the names they use."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scripts_loader import script

from pushgen import schemas
from pushgen.data.build import building
from pushgen.data.dataset import read_manifest
from pushgen.data.generator import make_recipe
from pushgen.publishing.standard import write_dataset_metadata, write_metadata
from pushgen.splits import SplitSpec, make_split

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "use-it-with.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
DATASET, SPLIT, LARGE = "pushgen-50u-6m-seed0", "pushgen-50u-6m-seed0-split", "pushgen-500u-12m-seed0"


def section_blocks() -> dict[str, str]:
    """The page's Python blocks, by the library each one shows (its first import)."""
    blocks = BLOCK.findall(PAGE.read_text())
    return {re.search(r"^(?:import|from) (\w+)", block, re.MULTILINE)[1]: block for block in blocks}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The folders the examples read, made small: a dataset, its split, a partitioned dataset."""
    root = tmp_path_factory.mktemp("readme")
    with building(make_recipe(users=3, months=2, seed=0), root / DATASET) as built:
        write_dataset_metadata(built)
    make_split(root / DATASET, root / SPLIT, SplitSpec(1, 1, 1, 1), describe=write_metadata)
    large = make_recipe(users=5, days=20, seed=0)
    with building(large, root / LARGE, partitioned=True, bucket_users=2) as built:
        write_dataset_metadata(built)
    return root


@pytest.fixture
def run(workspace, monkeypatch, tmp_path):
    """Runs a block in the workspace (``datasets`` caching under tmp_path); returns its variables."""
    monkeypatch.chdir(workspace)
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))

    def execute(library: str) -> dict:
        pytest.importorskip(library)
        namespace: dict = {}
        exec(compile(section_blocks()[library], f"use-it-with.md ({library})", "exec"), namespace)
        return namespace

    return execute


def large_table(workspace: Path) -> pd.DataFrame:
    return pq.read_table(workspace / LARGE / "notifications").to_pandas()


def test_the_section_shows_every_tool():
    assert set(section_blocks()) == {"pandas", "polars", "duckdb", "datasets"}


def test_pandas(run, workspace):
    out = run("pandas")
    notifications = out["notifications"]
    assert len(notifications) == read_manifest(workspace / DATASET)["rows"]["notifications"]
    assert list(notifications["time"].cat.categories) == list(schemas.values("time"))
    opened = notifications["action"] == "opened"
    expected = {t: opened[notifications["time"] == t].mean() for t in schemas.values("time")}
    assert out["open_rate"].to_dict() == pytest.approx(expected, nan_ok=True)


def test_polars(run, workspace):
    out = run("polars")
    assert out["notifications"].height == read_manifest(workspace / DATASET)["rows"]["notifications"]
    large = large_table(workspace)
    expected = (large["action"] == "opened").groupby(large["postingApp"]).mean()
    got = dict(zip(out["by_app"]["postingApp"].to_list(), out["by_app"]["open_rate"].to_list(), strict=True))
    assert got == pytest.approx(expected.to_dict())


def test_duckdb_reads_the_partitioned_table_through_a_glob(run, workspace):
    assert len(list((workspace / LARGE / "notifications").glob("part-*.parquet"))) > 1
    per_hour = run("duckdb")["per_hour"]
    large = large_table(workspace)
    expected = (large["action"] == "opened").groupby(large["posted_at"].dt.hour).mean()
    assert per_hour["hour"].tolist() == expected.index.tolist()
    assert np.allclose(per_hour["open_rate"], expected.to_numpy())


def test_hugging_face_datasets(run, workspace):
    out = run("datasets")
    assert out["notifications"].num_rows == read_manifest(workspace / DATASET)["rows"]["notifications"]
    parts = pd.read_json(workspace / SPLIT / "split.json", typ="series")["parts"]
    assert {k: v.num_rows for k, v in out["history"].items()} == {
        "train": parts["task1/train"]["rows"], "validation": parts["task1/validation"]["rows"]}
    assert {k: v.num_rows for k, v in out["contexts"].items()} == {
        "task1_test": parts["task1/test"]["rows"], "task2_test": parts["task2/test"]["rows"]}
    assert out["apps"] == list(schemas.values("postingApp"))


def test_the_readme_is_a_front_page_whose_examples_run(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    assert "pip install . && pushgen make --users 50 --months 6" in text
    assert 'pip install ".[test]" && python -m pytest' in text
    for link in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (ROOT / link).exists(), link
    blocks = BLOCK.findall(text)
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"README.md (example {number})", "exec"), namespace)
    assert namespace["dataset"].notifications["user_id"].nunique() == 10
    assert "mean reward" in capsys.readouterr().out
    assert namespace["info"]["metrics"]["steps"] == 1 and not namespace["terminated"]


@pytest.mark.parametrize("page", ["getting-started.md", "environments/index.md", "dataset.md", "ope.md"])
def test_the_pages_examples_run(page, workspace, tmp_path):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    tutorials = script("tutorials")
    path = ROOT / "docs" / page
    assert tutorials.blocks(path)
    # the SB3VecEnv block trains MaskablePPO for minutes: tests/test_sb3.py trains through it
    out = tutorials.run(path, workspace if page == "dataset.md" else tmp_path, skip="SB3VecEnv(")
    if page == "environments/index.md":
        assert out["env"].unwrapped.k == 8 and out["reward"] == 0.0 and not out["info"]["sent"]
    if page == "getting-started.md":
        assert out["split"].test.columns[:3].tolist() == ["user_id", "context_id", "posted_at"]
    if page == "ope.md":  # the direct method as OBP's RegressionModel fits it, and the four estimators
        assert 0 < out["dm"] < 1 and sorted(out["estimates"]) == ["DM", "DR", "IPW", "SNIPW"]
