"""Code that uses every name ``pushgen`` exports; ``mypy --strict`` must pass on it.

Type-checked only (tests/test_typing.py), never run.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import pandas as pd

import pushgen


def make() -> tuple[pushgen.Dataset, int]:
    priors = pushgen.Priors(wake_hour_mean=7.5)
    dataset = pushgen.generate(users=2, days=3, seed=0, start=dt.date(2026, 1, 5), priors=priors)
    notifications: pd.DataFrame = dataset.notifications
    users: pd.DataFrame = dataset.users
    days: int = dataset.recipe.days
    return dataset, len(notifications) + len(users) + days


def standard_splits() -> list[str]:
    return [f"{entry.label}: {entry.users} users, {entry.bytes} bytes" for entry in pushgen.list_splits()]


def develop(out: Path) -> Path:
    folder: Path = pushgen.development_split("pushgen-mini", out, seed=7, force=False, progress=False)
    return folder


def load(folder: Path) -> int:
    split = pushgen.load_split(folder, task=1)
    frames: list[pd.DataFrame] = [split.train, split.validation, split.test, split.users]
    return sum(len(frame) for frame in frames) + split.task


def score(folder: Path, submission: pd.DataFrame) -> float:
    result = pushgen.evaluate(folder, task=1, submission=submission)
    per_user: pd.DataFrame = result.per_user
    return result.overall["mean_reward"] + len(per_user)


def benchmark(folder: Path) -> tuple[str, pd.DataFrame]:
    results = pushgen.run_benchmark(folder, tasks=[1], baselines=["uniform"])
    return results.fingerprint, results.per_user


def possible(codes: dict[str, npt.NDArray[np.int64]], has_app: npt.NDArray[np.bool_]) -> int:
    return int(pushgen.is_possible(codes, has_app).sum())


def environment() -> gym.Env[object, object]:
    assert pushgen.envs is not None
    return gym.make("pushgen/NotificationGeneration-v0", split="pushgen-mini-v4", user=0)


def refused() -> str:
    try:
        pushgen.generate(users=0)
    except pushgen.GenerationError as error:
        return str(error)
    try:
        pushgen.load_split("no-such-split")
    except pushgen.DatasetError as error:
        return str(error)
    return pushgen.__version__
