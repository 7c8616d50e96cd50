"""CPU time of each node of the DBN in ``pushgen.generate``, against another checkout's if given.

Each node's function is called again on the inputs it had for every user of
``generate(users, months, seed 0)`` (a copy of its random stream each time), best of
``--repeat``; then ``generate`` itself. With ``--baseline DIR`` (a checkout of another
pushgen, e.g. ``git worktree add /tmp/base main``), both checkouts are measured in turn, in
``--rounds`` alternating child processes (the best of all kept), and the table gives the ratio
baseline / this checkout per node, and whether the node's values are the same (every array
field the two versions share, bit for bit).

Usage: python scripts/bench_nodes.py [--users 50] [--months 6] [--repeat 3] [--baseline DIR] [--rounds 2]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parents[1]


def field_digests(value: Any) -> dict[str, str]:
    """A digest of each array in a node's value (its fields, keys or items), by name."""
    if hasattr(value, "__dataclass_fields__"):
        parts = {name: getattr(value, name) for name in value.__dataclass_fields__}
    elif isinstance(value, dict):
        parts = dict(value)
    elif isinstance(value, tuple):
        parts = {str(i): v for i, v in enumerate(value)}
    else:
        parts = {"": value}
    digests = {}
    for name, part in parts.items():
        array = np.ascontiguousarray(np.asarray(part))
        if array.dtype != object:
            described = f"{array.dtype}{array.shape}".encode() + array.tobytes()
            digests[name] = hashlib.sha256(described).hexdigest()[:16]
    return digests


def measure(users: int, months: int, repeat: int) -> dict[str, Any]:
    """Best CPU seconds of each node over its recorded calls, and of ``generate``."""
    import pushgen
    from pushgen.data.generator import make_recipe
    from pushgen.model import graph
    from pushgen.model.catalog import app_catalog
    from pushgen.model.seeding import stream

    recipe = make_recipe(users=users, months=months, seed=0)
    pushgen.generate(users=1, months=1)  # kernels loaded
    calls: dict[str, list[tuple]] = {node.name: [] for node in graph.NODES}
    digests: dict[str, list[dict[str, str]]] = {node.name: [] for node in graph.NODES}
    for user in recipe.user_ids:
        values: dict[str, Any] = {"user_id": user, "seed": recipe.seed, "grid": recipe.grid,
                                  "priors": recipe.priors, "catalog": app_catalog()}
        streams: dict[Any, np.random.Generator] = {}
        for node in graph.NODES:
            arguments = graph.node_arguments(node, values)
            if node.stream is not None:
                rng = streams.setdefault(node.stream, stream(recipe.seed, user, node.stream))
                arguments["rng"] = rng
                calls[node.name].append((node.function, {**arguments, "rng": copy.deepcopy(rng)}))
            else:
                calls[node.name].append((node.function, arguments))
            values[node.name] = node.function(**arguments)
            digests[node.name].append(field_digests(values[node.name]))
    best: dict[str, float] = {}
    for name, node_calls in calls.items():
        best[name] = float("inf")
        for _ in range(repeat):
            fresh = [(function, {k: copy.deepcopy(v) if k == "rng" else v for k, v in arguments.items()})
                     for function, arguments in node_calls]
            began = time.process_time()
            for function, arguments in fresh:
                function(**arguments)
            best[name] = min(best[name], time.process_time() - began)
    whole = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        pushgen.generate(users=users, months=months)
        whole = min(whole, time.process_time() - began)
    return {"seconds": best, "generate": whole, "digests": digests}


def child(checkout: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--users", str(args.users),
               "--months", str(args.months), "--repeat", str(args.repeat)]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def same_values(a: list[dict[str, str]], b: list[dict[str, str]]) -> bool:
    return all(x[k] == y[k] for x, y in zip(a, b, strict=True) for k in x.keys() & y.keys())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.users, args.months, args.repeat, args.rounds) < 1:
        parser.error("--users, --months, --repeat and --rounds must be at least 1")
    if args.baseline is not None and not (args.baseline / "pushgen" / "__init__.py").is_file():
        parser.error(f"--baseline {args.baseline}: no pushgen checkout there (pushgen/__init__.py)")
    if args.child:
        print(json.dumps(measure(args.users, args.months, args.repeat)))
        return 0
    checkouts = {"this": HERE, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    results: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):
        for label, checkout in checkouts.items():
            run = child(checkout, args)
            kept = results.setdefault(label, run)
            kept["seconds"] = {n: min(s, kept["seconds"].get(n, s)) for n, s in run["seconds"].items()}
            kept["generate"] = min(kept["generate"], run["generate"])
    load = f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "load unknown"
    print(f"CPU ms per node over generate({args.users} users, {args.months} months), best of "
          f"{args.repeat} x {args.rounds} rounds; {os.cpu_count()} cpus, {load}")
    this = results["this"]
    base = results.get("baseline")
    print(f"{'node':<16}{'this':>10}" + (f"{'baseline':>10}{'ratio':>8}  same values" if base else ""))
    for name, seconds in sorted(this["seconds"].items(), key=lambda item: -item[1]):
        line = f"{name:<16}{seconds * 1e3:>10.1f}"
        if base and name in base["seconds"]:
            before = base["seconds"][name]
            same = same_values(this["digests"][name], base["digests"][name])
            line += f"{before * 1e3:>10.1f}{before / max(seconds, 1e-9):>7.2f}x  {'yes' if same else 'NO'}"
        print(line)
    line = f"{'generate':<16}{this['generate'] * 1e3:>10.1f}"
    if base:
        line += f"{base['generate'] * 1e3:>10.1f}{base['generate'] / this['generate']:>7.2f}x"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
