from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen import schemas
from pushgen.cli import cli, main
from pushgen.data.dataset import DatasetError, read_dataset
from pushgen.data.layout import USER_NUMBERS
from pushgen.data.outputs import sha256_file
from pushgen.data.validate import validate
from pushgen.data.writer import write_dataset
from pushgen.publishing.card import dataset_card
from pushgen.publishing.croissant import dataset_croissant, write_croissant


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    dataset = pushgen.generate(users=3, days=21, seed=1)
    root = tmp_path_factory.mktemp("datasets")
    return {fmt: write_dataset(dataset, root / fmt, fmt=fmt, card=dataset_card)
            for fmt in ("parquet", "csv")}


def copy(written: dict[str, Path], fmt: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(written[fmt], tmp_path / fmt))


def edit_csv(folder: Path, column: str, row: int, value: str) -> None:
    path = folder / "notifications.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[row, column] = value
    frame.to_csv(path, index=False)


def edit_manifest(folder: Path, change) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_written_datasets_are_valid(written: dict[str, Path], fmt: str) -> None:
    assert validate(written[fmt]) == []


def test_a_csv_dataset_whose_users_make_whole_numbers_of_notifications_a_day_is_valid(tmp_path: Path) -> None:
    # one user over one day: notifications_per_day is a whole number, which CSV writes as "52"
    dataset = pushgen.generate(users=1, days=1, seed=0)
    assert float(dataset.users["notifications_per_day"].iloc[0]).is_integer()
    folder = write_dataset(dataset, tmp_path / "csv", fmt="csv", card=dataset_card)
    assert ",21,52," in (folder / "users.csv").read_text()  # apps, notifications_per_day
    assert validate(folder) == []
    result = CliRunner().invoke(cli, ["validate", str(folder)])
    assert result.output == f"valid: {folder} ({len(dataset.notifications):,} notifications, 1 user)\n"
    refused = CliRunner().invoke(cli, ["split", str(folder), "--out", str(tmp_path / "split")])
    assert refused.exit_code == 2
    assert "the dataset covers 1 day, less than the 2 calendar months" in refused.output
    users = read_dataset(folder).users
    assert users["notifications_per_day"].dtype == np.float64
    assert users["notifications_per_day"].tolist() == dataset.users["notifications_per_day"].tolist()


def test_user_numbers_are_the_users_tables_float_columns(written: dict[str, Path]) -> None:
    users = pd.read_parquet(written["parquet"] / "users.parquet")
    floats = tuple(name for name in users.columns if users[name].dtype == np.float64)
    assert floats == USER_NUMBERS


def test_flipped_byte_is_caught(written: dict[str, Path], tmp_path: Path) -> None:
    folder = copy(written, "parquet", tmp_path)
    path = folder / "ground_truth" / "engagement_users.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    assert "ground_truth/engagement_users.parquet: sha256 differs from the manifest" in validate(folder)


def test_removed_and_unlisted_files_are_caught(written: dict[str, Path], tmp_path: Path) -> None:
    folder = copy(written, "parquet", tmp_path)
    (folder / "users.parquet").unlink()
    (folder / "extra.csv").write_text("a\n1\n")
    assert validate(folder) == ["users.parquet: missing", "extra.csv: not listed in manifest.json"]


def test_value_outside_the_schema_is_caught(written: dict[str, Path], tmp_path: Path) -> None:
    folder = copy(written, "csv", tmp_path)
    edit_csv(folder, "postingApp", 5, "WhatsApp")
    problems = validate(folder)
    assert any(p.startswith("notifications.csv: ") for p in problems)  # size or sha256
    assert "notifications: content fingerprint differs from the manifest" in problems
    assert any("column 'postingApp' row 5: 'WhatsApp' is not one of" in p for p in problems)


@pytest.mark.parametrize(("column", "value", "message"), [
    ("day", "Mon", "column 'day' row 7: 'Mon' is not one of [0, 1, 2, 3, 4, 5, 6]"),
    ("day", "2.0", "column 'day' row 7: '2.0' is not one of"),
    ("ongoing", "yes", "column 'ongoing' row 7: 'yes' is not one of [False, True]"),
    ("seenTime", "-3", "column 'seenTime' row 7: -3.0 is negative"),
    ("place", "", "column 'place' row 7: missing value"),
    ("responseTime", "1", "responseTime != seenTime + decisionTime in 1 rows (first: row 7"),
    ("notification_id", "0", "notification_id 0 appears more than once"),
])
def test_tampered_csv_values_are_named(written: dict[str, Path], tmp_path: Path, column: str,
                                       value: str, message: str) -> None:
    folder = copy(written, "csv", tmp_path)
    edit_csv(folder, column, 7, value)
    assert any(message in p for p in validate(folder))


