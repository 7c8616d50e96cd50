from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import expit

import pushgen
from pushgen import schemas
from pushgen.data.dataset import read_parameters
from pushgen.data.writer import write_dataset
from pushgen.model import feasibility
from pushgen.model.catalog import app_catalog
from pushgen.model.engagement import (
    CONTEXT_FEATURES,
    NOTIFICATION_FEATURES,
    ROW_FIELDS,
    RowState,
    feature_codes,
    notification_terms,
    row_terms,
)
from pushgen.model.exposure import (
    EXPOSURE_FIELDS,
    HABITUATION_TAU_DAYS,
    Exposure,
    keyed_exposure,
)
from pushgen.model.graph import run
from pushgen.model.logistic import expit as model_expit
from pushgen.model.priors import Priors
from pushgen.model.simulated_user import SimulatedUsers, combine, exposure_penalty, open_logit
from pushgen.model.situations import SITUATIONS, situations
from pushgen.model.timegrid import TimeGrid


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
    state = SimulatedUsers(1, 12, 1800.0)
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
    got = model_expit(x)
    np.testing.assert_allclose(got, expit(x), rtol=4e-16, atol=1e-300)
    assert np.all((got >= 0) & (got <= 1))
    assert model_expit(np.array([-np.inf, np.inf])).tolist() == [0.0, 1.0]


def situations_as_written(codes: dict[str, np.ndarray], hour: np.ndarray) -> np.ndarray:
    """The situations of ``pushgen.model.situations``' docstring, column by column."""
    h = np.asarray(hour, dtype=np.float64)
    day = np.asarray(schemas.values("day"), dtype=np.int64)[codes["day"]]
    activity, act = codes["activity"], schemas.field("activity")
    listening = ((codes["headphonesIn"] == schemas.field("headphonesIn").code(True))
                 & (codes["musicActive"] == schemas.field("musicActive").code(True)))
    columns = {
        "morning": np.exp(-0.5 * ((h - 7.5) / 1.5) ** 2),
        "work hours": (day < 5) * model_expit((h - 8.5) / 0.5) * model_expit((17.5 - h) / 0.5),
        "evening": model_expit((h - 18.5) / 0.8) * model_expit((23.5 - h) / 1.0),
        "night": 1.0 - model_expit((h - 6.5) / 0.6) * model_expit((23.5 - h) / 1.0),
        "weekend": day >= 5,
        "vehicle": activity == act.code("vehicle"),
        "exercise": (activity == act.code("foot running")) | (activity == act.code("bicycle")),
        "walking": activity == act.code("foot walking"),
        "silent": codes["ringerMode"] == schemas.field("ringerMode").code("silent"),
        "listening": listening,
    }
    return np.column_stack([np.asarray(columns[s], dtype=np.float64) for s in SITUATIONS])


def random_codes(data: st.DataObject, features: tuple[str, ...], n: int) -> dict[str, np.ndarray]:
    return {f: data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, len(schemas.values(f)) - 1)))
            for f in features}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40))
def test_situations_are_the_docstrings_formulas_to_the_bit(data, n):
    hour = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 24, exclude_max=True)
                                | st.sampled_from([0.0, 6.5, 7.5, 8.5, 17.5, 18.5, 23.5])))
    codes = random_codes(data, ("day", "activity", "headphonesIn", "musicActive", "ringerMode"), n)
    got, expected = situations(codes, hour), situations_as_written(codes, hour)
    assert got.shape == (n, len(SITUATIONS))
    np.testing.assert_array_equal(got.view(np.uint64), expected.view(np.uint64))


@pytest.fixture(scope="module")
def lived_user() -> dict:
    """One simulated user's node values."""
    inputs = {"user_id": 4, "seed": 3, "grid": TimeGrid(dt.date(2026, 3, 2), 21), "priors": Priors(),
              "catalog": app_catalog()}
    return {node.name: value for node, value in run(inputs)}


def judged_logit(params, rows, codes, state, exposure) -> np.ndarray:
    """The logit as the judge combines it from the row terms, the notification terms and the penalty."""
    return combine(row_terms(params, rows, codes, state), notification_terms(params, rows, codes),
                   exposure_penalty(params, rows, exposure))


def test_the_generators_p_open_is_the_judges_to_the_bit(lived_user):
    lived = lived_user["lived"]
    kept = lived.delivered  # the posts that reached the user: the dataset's rows
    params, codes = lived_user["params"], {f: c[kept] for f, c in lived_user["codes"].items()}
    state, exposure = lived_user["row_state"].take(kept), lived.exposure.take(kept)
    rows = np.zeros(len(state.hour), dtype=np.int64)
    expected = model_expit(judged_logit(params, rows, codes, state, exposure))
    assert len(expected) > 1000 and np.isfinite(expected).all()
    np.testing.assert_array_equal(lived.p_open[kept].view(np.uint64), expected.view(np.uint64))


