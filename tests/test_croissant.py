"""croissant.json of split and dataset folders: valid for mlcroissant, complete, deterministic."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import logging
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pushgen
from pushgen import schemas
from pushgen.cli import main
from pushgen.data.build import building
from pushgen.data.dataset import read_manifest
from pushgen.data.generator import make_recipe
from pushgen.data.outputs import sha256_file
from pushgen.data.writer import write_dataset
from pushgen.publishing.croissant import CONFORMS_TO, croissant, dataset_croissant
from pushgen.publishing.standard import write_dataset_metadata, write_metadata
from pushgen.splits import SplitSpec, make_split

mlc = pytest.importorskip("mlcroissant")
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib"),
              pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """A split folder and `pushgen make` output: one file per table, partitioned, and CSV."""
    root = tmp_path_factory.mktemp("croissant")
    recipe = make_recipe(users=3, days=40, seed=8)
    out = {}
    for name, options in (("single", {}), ("parts", {"partitioned": True, "bucket_users": 2}),
                          ("csv", {"fmt": "csv"})):
        with building(recipe, root / name, **options) as built:
            write_dataset_metadata(built)
        out[name] = root / name
    source = write_dataset(pushgen.generate(users=4, months=2, seed=9), root / "dataset")
    out["split"] = make_split(source, root / "split", SplitSpec(1, 1, 1, 1), name="pushgen-test",
                              version="v2", describe=write_metadata)
    return out


KINDS = ("split", "single", "parts", "csv")


def document(folder: Path) -> dict:
    return json.loads((folder / "croissant.json").read_text())


@pytest.mark.parametrize("kind", KINDS)
def test_mlcroissant_validates_it_without_errors_or_warnings(folders, kind, caplog):
    with caplog.at_level(logging.WARNING):
        dataset = mlc.Dataset(jsonld=folders[kind] / "croissant.json")
    assert dataset.metadata.ctx.issues.errors == set()
    assert dataset.metadata.ctx.issues.warnings == set()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert document(folders[kind])["conformsTo"] == CONFORMS_TO


@pytest.mark.parametrize("kind", KINDS)
def test_every_file_is_described_with_its_size_and_sha256(folders, kind):
    folder = folders[kind]
    distribution = document(folder)["distribution"]
    objects = {d["@id"]: d for d in distribution if d["@type"] == "cr:FileObject"}
    covered = set(objects)
    for file_set in (d for d in distribution if d["@type"] == "cr:FileSet"):
        covered |= {p.relative_to(folder).as_posix() for p in folder.glob(file_set["includes"])}
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
               if p.is_file() and p.name != "croissant.json"}
    assert covered == on_disk
    for name, entry in objects.items():
        assert entry["sha256"] == sha256_file(folder / name), name
        assert entry["contentSize"] == f"{(folder / name).stat().st_size} B"
    assert any(d["@type"] == "cr:FileSet" for d in distribution) == (kind == "parts")


def test_a_split_has_a_record_set_per_table_of_split_json(folders):
    folder = folders["split"]
    description = json.loads((folder / "split.json").read_text())
    record_sets = {r["@id"]: r for r in document(folder)["recordSet"] if not r["@id"].startswith("values/")}
    tables = {path.removesuffix(".parquet") for path in description["files"] if path.endswith(".parquet")}
    assert set(record_sets) == tables and set(description["parts"]) <= tables
    for name, record_set in record_sets.items():
        columns = pq.read_schema(folder / f"{name}.parquet").names
        assert [f["name"] for f in record_set["field"]] == columns
        for field in record_set["field"]:
            assert field["source"] == {"fileObject": {"@id": f"{name}.parquet"},
                                       "extract": {"column": field["name"]}}
        assert ("Answer key (scorer/)" in record_set["description"]) == name.startswith("scorer/")
    assert "scorer/ is the answer key" in document(folder)["description"]


@pytest.mark.parametrize("kind", KINDS)
def test_categoricals_reference_their_published_value_sets(folders, kind):
    record_sets = {r["@id"]: r for r in document(folders[kind])["recordSet"]}
    referenced = set()
    for record_set in record_sets.values():
        for field in record_set["field"]:
            spec = schemas.fields().get(field["name"])
            if record_set["@id"].startswith("values/") or spec is None:
                assert "references" not in field
                continue
            expected = {"string": "sc:Text", "boolean": "sc:Boolean", "integer": "sc:Integer",
                        "number": "sc:Float"}[spec.type]
            assert field["dataType"] == expected, field["@id"]
            if spec.values is None or spec.type == "boolean":
                assert "references" not in field
                continue
            assert field["references"] == {"field": {"@id": f"values/{spec.name}/value"}}
            referenced.add(spec.name)
    assert {"postingApp", "place", "action", "day"} <= referenced
    for name in referenced:
        value_set = record_sets[f"values/{name}"]
        assert value_set["dataType"] == "sc:Enumeration"
        assert [row[f"values/{name}/value"] for row in value_set["data"]] == list(schemas.values(name))
        codes = [row[f"values/{name}/code"] for row in value_set["data"]]
        assert codes == list(range(len(schemas.values(name))))
    assert set(referenced) == {r.removeprefix("values/") for r in record_sets if r.startswith("values/")}


@pytest.mark.parametrize("kind", KINDS)
def test_date_published_is_the_last_simulated_day_and_the_file_is_reproducible(folders, kind):
    folder = folders[kind]
    listing = json.loads((folder / "split.json").read_text()) if kind == "split" else read_manifest(folder)
    recipe = listing["recipe"]
    last = dt.date.fromisoformat(recipe["start"]) + dt.timedelta(days=recipe["days"] - 1)
    assert document(folder)["datePublished"] == last.isoformat()
    again = croissant(folder) if kind == "split" else dataset_croissant(folder)
    assert json.dumps(again, indent=1) + "\n" == (folder / "croissant.json").read_text()


def test_versions(folders):
    assert document(folders["split"])["version"] == "2.0.0"
    assert document(folders["single"])["version"] == read_manifest(folders["single"])["pushgen_version"]


def test_mlcroissant_reads_the_records_as_the_files_hold_them(folders):
    dataset = mlc.Dataset(jsonld=folders["parts"] / "croissant.json")
    first = next(iter(dataset.records(record_set="notifications")))
    table = pq.read_table(folders["parts"] / "notifications" / "part-00000.parquet").to_pylist()[0]
    assert first["notifications/notification_id"] == table["notification_id"]
    assert first["notifications/postingApp"].decode() == table["postingApp"]
    split = mlc.Dataset(jsonld=folders["split"] / "croissant.json")
    users = list(itertools.islice(split.records(record_set="users"), 10))
    assert [u["users/user_id"] for u in users] == pq.read_table(folders["split"] / "users.parquet").column(
        "user_id").to_pylist()


def test_pushgen_make_and_split_write_a_valid_croissant_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["make", "--users", "2", "--months", "2", "--out", "d"]) == 0
    assert main(["split", "d", "--train-months", "1", "--test-months", "1"]) == 0
    for folder in (tmp_path / "d", tmp_path / "d-split"):
        issues = mlc.Dataset(jsonld=folder / "croissant.json").metadata.ctx.issues
        assert (issues.errors, issues.warnings) == (set(), set()), folder
    assert "croissant.json" not in read_manifest(tmp_path / "d")["files"]
    assert main(["make", "--users", "2", "--months", "2", "--out", "again"]) == 0
    first, again = ((tmp_path / name / "croissant.json").read_bytes() for name in ("d", "again"))
    assert again == first
