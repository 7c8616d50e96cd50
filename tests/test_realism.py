"""Day-level dynamics and the structure of the data: the daily regime node on its own, and the
figures of the realism audit on the 50-user population."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pushgen import schemas
from pushgen.data import user_figures
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


def hand_made_rows() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two users: user 0 opens 3 of 4 rows (one app holds 3), user 1 none of 4 (two apps 2 + 2)."""
    start = pd.Timestamp("2026-01-05 00:00")
    hours = [2.5, 10, 11, 20, 3.5, 10, 12, 21]
    frame = pd.DataFrame({
        "user_id": [0, 0, 0, 0, 1, 1, 1, 1],
        "posted_at": [start + pd.Timedelta(days=d, hours=h) for d, h in zip([0, 0, 9, 9, 0, 9, 9, 9], hours,
                                                                            strict=True)],
        "postingApp": ["a", "a", "a", "b", "a", "a", "c", "c"],
        "action": ["opened", "opened", "opened", "dismissed", "dismissed", "dismissed", "dismissed",
                   "dismissed"],
        "ringerMode": ["silent", "normal", "normal", "normal", "normal", "vibrate", "normal", "normal"],
        "decisionTime": [5.0, 900.0, 4.0, 3.0, 3.0, 2000.0, 3.0, 3.0],
        "responseTime": [30.0, 1000.0, 50.0, 40.0, 20.0, 2100.0, 30.0, 30.0],
    })
    users = pd.DataFrame({"user_id": [0, 1], "wake_time": ["07:00", "11:30"], "bedtime": ["23:00", "02:30"]})
    return frame, users


def test_user_figures_measure_spread_nights_and_timings_as_defined():
    frame, users = hand_made_rows()
    spread = user_figures.spread_figures(frame.assign(user_id=frame["user_id"]))
    assert np.isnan(spread["user_open_sd"])  # no user has the rows an open rate needs
    assert spread["top_app_share"] == pytest.approx((3 / 4 + 2 / 4) / 2)
    assert spread["top_app_above_half"] == pytest.approx(0.5)
    assert user_figures.chronotype_figures(users) == {"wake_span_hours": 4.5, "bed_after_1am": 0.5}
    nights = user_figures.night_figures(frame, users)
    # user 0's core sleep is 00:00-06:00: the 02:30 row, opened within 60 s; user 1's is 03:30-10:30
    assert nights["core_sleep_share"] == pytest.approx(3 / 8)  # 02:30 of user 0, 03:30 and 10:00 of user 1
    assert nights["core_sleep_prompt_opens"] == pytest.approx(1 / 8)
    assert nights["small_hours_quiet_ringer"] == pytest.approx(0.5)  # silent at 02:30, normal at 03:30
    timing = user_figures.timing_figures(frame)
    assert timing["opened_decided_late"] == pytest.approx(1 / 3)
    assert timing["first_week_open_lift"] == pytest.approx(((1 - 1 / 2) + (0 - 0)) / 2)  # per user, median


def test_the_timing_auc_sees_an_answer_key_and_not_noise():
    rng = np.random.default_rng(0)
    n = 4000
    opened = rng.random(n) < 0.4
    frame = pd.DataFrame({"user_id": np.arange(n) % 20, "action": np.where(opened, "opened", "dismissed"),
                          "seenTime": rng.lognormal(4, 1, n)})
    frame["decisionTime"] = np.where(opened, 4.0, 2400.0) * rng.lognormal(0, 0.3, n)
    frame["responseTime"] = frame["seenTime"] + frame["decisionTime"]
    assert user_figures.timing_auc(frame) > 0.95
    frame["decisionTime"] = rng.lognormal(3, 2, n)
    frame["responseTime"] = frame["seenTime"] + frame["decisionTime"]
    assert abs(user_figures.timing_auc(frame) - 0.5) < 0.05


def test_users_differ_nights_are_quiet_and_timings_hide_the_action_on_the_population(population):
    figures = user_figures.user_figures(population.notifications, population.users)
    assert figures["user_open_sd"] >= 0.22
    assert figures["user_open_min"] < 0.15 and figures["user_open_max"] > 0.8
    assert figures["top_app_share"] >= 0.30 and figures["top_app_above_half"] >= 0.10
    assert figures["bed_after_1am"] >= 0.05 and figures["wake_span_hours"] >= 5.0
    assert figures["core_sleep_prompt_opens"] < 0.005
    assert figures["small_hours_quiet_ringer"] >= 0.6
    assert figures["opened_decided_late"] >= 0.15
    assert abs(figures["first_week_open_lift"]) <= 0.03
    assert user_figures.timing_auc(population.notifications) <= 0.70
