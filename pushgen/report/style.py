"""The report's look: colours, figure helpers and SVG output that is the same bytes every time."""

from __future__ import annotations

import functools
import io
import re

from pushgen.benchmark.plots import matplotlib_or_error

WEEKDAY = "#2f6db5"
WEEKEND = "#e07b39"
OPENED = "#2a9d8f"
DISMISSED = "#8d99ae"
SHARE = "#b8cde6"
HOLDS = "#2e9e44"
MISSES = "#d62728"
TARGET = "#dff0d8"
INK = "#333333"
GRID = {"alpha": 0.3, "linewidth": 0.6}
# the ids matplotlib derives from a hash of a clip box's, marker's or image's floats
HASHED_ID = re.compile(r'(?<=id=")(image|m|p)[0-9a-f]{10}(?=")|(?<=#)(image|m|p)[0-9a-f]{10}(?=[)"])')
RC = {"font.size": 9, "axes.titlesize": 10, "axes.titleweight": "bold", "axes.spines.top": False,
      "axes.spines.right": False, "svg.hashsalt": "pushgen", "svg.fonttype": "none"}


def new_figure(width: float, height: float):
    """A matplotlib Figure outside pyplot (a notebook shows it; nothing keeps it alive)."""
    matplotlib = matplotlib_or_error()
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        return Figure(figsize=(width, height), layout="constrained")


def styled(function):
    """Run a figure builder under the report's matplotlib settings."""
    @functools.wraps(function)
    def build(*args, **kwargs):
        with matplotlib_or_error().rc_context(RC):
            return function(*args, **kwargs)
    return build


def legend_below(figure, handles, labels, columns: int = 2) -> None:
    """A legend under the figure's axes, where it hides no data."""
    figure.legend(handles, labels, fontsize=8, frameon=False, loc="outside lower center", ncols=columns)


def percent_axis(axis) -> None:
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def svg_bytes(figure) -> bytes:
    """The figure as SVG without a date and with numbered ids, so the same figure gives the same bytes.

    matplotlib names clip boxes, markers and images by a hash of their floats; the constrained
    layout's solver can move the last bit of an axes' box from one process to the next (the SVG
    prints 6 decimals, the hash sees all), so the ids are numbered in order of first use instead.
    """
    buffer = io.BytesIO()
    with matplotlib_or_error().rc_context(RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    names: dict[str, str] = {}

    def numbered(match: re.Match[str]) -> str:
        kind = match.group(1) or match.group(2)
        return names.setdefault(match.group(), f"{kind}{len(names) + 1}")

    return HASHED_ID.sub(numbered, buffer.getvalue().decode()).encode()
