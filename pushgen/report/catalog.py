"""Which figures a report has, in order: each figure function's docstring gives the heading (its
first line) and the caption (the rest) the figure is shown with."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import pushgen.report.data_figures as data
import pushgen.report.engagement_figures as engagement
import pushgen.report.other_figures as other

ROWS = ("dataset", "split")
CATALOG = (  # name, the sources it is drawn for, the figure function
    ("split_parts", ("split",), other.split_figure),
    ("calibration", ROWS, other.calibration_figure),
    ("calendar", ROWS, data.calendar_figure),
    ("hours", ROWS, data.hours_figure),
    ("context", ROWS, data.context_figure),
    ("apps", ROWS, data.apps_figure),
    ("response_times", ROWS, data.response_figure),
    ("users", ROWS, data.users_figure),
    ("fatigue_habituation", ROWS, engagement.fatigue_figure),
    ("content_context", ROWS, engagement.content_context_figure),
    ("context_effects", ("dataset",), engagement.context_effects_figure),
    ("long_term", ("dataset",), engagement.long_term_figure),
    ("leaderboard", ("benchmark",), other.leaderboard_figures),
    ("per_user", ("benchmark",), other.per_user_figure),
    ("learning_curves", ("benchmark",), other.curves_figures),
)


@dataclass(frozen=True)
class Entry:
    name: str
    heading: str
    caption: str
    # a matplotlib Figure, None when it does not apply, or a list of (title, Figure) shown one below another
    draw: Callable[[data.View], object]


def entries(kind: str) -> list[Entry]:
    out = []
    for name, kinds, draw in CATALOG:
        if kind in kinds:
            heading, caption = inspect.cleandoc(draw.__doc__ or "").split("\n\n", 1)
            out.append(Entry(name, heading, " ".join(caption.split()), draw))
    return out
