"""Each compiled kernel of the model against the plain numpy code it stands for
(``kernel_references``): equal to the bit where the arithmetic is the same, within rounding
where the kernel sums in another order."""

from __future__ import annotations

import kernel_references as reference
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pushgen.model import (
    device,
    device_kernel,
    engagement_kernel,
    exposure_kernel,
    regime_kernel,
    sampling,
    sampling_kernel,
    situations_kernel,
)
from pushgen.model.compiled import Kernel
from pushgen.model.exposure import keyed_exposure

KERNELS = (sampling_kernel.stacked_search, exposure_kernel.keyed_decayed_sums, device_kernel.charge_runs,
           regime_kernel.markov_chain, engagement_kernel.autoregression, engagement_kernel.situation_effects,
           engagement_kernel.feature_sums, engagement_kernel.open_logits, engagement_kernel.row_states,
           engagement_kernel.state_exponents,
           situations_kernel.clock_exponents, situations_kernel.situation_columns)


def test_every_kernel_keeps_its_python_source_for_readers():
    for kernel in KERNELS:
        assert isinstance(kernel, Kernel)
        assert kernel.__doc__ and kernel.python.__module__ == kernel.__module__


@st.composite
def cumulative_rows(draw: st.DrawFn) -> np.ndarray:
    rows, width = draw(st.integers(1, 12)), draw(st.sampled_from([1, 2, 3, 5, 9, 16, 17, 40]))
    masses = st.sampled_from([0.0, 1e-300, 0.3, 1.0, 7.5])
    weights = draw(hnp.arrays(np.float64, (rows, width), elements=masses))
    weights[:, -1] += 1e-9  # a row needs some mass
    return np.cumsum(weights, axis=1)


@settings(max_examples=80, deadline=None)
@given(cdf=cumulative_rows(), data=st.data())
def test_stacked_search_equals_one_search_over_the_whole_array(cdf, data):
    width = cdf.shape[1]
    stacked = (cdf / cdf[:, -1:] + np.arange(len(cdf))[:, None]).ravel()
    rows = data.draw(hnp.arrays(np.int64, st.integers(0, 60), elements=st.integers(0, len(cdf) - 1)))
    uniform = st.one_of(st.floats(0, 1, exclude_max=True), st.sampled_from([0.0, 0.3, 1 - 2**-53]))
    u = data.draw(hnp.arrays(np.float64, len(rows), elements=uniform))
    keys = u + rows
    np.testing.assert_array_equal(sampling_kernel.stacked_search(stacked, keys, rows, width),
                                  reference.stacked_search(stacked, keys, rows, width))


def test_categorical_rows_draws_each_row_with_its_probabilities():
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    rows = np.repeat([0, 1], 200_000)
    codes = sampling.categorical_rows(np.cumsum(p, axis=1), rows, np.random.default_rng(1))
    for r in (0, 1):
        share = np.bincount(codes[rows == r], minlength=3) / 200_000
        np.testing.assert_allclose(share, p[r], atol=0.004)


@settings(max_examples=60, deadline=None)
@given(gaps=hnp.arrays(np.float64, st.integers(0, 150), elements=st.floats(0, 40000)),
       data=st.data(), tau=st.floats(30, 2e5))
def test_keyed_decayed_sums_match_the_chunked_cumulative_sums(gaps, data, tau):
    seconds = np.cumsum(gaps) + 1e6
    keys = data.draw(hnp.arrays(np.int64, len(seconds), elements=st.integers(0, 6)))
    weights = data.draw(hnp.arrays(np.float64, len(seconds), elements=st.floats(0, 1)))
    shift = data.draw(st.sampled_from([0.0, 7 * 86400.0, 1234.5]))
    before = int(np.searchsorted(seconds, seconds[0] + shift)) if len(seconds) and shift else 0
    lead = data.draw(st.integers(0, before))  # the history comes before the rows
    expected = reference.keyed_decayed_sums(seconds, keys, 7, tau, weights, lead, shift)
    got = exposure_kernel.keyed_decayed_sums(seconds, keys, 7, tau, weights, lead, shift)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(gaps=hnp.arrays(np.float64, st.integers(0, 120), elements=st.floats(0, 40000)),
       data=st.data(), tau=st.floats(30, 2e5), shift=st.sampled_from([0.0, 7 * 86400.0, 1234.5]))
