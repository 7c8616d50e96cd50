"""The calibration figures with their target ranges: one definition for the scripts and reports.

Each figure reads one number from the statistics of ``pushgen.data.describe`` (with the day-level
and structure figures of ``pushgen.data.realism`` under ``"realism"``, and those of a ground truth's
long-term state under ``"long_term"``: ``pushgen.data.describe_long_term``); it holds when the number
is inside ``[low, high]``. ``target`` says in words what the published figure is
(``docs/calibration.md`` gives the sources).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pushgen.data.realism import realism_figures
from pushgen.model.long_term import BAND_NAMES

TOLERANCE_SURVEY = (0.10, 0.37, 0.33, 0.20)  # Localytics 2017: would disable at 1, 2-5, 6-10, more a week

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Figure:
    name: str
    value: Callable[[dict], float]
    low: float
    high: float
    target: str
    percent: bool = False

    def show(self, value: float) -> str:
        return f"{100 * value:.1f}%" if self.percent else f"{value:.2f}"

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high

    @property
    def range_text(self) -> str:
        return f"{self.show(self.low)} to {self.show(self.high)}"


VERDICTS = {None: "not measurable", True: "ok", False: "MISSES"}


def verdict(value: float | None, low: float, high: float) -> str:
    """How every table marks a figure printed beside a range: ok, MISSES, or not measurable (None
    or NaN)."""
    return VERDICTS[None if value is None or value != value else low <= value <= high]


def at(*keys: str | int) -> Callable[[dict[str, Any]], float]:
    """The statistic at ``keys`` of ``describe``'s output."""
    def value(stats: dict[str, Any]) -> float:
        found: Any = stats
        for key in keys:
            found = found[key]
        return float(found)
    return value


def survey_range(share: float, users: int = 50, spread: float = 2.6) -> tuple[float, float]:
    """A survey's share of users widened by ``spread`` binomial sds of a sample of ``users`` (2.6: 99%
    of 50-user datasets land inside when the model draws the survey's shares)."""
    sd = spread * math.sqrt(share * (1.0 - share) / users)
    return max(0.0, share - sd), min(1.0, share + sd)


def hourly_share(stats: dict, hours: range) -> float:
    return float(sum(stats["hourly"]["share"][h] or 0.0 for h in hours))


