from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import pushgen
from pushgen import schemas
from pushgen.cli import main
from pushgen.data.dataset import DatasetError, read_arrow, read_parameters
from pushgen.data.outputs import sha256_file
from pushgen.data.tables import ID_STRIDE
from pushgen.data.verify import verify_dataset
from pushgen.data.writer import write_dataset
from pushgen.model.timegrid import add_months
from pushgen.publishing.access import load_split
from pushgen.splits import (
    PARTS,
    SPLIT_FILE,
    SplitSpec,
    combine_fingerprints,
    keyed_ids,
    left_out,
    make_split,
    table_fingerprints,
)
from pushgen.splits.keyed_ids import context_ids, context_key

MINI = Path(__file__).resolve().parents[1] / "generated" / "pushgen-mini" / "v4"
USERS = 5
START = dt.date(2026, 1, 5)
DATASHEET_SECTIONS = ("## Motivation", "## Composition", "## Collection process",
                      "## Preprocessing, cleaning, labelling", "## Uses", "## Distribution",
                      "## Maintenance")


@pytest.fixture(scope="module")
def dataset_folder(tmp_path_factory) -> Path:
    dataset = pushgen.generate(users=USERS, months=3, seed=11, start=START)
    return write_dataset(dataset, tmp_path_factory.mktemp("data") / "dataset")


def read(folder: Path, part: str) -> pd.DataFrame:
    return pq.read_table(folder / f"{part}.parquet").to_pandas()


def ms(day: dt.date) -> pd.Timestamp:
    return pd.Timestamp(day)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(train=st.integers(1, 2), validation=st.integers(0, 3), cold=st.integers(0, USERS - 1))
def test_parts_cut_by_calendar_and_by_user(dataset_folder, train, validation, cold):
    spec = SplitSpec(train_months=train, test_months=1, validation_weeks=validation,
                     cold_start_users=cold)
    train_end = add_months(START, train)
    validation_start = ms(train_end - dt.timedelta(weeks=validation))
    train_end, test_end = ms(train_end), ms(add_months(add_months(START, train), 1))
    with tempfile.TemporaryDirectory() as scratch:
        folder = make_split(dataset_folder, Path(scratch) / "split", spec)
        parts = {part: read(folder, part) for part in PARTS}
        description = json.loads((folder / SPLIT_FILE).read_text())
        fingerprints = table_fingerprints(folder)
        files = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
                 for name in description["files"]}
    everything = pq.read_table(dataset_folder / "notifications.parquet").to_pandas()
    cold_users = set(range(USERS - cold, USERS))

    assert parts["task1/train"]["posted_at"].lt(validation_start).all()
    assert parts["task1/validation"]["posted_at"].between(validation_start, train_end,
                                                          inclusive="left").all()
    for part in ("task1/test", "task2/test"):
        key = parts[f"scorer/{part}"]
        assert key["posted_at"].between(train_end, test_end, inclusive="left").all()
        assert list(parts[part].columns) == ["user_id", "context_id", "posted_at",
                                             *schemas.CONTEXT_FEATURES]
        assert (parts[part]["context_id"] == key["context_id"]).all()
        # the time a notification would be delivered is shown; nothing of what was logged then
        assert (parts[part]["posted_at"] == key["posted_at"]).all()
        assert not {"action", "seenTime", "decisionTime", "responseTime",
                    *schemas.NOTIFICATION_FEATURES} & set(parts[part].columns)
    for part in ("task1/train", "task1/validation", "task1/test"):
        assert not set(parts[part]["user_id"]) & cold_users
    assert set(parts["task2/test"]["user_id"]) == cold_users
    warm_history = everything[~everything["user_id"].isin(cold_users)
                              & (everything["posted_at"] < train_end)]
    assert len(parts["task1/train"]) + len(parts["task1/validation"]) == len(warm_history)
    in_test = everything["posted_at"].between(train_end, test_end, inclusive="left")
    assert len(parts["task1/test"]) + len(parts["task2/test"]) == in_test.sum()
    assert validation > 0 or parts["task1/validation"].empty

    assert description["split"] == spec.to_dict()
    assert {p: v["rows"] for p, v in description["parts"].items()} == {
        p: len(frame) for p, frame in parts.items()}
    assert description["fingerprints"] == fingerprints
    assert description["fingerprint"] == combine_fingerprints(description["fingerprints"])
    assert {name: entry["sha256"] for name, entry in description["files"].items()} == files
    assert set(fingerprints) >= {*PARTS, "users", "scorer/ground_truth/engagement_rows",
                                 "scorer/ground_truth/engagement_model.json",
                                 "scorer/ground_truth/initial_state"}