def test_a_lead_in_history_gives_the_sums_of_the_rows_laid_after_it(gaps, data, tau, shift):
    seconds = np.cumsum(gaps)
    keys = data.draw(hnp.arrays(np.int16, len(seconds), elements=st.integers(0, 6)))
    weights = data.draw(hnp.arrays(np.float64, len(seconds), elements=st.floats(0, 1)))
    before = int(np.searchsorted(seconds, seconds[0] + shift)) if len(seconds) and shift else 0
    lead = data.draw(st.integers(0, before))
    history = np.concatenate([seconds[:lead], seconds + shift if shift else seconds])
    laid_out = exposure_kernel.keyed_decayed_sums(history, np.concatenate([keys[:lead], keys]), 7, tau,
                                                  np.concatenate([weights[:lead], weights]), 0, 0.0)
    assert_same_bits(exposure_kernel.keyed_decayed_sums(seconds, keys, 7, tau, weights, lead, shift),
                     laid_out[lead:])


@settings(max_examples=40, deadline=None)
@given(gaps=hnp.arrays(np.float64, st.integers(0, 80), elements=st.floats(0, 40000)),
       data=st.data(), spread=st.sampled_from([1, 10**6, 10**12]))
def test_keyed_exposure_takes_negative_and_sparse_keys(gaps, data, spread):
    seconds = np.cumsum(gaps)
    keys = data.draw(hnp.arrays(np.int64, len(seconds), elements=st.integers(-3, 3))) * spread
    expected = reference.keyed_decayed_sums(seconds, keys, 0, 3600.0, np.ones(len(seconds)))
    np.testing.assert_allclose(keyed_exposure(seconds, keys, 3600.0), expected, rtol=1e-10, atol=1e-12)


@st.composite
def charge_inputs(draw: st.DrawFn) -> tuple:
    n = draw(st.integers(1, 300))
    drain = draw(hnp.arrays(np.float64, n, elements=st.floats(0, 3)))
    spent = np.concatenate(([0.0], np.cumsum(drain)))
    can_charge = draw(hnp.arrays(np.bool_, n))
    bounds = np.sort(draw(hnp.arrays(np.int64, 2 * draw(st.integers(0, 6)), elements=st.integers(0, n))))
    starts, ends = bounds[0::2], bounds[1::2]
    topups = draw(hnp.arrays(np.int64, st.integers(1, 8), elements=st.integers(1, 10)))
    level = draw(st.floats(1, 100))
    threshold = draw(st.floats(0, 60))
    return spent, device._next_true(can_charge), starts, ends, topups, level, threshold, 13.75


@settings(max_examples=80, deadline=None)
@given(inputs=charge_inputs())
def test_charge_runs_equal_the_event_loop_in_python(inputs):
    for got, expected in zip(device_kernel.charge_runs(*inputs), reference.charge_runs(*inputs), strict=True):
        np.testing.assert_array_equal(got, expected)


@st.composite
def chains(draw: st.DrawFn) -> tuple:
    states = draw(st.integers(1, 5))
    transition = draw(hnp.arrays(np.float64, (states, states), elements=st.floats(0, 1)))
    transition[:, 0] += 1e-6
    transition /= transition.sum(axis=1, keepdims=True)
    first = np.cumsum(np.full(states, 1.0 / states))
    u = draw(hnp.arrays(np.float64, st.integers(0, 400), elements=st.floats(0, 1, exclude_max=True)))
    return first, np.cumsum(transition, axis=1), u


@settings(max_examples=80, deadline=None)
@given(chain=chains())
def test_markov_chain_equals_the_day_by_day_loop(chain):
    np.testing.assert_array_equal(regime_kernel.markov_chain(*chain), reference.markov_chain(*chain))


