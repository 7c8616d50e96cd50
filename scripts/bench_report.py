"""How long does the visual report take beyond the make itself?

    (a) wall time of ``pushgen make --users U --months M --out TMP``
    (b) wall time of ``pushgen make ... --report`` (the same data and its report.html)
    (c) wall time of ``pushgen report TMP --out report.html`` on the first folder
    (d) the report's cost beyond the make: (b) - (a), against the aim of under 10 s; and (c)

Each is the best of ``--repeat`` runs, measured in the same run so that a loaded machine slows
them alike; the sizes of the HTML files are printed too.

Usage: python scripts/bench_report.py [--users 50] [--months 6] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import pushgen_command

AIM_SECONDS = 10.0


def best_wall(repeat: int, command: list[str]) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - started)
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
        make = best_wall(args.repeat, [*pushgen, "make", *recipe, "--out", str(plain)])
        make_report = best_wall(args.repeat, [*pushgen, "make", *recipe, "--out", str(reported), "--report"])
        report = best_wall(args.repeat, [*pushgen, "report", str(plain), "--out", str(html), "--force"])
        beyond = make_report - make
        load = os.getloadavg()[0]
        print(f"{args.users} users x {args.months} months, best of {args.repeat}; "
              f"{os.cpu_count()} CPUs, load average {load:.1f} at the end")
        print(f"(a) pushgen make               {make:6.1f} s")
        print(f"(b) pushgen make --report      {make_report:6.1f} s")
        print(f"(c) pushgen report FOLDER      {report:6.1f} s")
        print(f"(d) report beyond the make     {beyond:6.1f} s  (aim: under {AIM_SECONDS:.0f} s: "
              f"{'holds' if beyond < AIM_SECONDS else 'MISSES'})")
        print(f"report.html {html.stat().st_size / 1e6:.2f} MB; "
              f"{reported.name}/report.html {(reported / 'report.html').stat().st_size / 1e6:.2f} MB")
    return 0 if beyond < AIM_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
