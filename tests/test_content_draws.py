"""The subjects of ``pushgen.model.content`` are drawn from the channels' nonzero topic weights as
the dense cumulative rows would draw them, bit for bit."""

from __future__ import annotations

import kernel_references as reference
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pushgen.model import content_kernel, sampling_kernel
from pushgen.model.catalog import app_catalog


def test_the_topics_are_the_nonzero_topic_weights_channel_by_channel():
    table = app_catalog().channels
    start, subject, weight = table.topics
    dense = np.zeros_like(table.topic_weight)
    for channel in range(len(dense)):
        dense[channel, subject[start[channel]:start[channel + 1]]] = weight[start[channel]:start[channel + 1]]
    np.testing.assert_array_equal(dense, table.topic_weight, strict=True)
    assert all(np.all(np.diff(subject[start[c]:start[c + 1]]) > 0) for c in range(len(dense)))



@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 6), width=st.sampled_from([1, 2, 5, 16, 17, 40, 215]))
def test_sparse_codes_are_the_codes_of_the_dense_cumulative_rows(data, n, width):
    masses = st.sampled_from([0.0, 0.0, 0.0, 1e-300, 0.3, 1.0, 7.5])
    dense = data.draw(hnp.arrays(np.float64, (n, width), elements=masses))
    chosen = np.asarray(data.draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)), dtype=np.int64)
    scale = np.exp(data.draw(hnp.arrays(np.float64, width, elements=st.floats(-3, 3))))
    nonzero = dense != 0
    start = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))]).astype(np.int64)
    cdf = reference.weighted_cumulative(dense, chosen, scale)
    # draws name the rows of some mass, and a row of none as well
    rows = np.repeat(np.arange(len(chosen)), data.draw(
        st.lists(st.sampled_from([0, 1, 3, 40]), min_size=len(chosen), max_size=len(chosen))))
    u = np.random.default_rng(data.draw(st.integers(0, 2**32))).random(len(rows))
    u[::5] = 1 - 2**-53
    u[1::5] = 0.0
    codes = content_kernel.sparse_codes(start, nonzero.nonzero()[1], dense[nonzero], chosen, scale, u, rows,
                                        width)
    np.testing.assert_array_equal(codes, sampling_kernel.categorical_codes(cdf, u, rows), strict=True)
    if len(cdf) and (cdf[:, -1] > 0).all():  # the one search needs every row's NaN-free values
        np.testing.assert_array_equal(codes, reference.categorical_codes(cdf, u, rows))
