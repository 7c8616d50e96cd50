"""Writes ``pushgen/model/kernel_signatures.py``: the argument types generation and the judge call
each kernel with, which the build compiles ahead of time (``pushgen.model.ahead_of_time``).

It generates a few recipes (short and long, one user and several, late first users) and scores
a task 1 submission on ``pushgen-mini-v3`` in every reward mode, in this process with numba's
JIT, and reads the variants each kernel's dispatcher compiled. ``--check`` exits 1, naming the
kernels that differ, instead of writing.

Usage: python scripts/kernel_signatures.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

import pushgen
from pushgen.model import compiled, kernel_signatures
from pushgen.model.ahead_of_time import kernel_name
from pushgen.model.ahead_of_time_build import dispatcher_signatures
from pushgen.replay.evaluation import evaluate
from pushgen.replay.rewards import MODES

RECIPES = (dict(users=3, days=28, seed=7), dict(users=1, days=1, seed=3),
           dict(users=5, months=13, seed=11, first_user=40))
SPLIT = "pushgen-mini-v3"
TARGET = Path(kernel_signatures.__file__)
HEADER = '''"""The argument types generation and the judge call each kernel with, by kernel (module.name):
the variants the build compiles ahead of time (``ahead_of_time``). Written by
``scripts/kernel_signatures.py``; a test checks them against what those call. numba's signature
strings: ``float64[::1]`` is a C-ordered 1-d array, ``UniTuple(T, n)`` n values of type T,
``Tuple((T, U))`` a T and a U."""

SIGNATURES: dict[str, tuple[str, ...]] = {
'''


def recorded() -> dict[str, tuple[str, ...]]:
    for recipe in RECIPES:
        pushgen.generate(**recipe)
    contexts = pushgen.load_split(SPLIT, task=1).test["context_id"]
    submission = pd.DataFrame({"context_id": contexts, "postingApp": "com.whatsapp", "category": "msg",
                               "numberOfUpdates": "none", "subject": "text & instant messaging",
                               "priority": "max", "ongoing": False, "visibility": "private"})
    for mode in MODES:
        evaluate(SPLIT, task=1, submission=submission, mode=mode)
    return {kernel_name(kernel.python): tuple(sorted(dispatcher_signatures(kernel.compiled())))
            for kernel in sorted(compiled.loaded_kernels(), key=lambda k: kernel_name(k.python))}


def module_text(signatures: dict[str, tuple[str, ...]]) -> str:
    lines = [HEADER]
    for kernel, variants in signatures.items():
        lines.append(f"    {kernel!r}: (\n")
        lines.extend(f"        {variant!r},\n" for variant in variants)
        lines.append("    ),\n")
    lines.append("}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    signatures = recorded()
    if args.check:
        declared = kernel_signatures.SIGNATURES
        differ = sorted(k for k in {*signatures, *declared} if signatures.get(k) != declared.get(k))
        print("kernel signatures up to date" if not differ else f"differ: {', '.join(differ)}")
        return 1 if differ else 0
    TARGET.write_text(module_text(signatures))
    print(f"wrote {TARGET} ({sum(map(len, signatures.values()))} variants of {len(signatures)} kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
