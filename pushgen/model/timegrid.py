"""The time grid every dynamic node lives on: days cut into fixed slots."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property

import numpy as np

SLOT_MINUTES = 15
SLOTS_PER_DAY = 24 * 60 // SLOT_MINUTES
SLOT_SECONDS = SLOT_MINUTES * 60
SLOT_HOURS = SLOT_MINUTES / 60
WEEK_BEFORE_SECONDS = 7 * 86400.0  # the week lived before the start (its notifications are history)


@dataclass(frozen=True)
class TimeGrid:
    """``days`` consecutive days from midnight of ``start`` (local wall-clock time)."""

    start: dt.date
    days: int

    @property
    def slots(self) -> int:
        return self.days * SLOTS_PER_DAY

    @cached_property
    def weekday_of_day(self) -> np.ndarray:
        """0 = Monday ... 6 = Sunday, for each day."""
        return ((self.start.weekday() + np.arange(self.days)) % 7).astype(np.int8)

    @cached_property
    def start_seconds(self) -> int:
        """Seconds from the Unix epoch to the grid's first midnight (wall clock, no zone)."""
        return int(np.datetime64(self.start, "s").astype(np.int64))


def add_months(start: dt.date, months: int) -> dt.date:
    """The same day of the month ``months`` later, clamped to the month's end."""
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    next_month = dt.date(year + (month == 12), month % 12 + 1, 1)
    last_day = (next_month - dt.timedelta(days=1)).day
    return dt.date(year, month, min(start.day, last_day))
