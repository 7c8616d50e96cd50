"""Day-level dynamics and the structure of the data: the daily regime node on its own, and the
figures of the realism audit on the 50-user population."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pushgen import schemas
from pushgen.data.realism import daily_counts, lag_autocorrelation, realism_figures
from pushgen.model.habits import lifestyle
from pushgen.model.priors import Priors
from pushgen.model.regime import (
    ATTENTION,
    DO_NOT_DISTURB_ATTENTION,
    VOLUME,
    WEEKEND_ATTENTION,
    Regime,
    day_regime,
    stationary,
    transition_matrix,
)
from pushgen.model.seeding import NodeFamily, stream
from pushgen.model.timings import evening_factor

DAYS = 40_000


@pytest.fixture(scope="module")
def long_chain():
    priors = Priors(vacation_weeks_per_year=6.0)
    life = lifestyle(priors, np.random.default_rng(1))
    weekday = np.arange(DAYS) % 7
    return priors, life, weekday, day_regime(DAYS, weekday, priors, life, np.random.default_rng(2))


def test_the_regime_chain_follows_its_transition_matrix(long_chain):
    priors, life, _, regime = long_chain
    transition = transition_matrix(priors, life, np.random.default_rng(2))  # the chain's own draw
    before, after = regime.state[:-1], regime.state[1:]
    for s in Regime:
        observed = np.bincount(after[before == s], minlength=len(Regime))
        expected = transition[s] * observed.sum()
        keep = expected > 5
        chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
        assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3, (s, observed, expected)
    shares = np.bincount(regime.state, minlength=len(Regime)) / DAYS
    np.testing.assert_allclose(shares, stationary(transition), atol=0.02)


def test_days_away_follow_the_users_share_of_weeks_away(long_chain):
    _, life, _, regime = long_chain
    assert regime.away.mean() == pytest.approx(min(life.vacation_week_share, 0.5), rel=0.35)
    spells = np.diff(np.flatnonzero(np.diff(np.r_[0, regime.away.astype(int), 0])))[::2]
    assert 3.0 < spells.mean() < 7.0  # spells of about 5 days


def test_volume_and_attention_follow_the_regime_and_the_calendar(long_chain):
    _, _, weekday, regime = long_chain
    on = ~regime.phone_off
    np.testing.assert_array_equal(regime.volume[on], VOLUME[regime.state[on]])
    assert (regime.volume[regime.phone_off] == 0).all()
    assert not (regime.phone_off & regime.do_not_disturb).any()
    expected = (ATTENTION[regime.state] + WEEKEND_ATTENTION * (weekday >= 5)
                + DO_NOT_DISTURB_ATTENTION * regime.do_not_disturb)
    np.testing.assert_allclose(regime.attention, expected)


def test_phone_off_and_do_not_disturb_rates_differ_between_users():
    priors = Priors()
    rates = []
    for user in range(300):
        life = lifestyle(priors, np.random.default_rng(user))
        regime = day_regime(365, np.arange(365) % 7, priors, life, np.random.default_rng(10_000 + user))
        rates.append((regime.phone_off.sum(), regime.do_not_disturb.sum()))
    off, dnd = np.array(rates).T
    assert off.mean() == pytest.approx(priors.phone_off_days_per_year, rel=0.3)
    assert dnd.mean() == pytest.approx(priors.do_not_disturb_days_per_year, rel=0.3)
    assert (off == 0).mean() > 0.3 and off.max() >= 5  # many never, a few often


def test_nothing_arrives_on_phone_off_days_and_the_ringer_is_silent_on_quiet_ones(population):
    frame = population.notifications
    start = np.datetime64(population.recipe.start, "D")
    day = ((frame["posted_at"].to_numpy().astype("datetime64[D]") - start).astype(np.int64))
    silent = frame["ringerMode"].to_numpy() == "silent"
    checked_off = checked_dnd = 0
    for user in range(population.recipe.users):
        life = lifestyle(population.recipe.priors, stream(population.recipe.seed, user, NodeFamily.LIFESTYLE))
        regime = day_regime(population.recipe.days, (np.arange(population.recipe.days)
                                                     + start.astype(object).weekday()) % 7,
                            population.recipe.priors, life,
                            stream(population.recipe.seed, user, NodeFamily.REGIME))
        mine = frame["user_id"].to_numpy() == user
        rows_per_day = np.bincount(day[mine], minlength=population.recipe.days)
        assert (rows_per_day[regime.phone_off] == 0).all()
        checked_off += regime.phone_off.sum()
        quiet = mine & regime.do_not_disturb[np.clip(day, 0, population.recipe.days - 1)]
        assert silent[quiet].all()
        checked_dnd += quiet.sum()
    assert checked_off > 5 and checked_dnd > 100


def test_the_audit_figures_hold_on_the_population(population):
    figures = realism_figures(population.notifications)
    assert figures["lag1"] >= 0.25
    assert figures["phone_off_users"] > 0.05
    assert figures["delay_step"] <= 1.3 and figures["open_step"] <= 1.3
    assert figures["channel_coverage"] >= 0.8
    assert figures["place_other"] < 0.72 and figures["place_spread"] > 0.05
    assert figures["subjects"] >= 150


def test_lag_autocorrelation_removes_weekday_means():
    weekday = np.arange(70) % 7
    weekly = np.tile([50, 60, 60, 60, 60, 30, 20], 10)[None, :].astype(float)
    assert np.isnan(lag_autocorrelation(weekly, weekday)).all()  # nothing left once weekdays go
    rng = np.random.default_rng(0)
    spells = np.repeat(rng.normal(0, 10, 14), 5)[None, :] + weekly
    assert lag_autocorrelation(spells, weekday)[0] > 0.5
    noise = weekly + rng.normal(0, 10, (1, 70))
    assert abs(lag_autocorrelation(noise, weekday)[0]) < 0.35


def test_daily_counts_include_days_without_notifications(small):
    counts, weekday = daily_counts(small.notifications)
    assert counts.shape == (small.notifications["user_id"].nunique(), len(weekday))
    assert counts.sum() == len(small.notifications)


def test_the_evening_factor_is_smooth_with_a_dip_late_in_the_evening():
    hours = np.linspace(0, 24, 24 * 60, endpoint=False)
    factor = evening_factor(hours)
    assert factor.min() == pytest.approx(0.55, abs=1e-3) and 23 <= hours[np.argmin(factor)] <= 24
    assert np.abs(np.diff(factor)).max() < 0.005  # no step: at most 0.5% a minute
    assert evening_factor(np.array([12.0]))[0] > 0.97


def test_place_values_stay_in_the_published_set(population):
    assert set(population.notifications["place"].astype(str)) <= set(schemas.values("place"))