def test_bad_manifests(written: dict[str, Path], tmp_path: Path) -> None:
    folder = copy(written, "parquet", tmp_path)
    (folder / "manifest.json").write_text("{not json")
    problems = validate(folder)
    assert len(problems) == 1 and problems[0].startswith("manifest.json is not valid JSON")

    shutil.copy(written["parquet"] / "manifest.json", folder / "manifest.json")
    edit_manifest(folder, lambda m: m.pop("files"))
    assert validate(folder) == ["manifest.json: 'files' must map each file to its bytes and sha256"]

    shutil.copy(written["parquet"] / "manifest.json", folder / "manifest.json")
    edit_manifest(folder, lambda m: m["rows"].update(users=4))
    assert validate(folder) == ["users: 3 rows; the manifest says 4"]

    shutil.copy(written["parquet"] / "manifest.json", folder / "manifest.json")
    edit_manifest(folder, lambda m: m["fingerprints"].update(notifications="0" * 64))
    assert validate(folder) == ["notifications: content fingerprint differs from the manifest"]

    (folder / "manifest.json").unlink()
    assert validate(folder) == ["manifest.json is missing"]


def resign(folder: Path) -> dict:
    """Size and sha256 of every listed file written into the manifest again, as an editor would."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for name in manifest["files"]:
        path = folder / name
        manifest["files"][name] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def refused(folder: Path, message: str, capsys) -> None:
    """``validate`` finds just ``message``; describe and read_dataset refuse the folder with it."""
    assert validate(folder) == [message]
    assert main(["describe", str(folder)]) == 2
    assert capsys.readouterr().err == f"pushgen describe: error: {folder}/{message}\n"
    with pytest.raises(DatasetError) as raised:
        read_dataset(folder)
    assert str(raised.value) == f"{folder}/{message}"


@pytest.mark.parametrize("entry", [".hidden", "ground_truth/.x.parquet", "link", "dangling"])
def test_hidden_files_and_links_are_refused_by_validate_and_the_readers(
        written: dict[str, Path], tmp_path: Path, entry: str, capsys) -> None:
    folder = copy(written, "parquet", tmp_path)
    if entry in ("link", "dangling"):
        (folder / entry).symlink_to("/etc" if entry == "link" else tmp_path / "nowhere")
    else:
        (folder / entry).write_text("x")
    assert validate(folder) == [f"{entry}: not listed in manifest.json"]
    refusal = (f"{folder}/{entry} is not listed in {folder}/manifest.json; a dataset folder holds only "
               "the files its manifest.json lists (move it away)")
    assert main(["validate", str(folder)]) == 1
    assert main(["describe", str(folder)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"pushgen describe: error: {refusal}"
    with pytest.raises(DatasetError) as raised:
        read_dataset(folder)
    assert str(raised.value) == refusal


def test_the_card_is_checked_against_croissant_json(written: dict[str, Path], tmp_path: Path,
                                                    capsys) -> None:
    folder = copy(written, "parquet", tmp_path)
    write_croissant(folder, dataset_croissant(folder))
    assert validate(folder) == []
    card = folder / "README.md"
    card.write_text(card.read_text() + "Edited.\n")
    refused(folder, "README.md: sha256 differs from croissant.json", capsys)
    card.unlink()
    refused(folder, "README.md: missing (croissant.json lists it)", capsys)
    (folder / "croissant.json").unlink()
    assert validate(folder) == []  # a dataset's card does not name croissant.json: nothing shows it was


def test_a_csv_table_cut_short_and_re_signed_is_refused_by_the_readers(
        written: dict[str, Path], tmp_path: Path, capsys) -> None:
    folder = copy(written, "csv", tmp_path)
    path = folder / "notifications.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:99] + lines[200:]))  # sed '100,200d'
    rows = resign(folder)["rows"]["notifications"]
    assert f"notifications: {rows - 101} rows; the manifest says {rows}" in validate(folder)
    message = f"{path} has {rows - 101:,} rows; manifest.json says {rows:,} for notifications"
    for command in (["describe", str(folder)], ["split", str(folder), "--out", str(tmp_path / "split")]):
        assert main(command) == 2
        assert capsys.readouterr().err == f"pushgen {command[0]}: error: {message}\n"
    with pytest.raises(DatasetError) as raised:
        read_dataset(folder)
    assert str(raised.value) == message


@pytest.mark.parametrize(("edit", "message"), [
    (dict(start="2026-02-01"), "notifications are posted from {first_posted} to {last_posted}, not within "
                               "the recipe's 21 days from 2026-02-01"),
    (dict(first_user=100), "the recipe's users are 100..102 (first_user 100, 3 users); the users table "
                           "holds 0..2"),
    (dict(months=1, days=45), "the recipe's 45 days are not its 1 months from {recipe[start]}"),
    ({"opened": 0}, "opened is 0; the notifications give {opened}"),
    ({"first_posted": "2000-01-01 00:00:00"},
     "first_posted is '2000-01-01 00:00:00'; the notifications give '{first_posted}'"),
    ({"last_posted": None}, "last_posted is None; the notifications give '{last_posted}'"),
])
def test_what_the_manifest_states_is_checked_against_the_data(
        written: dict[str, Path], tmp_path: Path, edit: dict, message: str, capsys) -> None:
    """The recipe's seed is not among them: only simulating the dataset again would show it."""
    folder = copy(written, "parquet", tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text())
    in_recipe = not {"opened", "first_posted", "last_posted"} & set(edit)
    edit_manifest(folder, lambda m: (m["recipe"] if in_recipe else m).update(edit))
    refused(folder, "manifest.json: " + message.format(**manifest), capsys)


