from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pushgen
from pushgen import schemas
from pushgen.data.build import make_dataset
from pushgen.data.calibration import FIGURES, LONG_TERM_FIGURES, calibration_summary
from pushgen.data.dataset import DatasetError
from pushgen.data.describe import describe, describe_path
from pushgen.data.describe_long_term import dataset_long_term
from pushgen.data.describe_report import format_description, sections
from pushgen.data.describe_time import recent_load
from pushgen.data.generator import make_recipe
from pushgen.data.writer import write_dataset
from pushgen.model.catalog import app_catalog

DEFAULTS = {
    "postingApp": "com.whatsapp", "category": "msg", "numberOfUpdates": "none",
    "subject": "humor", "priority": "high", "ongoing": False, "visibility": "private",
    "time": "morning", "place": "TYPE_OTHER", "activity": "still", "noise": "low",
    "batteryLevel": "high", "charging": False, "headphonesIn": False, "musicActive": False,
    "proximity": "far", "ringerMode": "normal",
}


def make_frame(rows: list[dict]) -> pd.DataFrame:
    """A notifications table in the dataset layout; unnamed features take DEFAULTS."""
    records = []
    for number, row in enumerate(rows):
        posted = pd.Timestamp(row["at"])
        record = {"user_id": row.get("user", 0), "notification_id": number, "posted_at": posted,
                  **DEFAULTS, "day": posted.day_of_week}
        record.update({k: v for k, v in row.items() if k in schemas.fields()})
        record["action"] = "opened" if row.get("opened", False) else "dismissed"
        record["seenTime"] = row.get("seen", 10.0)
        record["decisionTime"] = row.get("decision", 2.0)
        record["responseTime"] = record["seenTime"] + record["decisionTime"]
        records.append(record)
    frame = pd.DataFrame.from_records(records)
    frame["user_id"] = frame["user_id"].astype(np.int32)
    frame["posted_at"] = frame["posted_at"].astype("datetime64[ms]")
    return schemas.apply_dtypes(frame)


# 2026-01-05 is a Monday
TINY = [
    {"at": "2026-01-05 09:10", "opened": True},
    {"at": "2026-01-05 09:40", "opened": True, "ringerMode": "silent"},
    {"at": "2026-01-05 17:00", "category": "email", "postingApp": "com.google.android.gm"},
    {"at": "2026-01-07 02:30", "category": "email", "postingApp": "com.google.android.gm",
     "ongoing": True, "ringerMode": "vibrate"},
    {"at": "2026-01-06 12:00", "user": 1, "seen": 1000.0, "opened": True},
    {"at": "2026-01-06 12:05", "user": 1, "activity": "vehicle", "ringerMode": "silent"},
]


@pytest.fixture(scope="module")
def tiny() -> dict:
    return describe(make_frame(TINY))


def test_volume_counts_days_of_the_whole_span(tiny: dict) -> None:
    # user 0: 4 rows, user 1: 2 rows, over the 3 days Jan 5-7
    assert (tiny["rows"], tiny["users"], tiny["days"]) == (6, 2, 3)
    assert (tiny["first_day"], tiny["last_day"]) == ("2026-01-05", "2026-01-07")
    volume = tiny["per_user_day"]
    assert volume["mean"] == pytest.approx(1.0)
    assert volume["median"] == pytest.approx(1.0)
    assert volume["min"] == pytest.approx(2 / 3)
    assert volume["max"] == pytest.approx(4 / 3)


def test_users_without_notifications_count_in_the_volume() -> None:
    users = pd.DataFrame({"user_id": np.array([0, 1, 2], dtype=np.int32)})
    stats = describe(make_frame(TINY), users)
    assert stats["users"] == 3
    assert stats["per_user_day"]["mean"] == pytest.approx(6 / 9)
    assert stats["per_user_day"]["min"] == 0.0


