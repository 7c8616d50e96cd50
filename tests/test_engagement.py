from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.signal import lfilter
from scipy.special import expit

import pushgen
from pushgen import schemas
from pushgen.dataset import read_parameters, write_dataset
from pushgen.model.engagement import DynamicState, decaying_total, fatigue, open_logit


@settings(max_examples=60, deadline=None)
@given(
    gaps=hnp.arrays(np.float64, st.integers(1, 80), elements=st.floats(0, 4000)),
    tau=st.floats(30, 20000),
)
def test_fatigue_is_the_exact_decayed_count_of_earlier_posts(gaps, tau):
    seconds = np.cumsum(gaps) + 1e6
    expected = np.array([np.exp(-(t - seconds[:i]) / tau).sum() for i, t in enumerate(seconds)])
    np.testing.assert_allclose(fatigue(seconds, tau), expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(np.float64, st.integers(1, 700), elements=st.floats(0, 50)),
    decay=st.floats(0, 0.9999),
)
def test_decaying_total_equals_the_first_order_filter(x, decay):
    np.testing.assert_allclose(decaying_total(x, decay), lfilter([1.0], [1.0, -decay], x),
                               rtol=1e-10, atol=1e-9)


def test_fatigue_is_zero_for_the_first_post_and_grows_with_a_burst():
    burst = np.array([0.0, 10.0, 20.0, 30.0])
    values = fatigue(burst + 5000.0, 1800.0)
    assert values[0] == 0.0
    assert np.all(np.diff(values) > 0.9)
    assert fatigue(np.array([0.0, 86400.0]), 1800.0)[1] < 1e-10


def test_stored_parameters_recompute_every_rows_probability_and_action(tmp_path):
    dataset = pushgen.generate(users=3, days=14, seed=21)
    folder = write_dataset(dataset, tmp_path / "d")
    params = read_parameters(folder)
    frame = dataset.notifications
    truth = pq.read_table(folder / "ground_truth" / "engagement_rows.parquet").to_pandas()
    codes = {name: schemas.field(name).codes(frame[name].tolist()) for name in schemas.FEATURES}
    state = DynamicState.from_frame(truth)
    p = expit(open_logit(params, params.rows(frame["user_id"].to_numpy()), codes, state))
    np.testing.assert_array_equal(p, truth["p_open"].to_numpy())
    opened = truth["draw"].to_numpy(np.float64) < p
    np.testing.assert_array_equal(opened, (frame["action"] == "opened").to_numpy())


def test_an_ongoing_notification_is_less_likely_opened_for_every_user(small):
    params = small.parameters
    ongoing = schemas.field("ongoing")
    assert np.all(params.weights["ongoing"][:, ongoing.code(True)]
                  < params.weights["ongoing"][:, ongoing.code(False)] - 1.0)


def test_users_differ_in_their_parameters(small):
    params = small.parameters
    assert len(set(np.round(params.scalars["intercept"], 6))) == len(params.user_ids)
    assert np.ptp(params.weights["postingApp"], axis=0).max() > 0.5
