"""Each compiled kernel of the model against the plain numpy code it stands for
(``kernel_references``): equal to the bit where the arithmetic is the same, within rounding
where the kernel sums in another order."""

from __future__ import annotations

import subprocess
import sys

import kernel_references as reference
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pushgen import schemas
from pushgen.model import (
    arrivals_kernel,
    content_kernel,
    device,
    device_kernel,
    engagement_kernel,
    exposure_kernel,
    features_kernel,
    nodes_kernel,
    regime_kernel,
    routine,
    routine_kernel,
    sampling,
    sampling_kernel,
    seeding_kernel,
    timings,
    timings_kernel,
)
from pushgen.model.compiled import Kernel
from pushgen.model.exposure import keyed_exposure
from pushgen.model.seeding import NodeFamily, stream

KERNELS = (sampling_kernel.categorical_codes, arrivals_kernel.thinned_slots, arrivals_kernel.all_posts,
           arrivals_kernel.time_order,
           routine_kernel.slot_states, routine_kernel.slot_places,
           device_kernel.charge_runs, device_kernel.spending, device_kernel.slot_levels,
           device_kernel.slot_ringer, regime_kernel.markov_chain, engagement_kernel.autoregression,
           engagement_kernel.row_logits, engagement_kernel.notification_logits,
           engagement_kernel.row_states, engagement_kernel.state_exponents,
           timings_kernel.branch_exponents, timings_kernel.seen_seconds,
           timings_kernel.seconds_to_wake, content_kernel.post_channels, content_kernel.thread_values,
           features_kernel.context_codes,
           seeding_kernel.sequence_states, sampling_kernel.state_runs,
           nodes_kernel.trigger_lasts,
           exposure_kernel.logged_decayed_sums, timings_kernel.evening_exponents,
           arrivals_kernel.rhythm_exponents, arrivals_kernel.rhythm_sums, content_kernel.count_updates,
           content_kernel.chosen_updates, content_kernel.sparse_codes,
           exposure_kernel.received_exposures)


def test_every_kernel_keeps_its_python_source_for_readers():
    for kernel in KERNELS:
        assert isinstance(kernel, Kernel)
        assert kernel.__doc__ and kernel.python.__module__ == kernel.__module__


@st.composite
def cumulative_rows(draw: st.DrawFn) -> np.ndarray:
    rows, width = draw(st.integers(1, 12)), draw(st.sampled_from([1, 2, 3, 5, 9, 16, 17, 40, 183]))
    masses = st.sampled_from([0.0, 1e-300, 0.3, 1.0, 7.5])
    weights = draw(hnp.arrays(np.float64, (rows, width), elements=masses))
    weights[:, -1] += 1e-9  # a row needs some mass
    return np.cumsum(weights, axis=1)


@settings(max_examples=80, deadline=None)
@given(cdf=cumulative_rows(), data=st.data())
def test_categorical_codes_equal_one_search_over_the_stacked_rows(cdf, data):
    rows = data.draw(hnp.arrays(st.sampled_from([np.int8, np.int64]), st.integers(0, 60),
                                elements=st.integers(0, len(cdf) - 1)))
    uniform = st.one_of(st.floats(0, 1, exclude_max=True), st.sampled_from([0.0, 0.3, 1 - 2**-53]))
    u = data.draw(hnp.arrays(np.float64, len(rows), elements=uniform))
    np.testing.assert_array_equal(sampling_kernel.categorical_codes(cdf, u, rows),
                                  reference.categorical_codes(cdf, u, rows.astype(np.int64)))


@settings(max_examples=80, deadline=None)
@given(state=hnp.arrays(st.sampled_from([np.int8, np.int64]), st.integers(0, 60), elements=st.integers(0, 3)))
def test_state_runs_equal_the_running_count_of_changes(state):
    run, values = sampling_kernel.state_runs(state)
    expected_run, expected_values = reference.state_runs(state)
    np.testing.assert_array_equal(run, expected_run)
    np.testing.assert_array_equal(values, expected_values)
    assert run.dtype == np.int64 and values.dtype == state.dtype


