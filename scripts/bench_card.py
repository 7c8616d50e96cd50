"""How long the dataset card and its statistics take, against reading the same tables from Parquet.

    card            ``dataset_card(dataset, manifest)`` as ``pushgen make`` calls it: the statistics
                    of the Arrow tables, the Markdown tables, the YAML front matter
    statistics      ``describe`` of the dataset's Arrow tables, as the card computes them
    from pandas     ``describe`` of the same tables as pandas frames (read_table's schema dtypes)
    describe        ``describe_tables(folder, calibration=True)``: ``pushgen describe``'s work after
                    start-up (reading, statistics, engagement, calibration figures)
    parquet read    ``pq.read_table`` of notifications.parquet and users.parquet: the floor

CPU seconds (``time.process_time``), best of ``--repeat``, each with its ratio to the Parquet read
measured in the same run. The dataset is written once by ``building``, as ``pushgen make``
writes it.

Usage: python scripts/bench_card.py [--users 50] [--months 6] [--repeat 7]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from pushgen.data.build import building
from pushgen.data.dataset import read_table
from pushgen.data.describe import describe, describe_tables
from pushgen.data.generator import Dataset, make_recipe
from pushgen.publishing.card import dataset_card


def best_seconds(work: Callable[[], object], repeat: int) -> float:
    seconds = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        seconds.append(time.process_time() - start)
    return min(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "dataset"
        with building(make_recipe(users=args.users, months=args.months, seed=0), folder) as built:
            dataset, manifest = built.sample, built.manifest
        notifications = read_table(folder / "notifications.parquet")
        users = read_table(folder / "users.parquet")

        def fresh() -> Dataset:  # no table converted or cached by an earlier repeat
            return dataclasses.replace(dataset)

        timed = {
            "parquet read": lambda: (pq.read_table(folder / "notifications.parquet"),
                                     pq.read_table(folder / "users.parquet")),
            "card": lambda: dataset_card(fresh(), manifest),
            "statistics": lambda: describe(fresh().notifications_arrow, fresh().users_arrow),
            "from pandas": lambda: describe(notifications, users),
            "describe": lambda: describe_tables(folder, calibration=True),
        }
        seconds = {name: best_seconds(work, args.repeat) for name, work in timed.items()}

    rows = dataset.notifications_arrow.num_rows
    print(f"{args.users} users x {args.months} months: {rows:,} notifications; "
          f"CPU seconds, best of {args.repeat}")
    floor = seconds["parquet read"]
    for name, value in seconds.items():
        print(f"  {name:<14} {value:8.4f} s  {value / floor:6.2f}x the Parquet read")


if __name__ == "__main__":
    main()