def test_same_split_twice_has_the_same_fingerprint_and_files(dataset_folder, tmp_path):
    spec = SplitSpec(train_months=2, test_months=1, validation_weeks=1, cold_start_users=1)
    a = json.loads((make_split(dataset_folder, tmp_path / "a", spec) / SPLIT_FILE).read_text())
    b = json.loads((make_split(dataset_folder, tmp_path / "b", spec) / SPLIT_FILE).read_text())
    assert a["fingerprint"] == b["fingerprint"] and a["files"] == b["files"]
    other = make_split(dataset_folder, tmp_path / "c", SplitSpec(2, 1, 2, 1))
    assert json.loads((other / SPLIT_FILE).read_text())["fingerprint"] != a["fingerprint"]


def test_context_ids_are_keyed_hashes_that_count_no_hidden_rows(dataset_folder, tmp_path):
    folder = make_split(dataset_folder, tmp_path / "split", SplitSpec(2, 1, 1, 2))
    answers = pd.read_parquet(folder / "scorer" / "task2" / "test.parquet")
    history_size = answers.groupby("user_id")["notification_id"].min() % ID_STRIDE
    assert (history_size > 0).all()  # the cold-start users' earlier months are held out
    ids = pd.read_parquet(folder / "task2" / "test.parquet")["context_id"].to_numpy()
    assert (ids >= 0).all() and (ids < 2**53).all() and len(np.unique(ids)) == len(ids)
    first = pd.read_parquet(folder / "task2" / "test.parquet").groupby("user_id")["context_id"].min()
    assert not np.isin(first.to_numpy() % ID_STRIDE, history_size.to_numpy()).any()
    # no order: the ids of consecutive rows are unrelated
    assert abs(stats.spearmanr(answers["notification_id"], answers["context_id"])[0]) < 0.1
    dataset = read_arrow(dataset_folder, "notifications", verify_dataset(dataset_folder))
    key = context_key(dataset)
    rehashed = context_ids(answers["user_id"].to_numpy(), answers["notification_id"].to_numpy(), key)
    assert np.array_equal(rehashed, answers["context_id"].to_numpy())
    changed = context_key(dataset.set_column(dataset.schema.get_field_index("action"), "action",
                                             pc.if_else(pc.equal(dataset["action"].cast("string"), "opened"),
                                                        "dismissed", "opened")))
    assert changed != key  # the key hangs on the answer key's content, which no model reads
    again = make_split(dataset_folder, tmp_path / "again", SplitSpec(2, 1, 1, 2))
    assert (pd.read_parquet(again / "task2" / "test.parquet")["context_id"].to_numpy() == ids).all()


def test_colliding_context_ids_are_hashed_again_until_unique(monkeypatch):
    monkeypatch.setattr(keyed_ids, "BITS", 5)  # 32 possible ids for 24 rows: collisions certain
    users, rows = np.zeros(24, dtype=np.int64), np.arange(24)
    ids = keyed_ids.context_ids(users, rows, b"k" * 32)
    assert len(np.unique(ids)) == 24 and ((ids >= 0) & (ids < 32)).all()
    assert np.array_equal(ids, keyed_ids.context_ids(users, rows, b"k" * 32))
    assert not np.array_equal(ids, keyed_ids.context_ids(users, rows, b"j" * 32))