def test_categorical_rows_draws_each_row_with_its_probabilities():
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    rows = np.repeat([0, 1], 200_000)
    codes = sampling.categorical_rows(np.cumsum(p, axis=1), rows, np.random.default_rng(1))
    for r in (0, 1):
        share = np.bincount(codes[rows == r], minlength=3) / 200_000
        np.testing.assert_allclose(share, p[r], atol=0.004)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), days=st.integers(1, 4), apps=st.integers(1, 4), n=st.integers(0, 60))
def test_thinned_slots_equal_the_mask_of_kept_proposals(data, days, apps, n):
    day = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, days - 1)))
    slot_of_day = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 7)))
    row = np.sort(data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, apps - 1))))
    sleeping = data.draw(hnp.arrays(np.bool_, (days, 8))).astype(np.float64)
    asleep_factor = data.draw(hnp.arrays(np.float64, apps, elements=st.sampled_from([0.0, 0.1, 0.5, 1.0])))
    draws = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1, exclude_max=True)))
    inputs = (day, slot_of_day, row, sleeping, asleep_factor, draws)
    expected = reference.thinned_slots(*inputs)
    for got, wanted in zip(arrivals_kernel.thinned_slots(*inputs), expected, strict=True):
        np.testing.assert_array_equal(got, wanted)
        assert got.dtype == wanted.dtype


@settings(max_examples=80, deadline=None)
@given(data=st.data(), count=st.integers(0, 40), n_alarms=st.integers(0, 4))
def test_all_posts_equal_the_repeats_and_cumulative_sums(data, count, n_alarms):
    seconds = data.draw(hnp.arrays(np.float64, count, elements=st.floats(0, 1e7)))
    app = data.draw(hnp.arrays(np.int64, count, elements=st.integers(0, 105)))
    messaging = data.draw(hnp.arrays(np.bool_, count))
    follow_ups = data.draw(hnp.arrays(np.int64, int(messaging.sum()), elements=st.integers(0, 5)))
    gaps = data.draw(hnp.arrays(np.float64, int(follow_ups.sum()),
                                elements=st.one_of(st.floats(0, 600), st.sampled_from([0.0, 1e-300, 75.1]))))
    alarms = data.draw(hnp.arrays(np.float64, n_alarms, elements=st.floats(0, 1e7)))
    inputs = (seconds, app, messaging, follow_ups, gaps, alarms, 7)
    for got, expected in zip(arrivals_kernel.all_posts(*inputs), reference.all_posts(*inputs), strict=True):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 50), share=st.floats(0, 1))
def test_post_channels_and_thread_values_equal_the_wheres_and_fancy_indexing(data, n, share):
    apps, width = 6, 3
    of_app = data.draw(hnp.arrays(np.int64, (apps, width), elements=st.integers(-1, 20)))
    triggered_channel = data.draw(hnp.arrays(np.int64, apps, elements=st.integers(-1, 20)))
    app = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, apps - 1)))
    pick = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, width - 1)))
    flags = data.draw(hnp.arrays(np.bool_, n)), data.draw(hnp.arrays(np.bool_, n))
    draws = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1, exclude_max=True)))
    inputs = (app, pick, of_app, triggered_channel, *flags, draws, share)
    channel = content_kernel.post_channels(*inputs)
    np.testing.assert_array_equal(channel, reference.post_channels(*inputs))
    position = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 3)))
    thread = data.draw(hnp.arrays(np.int64, n, elements=st.integers(-1, max(n - 1, 0))))
    np.testing.assert_array_equal(content_kernel.thread_values(channel, position, thread),
                                  reference.thread_values(channel, position, thread))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), days=st.integers(1, 3), n=st.integers(0, 40))
