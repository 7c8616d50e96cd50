from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import pushgen
from pushgen import schemas
from pushgen.cli import cli
from pushgen.data.build import building
from pushgen.data.calibration import calibration_summary
from pushgen.data.dataset import read_dataset, read_manifest
from pushgen.data.describe import describe
from pushgen.data.describe_long_term import dataset_long_term
from pushgen.data.describe_report import pct
from pushgen.data.generator import Dataset, make_recipe, simulate
from pushgen.data.writer import write_dataset
from pushgen.publishing.card import dataset_card, summary_paragraph
from pushgen.publishing.cards.tables import tables
from pushgen.publishing.registry import lookup
from pushgen.publishing.split_card import hf_split_name, write_card
from pushgen.publishing.standard import write_dataset_metadata, write_metadata
from pushgen.splits import SplitSpec, combine_fingerprints, make_split, table_fingerprints


@pytest.fixture(scope="module")
def dataset() -> pushgen.Dataset:
    return pushgen.generate(users=3, days=21, seed=1)


@pytest.fixture(scope="module")
def folder(dataset: pushgen.Dataset, tmp_path_factory) -> Path:
    return write_dataset(dataset, tmp_path_factory.mktemp("card") / "d", card=dataset_card)


@pytest.fixture(scope="module")
def card(folder: Path) -> str:
    """The card's Markdown body, after its YAML front matter."""
    text = (folder / "README.md").read_text()
    assert text.startswith("---\n")
    return text.split("\n---\n", 1)[1].lstrip("\n")


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
    ten_years = read_manifest(folder)
    ten_years["recipe"] = {**ten_years["recipe"], "days": 3652}
    assert "(3,652 days, seed " in summary_paragraph(ten_years, tmp_path / "out")  # as make's size estimate


