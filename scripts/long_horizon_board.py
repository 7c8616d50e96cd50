"""The long-horizon task's leaderboard section (``pushgen.benchmark.long_horizon``), from one command.

    python scripts/long_horizon_board.py --split pushgen-v4 --write   # docs/leaderboard.md's section
    python scripts/long_horizon_board.py --split pushgen-mini-v4 --replicates 2

Tunes the heuristics on the training users (task 1's test months), plays every baseline of
``pushgen.baselines.long_horizon`` on the held-out users (task 2's cold-start users), R paired
replicates each, and prints the table; ``--write`` puts it in docs/leaderboard.md between the
section's markers, with the time it took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pushgen.benchmark.long_horizon import Options, markdown, run_board

LEADERBOARD = Path(__file__).resolve().parents[1] / "docs" / "leaderboard.md"
BEGIN = "<!-- long-horizon board: scripts/long_horizon_board.py writes from here -->"
END = "<!-- long-horizon board: to here -->"


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--replicates", type=int, default=Options.replicates)
    parser.add_argument("--tune-replicates", type=int, default=Options.tune_replicates)
    parser.add_argument("--horizon-days", type=float, default=Options.horizon_days)
    parser.add_argument("--send-cost", type=float, default=Options.send_cost)
    parser.add_argument("--write", action="store_true", help="replace the section of docs/leaderboard.md")
    args = parser.parse_args(argv)
    if args.replicates < 1 or args.tune_replicates < 1:
        parser.exit(2, "long_horizon_board.py: --replicates and --tune-replicates must be >= 1\n")
    started = time.perf_counter()
    options = Options(horizon_days=args.horizon_days, send_cost=args.send_cost, replicates=args.replicates,
                      tune_replicates=args.tune_replicates)
    try:
        text = markdown(run_board(args.split, options))
    except (ValueError, OSError) as error:
        parser.exit(2, f"long_horizon_board.py: {error}\n")
    seconds = time.perf_counter() - started
    print(text, end="")
    print(f"({seconds:.0f} s)")
    if args.write:
        page = LEADERBOARD.read_text()
        head, rest = page.split(BEGIN)
        _, tail = rest.split(END)
        command = f"python scripts/long_horizon_board.py --split {args.split} --write"
        LEADERBOARD.write_text(f"{head}{BEGIN}\n`{command}` ({seconds:.0f} s on a shared 2-core machine):\n\n"
                               f"{text}{END}{tail}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