def test_context_codes_equal_the_gathers_and_wheres(data, days, n):
    slots = days * 8

    def per_slot(dtype: type, elements: st.SearchStrategy | None = None) -> np.ndarray:
        return data.draw(hnp.arrays(dtype, slots, elements=elements))

    codes = st.integers(0, 300)
    inputs = (data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, slots - 1))), 8,
              *(per_slot(np.int16, codes) for _ in range(5)),
              per_slot(np.float64, st.floats(0, 100) | st.sampled_from([25.0, 70.0, np.nan])),
              np.array([25.0, 70.0]), data.draw(hnp.arrays(np.int16, 3, elements=codes)),
              *(per_slot(np.bool_) for _ in range(3)),
              data.draw(hnp.arrays(np.int16, (3, 2), elements=codes)),
              data.draw(hnp.arrays(np.int8, days, elements=st.integers(0, 6))),
              data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 24, exclude_max=True))),
              data.draw(hnp.arrays(np.int16, 24, elements=codes)))
    np.testing.assert_array_equal(features_kernel.context_codes(*inputs), reference.context_codes(*inputs))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), days=st.integers(1, 4), n=st.integers(0, 40))
def test_seconds_to_wake_equal_the_masks_and_gathers(data, days, n):
    slot = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, days * 8 - 1)))
    hour = (slot % 8) * 3.0 + data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 3, exclude_max=True)))
    seconds = (slot // 8) * 86400.0 + hour * 3600.0
    wake = data.draw(hnp.arrays(np.float64, days, elements=st.one_of(st.floats(-2, 20), st.just(6.0))))
    inputs = (slot, hour, seconds, wake, 8)
    np.testing.assert_array_equal(timings_kernel.seconds_to_wake(*inputs), reference.seconds_to_wake(*inputs))


@st.composite
def posts_to_order(draw: st.DrawFn) -> tuple:
    days = draw(st.integers(1, 4))
    volume = draw(hnp.arrays(np.float64, days, elements=st.sampled_from([0.0, 0.6, 1.7])))
    n = draw(st.integers(0, 120))
    times = st.one_of(st.floats(-2000, days * 86400 + 2000), st.sampled_from([0.0, 900.0, 86399.5, 86400.0]))
    seconds = draw(hnp.arrays(np.float64, n, elements=times))
    thread = draw(hnp.arrays(np.int64, n, elements=st.integers(-1, max(n - 1, 0)))) if n else np.zeros(0, int)
    return seconds, thread, volume, 900.0, 96


@settings(max_examples=80, deadline=None)
@given(posts=posts_to_order())
def test_time_order_equals_a_mask_and_a_stable_sort(posts):
    for got, expected in zip(arrivals_kernel.time_order(*posts), reference.time_order(*posts), strict=True):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype


def test_the_routine_kernels_name_the_routine_states_by_their_codes():
    assert [getattr(routine_kernel, state.name) for state in routine.State] == list(routine.State)


@st.composite
def day_plans(draw: st.DrawFn) -> tuple:
    days = draw(st.integers(1, 5))
    hours = st.one_of(st.floats(-3, 30), st.sampled_from([0.0, 6.25, 24.0]))
    maybe_hours = st.one_of(hours, st.just(np.nan))

    def per_day(elements: st.SearchStrategy) -> np.ndarray:
        return draw(hnp.arrays(np.float64, days, elements=elements))

    workday = draw(hnp.arrays(np.bool_, days))
    return (8, 3.0, draw(st.sampled_from([0.0, 0.4, 1.25])), per_day(hours), per_day(hours), workday,
            per_day(hours), per_day(hours), per_day(hours), per_day(maybe_hours), per_day(maybe_hours),
            per_day(maybe_hours), per_day(maybe_hours), per_day(maybe_hours))


@settings(max_examples=80, deadline=None)
@given(plan=day_plans(), data=st.data())
def test_slot_states_and_places_equal_the_masks_and_selects(plan, data):
    state = routine_kernel.slot_states(*plan)
    np.testing.assert_array_equal(state, reference.slot_states(*plan))
    days, outing_end = len(plan[3]), plan[10]
    codes = st.integers(0, 200)
    places = (state, 8, 3.0, outing_end, data.draw(hnp.arrays(np.int16, days, elements=codes)),
              data.draw(hnp.arrays(np.int16, days, elements=codes)), 11, 12, 13)
    np.testing.assert_array_equal(routine_kernel.slot_places(*places), reference.slot_places(*places))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 60), shares=st.tuples(st.floats(0, 1), st.floats(0, 1)),
       delay=st.floats(1, 1e4), median=st.floats(1, 500))