def test_open_rates_by_category_kind_and_user(tiny: dict) -> None:
    assert tiny["open_rate"]["overall"] == pytest.approx(3 / 6)
    assert tiny["by_category"]["msg"] == {"n": 4, "share": pytest.approx(4 / 6),
                                          "open_rate": pytest.approx(3 / 4)}
    assert tiny["by_category"]["email"]["open_rate"] == 0.0
    assert list(tiny["by_category"]) == ["email", "msg"]  # schema order, only values present
    assert tiny["by_kind"]["messaging"]["open_rate"] == pytest.approx(3 / 4)
    assert tiny["by_kind"]["email"]["n"] == 2
    assert tiny["open_rate"]["messaging"] == pytest.approx(3 / 4)
    assert tiny["open_rate"]["other_kinds"] == 0.0
    assert tiny["open_rate"]["users_min"] == pytest.approx(1 / 2)
    assert tiny["open_rate"]["users_max"] == pytest.approx(1 / 2)
    assert tiny["open_rate"]["ongoing"] == 0.0
    assert tiny["open_rate"]["not_ongoing"] == pytest.approx(3 / 5)
    assert tiny["top_apps"][0] == {"app": "com.whatsapp", "kind": "messaging", "n": 4,
                                   "share": pytest.approx(4 / 6), "open_rate": pytest.approx(3 / 4)}


def test_kinds_come_from_the_app_catalog() -> None:
    catalog = app_catalog()
    apps = schemas.values("postingApp")
    code = apps.index("com.spotify.music")
    stats = describe(make_frame([{"at": "2026-01-05 10:00", "postingApp": "com.spotify.music"}]))
    assert list(stats["by_kind"]) == [catalog.kinds[catalog.kind_of_app[code]]]


def test_hour_weekday_and_sleep_profiles(tiny: dict) -> None:
    hourly = tiny["hourly"]
    assert sum(hourly["share"]) == pytest.approx(1.0)
    assert hourly["share"][9] == pytest.approx(2 / 6)
    assert hourly["share"][12] == pytest.approx(2 / 6)
    assert hourly["open_rate"][9] == 1.0
    assert hourly["open_rate"][0] is None
    weekday = tiny["weekday"]
    assert weekday["share"][:3] == [pytest.approx(3 / 6), pytest.approx(2 / 6), pytest.approx(1 / 6)]
    # each of Mon, Tue, Wed occurs once in the span, for 2 users
    assert weekday["per_user_day"][:3] == [pytest.approx(1.5), pytest.approx(1.0), pytest.approx(0.5)]
    assert weekday["per_user_day"][3] is None
    assert weekday["open_rate"][0] == pytest.approx(2 / 3)
    assert weekday["per_user_day_weekend"] is None
    assert tiny["asleep"]["share"] == pytest.approx(1 / 6)


def test_sleep_window_of_each_user() -> None:
    users = pd.DataFrame({"user_id": [0, 1], "bedtime": ["23:00", "09:00"],
                          "wake_time": ["07:00", "12:30"]})
    stats = describe(make_frame(TINY), users)
    # user 0 (asleep 23:00-07:00) at 02:30; user 1 (asleep 09:00-12:30) at 12:00 and 12:05
    assert stats["asleep"]["share_in_users_sleep"] == pytest.approx(3 / 6)


def test_sleep_window_from_an_arrow_users_table_is_the_frame_s() -> None:
    users = pd.DataFrame({"user_id": [1, 0, 7], "bedtime": ["09:00", "23:00", "22:00"],
                          "wake_time": ["12:30", "07:00", "06:00"]})
    from_frame = describe(make_frame(TINY), users)["asleep"]
    assert describe(make_frame(TINY), pa.Table.from_pandas(users))["asleep"] == from_frame
    assert from_frame["share_in_users_sleep"] == pytest.approx(3 / 6)
    assert describe(make_frame(TINY), users)["users"] == 3


@pytest.mark.parametrize("clock", ["23", "soon", None])
def test_a_clock_that_is_not_hours_and_minutes_leaves_the_sleep_share_unknown(clock) -> None:
    users = pd.DataFrame({"user_id": [0, 1], "bedtime": ["23:00", clock], "wake_time": ["07:00", "12:30"]})
    assert describe(make_frame(TINY), users)["asleep"]["share_in_users_sleep"] is None


def test_ringer_activity_and_timing(tiny: dict) -> None:
    ringer = tiny["ringer_mode"]
    assert {k: v["n"] for k, v in ringer.items()} == {"vibrate": 1, "normal": 3, "silent": 2}
    assert ringer["silent"]["open_rate"] == pytest.approx(1 / 2)
    assert tiny["activity"]["vehicle"] == {"n": 1, "share": pytest.approx(1 / 6), "open_rate": 0.0,
                                           "median_seen_s": 10.0}
    timing = tiny["timing"]
    assert timing["median_response_opened_s"] == pytest.approx(12.0)
    assert timing["opened_within_10min"] == pytest.approx(2 / 3)
    assert timing["handled_within_10min"] == pytest.approx(5 / 6)