def test_cli_describe(folder: Path, dataset: pushgen.Dataset, tmp_path: Path) -> None:
    runner = CliRunner()
    text = runner.invoke(cli, ["describe", str(folder)])
    assert text.exit_code == 0
    assert "Key figures" in text.output and "published" in text.output
    as_json = runner.invoke(cli, ["describe", str(folder), "--json"])
    assert as_json.exit_code == 0
    printed = json.loads(as_json.output)
    assert "engagement" in printed  # a dataset folder adds its simulated user's effects

    def not_json(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON (RFC 8259): JSON.parse and strict parsers refuse it")

    assert json.loads(as_json.output, parse_constant=not_json) == printed
    assert printed["engagement"]["habituation"][-1]["high"] is None  # the open end of the last bucket
    del printed["engagement"]
    stats = describe(dataset.notifications, dataset.users)
    stats["long_term"] = dataset_long_term(dataset)  # ... and its long-term state
    verdicts = calibration_summary(stats, dataset.notifications, dataset.users)
    assert printed.pop("calibration") == json.loads(json.dumps(verdicts))
    assert printed == json.loads(json.dumps(stats))
    missing = runner.invoke(cli, ["describe", str(tmp_path / "nothing")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    assert "Traceback" not in missing.output



def test_the_ground_truth_documents_exactly_the_columns_it_has(folder: Path, card: str) -> None:
    from pushgen.model.ground_truth_columns import TABLES

    for table, columns in TABLES.items():
        written = pq.read_schema(folder / "ground_truth" / f"{table}.parquet").names
        assert [c.name for c in columns] == written, table  # every column documented, nothing more
    section = card.split("## Ground truth", 1)[1]
    documented = re.findall(r"^\| `([^`]+)` \|", section, re.M)
    assert documented == [c.name for columns in TABLES.values() for c in columns]
    assert "audio_chat_bonus" not in card
    docs = (Path(__file__).resolve().parent.parent / "docs" / "model.md").read_text()
    generated = docs.split("<!-- generated: ground_truth -->", 1)[1].split("<!-- end: ground_truth -->")[0]
    assert re.findall(r"^\| `([^`]+)` \|", generated, re.M) == documented

# The Hugging Face front matter of dataset and split cards, and what `datasets` loads from it.

SPEC = SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=1)


def front_matter(path: Path) -> dict:
    head, _, _ = path.read_text().removeprefix("---\n").partition("\n---\n")
    return yaml.safe_load(head)


def class_names(feature: dict) -> list[str] | None:
    dtype = feature["dtype"]
    if isinstance(dtype, dict):
        names = dtype["class_label"]["names"]
        return [names[str(code)] for code in range(len(names))]
    return None


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """`pushgen make` output: one file per table, partitioned, and CSV."""
    root = tmp_path_factory.mktemp("made")
    recipe = make_recipe(users=3, days=10, seed=4)
    for name, options in (("single", {}), ("parts", {"partitioned": True, "bucket_users": 2}),
                          ("csv", {"fmt": "csv"})):
        with building(recipe, root / name, **options) as built:
            write_dataset_metadata(built)
    return {name: root / name for name in ("single", "parts", "csv")}


@pytest.fixture(scope="module")
def split_folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("split")
    source = write_dataset(pushgen.generate(users=4, months=2, seed=11), root / "dataset")
    (root / "pushgen-test").mkdir()
    return make_split(source, root / "pushgen-test" / "v1", SPEC, name="pushgen-test", version="v1",
                      describe=write_card)


def description_of(folder: Path) -> dict:
    return json.loads((folder / "split.json").read_text())


@pytest.fixture
def load_dataset(tmp_path):
    """``datasets.load_dataset`` with a cache of its own, offline."""
    datasets = pytest.importorskip("datasets")
    cache = tmp_path / "hf-cache"

    def load(path: Path, config: str | None = None, cache_dir: Path = cache):
        return datasets.load_dataset(str(path), config, cache_dir=str(cache_dir))

    return load


@pytest.mark.parametrize("kind", ["single", "parts", "csv"])
def test_dataset_card_configs_read_the_notifications_and_the_users_only(made, kind):
    folder = made[kind]
    meta, manifest = front_matter(folder / "README.md"), read_manifest(folder)
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == ["notifications", "users"]
    assert configs["notifications"]["default"] is True and "default" not in configs["users"]
    for name, config in configs.items():
        [data] = config["data_files"]
        assert data["split"] == "train" and "ground_truth" not in data["path"]
        files = sorted(p.relative_to(folder).as_posix() for p in folder.glob(data["path"]))
        assert files == sorted(f for f in manifest["files"] if f.split("/")[0].split(".")[0] == name)
        assert manifest["fingerprints"][name] in config["description"]
    paths = {"single": "notifications.parquet", "parts": "notifications/*.parquet",
             "csv": "notifications.csv"}
    assert configs["notifications"]["data_files"][0]["path"] == paths[kind]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    for name in configs:
        [split] = infos[name]["splits"]
        assert split["num_examples"] == manifest["rows"][name] and split["num_bytes"] > 0


def test_dataset_card_types_categoricals_as_class_labels_with_the_published_names(made):
    meta = front_matter(made["single"] / "README.md")
    features = {f["name"]: f for f in meta["dataset_info"][0]["features"]}
    columns = pq.read_schema(made["single"] / "notifications.parquet").names
    assert list(features) == columns
    for name in columns:
        spec = schemas.fields().get(name)
        if spec is not None and spec.is_categorical:
            assert class_names(features[name]) == [str(v) for v in spec.values], name
        else:
            assert class_names(features[name]) is None, name
    assert features["ongoing"]["dtype"] == "bool" and features["day"]["dtype"] == "int8"
    assert features["posted_at"]["dtype"] == "timestamp[ms]" and features["seenTime"]["dtype"] == "float32"


@pytest.mark.parametrize("kind", ["single", "parts", "split"])
def test_cards_are_what_huggingface_hub_writes_for_their_metadata(made, split_folder, kind):
    hub = pytest.importorskip("huggingface_hub")
    path = (split_folder if kind == "split" else made[kind]) / "README.md"
    text, meta = path.read_text(), front_matter(path)
    assert list(meta)[:3] == ["annotations_creators", "language_creators", "license"]
    assert str(hub.DatasetCard(text)) == text
    body = text.split("\n---\n", 1)[1]
    assert str(hub.DatasetCard(f"---\n{hub.DatasetCardData(**meta).to_yaml()}\n---\n{body}")) == text


def test_pretty_names_differ_with_the_content_and_name_the_split_and_version(made, split_folder, tmp_path):
    with building(make_recipe(users=3, days=10, seed=5), tmp_path / "other") as built:
        write_dataset_metadata(built)
    other = built.manifest
    names = {front_matter(made["single"] / "README.md")["pretty_name"],
             front_matter(tmp_path / "other" / "README.md")["pretty_name"]}
    assert len(names) == 2 and other["fingerprints"]["notifications"][:12] in " ".join(names)
    assert front_matter(split_folder / "README.md")["pretty_name"] == "pushgen-test v1"


def test_split_card_configs_follow_split_json_and_leave_out_the_answer_key(split_folder):
    meta, description = front_matter(split_folder / "README.md"), description_of(split_folder)
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == ["history", "contexts", "users"]
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["history"]
    splits = {name: {d["split"]: d["path"] for d in c["data_files"]} for name, c in configs.items()}
    assert splits == {
        "history": {"train": "task1/train.parquet", "validation": "task1/validation.parquet"},
        "contexts": {"task1_test": "task1/test.parquet", "task2_test": "task2/test.parquet"},
        "users": {"train": "users.parquet"},
    }
    assert all(description["fingerprint"] in c["description"] for c in configs.values())
    sizes = {(info["config_name"], s["name"]): s["num_examples"]
             for info in meta["dataset_info"] for s in info["splits"]}
    for config, split, path in ((c, s, p) for c in splits for s, p in splits[c].items()):
        assert sizes[(config, split)] == pq.read_metadata(split_folder / path).num_rows
        part = path.removesuffix(".parquet")
        if part in description["parts"]:
            assert sizes[(config, split)] == description["parts"][part]["rows"]
    body = (split_folder / "README.md").read_text().split("\n---\n", 1)[1]
    assert "`scorer/` is the answer key, and models must not read it" in body
    assert "scorer/" not in yaml.safe_dump(meta["configs"])


def test_split_card_states_no_figure_of_the_test_parts_answer_key(split_folder):
    body = (split_folder / "README.md").read_text().split("\n---\n", 1)[1]
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[1:-1]]
            for line in body.splitlines() if line.startswith("| task")}
    history = pq.read_table(split_folder / "task1/train.parquet", columns=["action"]).to_pandas()
    assert rows["task1/train"][-1] == f"{(history['action'] == 'opened').mean():.3f}"
    for part in ("task1/test", "task2/test"):
        answers = pq.read_table(split_folder / "scorer" / f"{part}.parquet", columns=["action"]).to_pandas()
        assert rows[part][-1] == "-"
        assert rows[part][2] == f"{len(answers):,}"
        rate = (answers["action"] == "opened").mean()
        assert f"{rate:.3f}" not in body
    assert "the card states none of them" in " ".join(body.split())