def test_timing_kernels_equal_both_branches_picked_by_where(data, n, shares, delay, median):
    def rows(dtype: type, elements: st.SearchStrategy) -> np.ndarray:
        return data.draw(hnp.arrays(dtype, n, elements=elements))

    normal = st.floats(-6, 6)
    asleep, opened = rows(np.bool_, st.booleans()), rows(np.bool_, st.booleans())
    branches = (asleep, opened, rows(np.float64, st.floats(0, 1, exclude_max=True)), rows(np.float64, normal),
                rows(np.float64, normal), *shares, delay)
    expected = reference.branch_exponents(*branches)
    for got, wanted in zip(timings_kernel.branch_exponents(*branches), expected, strict=True):
        np.testing.assert_array_equal(got, wanted)
    ringer, priority = rows(np.int16, st.integers(0, 2)), rows(np.int16, st.integers(0, 5))
    state = rows(np.int8, st.integers(0, 7))
    seen = (asleep, rows(np.float64, st.floats(0, 9e4)), median, timings.RINGER_BY_CODE, ringer,
            timings.PRIORITY_BY_CODE, priority, timings.STATE_FACTOR, state,
            timings.evening_factor(rows(np.float64, st.floats(0, 24, exclude_max=True))),
            np.exp(rows(np.float64, normal)))
    np.testing.assert_array_equal(timings_kernel.seen_seconds(*seen), reference.seen_seconds(*seen))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), share=st.floats(0, 1))
def test_chosen_updates_equal_the_masked_choice(data, n, share):
    channel = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, 4)))
    other = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 3)))
    usual = data.draw(hnp.arrays(np.int16, 5, elements=st.integers(0, 3)))
    has_others = data.draw(hnp.arrays(np.bool_, 5))
    draws = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1, exclude_max=True)))
    arguments = (channel, other, usual, has_others, draws, share)
    expected = reference.chosen_updates(*arguments)
    np.testing.assert_array_equal(content_kernel.chosen_updates(*arguments), expected)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40))
def test_count_updates_equals_the_masked_sorted_search(data, n):
    updates = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 3)))
    thread = data.draw(hnp.arrays(np.int64, n, elements=st.integers(-1, max(n - 1, 0))))
    position = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 9)))
    channel = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, 4)))
    carries = data.draw(hnp.arrays(np.bool_, 5))
    steps, levels = np.array([1, 3, 6]), np.array([0, 1, 2, 3])
    expected = updates.copy()
    reference.count_updates(expected, thread, position, channel, carries, steps, levels)
    content_kernel.count_updates(updates, thread, position, channel, carries, steps, levels)
    np.testing.assert_array_equal(updates, expected)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), apps=st.integers(1, 6), peaks=st.integers(1, 4), width=st.floats(0.1, 6))
def test_rhythm_kernels_equal_the_broadcast_and_nansum(data, apps, peaks, width):
    hour = st.floats(0, 24) | st.just(np.nan)
    peak_hours = data.draw(hnp.arrays(np.float64, (apps, peaks), elements=hour))
    heights = data.draw(hnp.arrays(np.float64, (apps, peaks), elements=st.floats(0, 5) | st.just(np.nan)))
    hours = np.arange(0, 24, 0.25)
    exponents = arrivals_kernel.rhythm_exponents(hours, peak_hours, width)
    assert_same_bits(exponents, reference.rhythm_exponents(hours, peak_hours, width))
    bells = np.exp(exponents)
    sums = arrivals_kernel.rhythm_sums(0.25, heights, bells)
    assert_same_bits(sums, reference.rhythm_sums(0.25, heights, bells))


@settings(max_examples=60, deadline=None)
@given(hour=hnp.arrays(np.float64, st.integers(0, 50),
                       elements=st.floats(0, 24) | st.sampled_from([0.0, 11.5, 12.0, 23.5, 24.0])),
       peak=st.floats(0, 24), width=st.floats(0.1, 6))
def test_evening_exponents_equal_the_whole_array_expression(hour, peak, width):
    assert_same_bits(timings_kernel.evening_exponents(hour, peak, width),
                     reference.evening_exponents(hour, peak, width))


