"""How fast is generation? In-process rows/s, `pushgen make` end to end, and the floors.

    (a) rows/s of ``pushgen.generate(users, months)`` in this process (best of 3)
    (b) wall time of the subprocess ``pushgen make --users U --months M --out TMP`` (best of 3), each
        run into a new folder (no ``--force``, whose check of the folder it replaces is not the aim's)
    (c) peak memory (max RSS) of that subprocess
    (d) the floor: the same tables written with plain ``pyarrow.parquet.write_table``
    (e) interpreter start-up: ``python -c "import pushgen"``; (b), (d) with pushgen's options and
        (e) are taken in turn, ``--repeat`` rounds, so that a change of the machine's load between
        them does not move the end-to-end ratio
    (f) against the aims, as ratios within this run: generate no slower than writing its own three
        tables with pushgen's Parquet options (<= 1x); end to end within 2.5x of (that write +
        start-up); rows/s against >= 1,000,000
    (g) content: the made folder's fingerprints against those pushgen 0.3.0 made for the same
        recipe (``bench_generate_reference.json``): faster code must make the same data
    (h) with ``--baseline PYTHON``: the CPU seconds of ``generate`` per core, this pushgen against
        the one installed for PYTHON (e.g. a virtual environment of an earlier release), each in
        fresh processes taken in turn (best of ``--repeat`` each); aim: at least 2x less

Usage: python scripts/bench_generate.py [--users 50] [--months 6] [--repeat 3] [--baseline PYTHON]
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
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from benchtools import pushgen_command

import pushgen
from pushgen.data.dataset import parquet_options

AIM_RATIO = 2.5
AIM_GENERATE_RATIO = 1.0
AIM_ROWS_PER_SECOND = 1_000_000
AIM_PER_CORE = 2.0
GENERATE_CPU = """
import sys, time, pushgen
users, months = int(sys.argv[1]), int(sys.argv[2])
pushgen.generate(users=users, months=months)  # kernels loaded, caches warm
began = time.process_time()
pushgen.generate(users=users, months=months)
print(pushgen.__version__, pushgen.__file__, time.process_time() - began)
"""
REFERENCE = Path(__file__).with_name("bench_generate_reference.json")


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, object]:
    """The shortest wall time of ``repeat`` calls, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        began = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - began)
    return best, result


def best_cpu_of(repeat: int, run: Callable[[], object]) -> tuple[float, float, object]:
    """Like ``best_of``, also the CPU seconds of this process during the fastest call."""
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        result = run()
        wall = time.perf_counter() - began
        if wall < best:
            best, cpu = wall, time.process_time() - began_cpu
    return best, cpu, result


