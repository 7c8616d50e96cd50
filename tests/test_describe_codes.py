"""The statistics computed on codes: an Arrow table's dictionary indices give what its pandas frame
gives, and each counting shortcut agrees with the plain computation it replaces."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen import schemas
from pushgen.data import describe_counts
from pushgen.data.describe import _kinds_of_apps, describe
from pushgen.data.describe_columns import TableColumns, coded_series
from pushgen.data.describe_counts import CrossCounts
from pushgen.data.describe_time import contrast, distinct, group_medians, median_or_none
from pushgen.data.equal_rows import EqualRows
from pushgen.model.catalog import app_catalog


@pytest.fixture(scope="module")
def generated() -> pushgen.Dataset:
    return pushgen.generate(users=4, days=30, seed=3)


def test_arrow_tables_give_the_statistics_of_their_pandas_frames(generated: pushgen.Dataset) -> None:
    from_arrow = describe(generated.notifications_arrow, generated.users_arrow)
    from_pandas = describe(generated.notifications, generated.users)
    assert json.dumps(from_arrow) == json.dumps(from_pandas)  # the same numbers to the last bit


def test_chunked_arrow_tables_give_the_same_statistics(generated: pushgen.Dataset) -> None:
    table = generated.notifications_arrow
    half = table.num_rows // 2
    chunked = pa.concat_tables([table.slice(0, half), table.slice(half)])
    assert chunked.column("postingApp").num_chunks == 2
    assert json.dumps(describe(chunked)) == json.dumps(describe(table))


VALUES = st.sampled_from(["msg", "email", "social", "not-a-category", None])


@settings(max_examples=60, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=40), st.integers(0, 3), st.booleans())
def test_arrow_codes_are_the_codes_of_the_schema_dtypes(values, split, as_dictionary) -> None:
    column = pa.array(values, pa.string())
    if as_dictionary:
        column = column.dictionary_encode()  # its own dictionary, in order of appearance
    chunks = [column.slice(0, min(split, len(values))), column.slice(min(split, len(values)))]
    table = pa.table({"category": pa.chunked_array(chunks, column.type)})
    expected = coded_series(schemas.apply_dtypes(table.to_pandas())["category"])
    got = TableColumns(table).coded("category")
    assert got.labels == expected.labels == schemas.field("category").values
    assert got.codes.tolist() == expected.codes.tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -0.0, 1.5, 1e-300])), max_size=60))
def test_medians_are_numpy_medians(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    expected = float(np.median(array)) if len(array) else None
    assert median_or_none(array) == expected


def test_group_medians_of_many_groups_and_few_rows() -> None:
    rng = np.random.default_rng(0)
    for groups, rows in ((1, 1), (24, 30), (30, 2_000), (3, 50_000)):
        group = rng.integers(0, groups, rows)
        values = rng.exponential(100.0, rows).astype(np.float32).astype(np.float64)
        expected = pd.Series(values).groupby(group).median().reindex(range(groups)).to_numpy()
        np.testing.assert_array_equal(group_medians(group, values, groups), expected)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_equal_rows_are_the_groups_of_a_groupby(data) -> None:
    rows = data.draw(st.integers(0, 60))
    users = data.draw(st.integers(1, 4))
    widths = data.draw(st.lists(st.integers(1, 8), min_size=1, max_size=24))  # up to 192 bits of codes
    user = np.sort(np.array(data.draw(st.lists(st.integers(0, users - 1), min_size=rows, max_size=rows)),
                            dtype=np.int64))
    columns = [np.array(data.draw(st.lists(st.integers(-1, width), min_size=rows, max_size=rows)),
                        dtype=np.int16) for width in widths]
    flag = np.array(data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows)), dtype=bool)
    groups = EqualRows.of(user, users, columns, flag)
    frame = pd.DataFrame({"user": user, **{f"c{i}": c for i, c in enumerate(columns)}, "flag": flag})
    expected = frame.groupby(["user", *[f"c{i}" for i in range(len(columns))]])["flag"].agg(["size", "sum"])
    expected = expected[expected["size"] > 1].reset_index()
    assert groups.size.tolist() == expected["size"].tolist()
    assert groups.flagged.tolist() == expected["sum"].tolist()
    assert groups.user.tolist() == expected["user"].tolist()


@pytest.mark.parametrize("max_cells", [1 << 22, 16])
def test_cross_counts_are_counts_per_value(monkeypatch, max_cells: int) -> None:
    monkeypatch.setattr(describe_counts, "MAX_CELLS", max_cells)  # 16: each column counted apart
    rng = np.random.default_rng(1)
    sizes = {"a": 3, "b": 7, "c": 2}
    columns = {name: (rng.integers(-1, size, 500), size) for name, size in sizes.items()}
    opened = rng.random(500) < 0.4
    counts = CrossCounts.of(columns, opened)
    assert len(counts.parts) == (1 if max_cells > 16 else 3)
    assert counts.total() == (500, int(opened.sum()))
    for name, (codes, size) in columns.items():
        rows, opens = counts.per_value(name)
        assert rows.tolist() == [int((codes == v).sum()) for v in range(size)]
        assert opens.tolist() == [int((opened & (codes == v)).sum()) for v in range(size)]


@given(st.lists(st.integers(-5, 5) | st.integers(-2**40, 2**40), max_size=40),
       st.sampled_from([np.int8, np.int32, np.int64, np.uint16, bool]))
def test_distinct_of_ordered_and_unordered_values_is_unique(values: list[int], dtype) -> None:
    array = np.array(values).astype(dtype) if values else np.array([], dtype=dtype)
    for ordered in (array, np.sort(array)):
        uniques, inverse = distinct(ordered)
        expected_uniques, expected_inverse = np.unique(ordered, return_inverse=True)
        assert uniques.tolist() == expected_uniques.tolist() and uniques.dtype == ordered.dtype
        assert inverse.tolist() == expected_inverse.reshape(-1).tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-3, 40), st.booleans()), min_size=1, max_size=80))
def test_contrast_counted_by_level_is_the_contrast_of_sorted_rows(rows) -> None:
    user, load, opened = (np.array(column) for column in zip(*rows, strict=True))
    by_level = contrast(load, opened, [user])  # integer loads: counted per group and level
    by_sorting = contrast(load.astype(np.float64), opened, [user])  # other loads: sorted
    assert by_level == by_sorting


APPS = ("com.google.android.gm", "com.tinder", "com.spotify.music", "not-an-app")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(APPS) | st.none(), st.booleans()), min_size=1, max_size=60))
def test_kind_counts_from_app_counts_are_the_counts_of_each_rows_kind(rows) -> None:
    app = np.array([APPS.index(name) if name is not None else -1 for name, _ in rows])
    opened = np.array([flag for _, flag in rows])
    kinds = _kinds_of_apps(APPS)
    per_app = CrossCounts.of({"postingApp": (app, len(APPS))}, opened).per_value("postingApp")
    rows_per_kind, opens_per_kind = kinds.per_kind(*per_app)
    catalog = app_catalog()
    kind_of = dict(zip(catalog.apps, catalog.kind_of_app.tolist(), strict=True))
    row_kind = np.array([kind_of.get(APPS[code], -1) if code >= 0 else -1 for code in app])
    kinds_range = range(len(catalog.kinds))
    assert rows_per_kind.tolist() == [int((row_kind == k).sum()) for k in kinds_range]
    assert opens_per_kind.tolist() == [int((opened & (row_kind == k)).sum()) for k in kinds_range]
    assert rows_per_kind.dtype == opens_per_kind.dtype == np.int64
