"""``pushgen validate`` on split folders: the standard splits pass, each kind of damage is named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import pushgen
from pushgen.cli import main
from pushgen.data.dataset import DatasetError
from pushgen.splits.validate import validate_split

GENERATED = Path(__file__).resolve().parents[1] / "generated"


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_the_standard_mini_splits_are_valid(version, capsys):
    folder = GENERATED / "pushgen-mini" / version
    assert main(["validate", str(folder)]) == 0
    out = capsys.readouterr().out
    parts = 4 if version == "v1" else 6
    assert out.startswith(f"valid: {folder} (split, {parts} parts, ")
    assert "4 users; every file's sha256 and every table's fingerprint checked)" in out


def test_each_kind_of_damage_to_a_split_is_named(tmp_path, capsys):
    folder = Path(shutil.copytree(GENERATED / "pushgen-mini" / "v4", tmp_path / "split"))
    test = pq.read_table(folder / "task1/test.parquet")
    leaked = test.append_column("action", pa.array(["opened"] * test.num_rows))
    pq.write_table(leaked, folder / "task1/test.parquet")
    train = pq.read_table(folder / "task1/train.parquet")
    places = pc.cast(train.column("place"), pa.string())
    moved = pc.if_else(pc.equal(pa.array(range(train.num_rows)), 0), "on the moon", places)
    pq.write_table(train.set_column(train.column_names.index("place"), "place", moved),
                   folder / "task1/train.parquet")
    (folder / "scorer/users.parquet").unlink()
    (folder / "notes.txt").write_text("mine")
    described = json.loads((folder / "split.json").read_text())
    described["parts"]["task2/test"]["rows"] += 1
    (folder / "split.json").write_text(json.dumps(described))

    problems = validate_split(folder)
    sizes = {f: e["bytes"] for f, e in described["files"].items()}
    for part in ("task1/test", "task1/train"):
        written = (folder / f"{part}.parquet").stat().st_size
        assert f"{part}.parquet: {written} bytes; split.json says {sizes[f'{part}.parquet']}" in problems
    assert "task1/test: content fingerprint differs from split.json" in problems
    assert "task1/test: holds action, which only scorer/task1/test may hold" in problems
    assert "task1/train: content fingerprint differs from split.json" in problems
    assert any(p.startswith("task1/train: column 'place' ") and "on the moon" in p for p in problems)
    assert "scorer/users.parquet: missing" in problems
    assert "notes.txt: not listed in split.json" in problems
    rows = described["parts"]["task2/test"]["rows"]
    assert f"task2/test: {rows - 1} rows; split.json says {rows}" in problems
    assert "split.json: sha256 differs from croissant.json" in problems  # croissant.json lists it
    assert len(problems) == 10, problems

    assert main(["validate", str(folder)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == problems
    assert captured.err.strip() == f"invalid: {folder} (10 problems)"


def test_a_split_json_that_is_not_one_is_named(tmp_path, capsys):
    folder = tmp_path / "split"
    folder.mkdir()
    (folder / "split.json").write_text("[1, 2]")
    assert validate_split(folder) == ["split.json: needs 'files', 'fingerprints' and 'parts' objects"]
    (folder / "split.json").write_text("{")
    assert main(["validate", str(folder)]) == 1
    assert capsys.readouterr().out.startswith("split.json is not valid JSON: ")


def mini_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(GENERATED / "pushgen-mini" / "v4", tmp_path / "split"))


def refused(folder: Path, problem: str, refusal: str) -> None:
    """``validate`` finds just ``problem``; ``load_split`` refuses the folder with ``refusal``."""
    assert validate_split(folder) == [problem]
    with pytest.raises(DatasetError) as raised:
        pushgen.load_split(folder, task=1)
    assert str(raised.value) == refusal


@pytest.mark.parametrize("entry", [".hidden", "scorer/.x.parquet", "link", "dangling"])
def test_hidden_files_and_links_in_a_split_are_named(tmp_path, entry):
    folder = mini_copy(tmp_path)
    if entry in ("link", "dangling"):
        (folder / entry).symlink_to("/etc" if entry == "link" else tmp_path / "nowhere")
    else:
        (folder / entry).write_text("x")
    refused(folder, f"{entry}: not listed in split.json",
            f"{folder}/{entry} is not listed in {folder}/split.json; a split folder holds only the files "
            "its split.json lists (move it away)")


def test_the_card_and_croissant_json_of_a_split_are_checked(tmp_path):
    folder = mini_copy(tmp_path)
    (folder / "croissant.json").unlink()
    refused(folder, "croissant.json: missing (README.md names it)",
            f"{folder}/croissant.json: missing (README.md names it)")
    folder = mini_copy(tmp_path / "again")
    (folder / "README.md").write_text("# mine\n")
    refused(folder, "README.md: sha256 differs from croissant.json",
            f"{folder}/README.md: sha256 differs from croissant.json")


def test_the_users_split_json_states_are_checked(tmp_path, capsys):
    """Its card and Croissant description gone (nothing then shows an edit of split.json)."""
    folder = mini_copy(tmp_path)
    (folder / "croissant.json").unlink()
    (folder / "README.md").unlink()
    described = json.loads((folder / "split.json").read_text())
    (folder / "split.json").write_text(json.dumps({**described, "users": 40}))
    refused(folder, "split.json: users is 40; the recipe's users are 4",
            f"{folder}/split.json: users is 40; the recipe's users are 4")
    assert main(["validate", str(folder)]) == 1
    assert capsys.readouterr().out == "split.json: users is 40; the recipe's users are 4\n"

    described["parts"]["task1/train"]["users"] = [0, 1]
    (folder / "split.json").write_text(json.dumps(described))
    refused(folder, "task1/train: users [0, 1, 2]; split.json says [0, 1]",
            f"{folder}/task1/train.parquet holds users 0..2; split.json says 0..1 for task1/train")
    described["parts"]["task1/train"]["users"] = [0, 1, 2, 7]
    (folder / "split.json").write_text(json.dumps(described))
    outside = "split.json: the part task1/train gives users 7, not among the recipe's 0..3"
    assert outside in validate_split(folder)