def test_a_part_without_rows_is_left_out_of_the_configs(split_folder, tmp_path):
    source = split_folder.parents[1] / "dataset"
    folder = make_split(source, tmp_path / "s", SplitSpec(1, 1, 1, 0), describe=write_card)
    assert description_of(folder)["parts"]["task2/test"]["rows"] == 0
    configs = front_matter(folder / "README.md")["configs"]
    contexts = next(c for c in configs if c["config_name"] == "contexts")
    assert contexts["data_files"] == [{"split": "task1_test", "path": "task1/test.parquet"}]


@given(names=st.lists(st.sampled_from(["task1/train", "task1/validation", "task1/test", "task2/test",
                                       "task3/test", "task2/train"]), min_size=1, max_size=6, unique=True))
def test_split_names_are_short_unless_two_parts_end_alike(names):
    chosen = [hf_split_name(part, names) for part in names]
    assert len(set(chosen)) == len(names)
    for part, name in zip(names, chosen, strict=True):
        assert name in (part.rpartition("/")[2], part.replace("/", "_"))
        alike = sum(p.rpartition("/")[2] == part.rpartition("/")[2] for p in names)
        assert (name == part.rpartition("/")[2]) == (alike == 1)


@given(parts=st.dictionaries(st.sampled_from(["notifications", "ground_truth/engagement_rows", "x/y"]),
                             st.integers(1, 4), min_size=1))
def test_files_group_into_tables_by_part_folder(parts):
    paths = [f"{table}/part-{i:05d}.parquet" for table, count in parts.items() for i in range(count)]
    paths += ["users.parquet", "ground_truth/engagement_model.json"]
    grouped = tables(paths)
    assert list(grouped) == [*parts, "users", "ground_truth/engagement_model"]
    assert [p for files in grouped.values() for p in files] == paths


@pytest.mark.parametrize("kind", ["single", "parts", "csv"])
def test_datasets_loads_a_dataset_folder_with_its_row_counts_and_class_labels(made, kind, load_dataset):
    folder = made[kind]
    manifest = read_manifest(folder)
    notifications = load_dataset(folder)
    assert list(notifications) == ["train"]
    assert notifications["train"].num_rows == manifest["rows"]["notifications"]
    users = load_dataset(folder, "users")["train"]
    assert users.num_rows == manifest["rows"]["users"]
    feature = notifications["train"].features["postingApp"]
    assert feature.names == list(schemas.values("postingApp"))
    expected = read_dataset(folder).notifications
    for name in ("postingApp", "action", "numberOfUpdates", "ringerMode"):
        loaded = notifications["train"].features[name].int2str(notifications["train"][name][:50])
        assert loaded == expected[name].astype(str).tolist()[:50], name


