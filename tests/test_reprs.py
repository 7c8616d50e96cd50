"""Notebook reprs: a few lines of text, and an HTML table, for what a notebook user looks at."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import pushgen

MAX_LINES, MAX_CHARS = 8, 700  # a header and a line for each standard split


def html_cells(html: str) -> list[str]:
    return re.findall(r"<t[dh](?: [^>]*)?>(.*?)</t[dh]>", html)


@pytest.fixture(scope="module")
def dataset():
    return pushgen.generate(users=3, days=7, seed=0)


def short(text: str) -> str:
    assert len(text) <= MAX_CHARS and len(text.splitlines()) <= MAX_LINES, text
    return text


def test_a_dataset_shows_its_size_and_open_rate(dataset):
    frame = dataset.notifications
    rate = (frame["action"] == "opened").mean()
    text = short(repr(dataset))
    assert text.startswith("<Dataset: 3 users, 7 days from 2026-01-05 (7 days), seed 0\n")
    assert f"{len(frame):,} notifications (open rate {rate:.1%})" in text
    cells = html_cells(dataset._repr_html_())
    assert cells[cells.index("notifications") + 1] == f"{len(frame):,}"
    assert cells[cells.index("open rate") + 1] == f"{rate:.1%}"


def test_a_split_shows_its_parts():
    split = pushgen.load_split("pushgen-mini-v3", task=1)
    text = short(repr(split))
    assert text.startswith("<Split pushgen-mini-v3, task 1: 4 users in users.parquet\n")
    for part in ("train", "validation", "test"):
        frame = getattr(split, part)
        assert f"{part} {len(frame):,} rows ({frame['user_id'].nunique()} users)" in text
    cells = html_cells(split._repr_html_())
    assert cells[:3] == ["part", "rows", "users"]
    assert cells[3:6] == ["train", f"{len(split.train):,}", str(split.train["user_id"].nunique())]


def test_the_standard_splits_show_as_a_table():
    splits = pushgen.list_splits()
    lines = short(repr(splits)).splitlines()
    assert lines[0].split() == ["split", "users", "cold", "start", "months", "size", "status"]
    assert [line.split()[0] for line in lines[1:]] == [s.label for s in splits]
    assert "pushgen-mini-v3" in short(repr(splits[-1]))
    assert html_cells(splits._repr_html_()).count("current") == sum(line.endswith("current")
                                                                     for line in lines[1:])
    assert isinstance(splits, list) and splits == sorted(splits, key=lambda s: (s.name, s.version))


def test_an_evaluation_shows_its_headline_first():
    split = pushgen.load_split("pushgen-mini-v3", task=1)
    logged = pd.read_parquet(Path(__file__).resolve().parents[1] / "generated" / "pushgen-mini" / "v3"
                             / "scorer" / "task1" / "test.parquet")
    result = pushgen.evaluate("pushgen-mini-v3", submission=logged)
    text = short(repr(result))
    assert text.startswith(f"<Evaluation split pushgen-mini-v3, task 1, mode expected: "
                           f"{split.test['user_id'].nunique()} users")
    assert f"mean reward {result.score['mean_reward']:.4f}, 95% interval" in text
    cells = html_cells(result._repr_html_())
    assert "mean over users" in cells and "pooled over rows" in cells