def test_headphones_and_music() -> None:
    frame = make_frame([
        {"at": "2026-01-05 10:00", "headphonesIn": True, "musicActive": True, "opened": True},
        {"at": "2026-01-05 11:00", "headphonesIn": True, "musicActive": True, "category": "email"},
        {"at": "2026-01-05 12:00", "headphonesIn": True},
    ])
    effect = describe(frame)["headphones_music"]
    assert effect["headphones_and_music"] == {"n": 2, "open_rate": 0.5, "open_rate_msg": 1.0}
    assert effect["otherwise"] == {"n": 1, "open_rate": 0.0, "open_rate_msg": 0.0}


def test_repetition_is_within_user() -> None:
    frame = make_frame([
        {"at": "2026-01-05 10:00", "opened": True},
        {"at": "2026-01-05 10:00", "opened": True},
        {"at": "2026-01-05 10:00"},
        {"at": "2026-01-05 10:00", "user": 1},
        {"at": "2026-01-05 10:00", "user": 1, "noise": "high"},
    ])
    repetition = describe(frame)["repetition"]
    assert repetition["features"] == pytest.approx(3 / 5)
    assert repetition["features_and_action"] == pytest.approx(2 / 5)
    assert repetition["opposite_action"] == pytest.approx(3 / 5)
    assert repetition["users_max"] == 1.0


def test_recent_load_counts_the_preceding_hour() -> None:
    minute = 60_000
    ms = np.array([0, 10, 59, 60, 61, 200, 5, 5]) * minute
    user = np.array([0, 0, 0, 0, 0, 0, 1, 1])
    load = recent_load(user, ms, 60 * minute)
    # t=60 sees 10 and 59 (0 is exactly an hour before); the second of two equal instants sees one
    assert load.tolist() == [0, 1, 2, 2, 3, 0, 0, 1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 300)), min_size=1, max_size=40), st.booleans())
def test_recent_load_matches_a_direct_count(events: list[tuple[int, int]], in_order: bool) -> None:
    if in_order:  # a dataset's rows: by user, then by time
        events = sorted(events)
    user = np.array([u for u, _ in events])
    ms = np.array([m for _, m in events], dtype=np.int64) * 60_000
    window = 60 * 60_000
    expected = [
        sum(1 for j in range(len(events))
            if user[j] == user[i] and ms[i] - window < ms[j] <= ms[i] and (ms[j] < ms[i] or j < i))
        for i in range(len(events))
    ]
    assert recent_load(user, ms, window).tolist() == expected


def test_fatigue_buckets_and_within_user_contrast() -> None:
    rows = []
    # user 0: five posts within minutes, the last three (load 2, 3, 4 > median 2) dismissed
    for minute, opened in zip(range(5), (True, True, False, False, False), strict=True):
        rows.append({"at": f"2026-01-05 10:0{minute}", "opened": opened})
    # user 1: three calm posts hours apart, all opened (no row above its median)
    rows += [{"at": f"2026-01-05 1{h}:00", "user": 1, "opened": True} for h in (2, 4, 6)]
    fatigue = describe(make_frame(rows))["fatigue"]
    assert fatigue["buckets"]["0-2"] == {"n": 6, "share": pytest.approx(6 / 8),
                                         "open_rate": pytest.approx(5 / 6)}
    assert fatigue["buckets"]["3-5"]["n"] == 2
    assert fatigue["buckets"]["11+"] == {"n": 0, "share": 0.0, "open_rate": None}
    # user 0: 0 % above vs 2/3 at/below its median; user 1 has nothing above
    assert fatigue["within_user_contrast"] == pytest.approx(-2 / 3)
    assert fatigue["users_in_contrast"] == 1
    assert fatigue["within_user_app_contrast"] == pytest.approx(-2 / 3)  # one app each
    assert fatigue["user_apps_in_contrast"] == 1


def test_app_contrast_removes_confounding_by_app() -> None:
    # a bursty app that is mostly opened and a calm one mostly dismissed: across the user's
    # rows the busier ones are opened more often, but within each app they are opened less
    gmail = "com.google.android.gm"
    rows = [{"at": f"2026-01-05 10:0{m}", "opened": m < 5} for m in range(6)]
    rows += [{"at": f"2026-01-05 0{h}:00", "postingApp": gmail, "opened": h == 6} for h in range(4, 9)]
    rows += [{"at": "2026-01-05 10:10", "postingApp": gmail}]
    fatigue = describe(make_frame(rows))["fatigue"]
    # median load 0.5: busier rows 4 of 6 opened, calmer ones 2 of 6
    assert fatigue["within_user_contrast"] == pytest.approx(4 / 6 - 2 / 6)
    # whatsapp: 2/3 - 1, gmail: 0 - 1/5
    assert fatigue["within_user_app_contrast"] == pytest.approx(((2 / 3 - 1) + (0 - 1 / 5)) / 2)
    assert fatigue["user_apps_in_contrast"] == 2


