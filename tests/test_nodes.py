"""Each node family on its own: its draws follow the distribution its docstring and
``docs/model.md`` give (moments or goodness of fit, fixed seeds)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest
from scipy import stats

from pushgen import schemas
from pushgen.model import (
    arrivals,
    device,
    engagement,
    habits,
    portfolio,
    routine,
    surroundings,
    timings,
    traits,
)
from pushgen.model.catalog import app_catalog
from pushgen.model.graph import run
from pushgen.model.priors import Priors
from pushgen.model.routine import State
from pushgen.model.timegrid import SLOT_HOURS, SLOTS_PER_DAY, TimeGrid

PRIORS = Priors()
N = 3000


def draws(function, *args, n: int = N, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [function(*args, rng) for _ in range(n)]


def chi2_p(observed: np.ndarray, expected_share: np.ndarray) -> float:
    keep = expected_share > 0
    expected = expected_share[keep] / expected_share[keep].sum() * observed[keep].sum()
    return float(stats.chisquare(observed[keep], expected).pvalue)


def test_chronotypes_mix_usual_late_and_night_shift_sleepers_in_their_shares():
    values = draws(habits.chronotype, PRIORS, n=6000)
    kind = np.array([int(c.sleeper) for c in values])
    wake = np.array([c.wake_hour for c in values])
    delay = np.array([c.weekend_delay for c in values])
    usual = 1 - PRIORS.late_sleeper_share - PRIORS.night_shift_share
    shares = np.array([usual, PRIORS.late_sleeper_share, PRIORS.night_shift_share])
    assert chi2_p(np.bincount(kind, minlength=3), shares) > 1e-3
    for sleeper, mean in ((habits.Sleeper.USUAL, PRIORS.wake_hour_mean),
                          (habits.Sleeper.LATE, PRIORS.late_wake_hour_mean),
                          (habits.Sleeper.NIGHT_SHIFT, PRIORS.night_shift_wake_hour_mean)):
        mine = wake[kind == sleeper]
        low, high = habits.WAKE_RANGE[sleeper]
        assert ((mine >= low) & (mine <= high)).all()
        assert np.median(mine) == pytest.approx(mean, abs=0.25)
    assert wake[kind == 0].std() == pytest.approx(PRIORS.wake_hour_sd, rel=0.1)
    assert stats.kstest(delay, stats.gamma(2.0, scale=PRIORS.weekend_delay_mean / 2.0).cdf).pvalue > 1e-3


def test_night_shift_sleepers_work_shifts_and_sleep_by_day():
    priors = Priors(night_shift_share=1.0, late_sleeper_share=0.0)
    grid = TimeGrid(dt.date(2024, 1, 1), 28)
    inputs = {"user_id": 0, "seed": 5, "grid": grid, "priors": priors, "catalog": app_catalog()}
    values = {node.name: value for node, value in run(inputs) if node.name in ("sched", "state")}
    assert values["sched"].occupation == habits.Occupation.SHIFT
    asleep = (values["state"] == State.SLEEP).reshape(grid.days, -1).mean(axis=0)
    hours = np.arange(asleep.size) * 24 / asleep.size
    assert asleep[(hours >= 9) & (hours < 12)].mean() > 0.9
    assert asleep[(hours >= 0) & (hours < 4)].mean() < 0.1


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
                                          np.arange(5), 3.0, rng)
        fatigue.append(params.scalars["fatigue_weight"][0])
        habituation.append(params.scalars["habituation_app"][0])
    assert params.scalars["tolerance"][0] == 3.0  # the tolerance node's draw, carried as it is
    assert params.long_term.annoyance_tau_days == PRIORS.annoyance_tau_days
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


def test_the_main_app_takes_its_share_of_rows_and_the_total_is_kept():
    catalog = app_catalog()
    kinds = catalog.kind_of_app
    messaging = np.flatnonzero(kinds == list(catalog.kinds).index("messaging"))[:3]
    others = np.flatnonzero(kinds != list(catalog.kinds).index("messaging"))[:12]
    apps = np.r_[messaging, others]
    rate = np.random.default_rng(0).lognormal(0, 0.5, len(apps))
    rows_per_post = np.where(np.isin(apps, messaging), 2.6, 1.0)
    shares = []
    for seed in range(2000):
        out = portfolio.with_main_app(rate, rows_per_post, kinds[apps], PRIORS.dominant_app_share,
                                      PRIORS.dominant_kind_shares, np.random.default_rng(seed))
        rows = out * rows_per_post
        assert rows.sum() == pytest.approx((rate * rows_per_post).sum())
        changed = np.flatnonzero(~np.isclose(out / rate, (out / rate)[np.argmin(rows)]))
        assert len(changed) <= 1  # the other apps keep their proportions
        shares.append(rows.max() / rows.sum())
    assert PRIORS.dominant_app_share <= np.mean(shares) <= PRIORS.dominant_app_share + 0.1
    assert np.mean(np.array(shares) > 0.5) > 0.15


def test_quiet_nights_silence_sleep_and_the_small_hours_at_home_but_not_a_night_shift():
    grid = TimeGrid(dt.date(2024, 1, 1), 200)
    hour = np.tile(np.arange(SLOTS_PER_DAY) * SLOT_HOURS, grid.days)
    day = np.repeat(np.arange(grid.days), SLOTS_PER_DAY)
    state = np.where(hour < 7, State.SLEEP, State.HOME).astype(np.int8)
    state[(day % 2 == 1) & (hour < 5)] = State.WORK  # a night at work every other day
    state[(day % 2 == 0) & (hour >= 1) & (hour < 3)] = State.HOME  # awake at 1-3 h
    ringer = schemas.field("ringerMode")
    base = habits.device_habits(PRIORS, np.random.default_rng(0))
    normal = dataclasses.replace(base, ringer=np.array([0.0, 1.0, 0.0]), quiet_at_work=0.0)
    no_dnd = np.zeros(grid.days, dtype=bool)
    always = routine_ringer(grid, state, dataclasses.replace(normal, quiet_at_night=1.0), no_dnd)
    never = routine_ringer(grid, state, dataclasses.replace(normal, quiet_at_night=0.0), no_dnd)
    night = (state == State.SLEEP) | ((state == State.HOME) & (hour < 6))
    assert (always[night] != ringer.code("normal")).all()
    assert np.mean(always[night] == ringer.code("silent")) == pytest.approx(0.75, abs=0.08)
    assert (always[state == State.WORK] == ringer.code("normal")).all()
    assert (always[~night] == ringer.code("normal")).all()
    assert (never == ringer.code("normal")).all()
    half = routine_ringer(grid, state, dataclasses.replace(normal, quiet_at_night=0.5), no_dnd)
    by_night = (half[(state == State.SLEEP) & (hour < 0.5)] != ringer.code("normal"))
    assert by_night.mean() == pytest.approx(0.5, abs=0.12)


def routine_ringer(grid, state, device_habits, do_not_disturb):
    return device.ringer_mode(grid, state, device_habits, do_not_disturb, np.random.default_rng(4))


def test_opens_are_sometimes_decided_long_after_they_are_seen():
    n = 40_000
    attention = timings.AttentionHabits(seen_median=90.0, swipe_share=0.5, delayed_share=0.25,
                                        delayed_seconds=2100.0)
    ringer = np.full(n, schemas.field("ringerMode").code("normal"))
    priority = np.full(n, schemas.field("priority").code("default"))
    opened = np.arange(n) % 2 == 0
    times = timings.timings(opened, ringer, priority, np.full(n, State.HOME), np.zeros(n),
                            np.full(n, 12.0), attention, np.random.default_rng(3))
    late = times.decision > 600
    assert late[opened].mean() == pytest.approx(0.25 * stats.norm.sf(np.log(600 / 2100) / 1.3), abs=0.015)
    assert np.median(times.decision[opened & late]) > 1800
    # dismissed rows are as often left for long: the delay alone does not tell the action
    assert abs(late[opened].mean() - late[~opened].mean()) < 0.35


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
