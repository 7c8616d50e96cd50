"""Every calibration figure over several seeds: its range beside the published target.

    python scripts/calibration_over_seeds.py                  # 50 users x 6 months, seeds 0-9
    python scripts/calibration_over_seeds.py --users 2000 --seeds 1 --months 2   # the population

Each seed is generated with ``pushgen.generate`` and described with ``pushgen.data.describe`` (the
statistics ``pushgen describe`` prints), plus the day-level and structure figures of
``pushgen.data.realism`` and the long-term figures of its ground truth (``pushgen.data.describe_long_term``).
A figure holds for a seed when its value is inside the target range; the last column counts the seeds
where it holds (a figure that cannot be measured on the span, such as the 6-month share of apps turned
off on 2 months, is shown as not measurable). Exit status 1 if a measured figure holds for fewer than
``--need`` of the seeds (default: all but one).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import pushgen
from pushgen.data.calibration import FIGURES, checks, with_realism
from pushgen.data.describe import describe
from pushgen.data.describe_long_term import dataset_long_term
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
        stats["long_term"] = dataset_long_term(dataset)
        for check in checks(stats):
            values[check.figure.name].append(np.nan if check.value is None else check.value)
    rows, failing, unmeasured = [], 0, 0
    for figure in FIGURES:
        seen = np.array(values[figure.name])
        if np.isnan(seen).all():  # e.g. the 6-month figures of a shorter span
            unmeasured += 1
            rows.append([figure.name, "-", "-", "-", figure.target, "not measurable"])
            continue
        holds = int(((seen >= figure.low) & (seen <= figure.high)).sum())
        failing += holds < need
        rows.append([figure.name, figure.show(np.nanmin(seen)), figure.show(np.nanmedian(seen)),
                     figure.show(np.nanmax(seen)), figure.target, f"{holds}/{args.seeds}"
                     + ("" if holds >= need else "  FAILS")])
    header = ["figure", "min", "median", "max", "target", "holds"]
    print(f"{args.users} users x {args.months} months, seeds 0-{args.seeds - 1}, "
          f"{time.perf_counter() - started:.0f} s")
    print("\n".join(aligned_table(header, rows, right=[False, True, True, True, False, True])))
    measured = len(FIGURES) - unmeasured
    print(f"{measured - failing} of {measured} measured figures hold for at least {need} of "
          f"{args.seeds} seeds" + (f"; {unmeasured} not measurable over {args.months} months"
                                   if unmeasured else ""))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