@settings(max_examples=60, deadline=None)
@given(gaps=hnp.arrays(np.float64, st.integers(0, 150), elements=st.floats(0, 40000)),
       data=st.data(), tau=st.floats(30, 2e5))
def test_keyed_exposure_is_the_sum_over_earlier_rows_of_the_same_key(gaps, data, tau):
    seconds = np.cumsum(gaps) + 1e6
    keys = data.draw(hnp.arrays(np.int64, len(seconds), elements=st.integers(0, 6)))
    weights = data.draw(hnp.arrays(np.float64, len(seconds), elements=st.floats(0, 1)))
    shift = data.draw(st.sampled_from([0.0, 7 * 86400.0, 1234.5]))
    before = int(np.searchsorted(seconds, seconds[0] + shift)) if len(seconds) and shift else 0
    lead = data.draw(st.integers(0, before))  # the history comes before the rows
    # every pair of rows: the history's first ``lead`` rows at their seconds, then all rows shifted
    at = np.concatenate([seconds[:lead], seconds + shift])
    key, weight = np.concatenate([keys[:lead], keys]), np.concatenate([weights[:lead], weights])
    earlier = (np.arange(len(at))[None, :] < np.arange(len(at))[:, None]) & (key[None, :] == key[:, None])
    since = np.where(earlier, at[:, None] - at[None, :], np.inf)
    expected = (weight[None, :] * np.exp(-since / tau)).sum(axis=1)[lead:]
    got = keyed_exposure(seconds, keys, tau, weights, lead, shift)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    nothing = ~(earlier & (weight[None, :] > 0)).any(axis=1)[lead:]
    assert (got[nothing] == 0).all()  # nothing before: exactly nothing


@settings(max_examples=60, deadline=None)
@given(gaps=hnp.arrays(np.float64, st.integers(0, 120), elements=st.floats(0, 40000)), data=st.data(),
       fatigue_tau=st.floats(30, 2e5), shift=st.sampled_from([0.0, 7 * 86400.0, 1234.5]))
def test_logged_decayed_sums_are_the_four_keyed_sums(gaps, data, fatigue_tau, shift):
    seconds = np.cumsum(gaps)
    n = len(seconds)
    before = int(np.searchsorted(seconds, seconds[0] + shift)) if n and shift else 0
    lead = data.draw(st.integers(0, before))
    priority = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 5)))
    updates = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 3)))
    by_priority = np.array([1.0, 1.0, 0.7, 0.5, 0.3, 0.0])
    keys = [data.draw(hnp.arrays(dtype, n, elements=st.integers(0, 6)))
            for dtype in (np.int16, np.int16, np.int64)]
    taus = np.array([86400.0, 86400.0, 3 * 86400.0])
    sizes = np.array([7, 7, 7])
    arguments = (seconds, priority, updates, by_priority, 0, 0.25, fatigue_tau, *keys, sizes, taus, lead,
                 shift)
    got = exposure_kernel.logged_decayed_sums(*arguments)
    interrupts = by_priority[priority] * np.where(updates != 0, 0.25, 1.0)
    alone = np.zeros(n, dtype=np.int64)
    fatigue = keyed_exposure(seconds, alone, fatigue_tau, interrupts, lead, shift)
    np.testing.assert_allclose(got[0], fatigue, rtol=1e-10, atol=1e-12)
    for row, key, tau in zip(got[1:], keys, taus, strict=True):
        once = np.ones(n)
        np.testing.assert_allclose(row, keyed_exposure(seconds, key, tau, once, lead, shift), rtol=1e-10,
                                   atol=1e-12)
    np.testing.assert_allclose(got, reference.logged_decayed_sums(*arguments), rtol=1e-10, atol=1e-12)


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
    return spent, reference.next_true(can_charge), starts, ends, topups, level, threshold, 13.75