def test_folders_that_are_not_datasets_raise(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        validate(tmp_path / "nothing")
    with pytest.raises(DatasetError, match="not a pushgen dataset"):
        validate(tmp_path)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(DatasetError, match="not a folder"):
        validate(tmp_path / "file.txt")


def test_cli_validate(written: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["validate", str(written["csv"])])
    assert result.exit_code == 0
    rows = len(pd.read_csv(written["csv"] / "notifications.csv"))
    assert result.output == f"valid: {written['csv']} ({rows:,} notifications, 3 users)\n"

    folder = copy(written, "parquet", tmp_path)
    (folder / "users.parquet").unlink()
    result = runner.invoke(cli, ["validate", str(folder)])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["users.parquet: missing"]

    result = runner.invoke(cli, ["validate", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "does not exist" in result.output and "Traceback" not in result.output


def test_entry_point_exit_codes(written: dict[str, Path], tmp_path: Path, capsys) -> None:
    assert main(["validate", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    folder = copy(written, "parquet", tmp_path)
    (folder / "extra.parquet").write_bytes(b"x")
    assert main(["validate", str(folder)]) == 1
    captured = capsys.readouterr()
    assert "extra.parquet: not listed in manifest.json" in captured.out
    assert captured.err.startswith("invalid: ") and captured.err.count("\n") == 1


def test_command_line_program(written: dict[str, Path], tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pushgen.cli", "validate"]
    ok = subprocess.run([*command, str(written["parquet"])], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("valid: ")
    missing = subprocess.run([*command, str(tmp_path / "nothing")], capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0 and "does not exist" in missing.stderr


# check_frame: values outside the schemas, whatever the column's dtype


def notifications(generated_rows: int = 20) -> pd.DataFrame:
    return pushgen.generate(users=1, days=1, seed=3).notifications.head(generated_rows)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return notifications()


@pytest.mark.parametrize(("column", "value"), [
    ("day", True), ("day", 7), ("day", 1.0), ("ongoing", 1), ("ongoing", "true"),
    ("category", "MSG"), ("category", 3), ("seenTime", -1.0), ("seenTime", np.inf),
])
def test_check_frame_rejects(frame: pd.DataFrame, column: str, value) -> None:
    bad = frame.astype({column: object})
    bad.loc[bad.index[4], column] = value
    with pytest.raises(schemas.SchemaViolation, match=f"column '{column}' row 4"):
        schemas.check_frame(bad)


def test_check_frame_accepts_plain_python_and_numpy_values(frame: pd.DataFrame) -> None:
    plain = frame.astype({name: object for name in schemas.FEATURES})
    schemas.check_frame(plain)
    schemas.check_frame(frame)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 6, True, False, 7, -1, "1", 1.0]),
                min_size=1, max_size=12))
def test_check_frame_day_values(values: list) -> None:
    column = pd.Series(values, dtype=object)
    good = [type(v) is int and 0 <= v <= 6 for v in values]
    if all(good):
        schemas.check_frame(pd.DataFrame({"day": column}), required=())
    else:
        with pytest.raises(schemas.SchemaViolation, match=f"row {good.index(False)}:"):
            schemas.check_frame(pd.DataFrame({"day": column}), required=())