def run_child(command: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS in bytes and CPU seconds of one child process (via wait4)."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if child.stderr:
        child.stderr.close()
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({child.returncode}): {error.strip()}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return seconds, usage.ru_maxrss * scale, usage.ru_utime + usage.ru_stime


def generate_cpu_in(python: str, users: int, months: int, pythonpath: str | None) -> tuple[str, float]:
    """(where pushgen came from, CPU seconds of one warm ``generate``) in a fresh ``python``."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryDirectory() as elsewhere:  # not the checkout's pushgen by accident
        out = subprocess.run([python, "-c", GENERATE_CPU, str(users), str(months)], cwd=elsewhere,
                             env=env, capture_output=True, text=True, check=True).stdout.split()
    return f"pushgen {out[0]} ({out[1]})", float(out[2])


def per_core(baseline: str, users: int, months: int, repeat: int) -> tuple[dict, dict]:
    """The best CPU seconds of ``generate`` for this pushgen and the baseline's, taken in turn."""
    here = str(Path(pushgen.__file__).resolve().parents[1])
    best = {"this": float("inf"), "baseline": float("inf")}
    names = {}
    for _ in range(repeat):
        for label, python, path in (("baseline", baseline, None), ("this", sys.executable, here)):
            names[label], seconds = generate_cpu_in(python, users, months, path)
            best[label] = min(best[label], seconds)
    return best, names


def table_bytes(tables: dict[str, pa.Table]) -> int:
    return sum(t.nbytes for t in tables.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best counts)")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also compare generate's CPU per core with the pushgen of this interpreter")
    args = parser.parse_args(argv)
    if min(args.users, args.months, args.repeat) < 1:
        parser.error("--users, --months and --repeat must be at least 1")

    # (a) in-process generation
    generate_seconds, generate_cpu, dataset = best_cpu_of(
        args.repeat, lambda: pushgen.generate(users=args.users, months=args.months))
    rows = dataset.notifications_arrow.num_rows
    rows_per_second = rows / generate_seconds

    with tempfile.TemporaryDirectory(prefix="pushgen-bench-") as tmp:
        work = Path(tmp)

        # (b, c) end to end, peak memory of the child
        make = [*pushgen_command(), "make", "--users", str(args.users), "--months",
                str(args.months), "--out", str(work / "made")]
        # (d) the floor: plain Parquet writes of the same tables
        tables = {
            "notifications": dataset.notifications_arrow,
            "truth_rows": dataset.truth_rows_arrow,
            "users": dataset.users_arrow,
        }

        def write_plain(names: tuple[str, ...], pushgens: bool = False) -> Callable[[], None]:
            def run() -> None:
                for name in names:
                    options = parquet_options(tables[name].schema) if pushgens else {}
                    pq.write_table(tables[name], work / f"{name}.parquet", **options)
            return run

        # the end-to-end ratio's three parts are taken in turn, so that they share the machine's load
        runs, zstd_runs, startups = [], [], []
        for _ in range(args.repeat):
            shutil.rmtree(work / "made", ignore_errors=True)  # a new folder each time, as the aim's command
            runs.append(run_child(make))
            zstd_runs.append(best_cpu_of(1, write_plain(tuple(tables), pushgens=True))[:2])
            startups.append(run_child([sys.executable, "-c", "import pushgen"]))  # (e)
        make_seconds, _, make_cpu = min(runs)
        peak_rss = max(r for _, r, _ in runs)
        made_bytes = sum(p.stat().st_size for p in (work / "made").rglob("*") if p.is_file())
        made_fingerprints = json.loads((work / "made" / "manifest.json").read_text())["fingerprints"]
        zstd_all, zstd_cpu = min(zstd_runs)
        startup, _, startup_cpu = min(startups)
        floor_notifications, _ = best_of(args.repeat, write_plain(("notifications",)))
        floor_all, _ = best_of(args.repeat, write_plain(tuple(tables)))
        bare, _ = best_of(args.repeat, lambda: run_child([sys.executable, "-c", "pass"]))

    ratio = make_seconds / (zstd_all + startup)
    ratio_plain = make_seconds / (floor_all + startup)
    generate_ratio = generate_seconds / zstd_all
    # CPU seconds: what the work costs whatever else the machine runs
    generate_cpu_ratio = generate_cpu / zstd_cpu
    cpu_ratio = make_cpu / (zstd_cpu + startup_cpu)
    mib = 1 << 20

    def line(label: str, value: str, note: str = "") -> str:
        return f"  {label:<44}{value:>14}  {note}".rstrip()

    def verdict(ok: bool) -> str:
        return "meets the aim" if ok else "misses the aim"

    print(f"pushgen {pushgen.__version__} bench: {args.users} users x {args.months} months, "
          f"best of {args.repeat}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, pyarrow {pa.__version__}, "
          f"{os.cpu_count()} cpus, {platform.machine()}")
    print()
    print("(a) in-process pushgen.generate")
    print(line("rows", f"{rows:,}"))
    print(line("wall seconds", f"{generate_seconds:.3f}", f"CPU {generate_cpu:.3f} s"))
    print(line("rows per second", f"{rows_per_second:,.0f}",
               f"aim >= {AIM_ROWS_PER_SECOND:,}: {verdict(rows_per_second >= AIM_ROWS_PER_SECOND)}"))
    print()
    print("(b) end to end: " + " ".join(Path(make[0]).name if i == 0 else a
                                        for i, a in enumerate(make)).replace(str(work), "TMP"))
    print(line("wall seconds", f"{make_seconds:.3f}", f"CPU {make_cpu:.3f} s; all runs: "
               + ", ".join(f"{s:.2f}" for s, _, _ in runs)))
    print(line("folder size (MiB)", f"{made_bytes / mib:.1f}"))
    print()
    print("(c) peak memory of the make process")
    print(line("max RSS (MiB)", f"{peak_rss / mib:.0f}"))
    print(line("in-memory Arrow tables (MiB)", f"{table_bytes(tables) / mib:.0f}",
               "notifications + truth_rows + users"))
    print()
    print("(d) floor: plain pyarrow.parquet.write_table (default options)")
    print(line("notifications seconds", f"{floor_notifications:.3f}"))
    print(line("notifications + truth_rows + users seconds", f"{floor_all:.3f}"))
    print(line("same three with pushgen's options", f"{zstd_all:.3f}",
               f"CPU {zstd_cpu:.3f} s; pushgen.data.dataset.parquet_options"))
    print()
    print("(e) interpreter start-up")
    print(line('python -c "import pushgen" seconds', f"{startup:.3f}", f"CPU {startup_cpu:.3f} s"))
    print(line('python -c "pass" seconds', f"{bare:.3f}"))
    print()
    print("(f) against the aims")
    print(line("generate / write with pushgen's options", f"{generate_ratio:.2f}x",
               f"aim <= {AIM_GENERATE_RATIO:.0f}x: {verdict(generate_ratio <= AIM_GENERATE_RATIO)}"))
    print(line("end to end / (that write + start-up)", f"{ratio:.2f}x",
               f"aim <= {AIM_RATIO}x: {verdict(ratio <= AIM_RATIO)}"))
    print(line("  with the plain-options floor", f"{ratio_plain:.2f}x"))
    print(line("  CPU: generate / that write", f"{generate_cpu_ratio:.2f}x",
               "CPU seconds hold on a loaded machine, where wall seconds do not"))
    print(line("  CPU: end to end / (that write + start-up)", f"{cpu_ratio:.2f}x"))
    print(line("rows per second (in-process)", f"{rows_per_second:,.0f}",
               f"aim >= {AIM_ROWS_PER_SECOND:,}: {verdict(rows_per_second >= AIM_ROWS_PER_SECOND)}"))
    print()
    print("(g) content against pushgen's earlier output for the same recipe")
    reference = json.loads(REFERENCE.read_text())
    if reference["recipe"] != {"users": args.users, "months": args.months, "seed": 0}:
        print(f"  no reference for {args.users} users x {args.months} months (it holds "
              f"{reference['recipe']['users']} x {reference['recipe']['months']})")
        return 0
    for name, expected in reference["fingerprints"].items():
        same = made_fingerprints.get(name) == expected
        print(line(f"{name} fingerprint", made_fingerprints.get(name, "missing")[:12],
                   f"{'the same as' if same else 'DIFFERS from'} pushgen {reference['pushgen_version']}'s"))
    if args.baseline:
        best, names = per_core(args.baseline, args.users, args.months, args.repeat)
        speedup = best["baseline"] / best["this"]
        print()
        print(f"(h) per core: CPU seconds of one warm generate, fresh processes in turn, "
              f"best of {args.repeat}")
        print(line("this", f"{best['this']:.3f}", names["this"]))
        print(line("baseline", f"{best['baseline']:.3f}", names["baseline"]))
        print(line("baseline / this", f"{speedup:.2f}x",
                   f"aim >= {AIM_PER_CORE:g}x: {verdict(speedup >= AIM_PER_CORE)}"))
    return 0 if made_fingerprints == reference["fingerprints"] else 1


if __name__ == "__main__":
    sys.exit(main())
