from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen.data.build import make_dataset
from pushgen.data.dataset import read_dataset
from pushgen.data.engines import EngineError, buckets
from pushgen.data.fingerprint import Fingerprint, fingerprint, user_digests
from pushgen.data.generator import make_recipe

RECIPE = {"users": 7, "days": 12, "seed": 3}


def manifest(folder) -> dict:
    return json.loads((folder / "manifest.json").read_text())


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("scale") / "serial"
    make_dataset(make_recipe(**RECIPE), out, bucket_users=3, partitioned=True)
    return out


def test_partitioned_output_holds_the_same_rows_as_the_in_memory_dataset(serial):
    listed = manifest(serial)
    assert listed["layout"] == "partitioned"
    assert sorted(p.name for p in (serial / "notifications").iterdir()) == [
        "part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    in_memory = pushgen.generate(**RECIPE)
    assert listed["fingerprints"]["notifications"] == fingerprint(in_memory.notifications_arrow)
    assert listed["fingerprints"]["engagement_rows"] == fingerprint(in_memory.truth_rows_arrow)
    back = read_dataset(serial)
    assert back.notifications.equals(in_memory.notifications)
    assert (back.parameters.user_ids == in_memory.parameters.user_ids).all()


@pytest.mark.parametrize("jobs", [2, 3])
def test_several_processes_write_the_same_bytes(serial, tmp_path, jobs):
    out = tmp_path / "shared"
    make_dataset(make_recipe(**RECIPE), out, jobs=jobs, bucket_users=3, partitioned=True)
    assert manifest(out)["files"] == manifest(serial)["files"]
    assert manifest(out)["fingerprints"] == manifest(serial)["fingerprints"]


def test_a_local_dask_cluster_writes_the_same_bytes(serial, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "dask"
    make_dataset(make_recipe(**RECIPE), out, jobs=2, engine="dask", bucket_users=3, partitioned=True)
    assert manifest(out)["files"] == manifest(serial)["files"]


def test_cli_jobs_and_engine_give_identical_fingerprints(tmp_path):
    prints = []
    for extra in ([], ["--jobs", "2"]):
        out = tmp_path / f"d{len(extra)}"
        done = subprocess.run([sys.executable, "-m", "pushgen", "make", "--users", "3", "--days", "4",
                               "--out", str(out), *extra], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        prints.append(manifest(out)["fingerprints"])
    assert prints[0] == prints[1]


def test_buckets_arrive_in_user_order_with_a_bounded_window():
    recipe = make_recipe(users=5, days=2)
    assert [b.user_ids for b in buckets(recipe, jobs=2, size=2)] == [[0, 1], [2, 3], [4]]


def test_unknown_engine_and_unreachable_scheduler_are_clear_errors(tmp_path):
    with pytest.raises(EngineError, match="engine 'spark' is not one of local, dask"):
        list(buckets(make_recipe(users=1, days=1), engine="spark"))
    done = subprocess.run([sys.executable, "-m", "pushgen", "make", "--users", "1", "--days", "1",
                           "--scheduler", "tcp://127.0.0.1:9"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 2
    assert "--scheduler goes with --engine dask" in done.stderr


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.tuples(st.integers(0, 3), st.text(max_size=6), st.integers(-5, 5), st.booleans(),
                              st.none() | st.integers(-5, 5), st.none() | st.floats(allow_nan=False),
                              st.lists(st.integers(0, 9), max_size=3)),
                    min_size=1, max_size=30),
    cut=st.integers(0, 30),
)
def test_a_fingerprint_does_not_depend_on_how_rows_are_chunked(values, cut):
    values = sorted(values, key=lambda v: v[0])
    table = pa.table({
        "user_id": pa.array([v[0] for v in values], pa.int32()),
        "text": [v[1] for v in values],
        "code": pa.array([v[1][:1] for v in values]).dictionary_encode(),
        "number": [v[2] for v in values],
        "flag": [v[3] for v in values],
        "maybe": pa.array([v[4] for v in values], pa.int64()),
        "measure": pa.array([v[5] for v in values], pa.float64()),
        "items": pa.array([v[6] for v in values], pa.list_(pa.int16())),
    })
    cut = min(cut, table.num_rows)
    # integers with nulls are hashed as NumPy gives them (floats where the rows hashed together hold a
    # null), lists as all lengths then all values of the rows hashed together: cutting a user's rows
    # is only safe without them
    chunked = table.drop_columns(["maybe", "items"])
    whole = fingerprint(chunked)
    assert Fingerprint().update(chunked.slice(0, cut)).update(chunked.slice(cut)).hexdigest() == whole
    assert Fingerprint().add_digests(user_digests(chunked)).hexdigest() == whole
    assert fingerprint(chunked.slice(1)) != whole
    assert Fingerprint().add_digests(user_digests(table)).hexdigest() == fingerprint(table)
    # a user's digest is that of the user's rows alone, whatever the rows around them
    users = table.column("user_id").to_pylist()
    for user, digest in user_digests(table):
        start = users.index(user)
        alone = table.slice(start, users.count(user))
        assert user_digests(pa.Table.from_pylist(alone.to_pylist(), schema=table.schema)) == [(user, digest)]


def test_the_card_describes_every_user_of_a_small_dataset_and_a_sample_of_a_large_one(tmp_path):
    from pushgen.data.build import building
    from pushgen.publishing.standard import write_dataset_metadata

    recipe = make_recipe(users=5, days=6, seed=2)
    with building(recipe, tmp_path / "small", bucket_users=2) as built:
        write_dataset_metadata(built)
    assert "statistics below describe" not in (tmp_path / "small" / "README.md").read_text()
    with building(recipe, tmp_path / "large", bucket_users=2, partitioned=True) as built:
        write_dataset_metadata(built)
    assert "The statistics below describe the first 2 users" in (
        tmp_path / "large" / "README.md").read_text()


def test_a_partitioned_dataset_splits_like_a_single_file_one(tmp_path):
    from pushgen.data.writer import write_dataset
    from pushgen.publishing.access import load_split
    from pushgen.splits import SplitSpec, make_split

    spec = SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=2)
    recipe = make_recipe(users=5, months=2, seed=4)
    make_dataset(recipe, tmp_path / "parts", bucket_users=2, partitioned=True)
    write_dataset(pushgen.generate(users=5, months=2, seed=4), tmp_path / "single")
    for name in ("parts", "single"):
        make_split(tmp_path / name, tmp_path / f"{name}-split", spec)
    a = json.loads((tmp_path / "parts-split" / "split.json").read_text())
    b = json.loads((tmp_path / "single-split" / "split.json").read_text())
    assert a["fingerprints"] == b["fingerprints"]
    assert len(load_split(tmp_path / "parts-split", task=2).test) == a["parts"]["task2/test"]["rows"]
