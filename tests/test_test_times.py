"""Test contexts carry their time (``posted_at``, not a feature), checked against the answer key."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from pushgen.data.dataset import DatasetError
from pushgen.data.outputs import sha256_file
from pushgen.replay.parts import load_part
from pushgen.splits import SPLIT_FILE
from pushgen.splits.scorer import CONTEXT_COLUMNS
from pushgen.splits.validate import validate_split
from tests.envs_split import small_split


def test_test_contexts_carry_the_answer_keys_times_and_no_answer():
    folder = small_split()
    for task in (1, 2):
        contexts = pd.read_parquet(folder / f"task{task}/test.parquet")
        assert tuple(contexts.columns) == CONTEXT_COLUMNS
        assert contexts["posted_at"].dtype == "datetime64[ms]"
        key = pd.read_parquet(folder / f"scorer/task{task}/test.parquet").set_index("context_id")
        np.testing.assert_array_equal(contexts["posted_at"].to_numpy(),
                                      key["posted_at"].reindex(contexts["context_id"]).to_numpy())
    assert validate_split(folder) == []
    part = load_part(folder, 2, "test")
    assert (np.diff(part.seconds[part.rows_of(int(part.users[0]))]) >= 0).all()


def test_a_test_time_that_is_not_the_answer_keys_is_found(tmp_path):
    folder = tmp_path / "split"
    shutil.copytree(small_split(), folder)
    path = folder / "task2/test.parquet"
    contexts = pd.read_parquet(path)
    contexts.loc[3, "posted_at"] += pd.Timedelta(minutes=5)
    pq.write_table(pq.read_table(path).from_pandas(contexts, preserve_index=False), path)
    problems = validate_split(folder)
    context = int(contexts.loc[3, "context_id"])
    assert (f"task2/test: posted_at of context {context} differs from scorer/task2/test's "
            "(1 contexts in all)") in problems
    # a split whose listing was rewritten to match still cannot be replayed
    description = json.loads((folder / SPLIT_FILE).read_text())
    description["files"]["task2/test.parquet"] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    (folder / SPLIT_FILE).write_text(json.dumps(description))
    with pytest.raises(DatasetError, match="task 2's test contexts carry other posted_at times than its "
                                           "answer key"):
        load_part(folder, 2, "test")