def test_load_split_gives_schema_dtypes_and_the_ground_truth(dataset_folder, tmp_path):
    folder = make_split(dataset_folder, tmp_path / "split", SplitSpec(2, 1, 1, 2))
    one, two = load_split(folder, task=1), load_split(folder, task=2)
    for frame in (one.train, one.validation):
        for name in (*schemas.NOTIFICATION_FEATURES, "place", "action"):
            assert frame[name].dtype == schemas.field(name).pandas_dtype(), name
    for frame in (one.test, two.test):
        assert list(frame.columns) == ["user_id", "context_id", "posted_at", *schemas.CONTEXT_FEATURES]
        for name in schemas.CONTEXT_FEATURES:
            assert frame[name].dtype == schemas.field(name).pandas_dtype(), name
    assert set(one.test["user_id"]) == {0, 1, 2} and set(two.test["user_id"]) == {3, 4}
    assert two.train.empty and two.validation.empty and list(two.train.columns) == list(one.train.columns)
    assert list(one.users.columns) == ["user_id", "name"] and len(one.users) == USERS
    assert not {"parameters", "truth_rows"} & set(dir(one))  # the answer key is the scorer's
    truth = pq.read_table(folder / "scorer" / "ground_truth" / "engagement_rows.parquet").to_pandas()
    answers = pd.concat([pd.read_parquet(folder / "scorer" / f"task{t}" / "test.parquet") for t in (1, 2)])
    assert set(answers["context_id"]) == set(one.test["context_id"]) | set(two.test["context_id"])
    assert set(truth["notification_id"]) == set(answers["notification_id"])
    assert read_parameters(folder / "scorer").has_app.shape[0] == USERS


@pytest.mark.parametrize(("spec", "message"), [
    (dict(train_months=3, test_months=1), "do not fit"),
    (dict(train_months=1, test_months=1, validation_weeks=5), "--validation-weeks must be shorter"),
    (dict(train_months=1, test_months=1, cold_start_users=USERS), "below the dataset's 5 users"),
])
def test_impossible_splits_are_refused_and_write_nothing(dataset_folder, tmp_path, spec, message):
    with pytest.raises(DatasetError, match=message):
        make_split(dataset_folder, tmp_path / "split", SplitSpec(**spec))
    assert list(tmp_path.iterdir()) == []


@given(field=st.sampled_from(["train_months", "test_months", "validation_weeks", "cold_start_users"]),
       value=st.one_of(st.integers(-5, -1), st.just(True), st.just(1.5)))
def test_split_spec_checks_its_values(field, value):
    if field in ("train_months", "test_months") and value is True:
        value = 0
    with pytest.raises(DatasetError, match=f"--{field.replace('_', '-')} must be a whole number"):
        SplitSpec(**{field: value})


def test_load_split_refuses_other_tasks_and_folders(tmp_path):
    with pytest.raises(DatasetError, match="task must be 1 or 2; got 3"):
        load_split(MINI, task=3)
    with pytest.raises(DatasetError, match=r"is not a split folder: no split\.json"):
        load_split(tmp_path)


@pytest.mark.parametrize("task", [1.0, True, "1", np.float64(2.0), None])
def test_load_split_takes_a_task_only_as_a_whole_number(task):
    # 1.0 and True equal 1: they once passed the check and asked for task1.0/test.parquet
    with pytest.raises(DatasetError, match=f"^task must be 1 or 2; got {re.escape(repr(task))}$"
                       if not isinstance(task, np.generic) else "^task must be 1 or 2; got 2.0$"):
        load_split(MINI, task=task)
    loaded = load_split(MINI, task=np.int64(2)).task
    assert loaded == 2 and type(loaded) is int