@settings(max_examples=60, deadline=None)
@given(shocks=hnp.arrays(np.float64, st.integers(1, 400), elements=st.floats(-10, 10)),
       persistence=st.floats(0, 0.99))
def test_autoregression_equals_the_linear_filter(shocks, persistence):
    np.testing.assert_array_equal(engagement_kernel.autoregression(shocks, persistence),
                                  reference.autoregression(shocks, persistence))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), users=st.integers(1, 4), groups=st.integers(1, 5), situations=st.integers(1, 6),
       n=st.integers(0, 50))
def test_situation_effects_equal_the_broadcast_sum(data, users, groups, situations, n):
    values = st.floats(-50, 50, allow_subnormal=True)
    interactions = data.draw(hnp.arrays(np.float64, (users, groups, situations), elements=values))
    by_priority = data.draw(hnp.arrays(np.float64, (3, situations), elements=values))
    by_updates = data.draw(hnp.arrays(np.float64, (2, situations), elements=values))
    rows, group, priority, updates = (
        data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, top - 1)))
        for top in (users, groups, 3, 2))
    arguments = (interactions, rows, group, by_priority, priority, by_updates, updates)
    np.testing.assert_array_equal(engagement_kernel.situation_effects(*arguments),
                                  reference.situation_effects(*arguments))