@settings(max_examples=80, deadline=None)
@given(inputs=charge_inputs())
def test_charge_runs_equal_the_event_loop_in_python(inputs):
    for got, expected in zip(device_kernel.charge_runs(*inputs), reference.charge_runs(*inputs), strict=True):
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), inputs=charge_inputs(), drain=st.floats(0, 5))
def test_battery_spending_and_levels_equal_the_cumulative_sums_and_repeats(data, inputs, drain):
    n = len(inputs[0]) - 1
    state = data.draw(hnp.arrays(np.int8, n, elements=st.integers(0, 7)))
    music = data.draw(hnp.arrays(np.bool_, n))
    spending = (state, music, device.DRAIN_BY_STATE, device.MUSIC_DRAIN, drain, device.CHARGER_AT_HAND)
    for got, expected in zip(device_kernel.spending(*spending), reference.spending(*spending), strict=True):
        np.testing.assert_array_equal(got, expected)
    spent, next_charger = device_kernel.spending(*spending)
    runs = device_kernel.charge_runs(spent, next_charger, *inputs[2:])
    assume(np.all(np.diff(runs[0]) >= 0))  # runs in order, as a battery that drains gives them
    levels = (spent, *runs, inputs[-1])
    for got, expected in zip(device_kernel.slot_levels(*levels), reference.slot_levels(*levels), strict=True):
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), days=st.integers(1, 4), segments=st.integers(1, 5))
def test_slot_ringer_equals_the_masks_and_wheres(data, days, segments):
    n = days * 8
    state = data.draw(hnp.arrays(np.int8, n, elements=st.integers(0, 7)))
    segment = np.sort(data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, segments - 1))))
    modes = st.integers(0, 2)
    segment_mode = data.draw(hnp.arrays(np.int64, segments, elements=modes))
    quiet_night = data.draw(hnp.arrays(np.bool_, days + 1))
    night_mode = data.draw(hnp.arrays(np.int64, days + 1, elements=modes))
    do_not_disturb = data.draw(hnp.arrays(np.bool_, days))
    inputs = (state, segment, segment_mode, quiet_night, night_mode, do_not_disturb, 8, 3.0, 6.0, 0, 1, 2)
    np.testing.assert_array_equal(device_kernel.slot_ringer(*inputs), reference.slot_ringer(*inputs))


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


