"""Each node family on its own: its draws follow the distribution its docstring and
``docs/model.md`` give (moments or goodness of fit, fixed seeds)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from scipy import stats

from pushgen import schemas
from pushgen.model import arrivals, engagement, habits, portfolio, routine, surroundings, timings, traits
from pushgen.model.catalog import app_catalog
from pushgen.model.graph import run
from pushgen.model.priors import Priors
from pushgen.model.routine import State
from pushgen.model.timegrid import TimeGrid

PRIORS = Priors()
N = 3000


def draws(function, *args, n: int = N, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [function(*args, rng) for _ in range(n)]


def chi2_p(observed: np.ndarray, expected_share: np.ndarray) -> float:
    keep = expected_share > 0
    expected = expected_share[keep] / expected_share[keep].sum() * observed[keep].sum()
    return float(stats.chisquare(observed[keep], expected).pvalue)


def test_chronotype_is_normal_around_the_priors():
    values = draws(habits.chronotype, PRIORS)
    wake = np.array([c.wake_hour for c in values])
    delay = np.array([c.weekend_delay for c in values])
    assert wake.mean() == pytest.approx(PRIORS.wake_hour_mean, abs=0.05)
    assert wake.std() == pytest.approx(PRIORS.wake_hour_sd, rel=0.06)
    assert stats.kstest(delay, stats.gamma(2.0, scale=PRIORS.weekend_delay_mean / 2.0).cdf).pvalue > 1e-3


def test_occupations_follow_their_shares():
    chrono = habits.chronotype(PRIORS, np.random.default_rng(1))
    values = draws(habits.schedule, PRIORS, chrono)
    counts = np.bincount([int(s.occupation) for s in values], minlength=len(PRIORS.occupation_shares))
    assert chi2_p(counts, np.asarray(PRIORS.occupation_shares)) > 1e-3


def test_lifestyle_rates_are_gamma_around_the_priors():
    values = draws(habits.lifestyle, PRIORS)
    outings = np.array([v.outings_per_week for v in values])
    assert stats.kstest(outings, stats.gamma(2.0, scale=PRIORS.outings_per_week / 2.0).cdf).pvalue > 1e-3
    assert np.mean([v.exercise_running for v in values]) == pytest.approx(0.6, abs=0.03)


def test_device_habits_centre_on_the_priors():
    values = draws(habits.device_habits, PRIORS)
    ringer = np.array([v.ringer for v in values])
    np.testing.assert_allclose(ringer.mean(axis=0), PRIORS.ringer_shares, atol=0.02)
    assert np.mean([v.night_charge for v in values]) == pytest.approx(PRIORS.night_charge_share, abs=0.02)


def test_subject_interests_are_normal_with_unknown_fixed():
    values = np.array(draws(portfolio.interests, PRIORS, n=200))
    unknown = schemas.field("subject").code("unknown")
    assert (values[:, unknown] == 0).all()
    others = np.delete(values, unknown, axis=1).ravel()
    assert stats.kstest(others, stats.norm(0, PRIORS.interest_sd).cdf).pvalue > 1e-3


def test_engagement_traits_draw_penalties_from_their_gammas():
    catalog = app_catalog()
    rng = np.random.default_rng(3)
    fatigue, habituation = [], []
    for user in range(1500):
        params = traits.engagement_traits(user, PRIORS, catalog, np.zeros(len(schemas.values("subject"))),
                                          np.arange(5), rng)
        fatigue.append(params.scalars["fatigue_weight"][0])
        habituation.append(params.scalars["habituation_app"][0])
    assert stats.kstest(fatigue, stats.gamma(2.0, scale=PRIORS.fatigue_weight_mean / 2.0).cdf).pvalue > 1e-3
    assert stats.kstest(habituation,
                        stats.gamma(4.0, scale=PRIORS.habituation_app_mean / 4.0).cdf).pvalue > 1e-3
    assert min(fatigue) >= 0 and min(habituation) >= 0  # what makes the fresh state an upper bound


@pytest.mark.parametrize("state", [State.HOME, State.COMMUTE])
def test_noise_and_proximity_follow_their_tables_given_the_state(state):
    slots = np.full(20_000, state, dtype=np.int8)
    rng = np.random.default_rng(4)
    for node, table, name in ((surroundings.noise, surroundings.NOISE_GIVEN_STATE, "noise"),
                              (surroundings.proximity, surroundings.PROXIMITY_GIVEN_STATE, "proximity")):
        field = schemas.field(name)
        expected = np.zeros(len(field.values))
        for value, p in table[state].items():
            expected[field.code(value)] = p
        counts = np.bincount(node(slots, rng), minlength=len(field.values))
        assert chi2_p(counts, expected) > 1e-3, name


def test_activity_follows_its_table_given_the_state():
    rng = np.random.default_rng(5)
    sched = habits.schedule(PRIORS, habits.chronotype(PRIORS, rng), rng)
    life = habits.lifestyle(PRIORS, np.random.default_rng(5))
    table = routine.activity_table(sched, life)
    codes = routine.activity(np.full(20_000, State.HOME, dtype=np.int8), table, np.random.default_rng(6))
    counts = np.bincount(codes, minlength=table.shape[1])
    assert chi2_p(counts, np.diff(np.r_[0.0, table[State.HOME]])) > 1e-3


def test_mood_is_an_ar1_over_days_plus_a_shift_per_segment():
    day, shift = engagement.mood(40_000, 40_000, 0.9, 0.85, np.random.default_rng(7))
    lag1 = np.corrcoef(day[:-1], day[1:])[0, 1]
    assert lag1 == pytest.approx(0.5, abs=0.02)
    assert shift.std() == pytest.approx(0.85, rel=0.03)


def test_seen_time_is_lognormal_around_the_users_median():
    n = 40_000
    attention = timings.AttentionHabits(seen_median=90.0, swipe_share=0.5)
    ringer = np.full(n, schemas.field("ringerMode").code("normal"))
    priority = np.full(n, schemas.field("priority").code("default"))
    times = timings.timings(np.ones(n, dtype=bool), ringer, priority, np.full(n, State.WORK),
                            np.zeros(n), np.full(n, 12.0), attention, np.random.default_rng(8))
    median = 90.0 * timings.STATE_FACTOR[State.WORK] * timings.evening_factor(np.array([12.0]))[0]
    assert np.median(times.seen) == pytest.approx(median, rel=0.03)
    assert np.log(times.seen).std() == pytest.approx(1.1, rel=0.03)
    assert np.median(times.decision) == pytest.approx(4.0, rel=0.03)


def test_routine_arrivals_have_the_apps_rates_on_usual_days():
    grid = TimeGrid(dt.date(2026, 1, 5), 28)
    inputs = {"user_id": 3, "seed": 0, "grid": grid, "priors": PRIORS, "catalog": app_catalog()}
    values = {}
    for node, value in run(inputs):
        values[node.name] = value
        if node.name == "sound":
            break
    folio, plan, state = values["folio"], values["plan"], values["state"]
    totals = [len(arrivals.routine_arrivals(grid, state, plan, np.ones(grid.days), folio, app_catalog(),
                                            np.random.default_rng(seed))[0]) for seed in range(40)]
    expected = folio.daily_rate.sum() * grid.days
    assert np.mean(totals) == pytest.approx(expected, abs=4 * np.sqrt(expected / len(totals)))


def test_the_engagement_draw_is_uniform(population):
    draw = population.truth_rows["draw"].to_numpy()
    assert stats.kstest(draw[:50_000], "uniform").pvalue > 1e-3
