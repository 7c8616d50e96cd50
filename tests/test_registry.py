from __future__ import annotations

import dataclasses
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pushgen
from pushgen.cli import main
from pushgen.data.dataset import DatasetError
from pushgen.publishing import registry
from pushgen.publishing.croissant import croissant, write_croissant
from pushgen.publishing.download import shipped_copy
from pushgen.publishing.registry import UnknownSplit, file_entries, list_splits, lookup
from pushgen.splits import SPLIT_FILE, combine_fingerprints, table_fingerprints

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
MINI_ENTRY = lookup("pushgen-mini-v4")
MINI_LIMIT = 1_750_000
GENERATED_LIMIT = 200_000_000  # four versions of the full split, kept as published


def test_the_standard_splits_are_registered():
    labels = [entry.label for entry in list_splits()]
    assert {"pushgen-v1", "pushgen-mini-v1", "pushgen-v2", "pushgen-mini-v2", "pushgen-v3",
            "pushgen-mini-v3", "pushgen-v4", "pushgen-mini-v4"} <= set(labels)
    assert pushgen.list_splits() == list_splits()
    for version, users, cold_start in (("v1", 60, 10), ("v2", 60, 10), ("v3", 60, 10), ("v4", 80, 30)):
        full = lookup("pushgen", version)
        assert (full.users, full.cold_start_users, full.months) == (users, cold_start, 6)
        assert full.split == {"train_months": 3, "test_months": 3, "validation_weeks": 2,
                              "cold_start_users": cold_start}


@pytest.mark.parametrize(("older", "newer", "built_by"), [("v1", "v2", "0.1.0"), ("v2", "v3", "0.2.0"),
                                                          ("v3", "v4", "0.3.0")])
def test_each_version_supersedes_the_last_which_this_pushgen_refuses_to_regenerate(older, newer, built_by):
    for name in ("pushgen", "pushgen-mini"):
        old, new = lookup(name, older), lookup(name, newer)
        assert new.supersedes == old.label
        assert new.engagement_model == old.engagement_model + 1
        assert registry.superseded_by(old.label) == new
        current = lookup(name)  # the advice names the version this pushgen regenerates and scores
        with pytest.raises(DatasetError, match=f"{old.label} was simulated with engagement model "
                                               f"{old.engagement_model}; .*use {current.label}, which "
                                               f"supersedes it, or install pushgen {built_by}, which built "
                                               rf"it \(the repository at {old.revision[:12]}\)"):
            old.make_recipe()
    assert lookup("pushgen-v1").supersedes is None


def test_loading_a_split_of_an_older_model_for_scoring_names_its_successor_and_release():
    from pushgen.replay.parts import load_part

    with pytest.raises(DatasetError, match="pushgen-mini-v1 was simulated with engagement model 1 "
                                                   "and this pushgen scores model 4: use pushgen-mini-v4"):
        load_part("pushgen-mini-v1", 2)
    with pytest.raises(DatasetError, match=re.escape(
            "pushgen-mini-v2 was simulated with engagement model 2 and this pushgen scores model 4: use "
            "pushgen-mini-v4, which supersedes it, or install pushgen 0.2.0, which built it (the repository "
            "at 18a5f4cf9ccd)")):
        load_part("pushgen-mini-v2", 1)
    for task in (1, 2):
        with pytest.raises(DatasetError, match=re.escape(
                "pushgen-mini-v3 was simulated with engagement model 3 and this pushgen scores model 4: use "
                "pushgen-mini-v4, which supersedes it, or install pushgen 0.3.0, which built it (the "
                "repository at 5e065af05207)")):
            load_part("pushgen-mini-v3", task)
    with pytest.raises(DatasetError, match=re.escape(
            "pushgen-v3 was simulated with engagement model 3 and this pushgen scores model 4: use "
            "pushgen-v4, which supersedes it, or install pushgen 0.3.0, which built it")):
        load_part("pushgen-v3", 1)


@pytest.mark.parametrize("entry", list_splits(), ids=lambda e: e.label)
def test_registry_matches_the_committed_folder(entry):
    folder = GENERATED / entry.name / entry.version
    assert file_entries(folder) == entry.files, "rebuild with python scripts/build_standard_splits.py"
    description = json.loads((folder / SPLIT_FILE).read_text())
    assert description["fingerprint"] == entry.fingerprint
    assert (description["name"], description["version"]) == (entry.name, entry.version)
    assert description["recipe"] == entry.recipe and description["split"] == entry.split
    assert {p: v["rows"] for p, v in description["parts"].items()} == entry.rows


def test_fingerprints_recomputed_from_the_committed_mini_files():
    entry = lookup("pushgen-mini-v4")
    fingerprints = table_fingerprints(GENERATED / "pushgen-mini" / "v4")
    assert fingerprints == entry.fingerprints
    assert combine_fingerprints(fingerprints) == entry.fingerprint


def test_registry_records_the_recipe_and_environment():
    entry = lookup("pushgen-mini-v4")
    assert entry.make_recipe().to_dict() == entry.recipe
    assert entry.recipe["seed"] == 2029 and "priors" in entry.recipe
    assert entry.pushgen_version
    assert set(entry.environment) >= {"python", "numpy", "pyarrow", "faker"}
    assert "not installed" not in entry.environment.values()


def test_generated_stays_small():
    assert lookup("pushgen-mini-v4").bytes < MINI_LIMIT
    total = sum(p.stat().st_size for p in GENERATED.rglob("*") if p.is_file())
    assert total < GENERATED_LIMIT


