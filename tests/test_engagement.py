from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import expit

import pushgen
from pushgen import schemas
from pushgen.data.dataset import read_parameters
from pushgen.data.writer import write_dataset
from pushgen.model.engagement import ROW_FIELDS, RowState, open_logit
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_TAU_DAYS,
    Exposure,
    ExposureState,
    keyed_exposure,
)
from pushgen.model.situations import SITUATIONS, situations


def brute_exposure(seconds, keys, tau, weights):
    return np.array([(weights[:i][keys[:i] == keys[i]]
                      * np.exp(-(t - seconds[:i][keys[:i] == keys[i]]) / tau)).sum()
                     for i, t in enumerate(seconds)])


@settings(max_examples=60, deadline=None)
@given(
    gaps=hnp.arrays(np.float64, st.integers(1, 120), elements=st.floats(0, 40000)),
    keys=st.data(),
    tau=st.floats(30, 2e5),
)
def test_keyed_exposure_is_the_decayed_sum_over_earlier_rows_of_the_same_key(gaps, keys, tau):
    seconds = np.cumsum(gaps) + 1e6
    key = keys.draw(hnp.arrays(np.int64, len(seconds), elements=st.integers(0, 4)))
    weights = keys.draw(hnp.arrays(np.float64, len(seconds), elements=st.floats(0, 1)))
    expected = brute_exposure(seconds, key, tau, weights)
    np.testing.assert_allclose(keyed_exposure(seconds, key, tau, weights), expected, rtol=1e-9, atol=1e-9)


def test_keyed_exposure_stays_exact_over_years_of_short_time_constants():
    seconds = np.sort(np.random.default_rng(3).uniform(0, 3 * 365 * 86400, 3000))
    key = np.random.default_rng(4).integers(0, 3, 3000)
    weights = np.ones(3000)
    got = keyed_exposure(seconds, key, 1800.0)
    np.testing.assert_allclose(got, brute_exposure(seconds, key, 1800.0, weights), rtol=1e-9, atol=1e-12)


def test_online_state_follows_the_same_sums_as_the_vectorised_one():
    rng = np.random.default_rng(5)
    t = np.sort(rng.uniform(0, 20 * 86400, 400))
    app, subject, channel = rng.integers(0, 6, 400), rng.integers(0, 9, 400), rng.integers(0, 12, 400)
    interrupts = rng.uniform(0, 1, 400)
    state = ExposureState(1, 12, 1800.0)
    user = np.zeros(1, dtype=np.int64)
    online = []
    for i in range(400):
        at = state.at(user, t[[i]], app[[i]], subject[[i]], channel[[i]])
        online.append([getattr(at, f)[0] for f in EXPOSURE_FIELDS])
        state.add(user, t[[i]], app[[i]], subject[[i]], channel[[i]], interrupts[[i]])
    online = np.array(online)
    np.testing.assert_allclose(online[:, 0], keyed_exposure(t, np.zeros(400), 1800.0, interrupts), rtol=1e-9,
                               atol=1e-12)
    app_tau = HABITUATION_TAU_DAYS["app"] * 86400.0
    np.testing.assert_allclose(online[:, 1], keyed_exposure(t, app, app_tau), rtol=1e-9, atol=1e-12)


def test_stored_parameters_recompute_every_rows_probability_and_action(tmp_path):
    dataset = pushgen.generate(users=3, days=14, seed=21)
    folder = write_dataset(dataset, tmp_path / "d")
    params = read_parameters(folder)
    frame = dataset.notifications
    truth = pq.read_table(folder / "ground_truth" / "engagement_rows.parquet").to_pandas()
    codes = {name: schemas.field(name).codes(frame[name].tolist()) for name in schemas.FEATURES}
    state = RowState(**{f: truth[f].to_numpy(dtype=bool if f == "asleep" else np.float64)
                        for f in ROW_FIELDS})
    exposure = Exposure(**{f: truth[f"exposure_{f}"].to_numpy(np.float64) for f in EXPOSURE_FIELDS})
    p = expit(open_logit(params, params.rows(frame["user_id"].to_numpy()), codes, state, exposure))
    np.testing.assert_allclose(p, truth["p_open"].to_numpy(), atol=2e-6)
    opened = truth["draw"].to_numpy(np.float64) < p
    assert (opened == (frame["action"] == "opened").to_numpy()).mean() > 0.999


def test_an_ongoing_notification_is_less_likely_opened_for_every_user(small):
    params = small.parameters
    ongoing = schemas.field("ongoing")
    assert np.all(params.weights["ongoing"][:, ongoing.code(True)]
                  < params.weights["ongoing"][:, ongoing.code(False)] - 1.0)


def test_users_differ_in_their_parameters_and_interactions(small):
    params = small.parameters
    assert len(set(np.round(params.scalars["intercept"], 6))) == len(params.user_ids)
    assert np.ptp(params.weights["postingApp"], axis=0).max() > 0.5
    assert params.interactions.shape == (len(params.user_ids), 15, len(SITUATIONS))
    assert np.ptp(params.interactions, axis=0).mean() > 0.3
    for name in ("fatigue_weight", "habituation_app", "habituation_subject", "habituation_channel"):
        assert (params.scalars[name] >= 0).all()


@settings(max_examples=40, deadline=None)
@given(hour=st.floats(0, 23.99), step=st.floats(0.01, 0.25))
def test_clock_situations_are_smooth_in_the_hour(hour, step):
    codes = {"day": np.array([2, 2]), "activity": np.zeros(2, int), "headphonesIn": np.zeros(2, int),
             "musicActive": np.zeros(2, int), "ringerMode": np.zeros(2, int)}
    a, b = situations(codes, np.array([hour, min(hour + step, 23.999)]))
    assert np.abs(a - b).max() <= 2.0 * step + 1e-9  # no jump: slopes stay below 2 per hour


@settings(max_examples=100, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 50),
                    elements=st.floats(-1e4, 1e4) | st.sampled_from([-np.inf, np.inf, 0.0, -745.0, 745.0])))
def test_the_model_logistic_function_is_scipys_within_rounding(x):
    from pushgen.model.logistic import expit as model_expit

    got = model_expit(x)
    np.testing.assert_allclose(got, expit(x), rtol=4e-16, atol=1e-300)
    assert np.all((got >= 0) & (got <= 1))
    assert model_expit(np.array([-np.inf, np.inf])).tolist() == [0.0, 1.0]