def assert_same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal to the bit: signed zeros and infinities included."""
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint64), expected.view(np.uint64))


FLOATS = st.floats(-1e6, 1e6, allow_subnormal=True) | st.sampled_from([0.0, -0.0, 1e-310, 0.5, 1.0])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), users=st.integers(1, 3), n=st.integers(0, 40),
       widths=st.lists(st.integers(1, 7), max_size=4))
def test_feature_sums_add_each_feature_in_turn_as_whole_arrays_do(data, users, n, widths):
    tables = tuple(data.draw(hnp.arrays(np.float64, (users, w), elements=FLOATS)) for w in widths)
    rows = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, users - 1)))
    codes = tuple(data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, w - 1))) for w in widths)
    start = data.draw(hnp.arrays(np.float64, n, elements=FLOATS))
    if not widths:  # no features: the start itself (typed tuples need one element to be typed)
        tables, codes = (np.zeros((users, 1)),), (np.zeros(n, dtype=np.int16),)
    assert_same_bits(engagement_kernel.feature_sums(start, tables, rows, codes),
                     reference.feature_sums(start, tables, rows, codes))


@st.composite
def logit_inputs(draw: st.DrawFn) -> tuple:
    users, groups, channels = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    n = draw(st.integers(0, 30))

    def floats(shape, elements=FLOATS):
        return draw(hnp.arrays(np.float64, shape, elements=elements))

    def codes(top, dtype=np.int16, low=0):
        return draw(hnp.arrays(dtype, n, elements=st.integers(low, top - 1)))

    def features():
        widths = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
        return tuple(floats((users, w)) for w in widths), tuple(codes(w) for w in widths)

    def indicator(shape):
        return np.asarray(draw(hnp.arrays(np.bool_, shape)), dtype=np.float64)

    rows = codes(users, np.int64)
    context, notification = features(), features()
    indicators = (indicator((7, 2)), indicator((7, 3)), indicator(3), indicator((2, 2)))
    situation_codes = (codes(7), codes(7), codes(3), codes(2), codes(2))
    positive = st.floats(0, 50) | st.sampled_from([0.0, 1e-300])
    return (rows, tuple(floats(users) for _ in range(8)), *context, *notification, floats((2, n)),
            draw(hnp.arrays(np.bool_, n)), floats(n), floats((6, n), st.floats(0, 1)), indicators,
            situation_codes, floats((users, groups, 10)),
            draw(hnp.arrays(np.int64, channels, elements=st.integers(0, groups - 1))),
            codes(channels, np.int64, low=-1), floats((6, 10)), floats((4, 10)),
            (codes(6), codes(4), codes(5)), draw(hnp.arrays(np.bool_, (users, 5))),
            tuple(floats(n, positive) for _ in range(4)))


@settings(max_examples=100, deadline=None)
@given(arguments=logit_inputs())
def test_open_logits_add_in_the_order_of_the_whole_array_terms_and_einsum(arguments):
    assert_same_bits(engagement_kernel.open_logits(*arguments), reference.open_logits(*arguments))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), users=st.integers(1, 3))
def test_state_exponents_equal_the_whole_array_expressions(data, n, users):
    arguments = (data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 24, exclude_max=True))),
                 data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1000))),
                 data.draw(hnp.arrays(np.float64, users, elements=st.floats(0, 24))),
                 data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, users - 1))),
                 data.draw(st.floats(1, 90)))
    assert_same_bits(engagement_kernel.state_exponents(*arguments), reference.state_exponents(*arguments))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 60))
def test_row_states_equal_the_whole_array_expressions(data, n):
    days, slot_seconds = 30, 900.0
    on_slots = st.integers(0, days * 96 - 1).map(lambda s: s * slot_seconds)
    instants = st.floats(0, days * 86400 - 1e-3) | on_slots
    seconds = np.sort(data.draw(hnp.arrays(np.float64, n, elements=instants)))
    slot = (seconds // slot_seconds).astype(np.int64)
    segments = data.draw(st.integers(1, 20))
    arguments = (seconds, slot, 96, data.draw(hnp.arrays(np.float64, days, elements=FLOATS)),
                 data.draw(hnp.arrays(np.float64, days, elements=FLOATS)),
                 data.draw(hnp.arrays(np.float64, segments, elements=FLOATS)),
                 data.draw(hnp.arrays(np.int64, days * 96, elements=st.integers(0, segments - 1))),
                 data.draw(hnp.arrays(np.int8, days * 96, elements=st.integers(0, 3))), 0)
    got, expected = engagement_kernel.row_states(*arguments), reference.row_states(*arguments)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b) if a.dtype == bool else assert_same_bits(a, b)


@settings(max_examples=60, deadline=None)
@given(hour=hnp.arrays(np.float64, st.integers(0, 50), elements=st.floats(0, 24, exclude_max=True)),
       data=st.data())
def test_clock_exponents_equal_the_whole_array_expressions(hour, data):
    edges = data.draw(st.integers(0, 5))
    centre = data.draw(hnp.arrays(np.float64, edges, elements=st.floats(0, 24)))
    width = data.draw(hnp.arrays(np.float64, edges, elements=st.floats(0.1, 3)))
    rising = data.draw(hnp.arrays(np.bool_, edges))
    arguments = (hour, data.draw(st.floats(0, 24)), data.draw(st.floats(0.1, 3)), centre, width, rising)
    assert_same_bits(situations_kernel.clock_exponents(*arguments), reference.clock_exponents(*arguments))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 50))
def test_situation_columns_equal_the_whole_columns(data, n):
    curves = data.draw(hnp.arrays(np.float64, (6, n), elements=st.floats(0, 1)))
    tables = [np.asarray(data.draw(hnp.arrays(np.bool_, shape)), dtype=np.float64)
              for shape in ((7, 2), (7, 3), (3,), (2, 2))]
    codes = [data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, top - 1))) for top in (7, 7, 3, 2, 2)]
    arguments = (curves, tables[0], codes[0], tables[1], codes[1], tables[2], codes[2], tables[3], codes[3],
                 codes[4])
    assert_same_bits(situations_kernel.situation_columns(*arguments), reference.situation_columns(*arguments))


@pytest.mark.parametrize("persistence", [0.5, 0.9])
def test_autoregression_keeps_the_stationary_variance(persistence):
    shocks = np.random.default_rng(2).normal(0.0, 1.0, 400_000) * np.sqrt(1 - persistence**2)
    level = engagement_kernel.autoregression(shocks, persistence)
    assert abs(level[1000:].var() - 1.0) < 0.03
    lag1 = np.corrcoef(level[1000:-1], level[1001:])[0, 1]
    assert abs(lag1 - persistence) < 0.01