TABLE_FIGURES = (  # measured on the notifications (and users) tables
    Figure("notifications/user/day, mean", at("per_user_day", "mean"), 50, 80, "63.5 (60-80)"),
    Figure("notifications/user/day, median", at("per_user_day", "median"), 40, 70, "56"),
    Figure("notifications/user/day, p10", at("per_user_day", "p10"), 8, 35, "light users near 15"),
    Figure("notifications/user/day, max", at("per_user_day", "max"), 110, 300,
           "heavy users above 150, no far outlier"),
    Figure("share of users above 150/day", lambda s: s["realism"]["heavy_users"] / s["users"], 0.0, 0.08,
           "a tail of heavy users", True),
    Figure("open rate, overall", at("open_rate", "overall"), 0.35, 0.55, "35-55%", True),
    Figure("open rate, messaging", at("open_rate", "messaging"), 0.55, 0.75, "about 65%", True),
    Figure("open rate, other kinds", at("open_rate", "other_kinds"), 0.12, 0.30, "about 15-25%", True),
    Figure("open rate, system", at("open_rate", "system"), 0.0, 0.12, "far below the rest", True),
    Figure("dismissed share", at("open_rate", "dismissed_share"), 0.2, 0.65, "20-50% ignored", True),
    Figure("opened within 10 min", at("timing", "opened_within_10min"), 0.6, 1.0, "> 60%", True),
    Figure("ringer normal at arrival", at("ringer_mode", "normal", "share"), 0.43, 0.63, "~53%", True),
    Figure("ringer silent at arrival", at("ringer_mode", "silent", "share"), 0.16, 0.36, "~26%", True),
    Figure("ringer vibrate at arrival", at("ringer_mode", "vibrate", "share"), 0.12, 0.32, "~22%", True),
    Figure("share posted 10-13h and 16-19h", lambda s: hourly_share(s, range(10, 13))
           + hourly_share(s, range(16, 19)), 0.30, 0.60, "peaks late morning, late afternoon", True),
    Figure("share posted 01-05h", at("asleep", "share"), 0.0, 0.03, "near zero asleep", True),
    Figure("weekday / weekend volume", lambda s: s["weekday"]["per_user_day_weekdays"]
           / s["weekday"]["per_user_day_weekend"], 1.02, 2.0, "more on weekdays"),
    Figure("weekday - weekend open rate", lambda s: s["weekday"]["open_rate_weekdays"]
           - s["weekday"]["open_rate_weekend"], 0.0, 0.2, "more clicks on weekdays", True),
    Figure("fatigue contrast within user and app", at("fatigue", "within_user_app_contrast"),
           -0.5, -0.005, "negative", True),
    Figure("lag-1 autocorrelation of daily counts", at("realism", "lag1"), 0.25, 1.0, ">= 0.25"),
    Figure("users with phone-off days", at("realism", "phone_off_users"), 0.02, 0.8, "some", True),
    Figure("max hour step, median response 08-24h", at("realism", "delay_step"), 1.0, 1.3, "<= 1.3x"),
    Figure("max hour step, open rate 08-24h", at("realism", "open_step"), 1.0, 1.3, "<= 1.3x"),
    Figure("min top-3 channel coverage per app", at("realism", "channel_coverage"), 0.8, 1.0,
           ">= 80%", True),
    Figure("place TYPE_OTHER share (home)", at("realism", "place_other"), 0.0, 0.72,
           "place informative", True),
    Figure("place open-rate spread", at("realism", "place_spread"), 0.03, 1.0,
           "place carries engagement", True),
    Figure("distinct subjects", at("realism", "subjects"), 130, 215, "most of the 215"),
    Figure("sd of per-user open rates", at("realism", "user_open_sd"), 0.22, 0.45, "0.30 (EvalUMAP)"),
    Figure("top app's share of a user's rows, median", at("realism", "top_app_share"), 0.30, 0.80,
           ">= 0.30 (EvalUMAP 33-99%)", True),
    Figure("users whose top app holds > 50%", at("realism", "top_app_above_half"), 0.10, 0.80,
           ">= 10%", True),
    Figure("hour-profile correlation between users, median", at("realism", "hour_profile_correlation"),
           0.0, 0.85, "below v2's 0.88"),
    Figure("wake-time span across users (hours)", at("realism", "wake_span_hours"), 5.0, 14.0,
           ">= 6 h over 1,000 users, >= 5 h over 50"),
    Figure("users in bed after 1 am", at("realism", "bed_after_1am"), 0.05, 0.40, ">= 5%", True),
    Figure("opened within 60 s in core sleep", at("realism", "core_sleep_prompt_opens"), 0.0, 0.005,
           "< 0.5% of all rows", True),
    Figure("ringer silent or vibrate at 0-6h", at("realism", "small_hours_quiet_ringer"), 0.60, 1.0,
           ">= 60% (EvalUMAP 63% silent)", True),
    Figure("opened rows decided after 10 min", at("realism", "opened_decided_late"), 0.15, 0.45,
           ">= 15%", True),
    Figure("AUC of the action from the three timings", at("realism", "timing_auc"), 0.5, 0.70,
           "<= 0.70 (gradient boosting, users held out)"),
    Figure("first week - later open rate, median user", at("realism", "first_week_open_lift"), -0.03, 0.03,
           "no falling overall rate", True),
)
# model 4, from the ground truth (``pushgen.data.describe_long_term``): model targets anchored on the
# Localytics 2017 survey (stated thresholds, not observed rates) and O'Brien et al. 2022; not
# measurable without a ground truth
LONG_TERM_FIGURES = (
    Figure("apps turned off or abandoned, 3 months", at("long_term", "apps_off_3_months"), 0.05, 0.30,
           "model target (Localytics 2017)", True),
    Figure("apps turned off or abandoned, 6 months", at("long_term", "apps_off_6_months"), 0.10, 0.30,
           "about 10-30%, model target (Localytics 2017)", True),
    Figure("messaging apps turned off", at("long_term", "by_kind", "messaging", "turned_off"), 0.0, 0.10,
           "rarely (< 10%)", True),
    Figure("promotional apps turned off", at("long_term", "by_kind", "promotional", "turned_off"), 0.30, 1.0,
           "often (> 30%)", True),
    Figure("turned off, > 5 minus <= 5 a week", at("long_term", "volume_contrast"), 0.0, 1.0,
           "more volume, more turned off", True),
    Figure("turned off, open rate < 30% minus >= 30%", at("long_term", "open_rate_contrast"), 0.0, 1.0,
           "higher open rate, fewer turned off", True),
    *(Figure(f"users who tolerate {band}", at("long_term", "tolerance_bands", b), *survey_range(share),
             f"{share:.0%} (Localytics 2017)", True)
      for b, (band, share) in enumerate(zip(BAND_NAMES, TOLERANCE_SURVEY, strict=True))),
)
FIGURES = (*TABLE_FIGURES, *LONG_TERM_FIGURES)


