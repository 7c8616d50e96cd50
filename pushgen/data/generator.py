"""``pushgen.generate``: sample a population of users and live them through the time grid."""

from __future__ import annotations

import dataclasses
import datetime as dt
import numbers
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from pushgen import schemas, stopping
from pushgen._version import __version__
from pushgen.data import tables
from pushgen.model.engagement import EngagementParameters
from pushgen.model.priors import Priors, PriorsError
from pushgen.model.seeding import NodeFamily, integer_seed
from pushgen.model.timegrid import TimeGrid, add_months
from pushgen.model.user import UserData, simulate_user
from pushgen.progress import counter
from pushgen.text_tables import counted, html_table

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_START = dt.date(2026, 1, 5)  # a Monday
EARLIEST_START, LATEST_START = dt.date(1970, 1, 1), dt.date(2199, 12, 31)
MAX_USERS = 10_000_000
MAX_DAYS = 3660  # ten years
MAX_MONTHS = 120
FAKER_LOCALE = "en_US"
FAKER_PROVIDERS = ["faker.providers.person"]  # all that name() uses: the same names, without loading 24 more


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
                object.__setattr__(self, name, _check_int(name, getattr(self, name), low, high))
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
    fields: dict[str, Any] = {"users": users, "start": start or DEFAULT_START, "seed": seed,
                              "first_user": first_user, "priors": priors or Priors()}  # Recipe checks them
    if days is not None:
        return Recipe(days=days, **fields)
    months = 6 if months is None else months
    recipe = Recipe(days=1, months=months, **fields)  # every field checked
    return dataclasses.replace(recipe, days=(add_months(recipe.start, int(months)) - recipe.start).days)


def _check_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        raise GenerationError(f"{name} must be a whole number from {low} to {high}; got {shown(value)}")
    return int(value)


def shown(value: object) -> str:
    """``repr(value)`` for a message; a very long integer (which Python will not print) by its size."""
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 128:
        return f"a whole number of about {int(abs(int(value)).bit_length() * 0.30103) + 1:,} digits"
    return repr(value)


def simulate(recipe: Recipe, user_ids: Iterable[int] | None = None) -> Iterator[UserData]:
    """Each user of the recipe (or the given ones), one at a time."""
    grid = recipe.grid
    for user_id in recipe.user_ids if user_ids is None else user_ids:
        stopping.check()
        yield simulate_user(user_id, recipe.seed, grid, recipe.priors)


def pseudonyms(seed: int, user_ids: Iterable[int]) -> list[str]:
    from faker import Faker  # imported here: reading and scoring datasets never needs it

    fake = Faker(FAKER_LOCALE, providers=FAKER_PROVIDERS)
    names = []
    for user_id in user_ids:
        fake.seed_instance(integer_seed(seed, user_id, NodeFamily.PSEUDONYM))
        names.append(fake.name())
    return names


