"""The statistics of any layout of a notifications table: an Arrow table (in one chunk or many) and a
pandas frame of plain values give what the frame with the schema's dtypes gives."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen.data.describe import describe
from pushgen.data.describe_time import contrast
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


def test_plain_values_give_the_statistics_of_the_schema_dtypes(generated: pushgen.Dataset) -> None:
    frame = generated.notifications
    text = [name for name in frame.columns if isinstance(frame[name].dtype, pd.CategoricalDtype)]
    plain = frame.astype(dict.fromkeys(text, str))
    shuffled = plain.sample(frac=1.0, random_state=0)  # rows in any order
    assert json.dumps(describe(shuffled, generated.users)) == json.dumps(describe(frame, generated.users))


def test_values_outside_the_schema_count_in_no_group(generated: pushgen.Dataset) -> None:
    frame = generated.notifications.astype({"category": str})
    frame.loc[frame.index[:5], "category"] = "not-a-category"
    stats = describe(frame)
    assert sum(group["n"] for group in stats["by_category"].values()) == len(frame) - 5
    assert "not-a-category" not in stats["by_category"]


APPS = ("com.google.android.gm", "com.tinder", "com.spotify.music", "com.whatsapp")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(APPS), st.booleans()), min_size=1, max_size=40))
def test_kind_figures_are_the_counts_of_each_rows_kind(generated: pushgen.Dataset, rows) -> None:
    frame = generated.notifications.iloc[:len(rows)].copy()
    frame["postingApp"] = pd.Categorical([app for app, _ in rows], dtype=frame["postingApp"].dtype)
    frame["action"] = pd.Categorical(["opened" if flag else "dismissed" for _, flag in rows],
                                     dtype=frame["action"].dtype)
    catalog = app_catalog()
    kind_of = {app: catalog.kinds[k] for app, k in zip(catalog.apps, catalog.kind_of_app, strict=True)}
    kinds = [kind_of[app] for app, _ in rows]
    by_kind = describe(frame)["by_kind"]
    assert list(by_kind) == [kind for kind in catalog.kinds if kind in kinds]  # the catalog's order
    for kind, group in by_kind.items():
        opened = [flag for (_, flag), k in zip(rows, kinds, strict=True) if k == kind]
        assert group["n"] == len(opened)
        assert group["open_rate"] == pytest.approx(sum(opened) / len(opened))


def test_contrast_leaves_out_small_groups_and_groups_on_one_side() -> None:
    user = np.array([0] * 4 + [1] * 2 + [2] * 3)
    load = np.array([0, 0, 5, 6, 0, 9, 1, 1, 1])
    opened = np.array([1, 0, 0, 0, 1, 0, 1, 1, 1], dtype=bool)
    # user 0: median 2.5, above 0/2 opened, at/below 1/2; user 1: 0/1 against 1/1; user 2: no row above
    assert contrast(load, opened, [user]) == (pytest.approx(((0 - 0.5) + (0 - 1)) / 2), 2)
    assert contrast(load, opened, [user], min_rows=3) == (pytest.approx(-0.5), 1)
    assert contrast(load, opened, [user, load]) == (None, 0)  # one load per group: none above
