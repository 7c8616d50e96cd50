"""How fast are `pushgen make`, `pushgen evaluate` and `pushgen log`? Against a baseline, in one run.

    python scripts/bench_generate.py [--recipes 50x6,200x6,1000x1,100x12] [--repeat 2]
                                     [--split pushgen-v4] [--baseline PYTHON]

    (a) ``pushgen make --users U --months M --jobs 1`` for each recipe USERSxMONTHS: wall and CPU
        seconds (the child's, via wait4), rows, rows per wall second, CPU microseconds per row and
        the folder's size; with ``--baseline``, the same for the pushgen of another interpreter
        (e.g. a virtual environment of an earlier release) and the ratios this / baseline, and
        whether both made the same content fingerprints
    (b) cost flat in rows: CPU per row of 1000x1 against 100x12 (aim: within 1.15x)
    (c) content: 50x6's fingerprints against those pushgen 0.4.0 made (``bench_generate_reference.json``)
    (d) ``pushgen evaluate`` of the logged test notifications of ``--split`` (task 1) beside the
        floor: a fresh Python that reads the same files with pandas and joins them (aim: within 1.5x)
    (e) ``pushgen log pushgen-mini-v4`` and its start-up: a fresh Python importing what it imports

Every measurement runs in a fresh process; the interpreters and recipes are taken in turn,
``--repeat`` rounds, best of each (CPU and wall separately), so that a change of the machine's load
moves both sides alike. CPU seconds hold on a loaded machine where wall seconds do not: the load
average is printed before and after. The children cache bytecode in a scratch folder (even under
PYTHONDONTWRITEBYTECODE), so start-up is that of an installed package.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

import pushgen
from pushgen import schemas

REFERENCE = Path(__file__).with_name("bench_generate_reference.json")
AIM_FLAT = 1.15
AIM_EVALUATE = 1.5
FLAT = ("1000x1", "100x12")
FLOOR = """
import sys
import pandas as pd
split, submission = sys.argv[1], sys.argv[2]
contexts = pd.read_parquet(f"{split}/task1/test.parquet")
logged = pd.read_parquet(f"{split}/scorer/task1/test.parquet")
truth = pd.read_parquet(f"{split}/scorer/ground_truth/engagement_rows.parquet")
submitted = pd.read_parquet(submission)
frame = logged.merge(contexts, on=["user_id", "context_id", "posted_at"])
frame = frame.merge(truth, on=["notification_id", "user_id"])
frame = frame.merge(submitted, on="context_id", suffixes=("_logged", ""))
assert len(frame) == len(logged)
"""
LOG_IMPORTS = "import pushgen.commands, pushgen.ope.folder"


@dataclass
class Run:
    wall: float
    cpu: float


@dataclass
class Side:
    """One pushgen: how to start its Python, and where its code comes from."""

    label: str
    python: str
    pythonpath: str | None

    def env(self, scratch: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        env["PYTHONPYCACHEPREFIX"] = str(scratch / f"pycache-{self.label}")
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        return env

    def run(self, arguments: list[str], scratch: Path) -> Run:
        """Wall and CPU seconds of ``python ARGUMENTS`` (wait4: the child's own CPU)."""
        began = os.times().elapsed
        child = subprocess.Popen([self.python, *arguments], env=self.env(scratch), cwd=scratch,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        wall = os.times().elapsed - began
        error = child.stderr.read().decode(errors="replace") if child.stderr else ""
        if child.stderr:
            child.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{self.label}: python {' '.join(arguments)} failed: {error.strip()[-2000:]}")
        return Run(wall, usage.ru_utime + usage.ru_stime)

    def version(self, scratch: Path) -> str:
        code = "import pushgen; print(pushgen.__version__, pushgen.__file__)"
        out = subprocess.run([self.python, "-c", code], env=self.env(scratch), cwd=scratch,
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()


def best(runs: list[Run]) -> Run:
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs))


def recipe(text: str) -> tuple[int, int]:
    users, _, months = text.partition("x")
    if not (users.isdigit() and months.isdigit() and int(users) > 0 and int(months) > 0):
        raise argparse.ArgumentTypeError(f"a recipe is USERSxMONTHS such as 50x6; got {text!r}")
    return int(users), int(months)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def line(label: str, *cells: str) -> str:
    return f"  {label:<30}" + "".join(f"{c:>13}" for c in cells)


def ratio(this: float, baseline: float) -> str:
    return f"{this / baseline:.2f}x" if baseline > 0 else "-"


def make_section(sides: list[Side], recipes: list[str], repeat: int, scratch: Path) -> dict:
    """(a): the best runs, rows, sizes and fingerprints of every recipe and side."""
    runs: dict[tuple[str, str], list[Run]] = {}
    made: dict[tuple[str, str], dict] = {}
    for round_ in range(repeat):
        for text in recipes:
            users, months = recipe(text)
            for side in sides:
                out = scratch / f"make-{side.label}-{text}-{round_}"
                runs.setdefault((text, side.label), []).append(side.run(
                    ["-m", "pushgen", "make", "--users", str(users), "--months", str(months), "--jobs", "1",
                     "--out", str(out), "-q"], scratch))
                manifest = json.loads((out / "manifest.json").read_text())
                made[(text, side.label)] = {"rows": manifest["rows"]["notifications"],
                                            "bytes": folder_bytes(out),
                                            "fingerprints": manifest["fingerprints"]}
                shutil.rmtree(out)
    return {key: {**made[key], "run": best(value)} for key, value in runs.items()}


def print_make(sides: list[Side], recipes: list[str], results: dict) -> None:
    print("(a) pushgen make --users U --months M --jobs 1 (best of the rounds)")
    heading = ["wall s", "CPU s", "rows/s", "CPU us/row", "MiB"]
    print(line("recipe, pushgen", *heading))
    for text in recipes:
        for side in sides:
            r = results[(text, side.label)]
            print(line(f"{text} {side.label}", f"{r['run'].wall:.2f}", f"{r['run'].cpu:.2f}",
                       f"{r['rows'] / r['run'].wall:,.0f}", f"{r['run'].cpu / r['rows'] * 1e6:.2f}",
                       f"{r['bytes'] / (1 << 20):.1f}"))
        if len(sides) == 2:
            this, base = results[(text, "this")], results[(text, "baseline")]
            same = "same content" if this["fingerprints"] == base["fingerprints"] else "CONTENT DIFFERS"
            print(line(f"{text} this / baseline", ratio(this["run"].wall, base["run"].wall),
                       ratio(this["run"].cpu, base["run"].cpu), "", "", ratio(this["bytes"], base["bytes"]))
                  + f"  {this['rows']:,} rows, {same}")
    print()
    if all(text in recipes for text in FLAT):
        print(f"(b) cost flat in rows: CPU per row of {FLAT[0]} / {FLAT[1]} (aim <= {AIM_FLAT}x)")
        for side in sides:
            wide, long = (results[(text, side.label)] for text in FLAT)
            flat = (wide["run"].cpu / wide["rows"]) / (long["run"].cpu / long["rows"])
            print(line(side.label, f"{flat:.2f}x"))
        print()


def print_content(results: dict, recipes: list[str]) -> bool:
    reference = json.loads(REFERENCE.read_text())
    text = f"{reference['recipe']['users']}x{reference['recipe']['months']}"
    if text not in recipes:
        return True
    print(f"(c) content of {text} against pushgen {reference['pushgen_version']}'s")
    made = results[(text, "this")]["fingerprints"]
    exp = np.lib.introspect.opt_func_info(func_name="^exp$", signature="d.*").get("exp", {}).get("dd", {})
    # P(open) follows numpy's exp, which rounds otherwise without AVX-512 (docs/versioning.md)
    unmatched = set() if exp.get("current") == "X86_V4" else {"engagement_rows"}
    for name, expected in reference["fingerprints"].items():
        verdict = "the same" if made.get(name) == expected else "DIFFERS"
        if verdict != "the same" and name in unmatched:
            verdict += " (numpy computes exp without AVX-512 here: P(open) rounds otherwise)"
        print(line(f"{name} fingerprint", made.get(name, "missing")[:12]) + f"  {verdict}")
    print()
    return all(made.get(name) == expected for name, expected in reference["fingerprints"].items()
               if name not in unmatched)


def evaluate_section(sides: list[Side], split: str, repeat: int, scratch: Path) -> None:
    from pushgen.data.outputs import DatasetError
    from pushgen.publishing.access import resolve_split

    try:
        folder = resolve_split(split)
    except DatasetError as error:
        print(f"(d) evaluate: skipped, {split} is not at hand ({error}); "
              f"`pushgen download {split} --regenerate` builds it without network")
        return
    submission = scratch / "submission.parquet"
    logged = pq.read_table(folder / "scorer" / "task1" / "test.parquet")
    pq.write_table(logged.select(["context_id", *schemas.NOTIFICATION_FEATURES]), submission)
    floor_side = Side("floor", sys.executable, None)
    evaluate = ["-m", "pushgen", "evaluate", "--split", str(folder), "--submission", str(submission), "-q"]
    runs: dict[str, list[Run]] = {}
    for round_ in range(repeat + 1):  # the first round caches bytecode and is not counted
        for side in [floor_side, *sides]:
            arguments = ["-c", FLOOR, str(folder), str(submission)] if side is floor_side else evaluate
            run = side.run(arguments, scratch)
            if round_:
                runs.setdefault(side.label, []).append(run)
    floor = best(runs["floor"])
    print(f"(d) pushgen evaluate --split {split} --task 1 ({logged.num_rows:,} rows) beside the floor: "
          f"pandas reads and joins the same files (aim <= {AIM_EVALUATE}x)")
    print(line("", "wall s", "CPU s", "wall / floor", "CPU / floor"))
    print(line("floor (pandas read + join)", f"{floor.wall:.2f}", f"{floor.cpu:.2f}"))
    for side in sides:
        r = best(runs[side.label])
        print(line(f"evaluate {side.label}", f"{r.wall:.2f}", f"{r.cpu:.2f}", ratio(r.wall, floor.wall),
                   ratio(r.cpu, floor.cpu)))
    print()


def log_section(sides: list[Side], repeat: int, scratch: Path) -> None:
    runs: dict[tuple[str, str], list[Run]] = {}
    for round_ in range(repeat + 1):  # the first round caches bytecode and is not counted
        for side in sides:
            out = scratch / f"log-{side.label}-{round_}"
            log = side.run(["-m", "pushgen", "log", "pushgen-mini-v4", "--out", str(out), "-q"], scratch)
            imports = side.run(["-c", LOG_IMPORTS], scratch)
            if round_:
                runs.setdefault((side.label, "log"), []).append(log)
                runs.setdefault((side.label, "imports"), []).append(imports)
    print("(e) pushgen log pushgen-mini-v4, and its start-up: python -c "
          f'"{LOG_IMPORTS}"')
    print(line("", "wall s", "CPU s", "start-up s", "start-up CPU"))
    for side in sides:
        total, imports = best(runs[(side.label, "log")]), best(runs[(side.label, "imports")])
        print(line(f"log {side.label}", f"{total.wall:.2f}", f"{total.cpu:.2f}", f"{imports.wall:.2f}",
                   f"{imports.cpu:.2f}"))
    if len(sides) == 2:
        this, base = ({k: best(runs[(label, k)]) for k in ("log", "imports")}
                      for label in ("this", "baseline"))
        print(line("this / baseline", ratio(this["log"].wall, base["log"].wall),
                   ratio(this["log"].cpu, base["log"].cpu), ratio(this["imports"].wall, base["imports"].wall),
                   ratio(this["imports"].cpu, base["imports"].cpu)))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipes", default="50x6,200x6,1000x1,100x12",
                        help="comma-separated USERSxMONTHS recipes for make")
    parser.add_argument("--repeat", type=int, default=2, help="rounds per measurement (best counts)")
    parser.add_argument("--split", default="pushgen-v4", help="the split evaluate scores (name or folder)")
    parser.add_argument("--baseline", metavar="PYTHON", help="also measure the pushgen of this interpreter")
    parser.add_argument("--skip", default="",
                        help="comma-separated sections to leave out: make, evaluate, log")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        recipes = [f"{u}x{m}" for u, m in (recipe(t) for t in args.recipes.split(",") if t)]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    skip = set(filter(None, args.skip.split(",")))
    here = str(Path(pushgen.__file__).resolve().parents[1])
    sides = [Side("this", sys.executable, here)]
    if args.baseline:
        sides.append(Side("baseline", args.baseline, None))
    ok = True
    with tempfile.TemporaryDirectory(prefix="pushgen-bench-") as tmp:
        scratch = Path(tmp)
        print(f"python {platform.python_version()}, {os.cpu_count()} cpus, {platform.machine()}; "
              f"load average {os.getloadavg()[0]:.2f} at the start")
        for side in sides:
            print(f"  {side.label}: pushgen {side.version(scratch)}")
            side.run(["-m", "pushgen", "make", "--users", "2", "--days", "3", "--out",
                      str(scratch / f"warm-{side.label}"), "-q"], scratch)  # kernels and bytecode cached
        print()
        if "make" not in skip:
            results = make_section(sides, recipes, args.repeat, scratch)
            print_make(sides, recipes, results)
            ok = print_content(results, recipes)
        if "evaluate" not in skip:
            evaluate_section(sides, args.split, args.repeat, scratch)
        if "log" not in skip:
            log_section(sides, args.repeat, scratch)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