def test_unusable_tables_are_dataset_errors() -> None:
    with pytest.raises(DatasetError, match="responseTime"):
        describe(make_frame(TINY).drop(columns="responseTime"))
    with pytest.raises(DatasetError, match="no notifications"):
        describe(make_frame(TINY).iloc[:0])


@pytest.fixture(scope="module")
def generated() -> pushgen.Dataset:
    return pushgen.generate(users=3, days=21, seed=1)


def test_generated_dataset_statistics_are_consistent(generated: pushgen.Dataset) -> None:
    frame = generated.notifications
    stats = describe(frame, generated.users)
    assert stats["rows"] == len(frame)
    assert stats["open_rate"]["overall"] == pytest.approx((frame["action"] == "opened").mean())
    assert stats["per_user_day"]["mean"] * stats["users"] * stats["days"] == pytest.approx(len(frame))
    assert sum(stats["weekday"]["share"]) == pytest.approx(1.0)
    assert sum(v["n"] for v in stats["by_category"].values()) == len(frame)
    assert sum(p["n"] for p in stats["periods"]) == len(frame)
    assert sum(b["n"] for b in stats["fatigue"]["buckets"].values()) == len(frame)
    json.dumps(stats, allow_nan=False)


def test_report_puts_published_figures_beside_the_values(generated: pushgen.Dataset) -> None:
    stats = describe(generated.notifications, generated.users)
    report = format_description(stats)
    mean_line = next(line for line in report.splitlines() if "notifications/user/day, mean" in line)
    assert f"{stats['per_user_day']['mean']:.1f}" in mean_line and "63.5" in mean_line
    rate_line = next(line for line in report.splitlines() if line.startswith("open rate, overall"))
    assert f"{100 * stats['open_rate']['overall']:.1f}%" in rate_line and "35-55%" in rate_line
    for section in sections(stats):
        assert section.title in report
        assert all(len(row) == len(section.header) for row in section.rows)


def test_describe_path_reads_folders_and_files(generated: pushgen.Dataset, tmp_path) -> None:
    folder = write_dataset(generated, tmp_path / "d", fmt="csv")
    expected = describe(generated.notifications, generated.users)
    from_folder = describe_path(folder)
    engagement = from_folder.pop("engagement")  # the folder's ground truth adds the simulated user's effects
    long_term = from_folder.pop("long_term")  # ... and its long-term state
    calibration = from_folder.pop("calibration")
    assert from_folder == expected
    assert long_term == dataset_long_term(generated)
    assert len(calibration["figures"]) == len(FIGURES)
    assert {"habituation"} <= set(engagement)
    assert describe_path(folder / "notifications.csv")["rows"] == expected["rows"]
    with pytest.raises(DatasetError, match="does not exist"):
        describe_path(tmp_path / "nothing")
    with pytest.raises(DatasetError, match="not a pushgen dataset"):
        describe_path(tmp_path)
    (folder / "manifest.json").unlink()  # a dataset's folder is not read as a folder of plain tables
    damaged = (rf"^{re.escape(str(folder))} holds a dataset's ground truth but no manifest\.json: "
               "it is damaged$")
    with pytest.raises(DatasetError, match=damaged):
        describe_path(folder)


def test_describe_path_reads_a_partitioned_dataset_as_its_single_file_twin(tmp_path) -> None:
    # a large dataset's tables, ground-truth rows included, are folders of parts
    recipe = make_recipe(users=3, days=20, seed=2)
    single = make_dataset(recipe, tmp_path / "single")
    parts = make_dataset(recipe, tmp_path / "parts", partitioned=True, bucket_users=1)
    assert (parts / "ground_truth" / "engagement_rows").is_dir()
    described = describe_path(parts)
    assert described["long_term"]["tolerance_bands"]
    assert described == describe_path(single)