@settings(max_examples=50, deadline=None)
@given(data=st.data(), n=st.integers(0, 60))
def test_open_logit_is_the_judges_combination_whatever_the_inputs(lived_user, data, n):
    params = lived_user["params"]
    codes = random_codes(data, schemas.FEATURES, n)  # many impossible notifications among them
    rows_posted = len(lived_user["row_state"].hour)
    posted = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, rows_posted - 1)))
    for f, values in lived_user["codes"].items():  # and possible ones, as posted
        codes[f] = np.where(data.draw(hnp.arrays(np.bool_, n)), values[posted], codes[f]).astype(np.int16)
    floats = st.floats(0, 50) | st.sampled_from([0.0, 1e-300])
    state = RowState(hour=data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 24, exclude_max=True))),
                     days=data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 400))),
                     asleep=data.draw(hnp.arrays(np.bool_, n)),
                     mood=data.draw(hnp.arrays(np.float64, n, elements=st.floats(-5, 5))))
    exposure = Exposure(*(data.draw(hnp.arrays(np.float64, n, elements=floats)) for _ in EXPOSURE_FIELDS))
    rows = np.zeros(n, dtype=np.int64)
    got = open_logit(params, rows, codes, state, exposure)
    expected = judged_logit(params, rows, codes, state, exposure)
    np.testing.assert_array_equal(got.view(np.uint64), expected.view(np.uint64))


def small_inputs(dataset: pushgen.Dataset, n: int = 40):
    """The first ``n`` rows of ``dataset`` as the engagement functions take them."""
    table = dataset.notifications_arrow.slice(0, n)
    codes = {f: np.asarray(table.column(f).combine_chunks().indices) if schemas.field(f).is_categorical
             else schemas.field(f).codes(table.column(f).to_pylist()) for f in schemas.FEATURES}
    rng = np.random.default_rng(0)
    state = RowState(hour=rng.uniform(0, 24, n), days=rng.uniform(0, 30, n), asleep=rng.random(n) < 0.2,
                     mood=rng.normal(0, 1, n))
    exposure = Exposure(*(rng.exponential(1.0, n) for _ in EXPOSURE_FIELDS))
    rows = dataset.parameters.rows(np.asarray(table.column("user_id")))
    return rows, codes, state, exposure


@pytest.mark.parametrize("dtype", ["<i2", "<i8", ">i8", "<u8", "<u1", "<f8"])
def test_open_logit_takes_codes_of_any_integer_or_float_type(small, dtype):
    rows, codes, state, exposure = small_inputs(small)
    expected = open_logit(small.parameters, rows, codes, state, exposure)
    converted = {f: c.astype(dtype) for f, c in codes.items()}
    np.testing.assert_array_equal(open_logit(small.parameters, rows, converted, state, exposure), expected)
    assert np.isfinite(expected).any()


@pytest.mark.parametrize(("feature", "code", "message"), [
    ("day", 7, "codes of day must be from 0 to 6; got values from 0 to 7"),
    ("day", -1, "codes of day must be from 0 to 6; got values from -1"),
    ("postingApp", 10**9, "codes of postingApp must be from 0 to 105"),
    ("rows", 4, "parameter rows must be from 0 to 3"),
    ("rows", -1, "parameter rows must be from 0 to 3"),
])
def test_engagement_functions_refuse_codes_outside_the_published_values(small, feature, code, message):
    rows, codes, state, exposure = small_inputs(small)
    if feature == "rows":
        rows = rows.copy()
        rows[3] = code
    else:
        codes[feature] = codes[feature].astype(np.int64)
        codes[feature][3] = code
    with pytest.raises(IndexError, match=message.replace("(", r"\(")):
        open_logit(small.parameters, rows, codes, state, exposure)
    part = {f: codes[f] for f in (CONTEXT_FEATURES if feature == "day" else NOTIFICATION_FEATURES)}
    with pytest.raises(IndexError, match="must be from 0 to"):
        if feature == "day" or feature == "rows":
            row_terms(small.parameters, rows, {**codes, **part}, state)
        if feature != "day":
            notification_terms(small.parameters, rows, codes)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
@pytest.mark.parametrize("code", ["lowest", -1])
def test_feature_codes_refuse_negative_codes_of_every_width(dtype, code):
    columns = [np.zeros(5, dtype=dtype) for _ in schemas.FEATURES]
    # subject has more values than an int8 has positive codes: read unsigned, -128 is below its count
    columns[schemas.FEATURES.index("subject")][2] = np.iinfo(dtype).min if code == "lowest" else code
    with pytest.raises(IndexError, match="codes of subject must be from 0 to 214; got values from -"):
        feature_codes(schemas.FEATURES, columns)


def test_feature_codes_refuse_features_of_unequal_lengths():
    columns = [np.zeros(5, dtype=np.int64) for _ in schemas.FEATURES]
    columns[-1] = np.zeros(9, dtype=np.int64)
    with pytest.raises(ValueError, match=f"every feature needs as many codes as the others; got "
                                         f"{schemas.FEATURES[0]} 5, .*{schemas.FEATURES[-1]} 9$"):
        feature_codes(schemas.FEATURES, columns)


def test_open_logit_refuses_a_channel_argument_of_another_length_or_out_of_range(small):
    rows, codes, state, exposure = small_inputs(small)
    channel = feasibility.channel_of(codes)
    np.testing.assert_array_equal(open_logit(small.parameters, rows, codes, state, exposure, channel),
                                  open_logit(small.parameters, rows, codes, state, exposure))
    with pytest.raises(ValueError, match=r"one channel per notification \(40\); got 3"):
        open_logit(small.parameters, rows, codes, state, exposure, channel[:3])
    with pytest.raises(IndexError, match="channels must be from -1 to"):
        open_logit(small.parameters, rows, codes, state, exposure, np.full(40, 10**6))