@dataclass(frozen=True)
class Check:
    """One calibration figure measured on a dataset (``value`` None: not measurable there)."""

    figure: Figure
    value: float | None

    @property
    def holds(self) -> bool | None:
        return None if self.value is None else self.figure.holds(self.value)


def with_realism(stats: dict, notifications: pd.DataFrame, users: pd.DataFrame | None = None,
                 auc: bool = False) -> dict:
    """``stats`` with the day-level, structure and user figures of ``notifications`` under
    ``"realism"`` (NaN where the table is too short to measure one; the chronotype and night
    figures need ``users``, the timing AUC ``auc=True`` and scikit-learn)."""
    from pushgen.data.user_figures import timing_auc, user_figures  # pandas, for the figures only

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN medians of a few days
        figures = {**realism_figures(notifications), **user_figures(notifications, users)}
    if auc:
        figures["timing_auc"] = timing_auc(notifications)
    return {**stats, "realism": figures}


def checks(stats: dict) -> list[Check]:
    """Every calibration figure's value in ``stats`` (as ``with_realism`` gives them)."""
    out = []
    for figure in FIGURES:
        try:
            value: float | None = float(figure.value(stats))
        except (KeyError, TypeError, ZeroDivisionError):
            value = None
        out.append(Check(figure, None if value != value else value))  # NaN: nothing to measure it on
    return out


def calibration_summary(stats: dict, notifications: pd.DataFrame, users: pd.DataFrame | None = None) -> dict:
    """Each calibration figure of a dataset against its target, as ``describe`` and the report
    count and judge them (``with_realism``'s figures of the notifications and users tables):
    ``figures`` (name, value, low, high, target, holds: None when not measurable there),
    ``measured`` (how many could be measured) and ``misses`` (the names of those outside)."""
    return summary(checks(with_realism(stats, notifications, users)))


def summary(found: list[Check]) -> dict:
    """``calibration_summary`` of figures already measured (``checks``)."""
    figures = [{"figure": c.figure.name, "value": c.value, "low": c.figure.low, "high": c.figure.high,
                "target": c.figure.target, "percent": c.figure.percent, "holds": c.holds} for c in found]
    return {"figures": figures, "measured": sum(c.value is not None for c in found),
            "misses": [c.figure.name for c in found if c.holds is False]}


def verdict_line(calibration: dict, named: bool = True) -> str:
    """How many of the measured calibration figures miss their target (``named``: and which), and
    how many could not be measured, from a ``calibration_summary``."""
    misses, measured, total = calibration["misses"], calibration["measured"], len(calibration["figures"])
    which = f": {'; '.join(misses)}." if named else "."  # "; ": a figure's name may hold a comma
    line = (f"Calibration: {len(misses)} of {measured} measured figures miss their target{which}" if misses
            else f"Calibration: all {measured} measured figures are inside their targets.")
    return line + (f" {total - measured} of {total} not measurable here." if measured < total else "")
