"""Every calibration figure over several seeds: its range beside the published target.

    python scripts/calibration_over_seeds.py                  # 50 users x 6 months, seeds 0-9
    python scripts/calibration_over_seeds.py --users 2000 --seeds 1 --months 2   # the population

Each seed is generated with ``pushgen.generate`` and described with ``pushgen.data.describe`` (the
statistics ``pushgen describe`` prints), plus the day-level and structure figures of
``pushgen.data.realism``. A figure holds for a seed when its value is inside the target range; the
last column counts the seeds where it holds. Exit status 1 if a figure holds for fewer than
``--need`` of the seeds (default: all but one).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import pushgen
from pushgen.data.calibration import FIGURES, with_realism
from pushgen.data.describe import describe
from pushgen.text_tables import aligned_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--need", type=int, default=None, help="seeds a figure must hold for")
    args = parser.parse_args(argv)
    need = args.seeds - 1 if args.need is None else args.need
    need = max(1, min(need, args.seeds))
    values = {f.name: [] for f in FIGURES}
    started = time.perf_counter()
    for seed in range(args.seeds):
        dataset = pushgen.generate(users=args.users, months=args.months, seed=seed)
        stats = with_realism(describe(dataset.notifications, dataset.users), dataset.notifications,
                             dataset.users, auc=True)
        for figure in FIGURES:
            values[figure.name].append(float(figure.value(stats)))
    rows, failing = [], 0
    for figure in FIGURES:
        seen = np.array(values[figure.name])
        holds = int(((seen >= figure.low) & (seen <= figure.high)).sum())
        failing += holds < need
        rows.append([figure.name, figure.show(seen.min()), figure.show(np.median(seen)),
                     figure.show(seen.max()), figure.target, f"{holds}/{args.seeds}"
                     + ("" if holds >= need else "  FAILS")])
    header = ["figure", "min", "median", "max", "target", "holds"]
    print(f"{args.users} users x {args.months} months, seeds 0-{args.seeds - 1}, "
          f"{time.perf_counter() - started:.0f} s")
    print("\n".join(aligned_table(header, rows, right=[False, True, True, True, False, True])))
    print(f"{len(FIGURES) - failing} of {len(FIGURES)} figures hold for at least {need} of "
          f"{args.seeds} seeds")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
