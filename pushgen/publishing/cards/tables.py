"""What each table of a dataset or split folder holds, for the cards and the Croissant files.

Tables are named by their path without the file suffix (``task1/train``,
``scorer/ground_truth/engagement_rows``); a partitioned table is the folder of its parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pushgen.splits.scorer import SCORER

ANSWER_KEY = ("Answer key (scorer/): only the evaluator and the environments read it; a model must "
              "not read it.")
TRUTH_TABLES = {
    "ground_truth/engagement_model": "The engagement formula, its constants and the order of features "
                                     "and scalars.",
    "ground_truth/engagement_users": "Per user: the scalar parameters of the engagement formula.",
    "ground_truth/engagement_weights": "Per user, feature and value: the weight of that value.",
    "ground_truth/engagement_rows": "Per notification: the dynamic state, the random draw and P(open).",
    "ground_truth/initial_state": "Per test user and exposure key: the fatigue and habituation the "
                                  "user's earlier notifications leave at the start of the test months.",
}
DATASET_TABLES = {
    "notifications": "One row per notification: its features, the context at posting, the action "
                     "and timings.",
    "users": "One row per user: pseudonym and a summary of the user's habits.",
    **TRUTH_TABLES,
}
SPLIT_TABLES = {
    "task1/train": "Task-1 users' history: the training months less the validation weeks; each "
                   "notification with its context, the action and timings.",
    "task1/validation": "Task-1 users' history: the last weeks of the training months, for model "
                        "selection.",
    "task1/test": "Task-1 users' test months: contexts only (user_id, context_id, posted_at and the "
                  "context features), the rows a submission fills.",
    "task2/test": "Cold-start users (held out entirely), their test months: contexts only.",
    "users": "One row per user: user_id and an invented pseudonym.",
    "scorer/task1/test": "The logged notification, action and timings of each task1/test context.",
    "scorer/task2/test": "The logged notification, action and timings of each task2/test context.",
    "scorer/users": "One row per user: pseudonym and a summary of the simulated habits.",
    **{f"{SCORER}/{name}": text for name, text in TRUTH_TABLES.items()},
}
PART_FILE = re.compile(r"^part-\d+\.\w+$")


def is_answer_key(table: str) -> bool:
    return table == SCORER or table.startswith(f"{SCORER}/")


def split_table_description(table: str) -> str:
    text = SPLIT_TABLES.get(table, f"The table {table}.")
    return f"{text} {ANSWER_KEY}" if is_answer_key(table) else text


def table_of(path: str) -> str:
    """The table a file belongs to: ``notifications/part-00001.parquet`` -> ``notifications``."""
    folder, _, name = path.rpartition("/")
    if PART_FILE.match(name):
        return folder
    return path.rsplit(".", 1)[0]


def tables(paths: Iterable[str]) -> dict[str, list[str]]:
    """The files of each table, tables and files in the order of ``paths``."""
    out: dict[str, list[str]] = {}
    for path in paths:
        out.setdefault(table_of(path), []).append(path)
    return out
