"""The long-term figures of a dataset's ground truth: apps turned off or abandoned, and tolerance."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen.data.calibration import FIGURES, LONG_TERM_FIGURES, TOLERANCE_SURVEY, checks, survey_range
from pushgen.data.dataset import truth_path
from pushgen.data.describe import describe
from pushgen.data.describe_long_term import BAND_NAMES, dataset_long_term, long_term_stats, long_term_truth
from pushgen.data.describe_report import format_description
from pushgen.data.writer import write_dataset

START = pd.Timestamp("2026-01-05")
MESSAGING, NEWS, SHOP, GAME = "com.whatsapp", "ie.rte.news", "uk.co.dominos.android", "com.pixonic.wwr"


def posts(user: int, app: str, every_days: float, until: float, opened: bool, off: str | None = None) -> list:
    """``app``'s rows for ``user`` every ``every_days`` from day 0 up to day ``until`` (excluded), the
    last one turning it off with ``off``."""
    days = np.arange(0.0, until, every_days)
    return [{"user_id": user, "postingApp": app, "posted_at": START + pd.Timedelta(days=float(d)),
             "action": "opened" if opened else "dismissed",
             "turned_off": off if off and k == len(days) - 1 else "none"} for k, d in enumerate(days)]


def ten_users() -> tuple[pd.DataFrame, np.ndarray]:
    """200 days of 10 users: each has a messaging app (daily, always opened) and a shop (weekly,
    never opened); even users a news app (twice a day, never opened) turned off on day 50, odd
    users a game (twice a day, never opened) abandoned on day 120."""
    rows = []
    for user in range(10):
        rows += posts(user, MESSAGING, 1.0, 200, True) + posts(user, SHOP, 7.0, 200, False)
        rows += (posts(user, NEWS, 0.5, 50.5, False, "app_off") if user % 2 == 0
                 else posts(user, GAME, 0.5, 120.5, False, "abandoned"))
    frame = pd.DataFrame(rows)
    return frame.drop(columns="turned_off"), frame["turned_off"].to_numpy()


TOLERANCE = np.array([1.0, 3.0, 3.0, 8.0, 20.0, 2.0, 4.0, 7.0, 9.0, 0.7])


def test_shares_turned_off_by_time_kind_volume_and_open_rate():
    notifications, turned_off = ten_users()
    stats = long_term_stats(notifications, turned_off, TOLERANCE)
    assert stats["apps_off_3_months"] == pytest.approx((1 / 3 + 0) / 2)  # news by day 90, not the game
    assert stats["apps_off_6_months"] == pytest.approx(1 / 3)
    assert stats["by_kind"]["messaging"] == {"pairs": 10, "turned_off": 0.0}
    assert stats["by_kind"]["promotional"] == {"pairs": 20, "turned_off": 0.5}
    assert stats["by_kind"]["games"] == {"pairs": 5, "turned_off": None}  # under 10 pairs: no share
    volume = {b["band"]: b for b in stats["by_volume"]}
    assert [b["band"] for b in stats["by_volume"]] == list(BAND_NAMES)
    assert volume["1 a week"] == {"band": "1 a week", "pairs": 10, "turned_off": 0.0}  # the shop
    assert volume["6-10 a week"]["pairs"] == 10  # messaging, 7 a week
    assert volume["more than 10"]["pairs"] == 10  # news and game: 14 a week until turned off
    assert stats["volume_contrast"] == pytest.approx(0.5)  # 10 of 20 above 5 a week, none of the shops
    assert [b["pairs"] for b in stats["by_open_rate"]] == [20, 0, 0, 10]  # all opened: messaging
    assert stats["open_rate_contrast"] == pytest.approx(0.5)
    assert stats["tolerance_bands"] == pytest.approx([0.2, 0.4, 0.3, 0.1])


def test_a_short_span_has_no_six_month_share():
    notifications, turned_off = ten_users()
    early = (notifications["posted_at"] < START + pd.Timedelta(days=100)).to_numpy()
    stats = long_term_stats(notifications[early], turned_off[early], TOLERANCE)
    assert stats["apps_off_3_months"] == pytest.approx(1 / 6)
    assert stats["apps_off_6_months"] is None
    found = {c.figure.name: c for c in checks({"long_term": stats})}
    assert found["apps turned off or abandoned, 6 months"].value is None
    assert found["apps turned off or abandoned, 3 months"].holds is True


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 199))
def test_the_figures_do_not_depend_on_the_order_of_the_rows(seed, off_day):
    """Any order of the rows gives the same figures; an app turned off on ``off_day`` counts at 3
    months exactly when that is before day 90."""
    rows = []
    for user in range(4):
        rows += posts(user, MESSAGING, 1.0, 200, True) + posts(user, SHOP, 7.0, 200, False)
        rows += posts(user, NEWS, 0.5, off_day + 0.5, False, "app_off" if user < 2 else None)
    frame = pd.DataFrame(rows)
    notifications, turned_off = frame.drop(columns="turned_off"), frame["turned_off"].to_numpy()
    stats = long_term_stats(notifications, turned_off, TOLERANCE[:4])
    assert stats["apps_off_3_months"] == pytest.approx(1 / 6 if off_day < 90 else 0.0)
    assert stats["apps_off_6_months"] == pytest.approx(1 / 6 if off_day < 180 else 0.0)
    order = np.random.default_rng(seed).permutation(len(notifications))
    shuffled = notifications.iloc[order].reset_index(drop=True)
    assert long_term_stats(shuffled, turned_off[order], TOLERANCE[:4]) == stats


def test_the_survey_bands_are_the_survey_s_share_and_the_spread_of_50_users():
    for figure, share in zip(LONG_TERM_FIGURES[-4:], TOLERANCE_SURVEY, strict=True):
        sd = math.sqrt(share * (1 - share) / 50)
        assert (figure.low, figure.high) == pytest.approx((max(0.0, share - 2.6 * sd), share + 2.6 * sd))
        assert figure.name.startswith("users who tolerate")
    assert survey_range(0.5, users=100, spread=2.0) == pytest.approx((0.4, 0.6))
    assert set(LONG_TERM_FIGURES) <= set(FIGURES)


@pytest.fixture(scope="module")
def generated() -> pushgen.Dataset:
    return pushgen.generate(users=4, days=100, seed=2)


def test_a_generated_dataset_s_figures_and_its_folder_s_agree(generated, tmp_path):
    stats = dataset_long_term(generated)
    truth = generated.truth_rows.set_index("notification_id")["turned_off"].astype(str)
    events = (truth != "none").groupby(generated.truth_rows["user_id"].to_numpy()).sum()
    assert events.sum() > 0  # users turned something off in 100 days
    assert stats["apps_off_3_months"] > 0 and stats["apps_off_6_months"] is None
    folder = write_dataset(generated, tmp_path / "d", fmt="parquet")
    assert long_term_truth(folder, generated.notifications) == {"long_term": stats}
    text = format_description({**describe(generated.notifications), "long_term": stats})
    section = text[text.index("Long term: apps turned off or abandoned"):]
    assert "apps turned off, 3 / 6 months" in section and "Localytics 2017" in section
    assert f"{100 * stats['apps_off_3_months']:.1f}% / -" in section


def test_a_ground_truth_without_a_long_term_state_has_no_long_term_figures(generated, tmp_path):
    folder = write_dataset(generated, tmp_path / "d", fmt="parquet")
    rows = truth_path(folder, "engagement_rows")
    pq.write_table(pq.read_table(rows).drop_columns(["turned_off"]), rows)  # as engagement model 3 wrote it
    assert long_term_truth(folder, generated.notifications) == {}
