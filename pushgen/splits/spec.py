"""A split's layout (its parts and tasks) and its parameters (``SplitSpec``): how many months of
training and test, weeks of validation and cold-start users, and the dates they fall on.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

import numpy as np

from pushgen.checks import quoted, whole_number
from pushgen.data.outputs import DatasetError
from pushgen.model.timegrid import add_months
from pushgen.splits.scorer import SCORER
from pushgen.text_tables import counted

SPLIT_FILE = "split.json"
MODEL_PARTS = ("task1/train", "task1/validation", "task1/test", "task2/test")
SCORER_PARTS = (f"{SCORER}/task1/test", f"{SCORER}/task2/test")
PARTS = MODEL_PARTS + SCORER_PARTS
TEST_PARTS = {1: "task1/test", 2: "task2/test"}
TASKS = (1, 2)


def task_number(task: object, error: type[Exception] = DatasetError) -> int:
    """``task`` as an ``int`` when it is 1 or 2 (a whole number: not 1.0, not True), else ``error``.

    Examples
    --------
    >>> import numpy as np
    >>> task_number(np.int64(2))
    2
    >>> task_number(1.0)
    Traceback (most recent call last):
    ...
    pushgen.data.errors.DatasetError: task must be 1 or 2; got 1.0
    """
    if isinstance(task, (bool, np.bool_)) or not isinstance(task, (int, np.integer)) or task not in TASKS:
        raise error(f"task must be 1 or 2; got {quoted(task)}")
    return int(task)


def no_test_users(name: str, task: int) -> str:
    """The message for split ``name`` whose task ``task`` has no test users.

    Parameters
    ----------
    name : str
        The split's name.
    task : int
        1 or 2.

    Returns
    -------
    str
        One line; for task 2 it adds that the split holds no cold-start users.

    Examples
    --------
    >>> no_test_users("my-split", 2)
    'split my-split has no task 2 test users (it holds no cold-start users)'
    """
    return (f"split {name} has no task {task} test users"
            + (" (it holds no cold-start users)" if task == 2 else ""))


@dataclass(frozen=True)
class SplitSpec:
    train_months: int = 3
    test_months: int = 3
    validation_weeks: int = 2
    cold_start_users: int = 0

    def __post_init__(self) -> None:
        for name, low in (("train_months", 1), ("test_months", 1), ("validation_weeks", 0),
                          ("cold_start_users", 0)):
            whole_number("--" + name.replace("_", "-"), getattr(self, name), low, error=DatasetError)

    def to_dict(self) -> dict:
        return asdict(self)


def whole_months(recipe: dict) -> int:
    """How many calendar months from the recipe's start its days cover in full."""
    start = dt.date.fromisoformat(recipe["start"])
    months = 0
    while (add_months(start, months + 1) - start).days <= recipe["days"]:
        months += 1
    return months


def fill_months(recipe: dict, train_months: int | None, test_months: int | None) -> tuple[int, int]:
    """The split's training and test months, the whole dataset by default: half of its months
    (at least one) for training, and the rest for testing."""
    if train_months is not None and test_months is not None:
        return train_months, test_months  # make_split says if they do not fit
    months = whole_months(recipe)
    if months < 2:
        raise DatasetError(f"the dataset covers {counted(recipe['days'], 'day')}, less than the 2 calendar "
                           "months a split needs (one of training, one of test)")
    train = months // 2 if train_months is None else train_months
    if test_months is not None:
        return train, test_months
    if train >= months:
        raise DatasetError(f"the dataset covers {months} months; --train-months {train} leaves none "
                           f"for testing (at most {months - 1})")
    return train, months - train


def left_out(recipe: dict, spec: SplitSpec) -> str | None:
    """A line naming the dataset's months (or days) that no part of ``spec`` holds, if any."""
    months, used = whole_months(recipe), spec.train_months + spec.test_months
    start = dt.date.fromisoformat(recipe["start"])
    spare_days = recipe["days"] - (add_months(start, months) - start).days
    if used < months:
        dropped = f"month {months}" if used + 1 == months else f"months {used + 1}-{months}"
        tail = f" and the last {spare_days} days" if spare_days else ""
        return (f"{dropped}{tail} of the dataset's {months} are in no part "
                f"(--train-months {spec.train_months} + --test-months {spec.test_months})")
    if used == months and spare_days:
        return f"the last {spare_days} days of the dataset, after its {months} whole months, are in no part"
    return None


def boundaries(start: dt.date, spec: SplitSpec) -> tuple[np.datetime64, np.datetime64, np.datetime64]:
    train_end = add_months(start, spec.train_months)
    validation_start = train_end - dt.timedelta(weeks=spec.validation_weeks)
    test_end = add_months(train_end, spec.test_months)
    return (np.datetime64(validation_start, "ms"), np.datetime64(train_end, "ms"),
            np.datetime64(test_end, "ms"))
