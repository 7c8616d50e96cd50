"""``pushgen.generate``: sample a population of users and live them through the time grid."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from pushgen import schemas, stopping
from pushgen._version import __version__
from pushgen.data import tables
from pushgen.data.recipe import DEFAULT_START as DEFAULT_START
from pushgen.data.recipe import EARLIEST_START as EARLIEST_START
from pushgen.data.recipe import LATEST_START as LATEST_START
from pushgen.data.recipe import MAX_DAYS as MAX_DAYS
from pushgen.data.recipe import MAX_MONTHS as MAX_MONTHS
from pushgen.data.recipe import MAX_USERS as MAX_USERS
from pushgen.data.recipe import GenerationError as GenerationError
from pushgen.data.recipe import Recipe as Recipe
from pushgen.data.recipe import make_recipe as make_recipe
from pushgen.model.engagement import EngagementParameters
from pushgen.model.priors import Priors
from pushgen.model.seeding import NodeFamily, integer_seed
from pushgen.model.user import UserData, simulate_user
from pushgen.progress import counter
from pushgen.text_tables import counted, html_table

if TYPE_CHECKING:
    import pandas as pd

FAKER_LOCALE = "en_US"
FAKER_PROVIDERS = ["faker.providers.person"]  # all that name() uses: the same names, without loading 24 more


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
