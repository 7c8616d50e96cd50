"""How long does the visual report take beyond the make itself?

    (a) wall time of ``pushgen make --users U --months M --out TMP``
    (b) wall time of ``pushgen make ... --report`` (the same data and its report.html)
    (c) wall time of ``pushgen report TMP --out report.html`` on the first folder
    (d) the report's cost beyond the make: (b) - (a), against the aim of under 10 s; and (c)

Each is the best of ``--repeat`` runs, measured in the same run so that a loaded machine slows
them alike, in wall seconds and in CPU seconds (user + system of the command's processes; on a
loaded machine the wall time grows with the load, the CPU time much less). The verdict is on the
wall time, and on the CPU time when the load average is above the CPU count. The sizes of the
HTML files are printed too.

Usage: python scripts/bench_report.py [--users 50] [--months 6] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import pushgen_command

AIM_SECONDS = 10.0


def best_run(repeat: int, command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the fastest of ``repeat`` runs of ``command``."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (wall, cpu))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    pushgen = pushgen_command()
    with tempfile.TemporaryDirectory() as tmp:
        plain, reported, html = Path(tmp) / "plain", Path(tmp) / "reported", Path(tmp) / "report.html"
        recipe = ["--users", str(args.users), "--months", str(args.months), "--force"]
        make = best_run(args.repeat, [*pushgen, "make", *recipe, "--out", str(plain)])
        make_report = best_run(args.repeat, [*pushgen, "make", *recipe, "--out", str(reported), "--report"])
        report = best_run(args.repeat, [*pushgen, "report", str(plain), "--out", str(html), "--force"])
        beyond = (make_report[0] - make[0], make_report[1] - make[1])
        load = os.getloadavg()[0]
        loaded = load > (os.cpu_count() or 1)
        print(f"{args.users} users x {args.months} months, best of {args.repeat}; "
              f"{os.cpu_count()} CPUs, load average {load:.1f} at the end{' (loaded)' if loaded else ''}")
        print("                                  wall s    CPU s")
        rows = (("(a) pushgen make", make), ("(b) pushgen make --report", make_report),
                ("(c) pushgen report FOLDER", report), ("(d) report beyond the make", beyond))
        for name, (wall, cpu) in rows:
            print(f"{name:30s} {wall:8.1f} {cpu:8.1f}")
        measure = beyond[1] if loaded else beyond[0]
        print(f"aim: the report under {AIM_SECONDS:.0f} s beyond the make, judged on "
              f"{'CPU' if loaded else 'wall'} time: {'holds' if measure < AIM_SECONDS else 'MISSES'}")
        print(f"report.html {html.stat().st_size / 1e6:.2f} MB; "
              f"{reported.name}/report.html {(reported / 'report.html').stat().st_size / 1e6:.2f} MB")
    return 0 if measure < AIM_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