def test_mini_ships_inside_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]
    for version in ("v1", "v2", "v3", "v4"):
        assert config["wheel"]["force-include"][f"generated/pushgen-mini/{version}"] == \
            f"pushgen/_standard/pushgen-mini/{version}"
        assert shipped_copy(lookup("pushgen-mini", version)) is not None
    assert "/generated/pushgen-mini" in config["sdist"]["include"]  # anchored at the root


@pytest.mark.parametrize(("text", "version", "label"), [
    ("pushgen-v1", None, "pushgen-v1"),
    ("pushgen", "v1", "pushgen-v1"),
    ("pushgen", None, "pushgen-v4"),
    ("pushgen-mini-v1", None, "pushgen-mini-v1"),
    ("pushgen-mini", None, "pushgen-mini-v4"),
    ("pushgen-mini-v1", "v1", "pushgen-mini-v1"),
    ("pushgen", "3", "pushgen-v3"),
    ("pushgen-v4", "4", "pushgen-v4"),
])
def test_a_split_can_be_named_in_either_spelling(text, version, label):
    assert lookup(text, version).label == label


def test_unknown_names_and_versions_list_what_exists():
    with pytest.raises(UnknownSplit, match="no standard split named 'nope'; standard splits: "
                                           "pushgen-v1, pushgen-v2, pushgen-v3, pushgen-v4, pushgen-mini-v1, "
                                           "pushgen-mini-v2, pushgen-mini-v3, pushgen-mini-v4"):
        lookup("nope")
    with pytest.raises(UnknownSplit, match=r"pushgen has no version 'v9'; versions: v1, v2, v3, v4"):
        lookup("pushgen-v9")
    with pytest.raises(UnknownSplit, match="pushgen-mini has no version 'v5'; versions: v1, v2, v3, v4"):
        lookup("pushgen-mini", "v5")
    with pytest.raises(UnknownSplit, match="names version v1 but --version is v2"):
        lookup("pushgen-v1", "v2")


@given(st.text(min_size=1, max_size=30))
def test_any_other_text_is_refused_with_the_list(text):
    known = {e.label for e in list_splits()} | {e.name for e in list_splits()}
    if text in known:
        return
    with pytest.raises(UnknownSplit) as error:
        lookup(text)
    assert "pushgen-v1" in str(error.value) or "versions: v1" in str(error.value)


names = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z][a-z0-9]{0,6}){0,2}", fullmatch=True)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, versions=st.sets(st.integers(1, 30), min_size=1, max_size=5))
def test_latest_version_and_combined_spelling(monkeypatch_registry, name, versions):
    entries = tuple(dataclasses.replace(MINI_ENTRY, name=name, version=f"v{n}") for n in versions)
    monkeypatch_registry(entries)
    assert lookup(name).version == f"v{max(versions)}"
    for n in versions:
        assert lookup(f"{name}-v{n}") == lookup(name, f"v{n}")
        assert lookup(f"{name}-v{n}").version == f"v{n}"


@pytest.fixture
def monkeypatch_registry():
    original = registry.load_registry

    def install(entries):
        registry.load_registry = lambda: entries

    yield install
    registry.load_registry = original


def test_list_command_shows_every_split(capsys, tmp_path):
    assert main(["list", "--cache", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["SPLIT", "VERSION", "USERS", "COLD-START", "MONTHS", "SIZE", "AT", "HAND",
                                "STATUS"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    for entry in list_splits():
        assert rows[entry.label][:5] == [entry.label, entry.version, str(entry.users),
                                         str(entry.cold_start_users), str(entry.months)]
        assert rows[entry.label][5] == f"{entry.bytes / 1e6:.1f}"
    assert rows["pushgen-mini-v4"][-2:] in (["packaged", "current"], ["repository", "current"])
    assert " ".join(rows["pushgen-v1"][-3:]) == "superseded by pushgen-v2"
    assert " ".join(rows["pushgen-mini-v3"][-3:]) == "superseded by pushgen-mini-v4"


def test_a_split_that_claims_a_standard_name_must_hold_its_content(tmp_path, capsys):
    copy = tmp_path / "mine"
    shutil.copytree(shipped_copy(lookup("pushgen-mini", "v4")), copy)
    assert pushgen.load_split(copy).description["fingerprint"] == lookup("pushgen-mini", "v4").fingerprint
    described = json.loads((copy / SPLIT_FILE).read_text())
    described["version"] = "v3"  # the v4 content under the v3 label, described again in Croissant
    (copy / SPLIT_FILE).write_text(json.dumps(described))
    write_croissant(copy, croissant(copy))
    claim = (rf"^{re.escape(str(copy))} calls itself pushgen-mini-v3, but its content fingerprint "
             rf"{described['fingerprint'][:16]}\.\.\. is not the published "
             rf"{lookup('pushgen-mini', 'v3').fingerprint[:16]}\.\.\.: it is another split; give it a name "
             "of its own in split.json$")
    with pytest.raises(DatasetError, match=claim):
        pushgen.load_split(copy)
    assert main(["validate", str(copy)]) == 1
    assert re.fullmatch(claim, capsys.readouterr().out.strip())
    described["name"] = "mine"
    (copy / SPLIT_FILE).write_text(json.dumps(described))
    write_croissant(copy, croissant(copy))
    assert len(pushgen.load_split(copy).test) > 0  # a name of its own: any content is fine
