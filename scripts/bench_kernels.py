"""How much do the model's compiled kernels save? Each against the plain numpy code it stands for.

    (a) every kernel's calls during ``pushgen.generate(users, months)``, recorded with their
        real inputs and replayed: seconds of the kernel and of its numpy reference
        (``tests/kernel_references.py``) over the same calls, best of ``--repeat``, and the ratio
    (b) the first run's compile cost: ``generate(1 user, 1 month)`` in a fresh process with an
        empty ``NUMBA_CACHE_DIR`` (compiles and caches every kernel), then again with that cache
        filled, then the same run's in-process time once compiled

Usage: python scripts/bench_kernels.py [--users 20] [--months 6] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import kernel_references as reference

import pushgen
from pushgen.model import (
    arrivals_kernel,
    content_kernel,
    device_kernel,
    engagement_kernel,
    exposure_kernel,
    features_kernel,
    nodes_kernel,
    regime_kernel,
    routine_kernel,
    sampling_kernel,
    seeding_kernel,
    timings_kernel,
)
from pushgen.model.compiled import Kernel

REFERENCES: dict[str, tuple[Kernel, Callable[..., object]]] = {
    "categorical draws (categorical_codes)": (sampling_kernel.categorical_codes, reference.categorical_codes),
    "runs of the routine (state_runs)": (sampling_kernel.state_runs, reference.state_runs),
    "sleep thinning (thinned_slots)": (arrivals_kernel.thinned_slots, reference.thinned_slots),
    "apps' daily rhythm (rhythm_exponents)": (arrivals_kernel.rhythm_exponents, reference.rhythm_exponents),
    "apps' daily rhythm (rhythm_sums)": (arrivals_kernel.rhythm_sums, reference.rhythm_sums),
    "conversations and alarms (all_posts)": (arrivals_kernel.all_posts, reference.all_posts),
    "arrivals in time order (time_order)": (arrivals_kernel.time_order, reference.time_order),
    "channels (post_channels)": (content_kernel.post_channels, reference.post_channels),
    "triggers at the posts (trigger_lasts)": (nodes_kernel.trigger_lasts, reference.trigger_lasts),
    "follow-ups (thread_values)": (content_kernel.thread_values, reference.thread_values),
    "conversation updates (count_updates)": (content_kernel.count_updates, reference.count_updates),
    "updates levels (chosen_updates)": (content_kernel.chosen_updates, reference.chosen_updates),
    "routine state (slot_states)": (routine_kernel.slot_states, reference.slot_states),
    "place (slot_places)": (routine_kernel.slot_places, reference.slot_places),
    "timing branches (branch_exponents)": (timings_kernel.branch_exponents, reference.branch_exponents),
    "seen time (seen_seconds)": (timings_kernel.seen_seconds, reference.seen_seconds),
    "evening dip (evening_exponents)": (timings_kernel.evening_exponents, reference.evening_exponents),
    "time to wake-up (seconds_to_wake)": (timings_kernel.seconds_to_wake, reference.seconds_to_wake),
    "context at the posts (context_codes)": (features_kernel.context_codes, reference.context_codes),
    "logged exposure (logged_decayed_sums)": (exposure_kernel.logged_decayed_sums,
                                              reference.logged_decayed_sums),
    "battery (charge_runs)": (device_kernel.charge_runs, reference.charge_runs),
    "battery drain (spending)": (device_kernel.spending, reference.spending),
    "battery per slot (slot_levels)": (device_kernel.slot_levels, reference.slot_levels),
    "ringer per slot (slot_ringer)": (device_kernel.slot_ringer, reference.slot_ringer),
    "daily regime (markov_chain)": (regime_kernel.markov_chain, reference.markov_chain),
    "mood level (autoregression)": (engagement_kernel.autoregression, reference.autoregression),
    "row state (row_states)": (engagement_kernel.row_states, reference.row_states),
    "row log-odds (row_logits)": (engagement_kernel.row_logits, reference.row_logits),
    "P(open) log-odds (notification_logits)": (engagement_kernel.notification_logits,
                                               reference.notification_logits),
    "state curves (state_exponents)": (engagement_kernel.state_exponents, reference.state_exponents),
    "stream seeds (sequence_states)": (seeding_kernel.sequence_states, reference.sequence_states),
}
COLD_RUN = "import pushgen; pushgen.generate(users=1, months=1, seed=1)"


def recorded_calls(users: int, months: int) -> dict[str, list[tuple]]:
    """Each kernel's argument tuples during one ``generate``."""
    calls: dict[str, list[tuple]] = {name: [] for name in REFERENCES}
    for name, (kernel, _) in REFERENCES.items():
        compiled = kernel.compiled()

        def record(*args: object, _compiled: Callable = compiled, _name: str = name) -> object:
            calls[_name].append(args)
            return _compiled(*args)

        kernel._compiled = record
    try:
        pushgen.generate(users=users, months=months, seed=7)
    finally:
        for kernel, _ in REFERENCES.values():
            kernel._compiled = None
    return calls


def best_seconds(repeat: int, function: Callable[..., object], calls: list[tuple]) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        for args in calls:
            function(*args)
        best = min(best, time.perf_counter() - began)
    return best


def child_seconds(code: str, cache: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c code`` with the kernel cache at ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    if min(args.users, args.months, args.repeat) < 1:
        parser.error("--users, --months and --repeat must be at least 1")
    load = f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "load unknown"
    print(f"pushgen {pushgen.__version__} kernel bench: the kernels' calls in generate({args.users} users, "
          f"{args.months} months), best of {args.repeat}; {os.cpu_count()} cpus, {load}")
    calls = recorded_calls(args.users, args.months)
    print(f"(a) {'kernel':<38}{'calls':>7}{'kernel ms':>12}{'numpy ms':>12}{'numpy/kernel':>14}")
    kernel_total = numpy_total = 0.0
    for name, (kernel, numpy_version) in REFERENCES.items():
        compiled = best_seconds(args.repeat, kernel, calls[name])
        plain = best_seconds(args.repeat, numpy_version, calls[name])
        kernel_total, numpy_total = kernel_total + compiled, numpy_total + plain
        print(f"    {name:<38}{len(calls[name]):>7}{compiled * 1e3:>12.1f}{plain * 1e3:>12.1f}"
              f"{plain / compiled:>13.1f}x")
    print(f"    {'all kernels':<38}{'':>7}{kernel_total * 1e3:>12.1f}{numpy_total * 1e3:>12.1f}"
          f"{numpy_total / kernel_total:>13.1f}x")
    with tempfile.TemporaryDirectory(prefix="pushgen-numba-") as tmp:
        cold = child_seconds(COLD_RUN, Path(tmp))
        warm = child_seconds(COLD_RUN, Path(tmp))
    began = time.perf_counter()
    pushgen.generate(users=1, months=1, seed=1)
    compiled_run = time.perf_counter() - began
    print("(b) generate(1 user, 1 month) in a fresh process, with the interpreter's start-up")
    print(f"    {'empty kernel cache (compiles)':<38}{cold[0]:>10.2f} s wall{cold[1]:>8.2f} s CPU")
    print(f"    {'filled kernel cache':<38}{warm[0]:>10.2f} s wall{warm[1]:>8.2f} s CPU")
    print(f"    compile cost {cold[0] - warm[0]:.2f} s wall, {cold[1] - warm[1]:.2f} s CPU: once per install "
          "and machine")
    print(f"    {'in this process, kernels loaded':<38}{compiled_run:>10.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