def test_each_calibration_figure_is_judged_against_its_target(generated: pushgen.Dataset) -> None:
    stats = describe(generated.notifications, generated.users)
    summary = calibration_summary(stats, generated.notifications)
    assert [f["figure"] for f in summary["figures"]] == [f.name for f in FIGURES]
    for row, figure in zip(summary["figures"], FIGURES, strict=True):
        assert (row["low"], row["high"], row["target"]) == (figure.low, figure.high, figure.target)
        if row["value"] is None:
            assert row["holds"] is None
        else:
            assert row["holds"] == (figure.low <= row["value"] <= figure.high)
    assert summary["measured"] == sum(row["value"] is not None for row in summary["figures"])
    assert summary["misses"] == [row["figure"] for row in summary["figures"] if row["holds"] is False]


def test_the_report_marks_each_miss_and_counts_them(generated: pushgen.Dataset) -> None:
    stats = describe(generated.notifications, generated.users)
    stats["open_rate"]["overall"] = 0.9  # far above the 35-55% target
    stats["per_user_day"]["mean"] = 65.0  # inside 50-80
    calibration = calibration_summary(stats, generated.notifications)
    assert "open rate, overall" in calibration["misses"]
    assert "notifications/user/day, mean" not in calibration["misses"]
    report = format_description({**stats, "calibration": calibration})
    lines = report.splitlines()
    rate = next(line for line in lines if line.startswith("open rate, overall ") and " to " in line)
    assert "90.0%" in rate and "35.0% to 55.0%" in rate and rate.endswith("MISSES")
    mean = next(line for line in lines if line.startswith("notifications/user/day, mean ") and " to " in line)
    assert mean.endswith("ok")
    table = lines[lines.index("Calibration targets"):]
    marked = [line for line in table[:table.index("")] if line.endswith("MISSES")]
    assert len(marked) == len(calibration["misses"])
    unmeasured = len(FIGURES) - calibration["measured"]
    assert unmeasured > 0  # no users table: the figures of users' nights and chronotypes
    assert lines[-1] == (f"Calibration: {len(calibration['misses'])} of {calibration['measured']} measured "
                         f"figures miss their target: {'; '.join(calibration['misses'])}. "
                         f"{unmeasured} of {len(FIGURES)} not measurable here.")


def test_a_key_figure_gets_the_verdict_the_calibration_table_gives_its_statistic(
        generated: pushgen.Dataset) -> None:
    from pushgen.report.html import table_html

    stats = describe(generated.notifications, generated.users)
    stats["open_rate"]["dismissed_share"] = 0.72  # beside a published 20-50%, outside the 20-65% target
    stats["open_rate"]["overall"] = 0.45  # inside 35-55%
    stats["timing"]["opened_within_10min"] = None  # not measurable
    key = next(s for s in sections(stats) if s.title == "Key figures")
    verdicts = {row[0]: (row[1], row[-1]) for row in key.rows}
    assert key.header[-1] == "verdict"
    assert verdicts["dismissed (not opened)"] == ("72.0%", "MISSES")
    assert verdicts["open rate, overall"] == ("45.0%", "ok")
    assert verdicts["opened within 10 min (share of opened)"] == ("-", "not measurable")
    assert verdicts["open rate, messaging apps"][1] == ""  # "about 65%": no range to judge against
    line = next(line for line in format_description(stats).splitlines() if line.startswith("dismissed "))
    assert "20-50% ignored entirely" in line and line.endswith("MISSES")
    stats["open_rate"]["dismissed_share"] = 0.65  # the target's end is inside: one verdict per statistic
    key = next(s for s in sections(stats) if s.title == "Key figures")
    assert dict((row[0], row[-1]) for row in key.rows)["dismissed (not opened)"] == "ok"
    stats["open_rate"]["dismissed_share"] = 0.19
    assert "<td>MISSES</td>" in table_html(next(s for s in sections(stats) if s.title == "Key figures"))


def test_describe_json_carries_the_verdicts(generated: pushgen.Dataset, tmp_path) -> None:
    from click.testing import CliRunner

    from pushgen.commands import cli

    folder = write_dataset(generated, tmp_path / "d", fmt="parquet")
    done = CliRunner().invoke(cli, ["describe", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    calibration = json.loads(done.output)["calibration"]
    stats = {**describe(generated.notifications, generated.users), "long_term": dataset_long_term(generated)}
    assert calibration == json.loads(json.dumps(calibration_summary(stats, generated.notifications,
                                                                    generated.users)))
    unmeasured = {f["figure"] for f in calibration["figures"] if f["value"] is None}
    # all but the timing AUC (auc=True) and the long-term figures 21 days cannot show
    assert unmeasured - {f.name for f in LONG_TERM_FIGURES} == {"AUC of the action from the three timings"}
    assert "apps turned off or abandoned, 6 months" in unmeasured
