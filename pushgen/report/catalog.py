"""Which figures a report has, in order, with the heading and the caption each one is shown with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pushgen.report.data_figures as data
import pushgen.report.engagement_figures as engagement
import pushgen.report.other_figures as other
from pushgen.report.sources import Benchmark, Source


@dataclass(frozen=True)
class Entry:
    name: str
    heading: str
    caption: str
    kinds: tuple[str, ...]  # the sources it is drawn for
    # a matplotlib Figure, None when it does not apply, or a list of (title, Figure) shown one below another
    draw: Callable[[Source, data.View], object]


ROWS = ("dataset", "split")


def _benchmark(source: Source) -> Benchmark:
    if source.benchmark is None:
        raise ValueError(f"{source.title} is not a benchmark run")
    return source.benchmark

CATALOG = (
    Entry("split_parts", "The split's parts",
          "Rows per week in each part: the notifications of the history parts and the contexts of the "
          "test parts (hatched where a part carries no dates: its contexts spread evenly over the test "
          "months), and the rows and users of each part. The figures below describe the history parts; "
          "the test parts' answers stay with the scorer.",
          ("split",), lambda s, v: other.split_figure(s.parts, s.test_span)),
    Entry("calibration", "Calibration against published figures",
          "Each row is one figure of docs/calibration.md on its own scale: the green band is its target "
          "range, the dot its value here. A red cross (or a red arrow when far outside) and a red name "
          "mark a miss. The same figures and ranges as scripts/calibration_over_seeds.py; small "
          "datasets miss some by chance.",
          ROWS, lambda s, v: other.calibration_figure(v.stats)),
    Entry("calendar", "Notifications per day",
          "Every day of the span (weekends orange) and the mean of each weekday, per user.",
          ROWS, lambda s, v: data.calendar_figure(v)),
    Entry("hours", "Notifications and open rate by hour",
          "Per user and hour on weekdays and on weekends, and the open rate of the notifications posted "
          "in each hour (hours with fewer than 30 notifications left out).",
          ROWS, lambda s, v: data.hours_figure(v)),
    Entry("context", "Open rate by place, activity and ringer mode",
          "Bars: the share of notifications posted in each context; diamonds: their open rate; dotted "
          "line: the overall open rate. Places with under 1% of the notifications are left out.",
          ROWS, lambda s, v: data.context_figure(v)),
    Entry("apps", "Apps and categories",
          "The mix of kinds of app, categories and the most frequent apps, with the open rate of each.",
          ROWS, lambda s, v: data.apps_figure(v)),
    Entry("response_times", "Response times",
          "Cumulative distributions: the time from posting to the user's action (opened or dismissed) "
          "and to the notification being seen, by ringer mode; and the median time to action by hour.",
          ROWS, lambda s, v: data.response_figure(v)),
    Entry("users", "How users differ",
          "Each user's notifications per day and open rate, and their spread over the users.",
          ROWS, lambda s, v: data.users_figure(v)),
    Entry("fatigue_habituation", "Fatigue, habituation and novelty",
          "Open rate by how many notifications the user had in the preceding hour (fatigue), by how many "
          "of the same app and subject the user had in the preceding day (habituation, within user: the "
          "open rate minus the same user's for that app and subject, since users with more repeats "
          "differ in other ways too), and by week since the start (novelty).",
          ROWS, lambda s, v: engagement.fatigue_figure(v)),
    Entry("content_context", "Content x context",
          "The open rate of each category of notification in each activity of the user; a blank cell "
          "has fewer than 30 notifications.",
          ROWS, lambda s, v: engagement.content_context_figure(v)),
    Entry("context_effects", "Context effects and habituation in the ground truth",
          "For the content x situation pairs people report: the open rate in the situation against "
          "the same content elsewhere, with the population's mean interaction weight; and the open "
          "rate by the ground truth's exposure to the notification's channel.",
          ("dataset",), lambda s, v: engagement.context_effects_figure(v)),
    Entry("long_term", "Apps turned off or abandoned in the ground truth",
          "The share of user-app pairs whose notifications (or one of their channels) the user turned "
          "off, or whose app the user abandoned, by kind of app, by the pair's notifications a week until "
          "then and by its open rate; and the share of users whose tolerance (unwanted notifications a "
          "week from one app) lies in each band of the Localytics 2017 survey (diamonds: the survey's "
          "shares).",
          ("dataset",), lambda s, v: engagement.long_term_figure(v)),
    Entry("leaderboard", "Leaderboard",
          "Mean reward per context, each user's mean averaged over the users, with the 95% t-interval "
          "across users; a panel per section and task of leaderboard.csv. Orange squares (*) read the "
          "simulated user: yardsticks, not models; [bound] is a provable upper bound.",
          ("benchmark",), lambda s, v: other.leaderboard_figures(_benchmark(s))),
    Entry("per_user", "Per-user scores",
          "Every user's mean reward under each baseline; the bar is the mean over the users.",
          ("benchmark",), lambda s, v: other.per_user_figure(_benchmark(s))),
    Entry("learning_curves", "Learning curves",
          "One panel per baseline on shared axes: its curve in colour, the others in grey.",
          ("benchmark",), lambda s, v: other.curves_figures(_benchmark(s))),
)


def entries(kind: str) -> list[Entry]:
    return [entry for entry in CATALOG if kind in entry.kinds]
