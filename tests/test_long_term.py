"""The long-term state (model 4): annoyance, apps and channels turned off, apps abandoned."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.model import graph
from pushgen.model.catalog import app_catalog
from pushgen.model.exposure import Exposure, interruption
from pushgen.model.long_term import TOLERANCE_BAND_EDGES, abandonable, app_kinds, tolerance, tolerance_band
from pushgen.model.nodes import WEEK_BEFORE_SECONDS
from pushgen.model.priors import Priors
from pushgen.model.simulated_user import (
    ABANDONED,
    APP_OFF,
    CHANNEL_OFF,
    DELIVERED,
    NOT_DELIVERED,
    LongTermUser,
    SimulatedUser,
    hazard,
)
from pushgen.model.simulated_user.formula import open_logit
from pushgen.model.timegrid import TimeGrid

GRID = TimeGrid(dt.date(2026, 1, 5), 120)


def lived_user(user: int, seed: int = 3) -> dict:
    inputs = {"user_id": user, "seed": seed, "grid": GRID, "priors": Priors(), "catalog": app_catalog()}
    return {node.name: value for node, value in graph.run(inputs)}


@pytest.fixture(scope="module")
def users() -> list[dict]:
    return [lived_user(u) for u in range(6)]


def test_the_compiled_pass_and_the_user_in_floats_agree(users):
    """``lived`` (the generator) and ``SimulatedUser`` + ``LongTermUser`` (the environments), stepped
    through the same posts with the same draws, agree on every fate, P(open) and annoyance."""
    turned_off = 0
    for v in users:
        params, codes, posts, lived = v["params"], v["codes"], v["posts"], v["lived"]
        n = len(posts.seconds)
        zero = np.zeros(n)
        static = open_logit(params, np.zeros(n, dtype=np.int64), codes, v["row_state"],
                            Exposure(zero, zero, zero, zero), v["channel"])
        sizes = (("fatigue", 1), ("app", len(app_catalog().apps)), ("subject", 300),
                 ("channel", len(app_catalog().channels.group)))
        start = {k: [0.0] * size for k, size in sizes}
        one = SimulatedUser(params, int(params.user_ids[0]), start)
        long_term = LongTermUser(float(params.scalars["tolerance"][0]), params.long_term,
                                 abandonable(app_catalog()))
        weight, context = v["unwanted"]
        interrupts = interruption(codes["priority"], codes["numberOfUpdates"])
        lead = int(np.searchsorted(posts.seconds, WEEK_BEFORE_SECONDS))
        rng_draws = _draws(v)
        fates, ps, annoyances = [], [], []
        for step in range(lead + n):
            i = step if step < lead else step - lead
            history = step < lead
            t = posts.seconds[i] + (0.0 if history else WEEK_BEFORE_SECONDS)
            app, subject = int(codes["postingApp"][i]), int(codes["subject"][i])
            channel = int(v["channel"][i])
            if not history and not long_term.reachable(app, channel):
                fates.append(NOT_DELIVERED), ps.append(0.0), annoyances.append(0.0)
                continue
            subject_exposure = one.exposure(t, (app, subject, channel))[2]
            p = one.send(float(static[i]), t, (app, subject, channel), float(interrupts[i]))
            fate = long_term.deliver(app, channel, t, p, float(weight[i]), float(context[i]),
                                     subject_exposure, (2.0, 2.0, 2.0) if history else tuple(rng_draws[:, i]))
            if not history:
                fates.append(fate), ps.append(p), annoyances.append(long_term.annoyance(app, t))
        np.testing.assert_array_equal(np.array(fates), lived.fate)
        np.testing.assert_allclose(np.array(ps), lived.p_open, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(np.array(annoyances), lived.annoyance, rtol=1e-9, atol=1e-9)
        turned_off += int((lived.fate > 0).sum())
    assert turned_off > 0  # the comparison covered events


def _draws(v: dict) -> np.ndarray:
    """The uniforms ``nodes.lived`` drew: the LONG_TERM stream after the tolerance."""
    from pushgen.model.seeding import NodeFamily, stream

    rng = stream(3, int(v["params"].user_ids[0]), NodeFamily.LONG_TERM)
    tolerance(Priors(), rng)
    return rng.random((3, len(v["posts"].seconds)))


def test_nothing_arrives_from_what_was_turned_off(users):
    for v in users:
        lived, codes, channel = v["lived"], v["codes"], v["channel"]
        for i in np.flatnonzero(lived.fate > 0):
            later = np.arange(len(lived.fate)) > i
            if lived.fate[i] == CHANNEL_OFF:
                same = later & (channel == channel[i])
            else:
                same = later & (codes["postingApp"] == codes["postingApp"][i])
            assert (lived.fate[same] == NOT_DELIVERED).all()
        assert set(np.unique(lived.fate)) <= {NOT_DELIVERED, DELIVERED, APP_OFF, CHANNEL_OFF, ABANDONED}
        assert (lived.p_open[lived.fate == NOT_DELIVERED] == 0).all()


def test_messaging_apps_are_turned_off_far_less_than_promotional_ones(users):
    kinds = app_kinds(app_catalog())
    had, off = Counter(), Counter()
    for v in users + [lived_user(u, seed=11) for u in range(14)]:
        for app in v["folio"].apps:
            had[kinds[app]] += 1
        fate, apps = v["lived"].fate, v["codes"]["postingApp"]
        for app in set(apps[(fate == APP_OFF) | (fate == ABANDONED)].tolist()):
            off[kinds[app]] += 1
    promotional = sum(off[k] for k in ("news", "shopping_food", "games", "video")) / sum(
        had[k] for k in ("news", "shopping_food", "games", "video"))
    messaging = off["messaging"] / had["messaging"]
    assert messaging < 0.12 and promotional > 3 * messaging, (messaging, promotional)


def test_tolerance_bands_hold_the_survey_shares():
    rng = np.random.default_rng(0)
    values = np.array([tolerance(Priors(), rng) for _ in range(20_000)])
    shares = np.bincount(tolerance_band(values), minlength=4) / len(values)
    np.testing.assert_allclose(shares, Priors().tolerance_band_shares, atol=0.012)
    assert values.min() >= TOLERANCE_BAND_EDGES[0] and values.max() <= TOLERANCE_BAND_EDGES[-1]


@settings(max_examples=50, deadline=None)
@given(annoyance=st.floats(0, 100), threshold=st.floats(0.1, 50), rate=st.floats(0, 5))
def test_the_hazard_is_zero_below_the_threshold_and_grows_above(annoyance, threshold, rate):
    h = hazard(annoyance, threshold, rate)
    assert 0.0 <= h <= 1.0
    if annoyance <= threshold:
        assert h == 0.0
    else:
        assert h <= hazard(annoyance + 1.0, threshold, rate) + 1e-15


def test_what_was_turned_off_before_the_test_months_is_impossible_in_them():
    from pushgen import schemas
    from pushgen.data.dataset import read_parameters
    from pushgen.model.engagement import notification_terms
    from pushgen.replay.parts import load_part
    from pushgen.splits import read_part
    from pushgen.splits.scorer import SCORER

    part = load_part("pushgen-v4", 1, "test")
    now, before = part.test_parameters, read_parameters(part.folder / SCORER)
    gone = np.argwhere(before.has_app & ~now.has_app)
    assert len(gone) and now.channel_on is not None and not now.channel_on.all()
    history = read_part(part.folder, "task1/train")
    features = list(schemas.NOTIFICATION_FEATURES)
    checked = 0
    for row, app in gone[:20]:
        user = int(now.user_ids[row])
        mine = history[(history["user_id"] == user)
                       & (history["postingApp"].astype(str) == schemas.values("postingApp")[app])]
        if not len(mine):
            continue
        codes = schemas.frame_codes(mine.iloc[-1:], features)
        assert notification_terms(before, np.array([row]), codes).possible[0]
        assert not notification_terms(now, np.array([row]), codes).possible[0]
        checked += 1
    assert checked > 0
    # no logged test notification comes from an app or channel turned off before the test months
    assert notification_terms(now, part.parameter_rows, part.codes).possible.all()