def assert_same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal to the bit: signed zeros and infinities included."""
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint64), expected.view(np.uint64))


FLOATS = st.floats(-1e6, 1e6, allow_subnormal=True) | st.sampled_from([0.0, -0.0, 1e-310, 0.5, 1.0])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), slots=st.integers(1, 30))
def test_trigger_lasts_equal_the_nested_choices(data, n, slots):
    trigger_of_app = data.draw(hnp.arrays(np.int64, 6, elements=st.integers(-1, 2)))
    app = data.draw(hnp.arrays(np.int16, n, elements=st.integers(0, 5)))
    slot = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, slots - 1)))
    state = data.draw(hnp.arrays(np.int8, slots, elements=st.integers(0, 7)))
    music = data.draw(hnp.arrays(np.bool_, slots))
    arguments = (app, slot, trigger_of_app, state, music, np.array([0, 1, 2]), np.array([2, 7, 6]))
    np.testing.assert_array_equal(nodes_kernel.trigger_lasts(*arguments), reference.trigger_lasts(*arguments))


def test_the_notification_kernel_reads_priority_and_updates_at_their_schema_columns():
    assert schemas.NOTIFICATION_FEATURES.index("priority") == engagement_kernel.PRIORITY
    assert schemas.NOTIFICATION_FEATURES.index("numberOfUpdates") == engagement_kernel.UPDATES


@st.composite
def row_inputs(draw: st.DrawFn) -> tuple:
    users, n = draw(st.integers(1, 3)), draw(st.integers(0, 30))

    def floats(shape, elements=FLOATS):
        return draw(hnp.arrays(np.float64, shape, elements=elements))

    def codes(top, dtype=np.int16):
        return draw(hnp.arrays(dtype, n, elements=st.integers(0, top - 1)))

    widths = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    indicators = (floats((7, 2)), floats((7, 3)), floats(3), floats((2, 2)))
    return (codes(users, np.int64), tuple(floats(users) for _ in range(4)),
            tuple(floats((users, w)) for w in widths), tuple(codes(w) for w in widths), floats((2, n)),
            draw(hnp.arrays(np.bool_, n)), floats(n), floats((6, n), st.floats(0, 1)), indicators,
            (codes(7), codes(7), codes(3), codes(2), codes(2)))


@st.composite
def notification_inputs(draw: st.DrawFn) -> tuple:
    users, groups, channels = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    n = draw(st.integers(0, 30))

    def floats(shape, elements=FLOATS):
        return draw(hnp.arrays(np.float64, shape, elements=elements))

    # 7 features; priority (column 4) indexes 6 effect rows, numberOfUpdates (column 2) 4
    widths = [draw(st.integers(1, top)) for top in (6, 6, 4, 6, 6, 6, 6)]
    codes = np.column_stack([draw(hnp.arrays(np.int64, n, elements=st.integers(0, w - 1))) for w in widths])
    positive = st.floats(0, 50) | st.sampled_from([0.0, 1e-300])
    return (floats(n), floats((n, 10)), draw(hnp.arrays(np.int64, n, elements=st.integers(0, users - 1))),
            tuple(floats((users, w)) for w in widths), codes.reshape(n, 7), floats((users, groups, 10)),
            draw(hnp.arrays(np.int64, channels, elements=st.integers(0, groups - 1))),
            draw(hnp.arrays(np.int64, n, elements=st.integers(0, channels - 1))), floats((6, 10)),
            floats((4, 10)), draw(hnp.arrays(np.bool_, n)), tuple(floats(users) for _ in range(4)),
            floats((n, 4), positive))


@settings(max_examples=60, deadline=None)
@given(arguments=row_inputs())
def test_row_logits_add_in_the_order_of_the_whole_array_terms(arguments):
    got, expected = engagement_kernel.row_logits(*arguments), reference.row_logits(*arguments)
    for a, b in zip(got, expected, strict=True):
        assert_same_bits(a, b)


@settings(max_examples=100, deadline=None)
@given(arguments=notification_inputs())
def test_notification_logits_add_in_the_order_of_the_whole_array_terms_and_einsum(arguments):
    got = engagement_kernel.notification_logits(*arguments)
    assert_same_bits(got, reference.notification_logits(*arguments))


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


@pytest.mark.parametrize("persistence", [0.5, 0.9])
def test_autoregression_keeps_the_stationary_variance(persistence):
    shocks = np.random.default_rng(2).normal(0.0, 1.0, 400_000) * np.sqrt(1 - persistence**2)
    level = engagement_kernel.autoregression(shocks, persistence)
    assert abs(level[1000:].var() - 1.0) < 0.03
    lag1 = np.corrcoef(level[1000:-1], level[1001:])[0, 1]
    assert abs(lag1 - persistence) < 0.01


@settings(max_examples=100, deadline=None)
@given(entropies=hnp.arrays(np.uint64, st.tuples(st.integers(0, 3), st.integers(1, 9)),
                            elements=st.integers(0, 2**32 - 1)),
       n_words=st.integers(1, 6))
def test_sequence_states_equal_numpy_seed_sequences(entropies, n_words):
    np.testing.assert_array_equal(seeding_kernel.sequence_states(entropies, n_words),
                                  reference.sequence_states(entropies, n_words))


@settings(max_examples=100, deadline=None)
@given(seed=st.one_of(st.integers(0, 2**63 - 1), st.sampled_from([0, 2**32 - 1, 2**32, 2**63 - 1])),
       user=st.one_of(st.integers(0, 10_000_000), st.sampled_from([0, 2**32, 2**70])),
       family=st.sampled_from(list(NodeFamily)))
def test_streams_draw_as_pcg64_seeded_by_the_seed_sequence_of_seed_user_and_family(seed, user, family):
    expected_sequence = np.random.SeedSequence(seed, spawn_key=(user, int(family)))
    expected = np.random.Generator(np.random.PCG64(expected_sequence))
    rng = stream(seed, user, family)
    assert rng.bit_generator.state == expected.bit_generator.state
    np.testing.assert_array_equal(rng.random(5), expected.random(5))
    seed_sequence = rng.bit_generator.seed_seq
    assert seed_sequence.generate_state(3).tolist() == expected_sequence.generate_state(3).tolist()
    assert [child.generate_state(2).tolist() for child in seed_sequence.spawn(2)] == [
        child.generate_state(2).tolist() for child in expected_sequence.spawn(2)]
    np.testing.assert_array_equal(rng.spawn(1)[0].random(3), expected.spawn(1)[0].random(3))


BLAS_STATE = ("import sys\nimport numba.np.arraymath as arraymath\n"
              "print(arraymath._HAVE_BLAS, 'scipy.linalg' in sys.modules,"
              " repr(sys.modules.get('scipy.linalg.cython_blas', 'absent'))[:8])\n"
              "import scipy.linalg.cython_blas\nprint('importable')\n")


def _run_then_blas_state(tmp_path, before: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", before + BLAS_STATE], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return " ".join(run.stdout.splitlines()[-2:]).split()


# float32 shocks: a variant no generation calls, so numba starts (and compiles it) here
START_NUMBA = ("import numpy as np\nfrom pushgen.model.engagement_kernel import autoregression\n"
               "autoregression(np.ones(2, dtype=np.float32), 0.5)\n")


def test_the_program_starts_numba_without_importing_scipy_linalg_and_leaves_it_importable(tmp_path):
    make = ("import sys\nfrom pushgen.cli import program\n"
            "sys.argv = ['pushgen', 'make', '--users', '2', '--days', '3', '--out', 'made']\n"
            "assert program() == 0\n" + START_NUMBA)
    assert _run_then_blas_state(tmp_path, make) == ["False", "False", "'absent'", "importable"]
    assert (tmp_path / "made" / "manifest.json").is_file()


def test_a_worker_starts_numba_without_importing_scipy_linalg(tmp_path):
    worker = ("from pushgen.data.engines import start_worker\nstart_worker()\n"
              "import pushgen\npushgen.generate(users=1, days=2)\n" + START_NUMBA)
    assert _run_then_blas_state(tmp_path, worker)[:2] == ["False", "False"]


@pytest.mark.parametrize("before", [
    "import pushgen\n",  # a library user's process: numba as numba starts itself
    "import scipy.linalg\nfrom pushgen.model.compiled import skip_blas_probe\nskip_blas_probe()\n"
    "import pushgen\n",  # scipy.linalg already there: the probe costs nothing, so it runs
])
def test_numba_looks_for_a_blas_in_other_processes(tmp_path, before):
    state = _run_then_blas_state(tmp_path, before + "pushgen.generate(users=1, days=2)\n")
    assert state == ["True", "True", "<module", "importable"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), users=st.integers(1, 6))
def test_received_exposures_read_every_cell_then_write_the_reached_ones(data, users):
    n = data.draw(st.integers(0, users))
    width = 9  # fatigue at 0, then app, subject and channel keys
    value = data.draw(hnp.arrays(np.float64, users * width, elements=st.floats(0, 20)))
    time = data.draw(hnp.arrays(np.float64, users * width, elements=st.floats(0, 1e5)))
    who = np.asarray(data.draw(st.permutations(range(users))), dtype=np.int64)[:n]  # one notification a user
    keys = data.draw(hnp.arrays(np.int64, (n, 3), elements=st.integers(0, 1)))
    cells = who[:, None] * width + np.column_stack([np.zeros(n, dtype=np.int64), keys + np.array([1, 3, 5])])
    t = time.max(initial=0.0) + data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1e5)))
    tau = np.array([1800.0, 86400.0, 86400.0, 3 * 86400.0])
    flags = [data.draw(hnp.arrays(np.bool_, n)) for _ in range(2)]
    interrupts = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0, 1)))
    got_value, got_time = value.copy(), time.copy()
    got = exposure_kernel.received_exposures(got_value, got_time, cells, t, tau, interrupts, *flags)
    expected = reference.received_exposures(value, time, cells, t, tau, interrupts, *flags)
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)  # exp: the kernel's against NumPy's
    np.testing.assert_allclose(got_value, value, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(got_time, time)
