"""Damaged inputs and failing disks: one line naming the file and what is wrong, exit code 2
(``validate``: 1), no traceback, nothing written. Hypothesis damages copies of a dataset made by
``pushgen make`` and of its split made by ``pushgen split`` (see ``fault_cases``)."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from fault_cases import (
    BYTE_DAMAGE,
    JSON_VALUES,
    Damage,
    all_files,
    check,
    damaged_copy,
    dataset_commands,
    description_name,
    json_paths,
    listed_files,
    made_folders,
    run_cli,
    split_commands,
    submission_for,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pushgen
from pushgen import schemas
from pushgen.data.dataset import DatasetError
from pushgen.data.outputs import leftovers, sha256_file
from pushgen.model.priors import BETA_MEANS, BOUNDS

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
SPLIT_ARGS = ["--train-months", "1", "--test-months", "1", "--validation-weeks", "1"]


def damages(folder) -> st.SearchStrategy[Damage]:
    """Any byte damage to any file of ``folder``, or any edit of any value of its description."""
    description = description_name(folder)
    paths = json_paths(json.loads((folder / description).read_text()))
    values = st.one_of(st.sampled_from(JSON_VALUES), st.integers(-10**6, 10**6), st.text(max_size=6))
    return st.one_of(
        st.builds(Damage, kind=st.sampled_from(BYTE_DAMAGE), file=st.sampled_from(all_files(folder)),
                  at=st.floats(0, 0.999), mask=st.integers(1, 255)),
        st.builds(Damage, kind=st.just("json-drop"), file=st.just(description), path=st.sampled_from(paths)),
        st.builds(Damage, kind=st.just("json-set"), file=st.just(description), path=st.sampled_from(paths),
                  value=values),
        st.just(Damage("json-invalid", description)),
    )


@pytest.fixture(scope="module")
def folders():
    return made_folders()


@SETTINGS
@given(data=st.data())
def test_damaged_dataset_folders_meet_the_standard_in_every_reading_command(folders, data):
    dataset, _ = folders
    damage = data.draw(damages(dataset), label="damage")
    command = data.draw(st.sampled_from(dataset_commands()), label="command")
    assert check(command, dataset, damage) is None


@SETTINGS
@given(data=st.data())
def test_damaged_split_folders_meet_the_standard_in_every_reading_command(folders, data):
    _, split = folders
    damage = data.draw(damages(split), label="damage")
    command = data.draw(st.sampled_from(split_commands(split, benchmark=False)), label="command")
    assert check(command, split, damage) is None


@pytest.mark.parametrize("damage", [Damage("truncate", "split.json"), Damage("json-invalid", "split.json")],
                         ids=str)
def test_benchmark_on_a_damaged_split_is_one_line(folders, damage):
    _, split = folders
    [benchmark] = [c for c in split_commands(split) if c.name == "pushgen benchmark"]
    assert check(benchmark, split, damage) is None


def test_validate_of_a_table_whose_footer_is_no_longer_utf8_is_one_line(folders):
    """A byte flipped in the middle of users.parquet lands in its footer's column names: reading
    them raised UnicodeDecodeError out of ``pushgen validate`` (scripts/reliability.py --cases 0)."""
    dataset, _ = folders
    [validate] = [command for command in dataset_commands() if command.name == "pushgen validate"]
    assert check(validate, dataset, Damage("flip", "users.parquet")) is None


def test_every_listed_file_of_the_folders_is_damaged_by_the_cases(folders):
    dataset, split = folders
    for folder in (dataset, split):
        assert listed_files(folder) and set(listed_files(folder)) < set(all_files(folder))


def error_of(args) -> str:
    outcome = run_cli(args)
    assert outcome.code == 2 and not outcome.escaped, outcome.escaped or outcome.err
    assert len(outcome.error_lines) == 1 and "Traceback" not in outcome.err, outcome.err
    return outcome.err


def test_split_of_a_truncated_table_names_it(folders):
    with damaged_copy(folders[0]) as (dataset, scratch):
        os.truncate(dataset / "notifications.parquet", 5000)
        error = error_of(["split", str(dataset), *SPLIT_ARGS, "--out", str(scratch / "out")])
        assert "notifications.parquet has 5,000 bytes; manifest.json says" in error
        assert sorted(p.name for p in scratch.iterdir()) == ["copy"]


def test_split_of_a_missing_table_names_it(folders):
    with damaged_copy(folders[0]) as (dataset, scratch):
        (dataset / "ground_truth" / "engagement_rows.parquet").unlink()
        error = error_of(["split", str(dataset), *SPLIT_ARGS, "--out", str(scratch / "out")])
        assert "ground_truth/engagement_rows.parquet is missing" in error


@pytest.mark.parametrize(("edit", "message"), [
    (lambda m: m.pop("recipe"), "manifest.json has no recipe"),
    (lambda m: m["recipe"].update(users=-3), "the recipe's users must be a whole number; got -3"),
    (lambda m: m["recipe"].pop("start"), "the recipe's start must be a YYYY-MM-DD date; got None"),
    (lambda m: m["rows"].update(users=-3), "'rows' must give a row count of at least 0"),
])
def test_split_refuses_a_manifest_it_cannot_trust(folders, edit, message):
    with damaged_copy(folders[0]) as (dataset, scratch):
        manifest = json.loads((dataset / "manifest.json").read_text())
        edit(manifest)
        (dataset / "manifest.json").write_text(json.dumps(manifest))
        assert message in error_of(["split", str(dataset), *SPLIT_ARGS, "--out", str(scratch / "out")])
        assert not (scratch / "out").exists()


def test_split_refuses_a_table_cut_short_even_with_its_checksum_updated(folders):
    with damaged_copy(folders[0]) as (dataset, scratch):
        path = dataset / "notifications.parquet"
        pq.write_table(pq.read_table(path).slice(0, 100), path)
        manifest = json.loads((dataset / "manifest.json").read_text())
        entry = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        manifest["files"]["notifications.parquet"] = entry
        (dataset / "manifest.json").write_text(json.dumps(manifest))
        error = error_of(["split", str(dataset), *SPLIT_ARGS, "--out", str(scratch / "out")])
        rows = manifest["rows"]["notifications"]
        assert f"notifications.parquet has 100 rows; manifest.json says {rows:,}" in error


@pytest.mark.parametrize("content", ["{", "[]", "[1, 2]", '"text"', ""])
def test_evaluate_and_load_split_on_a_broken_split_json(folders, content):
    _, split = folders
    with damaged_copy(split) as (copy, _):
        (copy / "split.json").write_text(content)
        error = error_of(["evaluate", "--split", str(copy), "--submission", str(submission_for(split))])
        assert f"{copy / 'split.json'}" in error
        with pytest.raises(DatasetError, match=r"split\.json"):
            pushgen.load_split(copy)


def test_describe_of_a_manifest_that_is_a_list(folders):
    with damaged_copy(folders[0]) as (dataset, _):
        (dataset / "manifest.json").write_text("[1, 2, 3]")
        error = error_of(["describe", str(dataset)])
        assert "manifest.json is not a JSON object (it holds an array)" in error


def test_validate_names_a_file_it_cannot_read(folders, monkeypatch):
    """Root reads any file whatever its mode, so the refusal is simulated where the file is opened."""
    import pushgen.data.folder_entries

    real = pushgen.data.folder_entries.sha256_file

    def refuse(path):
        if path.name == "users.parquet":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path)

    monkeypatch.setattr(pushgen.data.folder_entries, "sha256_file", refuse)
    with damaged_copy(folders[0]) as (dataset, _):
        outcome = run_cli(["validate", str(dataset)])
        assert outcome.code == 1 and not outcome.escaped and "Traceback" not in outcome.err
        assert "users.parquet: cannot read (Permission denied)" in outcome.out
        assert outcome.error_lines == [f"invalid: {dataset} (1 problem)"]


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def disk_full(monkeypatch):
    monkeypatch.setattr(pq.ParquetWriter, "write_table", full_disk)
    monkeypatch.setattr(pq, "write_table", full_disk)


def test_a_full_disk_during_make_is_named_and_nothing_stays(tmp_path, disk_full):
    out = tmp_path / "d"
    error = error_of(["make", "--users", "2", "--days", "3", "--out", str(out)])
    assert f"no space left on the device while writing {out}; nothing was written" in error
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_during_split_is_named_and_nothing_stays(folders, disk_full):
    with damaged_copy(folders[0]) as (dataset, scratch):
        out = scratch / "out"
        error = error_of(["split", str(dataset), *SPLIT_ARGS, "--out", str(out)])
        assert f"no space left on the device while writing {out}" in error
        assert sorted(p.name for p in scratch.iterdir()) == ["copy"] and not leftovers(out)


def test_a_full_disk_during_download_regenerate_is_named_and_nothing_stays(tmp_path, disk_full):
    error = error_of(["download", "pushgen-mini-v4", "--regenerate", "--cache", str(tmp_path / "cache")])
    assert "no space left on the device while writing" in error
    assert list(tmp_path.iterdir()) == []


def test_generate_takes_numpy_whole_numbers_and_names_a_start_that_is_not_a_date():
    assert pushgen.generate(users=np.int64(1), days=np.int32(2), seed=np.uint8(3)).recipe.users == 1
    with pytest.raises(pushgen.GenerationError, match=r"start must be a date or YYYY-MM-DD text, e\.g\. "
                                                      r"2026-01-05; got 123"):
        pushgen.generate(users=1, days=2, start=123)
    with pytest.raises(pushgen.GenerationError, match="users must be a whole number from 1 to"):
        pushgen.generate(users=np.float64(2.0), days=2)


@pytest.mark.parametrize("source", [None, 3, ["a"], ""])
def test_load_split_names_a_source_that_is_not_a_split(source):
    with pytest.raises(DatasetError, match="a split is a standard split's name or a split folder; got"):
        pushgen.load_split(source)


def test_split_of_a_days_dataset_says_how_many_days_it_covers(tmp_path):
    assert run_cli(["make", "--users", "1", "--days", "20", "--out", str(tmp_path / "d")]).code == 0
    error = error_of(["split", str(tmp_path / "d"), "--out", str(tmp_path / "s")])
    assert ("the dataset covers 20 days, less than the 2 calendar months a split needs "
            "(one of training, one of test)") in error
    error = error_of(["split", str(tmp_path / "d"), "--out", str(tmp_path / "s"), "--train-months", "3",
                      "--test-months", "3"])
    assert "the dataset covers 20 days; --train-months + --test-months = 6 months do not fit" in error


def test_split_of_a_file_in_a_dataset_says_it_is_not_a_folder(tmp_path):
    # not that the default --out beside it would be inside the dataset
    assert run_cli(["make", "--users", "1", "--days", "2", "--out", str(tmp_path / "d")]).code == 0
    table = tmp_path / "d" / "notifications.parquet"
    assert error_of(["split", str(table)]) == f"pushgen split: error: {table} is not a folder\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_the_docs_give_the_inbox_actions_as_the_code_does():
    from pushgen.envs.spaces import DISMISSED, OPENED

    readme = (Path(__file__).resolve().parents[1] / "docs" / "environments" / "index.md").read_text()
    found = re.search(r"predict open \((?:action )?(\d)\) or dismiss \((?:action )?(\d)\)", readme)
    assert found is not None
    assert (int(found[1]), int(found[2])) == (OPENED, DISMISSED)
    assert schemas.values("action")[OPENED] == "opened" and schemas.values("action")[DISMISSED] == "dismissed"


@pytest.mark.parametrize(("change", "message"), [
    ({"users": -3}, "users must be a whole number from 1 to"),
    ({"days": 0}, "days must be a whole number from 1 to"),
    ({"seed": 1.5}, "seed must be a whole number from 0 to"),
    ({"start": "2026-01-05"}, "start must be a date; got '2026-01-05'"),
    ({"priors": {"wake_hour_mean": 7.0}}, "priors must be a pushgen.model.priors.Priors; got dict"),
])
def test_a_recipe_checks_itself(change, message):
    import datetime as dt

    from pushgen.data.generator import Recipe

    fields = {"users": 2, "days": 3, "start": dt.date(2026, 1, 5), "seed": 0, **change}
    with pytest.raises(pushgen.GenerationError, match=message):
        Recipe(**fields)


@pytest.mark.parametrize("priors", [{}, [], 0, ()])
def test_generate_refuses_empty_priors_that_are_not_priors(priors):
    refusal = rf"^priors must be a pushgen\.model\.priors\.Priors; got {type(priors).__name__}$"
    with pytest.raises(pushgen.GenerationError, match=refusal):
        pushgen.generate(users=1, days=1, priors=priors)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(BOUNDS)),
       value=st.one_of(st.floats(allow_nan=True), st.text(max_size=3), st.none(), st.booleans()))
def test_priors_refuse_values_outside_their_range_in_one_line(name, value):
    from pushgen.model.priors import Priors, PriorsError

    low, high = BOUNDS[name]
    valid = isinstance(value, float) and (low < value < high if name in BETA_MEANS else low <= value <= high)
    if valid:
        assert getattr(Priors(**{name: value}), name) == value
        return
    with pytest.raises(PriorsError, match=rf"^priors\.{name} must be a number "
                                          rf"(from .* to .*|above .* and below .*); got ") as error:
        Priors(**{name: value})
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_prior_generates_at_both_ends_of_what_it_allows(name):
    from pushgen.model.priors import Priors

    low, high = BOUNDS[name]
    ends = (low + 1e-6, high - 1e-6) if name in BETA_MEANS else (low, high)
    for value in ends:
        dataset = pushgen.generate(users=2, days=5, seed=1, priors=Priors(**{name: value}))
        assert dataset.users_arrow.num_rows == 2
