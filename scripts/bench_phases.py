"""Where the CPU of ``pushgen make`` goes, per row, for many users over a short span against few
users over a long one: what keeps the cost from being flat in rows.

    python scripts/bench_phases.py [--recipes 1000x1,100x12] [--repeat 2]

Each recipe runs ``pushgen make --jobs 1`` in a fresh process, in turn, ``--repeat`` rounds (the
best kept); in that process the CPU time of the threads that run each phase is summed:
simulating the users (``simulate_user``), building the tables, the pseudonyms, Parquet
writes, the users' digests (fingerprints) and the card and Croissant. The table gives each
phase's microseconds per notification row for both recipes and their ratio, then what the
ratio of the whole run would be if the simulation cost per row what it costs in the second
recipe (the cost of every user's set-up removed), and what it would be if every other phase did.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PHASES = {  # label: (module, attribute, name): module-level functions of the make path
    "simulate users": ("pushgen.data.generator", None, "simulate_user"),
    "tables": ("pushgen.data.tables", None, "notifications_table truth_rows_table users_table"),
    "pseudonyms": ("pushgen.data.generator", None, "pseudonyms"),
    "Parquet writes": ("pyarrow.parquet", "ParquetWriter", "write_table"),
    "digests": ("pushgen.data.writer", None, "named_digests"),
    "card and Croissant": ("pushgen.publishing.standard", None, "write_dataset_metadata"),
}


def measure(users: int, months: int) -> dict:
    """In this process: ``pushgen make`` of the recipe, each phase's thread CPU and the rows."""
    import importlib

    spent: collections.Counter = collections.Counter()
    lock = threading.Lock()

    def timed(function, label):
        def run(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                with lock:
                    spent[label] += time.thread_time() - start
        return run

    for label, (module_name, class_name, names) in PHASES.items():
        owner = importlib.import_module(module_name)
        owner = getattr(owner, class_name) if class_name else owner
        for name in names.split():
            setattr(owner, name, timed(getattr(owner, name), label))
    from pushgen.cli import main

    with tempfile.TemporaryDirectory() as scratch:
        start = time.process_time()
        with contextlib.suppress(SystemExit):
            main(["make", "--users", str(users), "--months", str(months), "--out", f"{scratch}/d", "-q"])
        total = time.process_time() - start
        rows = json.loads(Path(scratch, "d", "manifest.json").read_text())["rows"]["notifications"]
    return {"total": total, "rows": rows, **spent}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipes", default="1000x1,100x12", help="two USERSxMONTHS recipes")
    parser.add_argument("--repeat", type=int, default=2, help="rounds (best kept)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*map(int, args.child.split("x")))))
        return 0
    recipes = args.recipes.split(",")
    best: dict[str, dict] = {}
    for _ in range(args.repeat):
        for recipe in recipes:
            out = subprocess.run([sys.executable, __file__, "--child", recipe], capture_output=True,
                                 text=True, check=True)
            run = json.loads(out.stdout.strip().splitlines()[-1])
            if recipe not in best or run["total"] < best[recipe]["total"]:
                best[recipe] = run
    a, b = (best[r] for r in recipes)
    print(f"CPU microseconds per notification row, best of {args.repeat} "
          f"(rows: {a['rows']:,} and {b['rows']:,})")
    print(f"{'phase':<22}{recipes[0]:>10}{recipes[1]:>10}{'ratio':>8}")
    for label in [*PHASES, "total"]:
        per_a, per_b = 1e6 * a.get(label, 0) / a["rows"], 1e6 * b.get(label, 0) / b["rows"]
        print(f"{label:<22}{per_a:>10.3f}{per_b:>10.3f}{per_a / per_b if per_b else float('nan'):>7.2f}x")
    others = sum(a.get(label, 0) - b.get(label, 0) / b["rows"] * a["rows"] for label in PHASES
                 if label != "simulate users")
    print(f"whole run with every phase but the simulation flat in rows: "
          f"{(a['total'] - others) / a['rows'] / (b['total'] / b['rows']):.2f}x")
    flat = a["total"] - a["simulate users"] + b["simulate users"] / b["rows"] * a["rows"]
    print(f"whole run with the simulation flat in rows: {flat / a['rows'] / (b['total'] / b['rows']):.2f}x "
          f"(as measured: {a['total'] / a['rows'] / (b['total'] / b['rows']):.2f}x; aim <= 1.15x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
