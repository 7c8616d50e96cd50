"""What determines a dataset's content (``Recipe``), checked on creation, and ``make_recipe``."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pushgen.checks import whole_number
from pushgen.model.priors import Priors, PriorsError
from pushgen.model.timegrid import TimeGrid, add_months

DEFAULT_START = dt.date(2026, 1, 5)  # a Monday
EARLIEST_START, LATEST_START = dt.date(1970, 1, 1), dt.date(2199, 12, 31)
MAX_USERS = 10_000_000
MAX_DAYS = 3660  # ten years
MAX_MONTHS = 120


class GenerationError(ValueError):
    """Parameters outside what ``generate`` accepts (the message names the allowed range)."""


@dataclass(frozen=True)
class Recipe:
    """Everything that determines a dataset's content; checked on creation (``GenerationError``
    names the field and its range). ``make_recipe`` builds one from months or days.

    Attributes
    ----------
    users : int
        Number of users, 1 to ``MAX_USERS``.
    days : int
        Days simulated from ``start``, 1 to ``MAX_DAYS``.
    start : datetime.date
        The first day, from ``EARLIEST_START`` to ``LATEST_START``.
    seed : int
        The dataset seed, 0 to 2**63 - 1: with a user's index it seeds every random stream.
    months : int or None
        The calendar months ``days`` was computed from, if it was (1 to ``MAX_MONTHS``).
    first_user : int
        Index of the first user: users are ``first_user`` .. ``first_user + users - 1``.
    priors : Priors
        The population priors (``pushgen.model.priors.Priors``).
    """

    users: int
    days: int
    start: dt.date
    seed: int
    months: int | None = None
    first_user: int = 0
    priors: Priors = field(default_factory=Priors)

    def __post_init__(self) -> None:
        for name, low, high in (("users", 1, MAX_USERS), ("days", 1, MAX_DAYS), ("seed", 0, 2**63 - 1),
                                ("first_user", 0, MAX_USERS), ("months", 1, MAX_MONTHS)):
            if name != "months" or self.months is not None:  # numpy integers become Python's
                value = whole_number(name, getattr(self, name), low, high, GenerationError)
                object.__setattr__(self, name, value)
        if isinstance(self.start, dt.datetime):
            raise GenerationError(f"start must be a date, not a date and time; got {self.start!r}")
        if not isinstance(self.start, dt.date):
            raise GenerationError(f"start must be a date; got {self.start!r}")
        if not EARLIEST_START <= self.start <= LATEST_START:
            raise GenerationError(f"start must be from {EARLIEST_START} to {LATEST_START}; got {self.start}")
        if not isinstance(self.priors, Priors):
            raise GenerationError("priors must be a pushgen.model.priors.Priors; got "
                                  f"{type(self.priors).__name__}")

    @property
    def grid(self) -> TimeGrid:
        return TimeGrid(self.start, self.days)

    @property
    def user_ids(self) -> range:
        return range(self.first_user, self.first_user + self.users)

    def to_dict(self) -> dict:
        return {
            "users": self.users,
            "first_user": self.first_user,
            "months": self.months,
            "days": self.days,
            "start": self.start.isoformat(),
            "seed": self.seed,
            "priors": self.priors.to_dict(),
        }

    @classmethod
    def from_dict(cls, values: dict) -> Recipe:
        try:
            priors = Priors.from_dict(values.get("priors", {}))
        except (PriorsError, TypeError) as error:
            raise GenerationError(str(error)) from None
        recipe = make_recipe(
            users=values["users"], days=values["days"], start=values["start"],
            seed=values["seed"], first_user=values.get("first_user", 0), priors=priors,
        )
        return dataclasses.replace(recipe, months=values.get("months"))


def make_recipe(
    users: int,
    months: int | None = None,
    days: int | None = None,
    start: dt.date | str | None = None,
    seed: int = 0,
    first_user: int = 0,
    priors: Priors | None = None,
) -> Recipe:
    """Check the parameters and fix the number of days (``months`` counts calendar months)."""
    if isinstance(start, str):
        try:
            start = dt.date.fromisoformat(start)
        except ValueError:
            raise GenerationError(
                f"start {start!r} is not a date; use YYYY-MM-DD, e.g. 2026-01-05") from None
    if start is not None and not isinstance(start, dt.date):
        raise GenerationError(f"start must be a date or YYYY-MM-DD text, e.g. 2026-01-05; got {start!r}")
    if months is not None and days is not None:
        raise GenerationError("give months or days, not both")
    priors = Priors() if priors is None else priors  # Recipe checks every field
    fields: dict[str, Any] = {"users": users, "start": start or DEFAULT_START, "seed": seed,
                              "first_user": first_user, "priors": priors}
    if days is not None:
        return Recipe(days=days, **fields)
    months = 6 if months is None else months
    recipe = Recipe(days=1, months=months, **fields)  # every field checked
    return dataclasses.replace(recipe, days=(add_months(recipe.start, int(months)) - recipe.start).days)


