from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import pushgen
from pushgen import schemas
from pushgen.card import dataset_card, summary_paragraph
from pushgen.cli import cli
from pushgen.dataset import read_dataset, read_manifest, write_dataset
from pushgen.describe import describe, pct


@pytest.fixture(scope="module")
def dataset() -> pushgen.Dataset:
    return pushgen.generate(users=3, days=21, seed=1)


@pytest.fixture(scope="module")
def folder(dataset: pushgen.Dataset, tmp_path_factory) -> Path:
    return write_dataset(dataset, tmp_path_factory.mktemp("card") / "d", card=dataset_card)


@pytest.fixture(scope="module")
def card(folder: Path) -> str:
    return (folder / "README.md").read_text()


def test_card_is_byte_for_byte_deterministic(dataset: pushgen.Dataset, folder: Path,
                                             tmp_path: Path) -> None:
    again = write_dataset(pushgen.generate(users=3, days=21, seed=1), tmp_path / "again",
                          card=dataset_card)
    assert (again / "README.md").read_bytes() == (folder / "README.md").read_bytes()
    assert dataset_card(read_dataset(folder), read_manifest(folder)) == (folder / "README.md").read_text()
    assert dt.date.today().isoformat() not in (folder / "README.md").read_text()


def test_card_gives_the_recipe_and_how_to_remake_it(card: str, folder: Path) -> None:
    recipe = read_manifest(folder)["recipe"]
    assert card.startswith("# pushgen dataset: 3 users, 21 days, seed 1\n")
    assert "| seed | 1 |" in card and "| start | 2026-01-05 |" in card
    assert "| population priors | the defaults |" in card
    assert f"pushgen make --users 3 --days 21 --start {recipe['start']} --seed 1" in card


def test_card_lists_every_file_with_rows_and_digest(card: str, folder: Path) -> None:
    manifest = read_manifest(folder)
    for name, entry in manifest["files"].items():
        line = next(line for line in card.splitlines() if line.startswith(f"| `{name}` |"))
        assert entry["sha256"][:16] in line and f"{entry['bytes']:,}" in line
    line = next(line for line in card.splitlines() if line.startswith("| `notifications.parquet` |"))
    assert f"| {manifest['rows']['notifications']:,} |" in line


def test_card_describes_every_column(card: str, dataset: pushgen.Dataset) -> None:
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", card, re.MULTILINE)}
    for name in dataset.notifications_arrow.column_names + dataset.users_arrow.column_names:
        assert name in rows
    for name in (*schemas.FEATURES, "action"):
        f = schemas.field(name)
        assert f"| {f.entity} | {'category' if f.is_categorical else f.pandas_dtype()} | " \
               f"{len(f.values)} |" in rows[name]
    assert "| seconds >= 0 |" in rows["responseTime"]


def test_card_shows_statistics_and_ground_truth(card: str, dataset: pushgen.Dataset) -> None:
    stats = describe(dataset.notifications, dataset.users)
    assert f"| open rate, overall | {pct(stats['open_rate']['overall'])} | 35-55% |" in card
    assert "### By clock hour" in card and "### Fatigue" in card
    for name in ("engagement_model.json", "engagement_users.parquet", "engagement_weights.parquet",
                 "engagement_rows.parquet"):
        assert f"`{name}`" in card
    assert "P(open) = 1 / (1 + exp(-logit))" in card
    assert "read_dataset(" in card and 'pd.read_parquet("notifications.parquet")' in card


def test_csv_card_loads_with_read_csv(dataset: pushgen.Dataset, tmp_path: Path) -> None:
    folder = write_dataset(dataset, tmp_path / "c", fmt="csv", card=dataset_card)
    card = (folder / "README.md").read_text()
    assert "pd.read_csv(\"notifications.csv\", keep_default_na=False" in card
    assert "### notifications.csv" in card and "| format | csv |" in card


def test_summary_paragraph(dataset: pushgen.Dataset, folder: Path, tmp_path: Path) -> None:
    text = summary_paragraph(read_manifest(folder), tmp_path / "out")
    assert "\n" not in text
    assert f"{len(dataset.notifications):,} notifications of 3 users" in text
    assert "from 2026-01-05 to 2026-01-25" in text and str(tmp_path / "out") in text
    assert f"open rate {(dataset.notifications['action'] == 'opened').mean():.2f}" in text


def test_cli_describe(folder: Path, dataset: pushgen.Dataset, tmp_path: Path) -> None:
    runner = CliRunner()
    text = runner.invoke(cli, ["describe", str(folder)])
    assert text.exit_code == 0
    assert "Key figures" in text.output and "published" in text.output
    as_json = runner.invoke(cli, ["describe", str(folder), "--json"])
    assert as_json.exit_code == 0
    assert json.loads(as_json.output) == json.loads(json.dumps(describe(dataset.notifications,
                                                                        dataset.users)))
    missing = runner.invoke(cli, ["describe", str(tmp_path / "nothing")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    assert "Traceback" not in missing.output