def test_split_command_writes_a_described_split(dataset_folder, tmp_path, capsys):
    out = tmp_path / "s"
    args = ["split", str(dataset_folder), "--out", str(out), "--train-months", "2", "--test-months",
            "1", "--validation-weeks", "1", "--cold-start-users", "1"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert f"Wrote {out}" in printed and "task2/test" in printed
    assert {p.name for p in out.iterdir()} == {"split.json", "README.md", "croissant.json", "task1",
                                              "task2", "scorer", "users.parquet"}
    assert json.loads((out / "split.json").read_text())["split"]["cold_start_users"] == 1

    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "already exists" in error and "--force" in error
    assert main([*args, "--force"]) == 0


def test_split_command_card_names_the_written_folder_and_repeats_to_the_byte(dataset_folder, tmp_path):
    args = ["split", str(dataset_folder), "--train-months", "2", "--test-months", "1"]
    first, second = tmp_path / "one" / "s", tmp_path / "two" / "s"
    for out in (first, second):
        out.parent.mkdir()
        assert main([*args, "--out", str(out)]) == 0
    card = (first / "README.md").read_text()
    assert 'load_split("s", task=1)' in card and "partial" not in card
    assert {p.relative_to(first): p.read_bytes() for p in first.rglob("*") if p.is_file()} == {
        p.relative_to(second): p.read_bytes() for p in second.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("extra", "message"), [
    (["--train-months", "3", "--test-months", "3"], "do not fit"),
    (["--cold-start-users", "9"], "below the dataset's 5 users; got 9"),
    (["--train-months", "0"], "0 is not in the range"),
])
def test_split_command_errors_are_one_line(dataset_folder, tmp_path, capsys, extra, message):
    code = main(["split", str(dataset_folder), "--out", str(tmp_path / "s"), "--train-months", "2",
                 "--test-months", "1", *extra])
    error = capsys.readouterr().err
    assert code == 2
    assert error.startswith("pushgen") and error.count("\n") == 1 and message in error
    assert not (tmp_path / "s").exists()


def test_split_command_on_a_folder_that_is_no_dataset(tmp_path, capsys):
    assert main(["split", str(tmp_path), "--out", str(tmp_path / "s")]) == 2
    assert "is not a pushgen dataset: no manifest.json" in capsys.readouterr().err


def front_matter(card: str) -> dict:
    yaml = pytest.importorskip("yaml")
    head, _, _ = card.removeprefix("---\n").partition("\n---\n")
    return yaml.safe_load(head)


def test_mini_card_is_a_hugging_face_card_and_a_datasheet():
    card = (MINI / "README.md").read_text()
    meta = front_matter(card)
    assert meta["license"] == "cc-by-4.0"
    assert meta["annotations_creators"] == ["machine-generated"]
    assert meta["size_categories"] == ["10K<n<100K"]
    assert "tabular-classification" in meta["task_categories"] and "synthetic" in meta["tags"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert [d["split"] for d in configs["history"]["data_files"]] == ["train", "validation"]
    assert configs["history"]["default"] is True
    assert [d["split"] for d in configs["contexts"]["data_files"]] == ["task1_test", "task2_test"]
    for config in configs.values():
        for data in config["data_files"]:
            assert (MINI / data["path"]).is_file(), data["path"]
            assert not data["path"].startswith("scorer"), "models must not be pointed at the answer key"
    for section in DATASHEET_SECTIONS:
        assert section in card
    description = json.loads((MINI / SPLIT_FILE).read_text())
    assert description["fingerprint"] in card and f"{description['parts']['task1/test']['rows']:,}" in card


def test_mini_croissant_describes_every_file_and_part():
    document = json.loads((MINI / "croissant.json").read_text())
    assert document["@type"] == "sc:Dataset"
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert document["license"] == "https://creativecommons.org/licenses/by/4.0/"
    files = {f["@id"]: f for f in document["distribution"]}
    on_disk = {p.relative_to(MINI).as_posix() for p in MINI.rglob("*")
               if p.is_file() and p.name != "croissant.json"}
    assert set(files) == on_disk
    for name, entry in files.items():
        assert entry["sha256"] == sha256_file(MINI / name), name
        assert entry["contentSize"] == f"{(MINI / name).stat().st_size} B"
    record_sets = {r["@id"]: r for r in document["recordSet"]}
    assert set(record_sets) >= set(PARTS) | {"users", "scorer/task1/test", "scorer/task2/test",
                                             "scorer/ground_truth/engagement_rows"}
    types = {f["name"]: f["dataType"] for f in record_sets["task1/train"]["field"]}
    assert types["postingApp"] == "sc:Text" and types["day"] == "sc:Integer"
    assert types["charging"] == "sc:Boolean" and types["seenTime"] == "sc:Float"
    assert types["posted_at"] == "sc:DateTime" and types["context_id"] == "sc:Integer"
    for part in ("task1/train", "task1/test"):
        columns = pq.read_schema(MINI / f"{part}.parquet").names
        assert [f["name"] for f in record_sets[part]["field"]] == columns
        for field in record_sets[part]["field"]:
            assert field["source"] == {"fileObject": {"@id": f"{part}.parquet"},
                                       "extract": {"column": field["name"]}}


def test_hugging_face_datasets_loads_the_mini_split_offline(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    description = json.loads((MINI / SPLIT_FILE).read_text())
    files = {split: str(MINI / "task1" / f"{split}.parquet") for split in ("train", "validation", "test")}
    loaded = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf"))
    for split in files:
        assert loaded[split].num_rows == description["parts"][f"task1/{split}"]["rows"]
    assert loaded["test"].features["postingApp"].dtype == "string"
    by_card = datasets.load_dataset(str(MINI), "contexts", cache_dir=str(tmp_path / "hf2"))
    assert sorted(by_card) == ["task1_test", "task2_test"]
    assert by_card["task2_test"].num_rows == description["parts"]["task2/test"]["rows"]
    assert np.array_equal(by_card["task2_test"]["context_id"][:5],
                          pq.read_table(MINI / "task2/test.parquet").column("context_id")[:5].to_pylist())
    assert "action" not in by_card["task1_test"].column_names


def test_split_command_writes_beside_the_dataset_by_default(tmp_path, capsys):
    dataset = write_dataset(pushgen.generate(users=2, months=2, seed=1), tmp_path / "d")
    assert main(["split", str(dataset), "--train-months", "1", "--test-months", "1",
                 "--validation-weeks", "1", "--cold-start-users", "1"]) == 0
    assert (tmp_path / "d-split" / SPLIT_FILE).is_file()
    assert f"Wrote {tmp_path / 'd-split'} (1 training + 1 test months): " in capsys.readouterr().out


def test_split_uses_the_whole_dataset_by_default_and_names_months_left_out(tmp_path, capsys):
    dataset = write_dataset(pushgen.generate(users=2, months=4, seed=2, start=START), tmp_path / "d")
    assert main(["split", str(dataset), "--out", str(tmp_path / "all"), "--validation-weeks", "1"]) == 0
    captured = capsys.readouterr()
    assert f"Wrote {tmp_path / 'all'} (2 training + 2 test months): " in captured.out
    assert captured.err == ""
    described = json.loads((tmp_path / "all" / SPLIT_FILE).read_text())
    assert described["split"]["train_months"] == 2 and described["split"]["test_months"] == 2
    rows = sum(p["rows"] for name, p in described["parts"].items() if not name.startswith("scorer/"))
    assert rows == json.loads((dataset / "manifest.json").read_text())["rows"]["notifications"]

    assert main(["split", str(dataset), "--out", str(tmp_path / "t3"), "--train-months", "3"]) == 0
    assert "(3 training + 1 test months)" in capsys.readouterr().out

    assert main(["split", str(dataset), "--out", str(tmp_path / "some"), "--train-months", "1",
                 "--test-months", "1", "--validation-weeks", "1"]) == 0
    assert capsys.readouterr().err == (
        "Note: months 3-4 of the dataset's 4 are in no part (--train-months 1 + --test-months 1)\n")

    assert main(["split", str(dataset), "--out", str(tmp_path / "none"), "--train-months", "4"]) == 2
    assert capsys.readouterr().err == ("pushgen split: error: the dataset covers 4 months; --train-months 4 "
                                       "leaves none for testing (at most 3)\n")
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize(("days", "train", "test", "note"), [
    (70, 1, 1, "the last 11 days of the dataset, after its 2 whole months, are in no part"),
    (100, 1, 1, "month 3 and the last 10 days of the dataset's 3 are in no part "
                "(--train-months 1 + --test-months 1)"),
    (59, 1, 1, None),
])
def test_left_out_names_every_day_no_part_holds(days, train, test, note):
    recipe = {"start": "2026-01-01", "days": days}
    assert left_out(recipe, SplitSpec(train, test, 1)) == note
