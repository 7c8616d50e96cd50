"""Run the fault-injection cases through every reading command and count the outcomes by family.

    python scripts/reliability.py                 # a seeded sample of 600 cases (a few minutes)
    python scripts/reliability.py --cases 0       # every case
    python scripts/reliability.py --markdown      # the table of docs/reliability.md

A case damages a copy of a folder made by ``pushgen make`` (3 users, 2 months) or of its split
(``tests/fault_cases.py`` holds the damages and the standard), then runs one reading command
on it. The standard: the command succeeds, or prints one line naming what is wrong and exits
with code 2 (``validate``: 1), never a traceback; damage to a listed file is noticed; the input
folder is not changed and nothing is left behind. Exit status 1 if any case falls short.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pushgen.text_tables import aligned_table, markdown_table
from tests.fault_cases import (
    BYTE_DAMAGE,
    check,
    damages_of,
    dataset_commands,
    made_folders,
    split_commands,
)


def family(kind: str, damage_kind: str) -> str:
    return f"{kind}: {'bytes of a file' if damage_kind in BYTE_DAMAGE else 'description JSON'}"


def outcome_of(problem: str | None) -> str:
    if problem is None:
        return "met the standard"
    for marker, name in (("exception escaped", "traceback"), ("traceback", "traceback"),
                         ("unnoticed", "damage unnoticed"), ("exit code", "wrong exit code"),
                         ("error lines", "not one line"), ("left", "left something behind"),
                         ("input folder changed", "changed its input")):
        if marker in problem:
            return name
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=600, help="cases to run, sampled (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    dataset, split = made_folders()
    cases = [(kind, folder, command, damage)
             for kind, folder, commands in (("dataset", dataset, dataset_commands()),
                                            ("split", split, split_commands(split, benchmark=False)))
             for damage in damages_of(folder) for command in commands]
    total = len(cases)
    if args.cases > 0 and args.cases < total:
        cases = random.Random(args.seed).sample(cases, args.cases)
    counts: dict[str, Counter] = {}
    problems = []
    for kind, folder, command, damage in cases:
        problem = check(command, folder, damage)
        counts.setdefault(family(kind, damage.kind), Counter())[outcome_of(problem)] += 1
        if problem is not None:
            problems.append(problem)
    outcomes = ["met the standard", "traceback", "damage unnoticed", "wrong exit code", "not one line",
                "left something behind", "changed its input", "other"]
    header = ["family", "cases", *outcomes]
    rows = [[name, str(sum(c.values())), *(str(c[o]) for o in outcomes)]
            for name, c in sorted(counts.items())]
    rows.append(["all", str(len(cases)), *(str(sum(c[o] for c in counts.values())) for o in outcomes)])
    right = [False] + [True] * (len(header) - 1)
    lines = [markdown_table(header, rows, right)] if args.markdown else aligned_table(header, rows, right)
    table = "\n".join(lines)
    print(table)
    print(f"\n{len(cases)} of {total} cases ({len(dataset_commands())} dataset and "
          f"{len(split_commands(split, benchmark=False))} split commands), "
          f"{time.perf_counter() - started:.0f} s; {len(problems)} fell short")
    for problem in problems[:20]:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