@dataclass
class Dataset:
    """A generated dataset: notifications, users and the ground-truth engagement model.

    Made by ``pushgen.generate``; ``pushgen make`` writes one as a folder.

    Attributes
    ----------
    recipe : Recipe
        What was simulated: users, days, start, seed and priors.
    notifications : pandas.DataFrame
        One row per notification: the notification, its context and the user's response.
    users : pandas.DataFrame
        One row per user: pseudonym and habit summary.
    truth_rows : pandas.DataFrame
        One row per notification: the simulated user's state, the random draw and P(open).
    parameters : EngagementParameters
        Every user's engagement model.

    Examples
    --------
    >>> import pushgen
    >>> dataset = pushgen.generate(users=2, days=7, seed=0)
    >>> len(dataset.users), len(dataset.truth_rows) == len(dataset.notifications)
    (2, True)
    """

    recipe: Recipe
    notifications_arrow: pa.Table
    users_arrow: pa.Table
    truth_rows_arrow: pa.Table
    parameters: EngagementParameters
    pushgen_version: str = __version__

    @cached_property
    def notifications(self) -> pd.DataFrame:
        return schemas.apply_dtypes(self.notifications_arrow.to_pandas())

    @cached_property
    def users(self) -> pd.DataFrame:
        return self.users_arrow.to_pandas()

    @cached_property
    def truth_rows(self) -> pd.DataFrame:
        return self.truth_rows_arrow.to_pandas()

    def _summary(self) -> list[tuple[str, str]]:
        recipe = self.recipe
        span = counted(recipe.months, "month") if recipe.months is not None else counted(recipe.days, "day")
        rows = self.notifications_arrow.num_rows
        actions = pc.cast(self.notifications_arrow.column("action"), pa.string())
        opened = pc.sum(pc.equal(actions, "opened")).as_py() / rows if rows else float("nan")
        return [("users", f"{recipe.users:,}"),
                ("span", f"{span} from {recipe.start} ({counted(recipe.days, 'day')})"),
                ("seed", str(recipe.seed)), ("notifications", f"{rows:,}"),
                ("open rate", f"{opened:.1%}"), ("pushgen", self.pushgen_version)]

    def __repr__(self) -> str:
        facts = dict(self._summary())
        return (f"<Dataset: {counted(self.recipe.users, 'user')}, {facts['span']}, seed {facts['seed']}\n"
                f" {facts['notifications']} notifications (open rate {facts['open rate']}); "
                ".notifications, .users, .truth_rows>")

    def _repr_html_(self) -> str:
        return html_table(["", ""], self._summary(), caption="pushgen Dataset")

    @classmethod
    def from_users(cls, recipe: Recipe, users: list[UserData]) -> Dataset:
        ids = [u.user_id for u in users]
        return cls(
            recipe=recipe,
            notifications_arrow=tables.notifications_table(users, recipe.grid.start_seconds),
            users_arrow=tables.users_table(users, pseudonyms(recipe.seed, ids)),
            truth_rows_arrow=tables.truth_rows_table(users),
            parameters=tables.parameters_of(users),
        )


def generate(
    users: int = 50,
    months: int | None = None,
    days: int | None = None,
    start: dt.date | str | None = None,
    seed: int = 0,
    priors: Priors | None = None,
    first_user: int = 0,
    progress: bool = False,
) -> Dataset:
    """Generate ``users`` users over ``months`` calendar months (or ``days`` days).

    ``dataset.notifications`` is a pandas frame with one row per notification (categorical
    columns carry the full published value sets); ``dataset.users`` one row per user.

    Parameters
    ----------
    users : int, default 50
        How many users to simulate, >= 1.
    months : int, optional
        Calendar months to simulate (6 when neither ``months`` nor ``days`` is given).
    days : int, optional
        Days to simulate, instead of ``months``.
    start : datetime.date or str, optional
        The first day (``"YYYY-MM-DD"``); by default the recipe's fixed start day.
    seed : int, default 0
        The dataset seed: the same recipe gives the same rows, whatever the machine.
    priors : Priors, optional
        The population priors; by default the calibrated ones.
    first_user : int, default 0
        The id of the first user (user ``k``'s rows do not depend on how many are made).
    progress : bool, default False
        Draw a progress bar on stderr.

    Returns
    -------
    Dataset
        The notifications, the users and the ground-truth engagement model.

    Raises
    ------
    GenerationError
        When a recipe value is out of its range (the message names it and what is allowed).

    Examples
    --------
    >>> import pushgen
    >>> dataset = pushgen.generate(users=2, days=7, seed=0)
    >>> sorted(dataset.notifications["user_id"].unique().tolist())
    [0, 1]
    >>> bool(dataset.notifications["action"].isin(["opened", "dismissed"]).all())
    True
    """
    recipe = make_recipe(users=users, months=months, days=days, start=start, seed=seed,
                         first_user=first_user, priors=priors)
    return simulated_dataset(recipe, progress)


def simulated_dataset(recipe: Recipe, progress: bool = False, desc: str = "pushgen") -> Dataset:
    """Every user of ``recipe`` simulated in this process; with a bar named ``desc`` if ``progress``."""
    simulated = []
    with counter(desc=desc, total=recipe.users, unit="user", drawn=progress) as advance:
        for user in simulate(recipe):
            simulated.append(user)
            advance(1)
    return Dataset.from_users(recipe, simulated)
