"""Run the fault-injection cases through every reading command and count the outcomes by family.

    python scripts/reliability.py                 # a seeded sample of 600 folder cases, and the rest
    python scripts/reliability.py --cases 0       # every case
    python scripts/reliability.py --markdown      # the table of docs/reliability.md
    python scripts/reliability.py --per-family 3  # at most 3 cases of each family (the tests run this)

A folder case damages a copy of a folder made by ``pushgen make`` (3 users, 2 months) or of its
split (``tests/fault_cases.py`` holds the damages and the standard: bytes of a file, the JSON of
its description, a file it does not list, JSON beyond the limits), then runs one reading command
on it. The standard: the command succeeds, or prints one line naming what is wrong and exits
with code 2 (``validate``: 1), never a traceback; damage to a listed file is noticed; the input
folder is not changed and nothing is left behind. The other families (``tests/fault_families.py``)
kill ``--force`` between its renames, serve downloads that never end, trickle or stall, make
runs that cannot fit or write inside an input, give 5,001-digit numbers, schedulers that are not
Dask, bad data URLs and a full standard output, and look up every name the documents give.
Exit status 1 if any case falls short.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fault_cases import (  # noqa: E402
    BYTE_DAMAGE,
    EXTRA_DAMAGE,
    LIMIT_DAMAGE,
    check,
    damages_of,
    dataset_commands,
    made_folders,
    split_commands,
)
from fault_families import families  # noqa: E402

from pushgen.text_tables import aligned_table, markdown_table  # noqa: E402


def family(kind: str, damage_kind: str) -> str:
    what = ("bytes of a file" if damage_kind in BYTE_DAMAGE else "a file it does not list"
            if damage_kind == EXTRA_DAMAGE else "JSON beyond the limits" if damage_kind in LIMIT_DAMAGE
            else "description JSON")
    return f"{kind}: {what}"


def sampled(cases: list, count: int, seed: int, key) -> list:
    """At most ``count`` cases of each family (0: all), the same ones for the same seed."""
    if count <= 0:
        return cases
    by_family: dict[str, list] = {}
    for case in cases:
        by_family.setdefault(key(case), []).append(case)
    rng = random.Random(seed)
    return [case for group in by_family.values() for case in
            (rng.sample(group, count) if len(group) > count else group)]


def outcome_of(problem: str | None) -> str:
    if problem is None:
        return "met the standard"
    for marker, name in (("exception escaped", "traceback"), ("traceback", "traceback"),
                         ("unnoticed", "damage unnoticed"), ("exit code", "wrong exit code"),
                         ("error lines", "not one line"), ("left", "left something behind"),
                         ("input folder changed", "changed its input"), ("was lost", "lost an output")):
        if marker in problem:
            return name
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=600, help="folder cases to run, sampled (0: all)")
    parser.add_argument("--per-family", type=int, default=0, help="at most this many cases of each family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    dataset, split = made_folders()
    cases = [(kind, folder, command, damage)
             for kind, folder, commands in (("dataset", dataset, dataset_commands()),
                                            ("split", split, split_commands(split, benchmark=False)))
             for damage in damages_of(folder) for command in commands]
    others = families()
    total = len(cases) + len(others)
    if args.per_family <= 0 and 0 < args.cases < len(cases):
        cases = random.Random(args.seed).sample(cases, args.cases)
    cases = sampled(cases, args.per_family, args.seed, lambda case: family(case[0], case[3].kind))
    others = sampled(others, args.per_family, args.seed, lambda case: case.family)
    counts: dict[str, Counter] = {}
    problems = []
    runs = [(family(kind, damage.kind), lambda c=(command, folder, damage): check(*c))
            for kind, folder, command, damage in cases]
    runs += [(case.family, lambda case=case: None if (p := case.run()) is None else f"{case.name}: {p}")
             for case in others]
    for name, run in runs:
        problem = run()
        counts.setdefault(name, Counter())[outcome_of(problem)] += 1
        if problem is not None:
            problems.append(problem)
    outcomes = ["met the standard", "traceback", "damage unnoticed", "wrong exit code", "not one line",
                "left something behind", "changed its input", "lost an output", "other"]
    header = ["family", "cases", *outcomes]
    rows = [[name, str(sum(c.values())), *(str(c[o]) for o in outcomes)]
            for name, c in sorted(counts.items())]
    rows.append(["all", str(len(runs)), *(str(sum(c[o] for c in counts.values())) for o in outcomes)])
    right = [False] + [True] * (len(header) - 1)
    lines = [markdown_table(header, rows, right)] if args.markdown else aligned_table(header, rows, right)
    table = "\n".join(lines)
    print(table)
    print(f"\n{len(runs):,} of {total:,} cases ({len(dataset_commands())} dataset and "
          f"{len(split_commands(split, benchmark=False))} split commands on damaged folders, "
          f"{len(others)} other cases), {time.perf_counter() - started:.0f} s; {len(problems)} fell short")
    for problem in problems[:20]:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