def test_datasets_loads_every_config_of_a_split(split_folder, load_dataset):
    description = description_of(split_folder)
    history, contexts = load_dataset(split_folder), load_dataset(split_folder, "contexts")
    parts = {"train": "task1/train", "validation": "task1/validation"}
    assert {k: v.num_rows for k, v in history.items()} == {
        k: description["parts"][p]["rows"] for k, p in parts.items()}
    assert {k: v.num_rows for k, v in contexts.items()} == {
        "task1_test": description["parts"]["task1/test"]["rows"],
        "task2_test": description["parts"]["task2/test"]["rows"]}
    assert contexts["task1_test"].column_names == pq.read_schema(split_folder / "task1/test.parquet").names
    assert "action" not in contexts["task2_test"].column_names
    assert load_dataset(split_folder, "users")["train"].num_rows == description["users"]


def flip_actions(folder: Path) -> None:
    """Swap opened and dismissed in task1/train: other content, the same sizes."""
    path = folder / "task1" / "train.parquet"
    table = pq.read_table(path)
    action = pc.if_else(pc.equal(table.column("action"), "opened"), "dismissed", "opened")
    pq.write_table(table.set_column(table.schema.get_field_index("action"), "action", action), path)
    description = description_of(folder)
    description["fingerprints"] = table_fingerprints(folder)
    description["fingerprint"] = combine_fingerprints(description["fingerprints"])
    (folder / "split.json").write_text(json.dumps(description, indent=1) + "\n")
    write_card(folder)


def bare_card(folder: Path) -> None:
    """A card whose YAML is the configs only, the same for every split."""
    configs = front_matter(folder / "README.md")["configs"]
    for config in configs:
        config.pop("description")
    (folder / "README.md").write_text(f"---\n{yaml.safe_dump({'configs': configs})}---\n")


def test_two_splits_named_v1_never_share_a_cache_entry(tmp_path, load_dataset):
    """datasets caches a folder under its name and a hash of its YAML: two folders named v1 with
    the same YAML share an entry. The cards' YAML carries the content fingerprint."""
    mini = lookup("pushgen-mini")
    for name, recipe, spec in (("pushgen-mini", mini.make_recipe(), mini.make_spec()),
                               ("pushgen", make_recipe(users=6, months=2, seed=3), SPEC)):
        source = write_dataset(Dataset.from_users(recipe, list(simulate(recipe))), tmp_path / f"{name}-data")
        (tmp_path / name).mkdir()
        make_split(source, tmp_path / name / "v1", spec, name=name, version="v1", describe=write_metadata)
    rows = {}
    for name in ("pushgen", "pushgen-mini"):  # the full split first, then the mini one
        folder = tmp_path / name / "v1"
        rows[name] = load_dataset(folder)["train"].num_rows
        assert rows[name] == description_of(folder)["parts"]["task1/train"]["rows"]
    assert rows["pushgen"] != rows["pushgen-mini"]

    # the hazard: identical YAML, so the second folder gets the first one's rows
    stale = tmp_path / "stale"
    for name in ("pushgen", "pushgen-mini"):
        shutil.copytree(tmp_path / name / "v1", stale / name / "v1")
        bare_card(stale / name / "v1")
    assert load_dataset(stale / "pushgen" / "v1")["train"].num_rows == rows["pushgen"]
    assert load_dataset(stale / "pushgen-mini" / "v1")["train"].num_rows == rows["pushgen"]

    # other content of the same sizes: the YAML differs in the fingerprint only, and loads fresh
    shutil.copytree(tmp_path / "pushgen" / "v1", tmp_path / "other" / "v1")
    flip_actions(tmp_path / "other" / "v1")
    before, after = (description_of(tmp_path / f / "v1")["fingerprint"] for f in ("pushgen", "other"))
    yaml_before = (tmp_path / "pushgen" / "v1" / "README.md").read_text().split("\n---\n")[0]
    yaml_after = (tmp_path / "other" / "v1" / "README.md").read_text().split("\n---\n")[0]
    assert before != after and yaml_after != yaml_before and yaml_after.replace(after, before) == yaml_before
    original = load_dataset(tmp_path / "pushgen" / "v1")["train"]
    flipped = load_dataset(tmp_path / "other" / "v1")["train"]
    assert flipped.num_rows == original.num_rows
    opened = original.features["action"].str2int("opened")
    assert [a == opened for a in flipped["action"]] == [a != opened for a in original["action"]]
