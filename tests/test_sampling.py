"""The shared draws of ``pushgen.model.sampling`` give what the numpy calls they stand for give,
bit for bit, and leave the generator where those calls leave it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pushgen.model import sampling

seeds = st.integers(0, 2**63)


def same_draws(ours: object, expected: object, rng: np.random.Generator, numpy_rng: np.random.Generator):
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(expected), strict=True)
    assert rng.random() == numpy_rng.random()  # and the generators are at the same place


# names as the model's options are (numpy's string arrays drop a trailing NUL)
names = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=3)


@given(options=st.one_of(st.lists(names, min_size=1, max_size=8).map(tuple),
                         hnp.arrays(np.int64, st.integers(1, 8))), seed=seeds)
def test_one_of_is_rng_choice_of_the_same_draw(options, seed):
    rng, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    ours, expected = sampling.one_of(options, rng), numpy_rng.choice(options)
    if isinstance(options, tuple):
        assert isinstance(ours, str) and ours == str(expected)
        assert rng.random() == numpy_rng.random()
    else:
        same_draws(ours, expected, rng, numpy_rng)


rates = hnp.arrays(np.float64, st.integers(0, 30),
                   elements=st.one_of(st.floats(0, 20), st.floats(0, 1e4), st.sampled_from([0.0, 10.0])))


@given(rates=rates, seed=seeds)
def test_poisson_counts_are_rng_poisson_of_the_rates(rates, seed):
    rng, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    same_draws(sampling.poisson_counts(rates, rng), numpy_rng.poisson(rates), rng, numpy_rng)


alphas = st.integers(1, 5).flatmap(lambda rows: st.integers(1, 6).flatmap(
    lambda k: hnp.arrays(np.float64, (rows, k), elements=st.one_of(
        st.floats(1e-4, 0.2), st.floats(0.05, 60.0), st.sampled_from([1e-3, 0.1, 30.0])))))


@given(alphas=alphas, seed=seeds)
def test_dirichlet_rows_are_one_dirichlet_draw_per_row(alphas, seed):
    rng, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    expected = np.vstack([numpy_rng.dirichlet(row) for row in alphas])
    same_draws(sampling.dirichlet_rows(alphas, rng), expected, rng, numpy_rng)


def test_dirichlet_rows_of_the_daily_regime_over_many_users():
    from pushgen.model.regime import BASE_TRANSITION, REGIME_CONCENTRATION

    alphas = REGIME_CONCENTRATION * BASE_TRANSITION + 1e-3  # an alpha of 1e-3 in a row: still gammas
    for seed in range(2000):
        rng, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = np.vstack([numpy_rng.dirichlet(row) for row in alphas])
        same_draws(sampling.dirichlet_rows(alphas, rng), expected, rng, numpy_rng)


@settings(max_examples=60, deadline=None)
@given(width=st.sampled_from([17, 40, 96, 215]), rows=st.integers(1, 6), data=st.data())
def test_categorical_codes_of_wide_rows_bisected_or_guided_are_one_search(width, rows, data):
    """Rows of a few draws (bisected where read) and of many (guided) beside each other."""
    import kernel_references as reference

    from pushgen.model import sampling_kernel

    masses = st.sampled_from([0.0, 1e-300, 0.3, 7.5])
    weights = data.draw(hnp.arrays(np.float64, (rows, width), elements=masses))
    weights[:, -1] += 1e-9
    cdf = np.cumsum(weights, axis=1)
    per_row = data.draw(st.lists(st.sampled_from([0, 1, 3, 20, 200]), min_size=rows, max_size=rows))
    row = np.repeat(np.arange(rows), per_row)
    data.draw(st.randoms()).shuffle(row)
    u = np.random.default_rng(data.draw(seeds)).random(len(row))
    u[::7] = 1 - 2**-53
    np.testing.assert_array_equal(sampling_kernel.categorical_codes(cdf, u, row),
                                  reference.categorical_codes(cdf, u, row.astype(np.int64)))
