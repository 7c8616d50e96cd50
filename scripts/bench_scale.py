"""How does `pushgen make` scale with processes, and how much memory do all its processes take?

    (a) ``pushgen make --users U --months M`` with --jobs 1, --jobs 2 and --engine dask --jobs 2
        (a local Dask cluster): wall time, rows per second, CPU seconds, peak memory
    (b) the speed-up of --jobs 2 over --jobs 1 (aim: at least 1.7x), and the CPU it costs
    (c) the three outputs' manifest fingerprints, which must be identical
    (d) ``--users BIG_USERS --months BIG_MONTHS --jobs 2``: rows, wall time, folder size and
        the memory of all its processes together (aim: under 1 GiB); the folder is deleted

With ``--jobs N`` the make process simulates too, beside N - 1 worker processes.

CPU seconds come from ``os.wait4``: user + system time of the make process and of every
descendant it reaped (its workers), summed by the kernel. Memory of all processes together is
measured two ways, from the process tree sampled with psutil every 0.1 s:

- the peak of the sum of RSS across the tree at one instant (and of PSS, which shares common
  pages out fairly); a peak between two samples can be missed, so this is a lower bound;
- the sum of every process's own peak RSS (``VmHWM`` on Linux, tracked by the kernel, so no
  peak is missed; the sampled peak elsewhere); the processes need not peak at the same instant,
  so this is an upper bound of the peak of the sum. The 1 GiB aim is judged on it.

``ru_maxrss`` from ``os.wait4`` is only a cross-check: Linux folds together the ru_maxrss of the
child and of the descendants it reaped as a maximum (the largest single process), never a sum,
and it comes in KiB (bytes on macOS). Processes that outlive the make process (multiprocessing's
resource tracker) are counted in the sums while they are seen.

Needs the dask extra (pip install ".[dask]" in the checkout), which brings psutil.

Usage: python scripts/bench_scale.py [--users 200] [--months 6] [--big-users 5000]
       [--big-months 12] [--skip-big | --big-only] [--repeat 1] [--baseline PYTHON]

``--baseline PYTHON`` also runs --jobs 1 and --jobs 2 with the pushgen installed for another
interpreter (e.g. a virtual environment holding an earlier commit), in turn with the others,
so that before and after are measured in the same run under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from benchtools import pushgen_command

import pushgen

SAMPLE_SECONDS = 0.1
AIM_BIG_BYTES = 1 << 30
AIM_SPEEDUP = 1.7
MIB = 1 << 20
KIB = 1 << 10


def own_peak_rss(pid: int) -> int | None:
    """A process's own peak RSS as the kernel tracks it (Linux ``VmHWM``), in bytes."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for text in status:
                if text.startswith("VmHWM:"):
                    return int(text.split()[1]) * KIB
    except (OSError, ValueError, IndexError):
        pass
    return None


@dataclass
class TreeSampler:
    """Samples the memory of a process and all its descendants until ``stop``."""

    pid: int
    interval: float = SAMPLE_SECONDS
    rss_sum_peak: int = 0
    pss_sum_peak: int = 0
    peaks: dict[int, int] = field(default_factory=dict)  # sampled peak RSS, or the kernel's
    samples: int = 0
    cpu: dict[int, float] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    _seen: set[int] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> TreeSampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    @property
    def main_peak(self) -> int:
        return self.peaks.get(self.pid, 0)

    @property
    def worker_peak(self) -> int:
        """The largest descendant's peak (multiprocessing's resource tracker is not a worker)."""
        return max((rss for pid, rss in self.peaks.items()
                    if pid != self.pid and self.names.get(pid) != "resource_tracker"), default=0)

    @property
    def peaks_sum(self) -> int:
        """The sum of every process's own peak: an upper bound of the tree's peak at one instant."""
        return sum(self.peaks.values())

    @property
    def processes(self) -> int:
        return len(self.peaks)

    def _run(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self._stop.is_set():
            try:
                tree = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                tree = []
            rss_sum = pss_sum = 0
            for process in tree:
                try:
                    memory = process.memory_full_info()
                    times = process.cpu_times()
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
                if process.pid not in self._seen:
                    self._seen.add(process.pid)
                    self.names[process.pid] = describe(process)
                self.cpu[process.pid] = times.user + times.system
                rss_sum += memory.rss
                pss_sum += getattr(memory, "pss", memory.rss)
                own = own_peak_rss(process.pid) or 0
                self.peaks[process.pid] = max(self.peaks.get(process.pid, 0), memory.rss, own)
            self.rss_sum_peak = max(self.rss_sum_peak, rss_sum)
            self.pss_sum_peak = max(self.pss_sum_peak, pss_sum)
            self.samples += 1
            self._stop.wait(self.interval)


def describe(process: psutil.Process) -> str:
    """A short name for a process: its multiprocessing role, or its program."""
    try:
        words = process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "?"
    text = " ".join(words)
    for role in ("forkserver", "resource_tracker", "spawn_main", "semaphore_tracker"):
        if role in text:
            return role
    return Path(words[0]).name if words else "?"


@dataclass
class Run:
    label: str
    seconds: float
    cpu: float  # user + system seconds of the make process and the descendants it reaped
    machine_busy: float
    wait4_maxrss: int
    sampler: TreeSampler
    manifest: dict
    folder_bytes: int

    @property
    def others_cpu(self) -> float:
        """CPU seconds the rest of the machine used meanwhile: other work skews the timings."""
        return max(self.machine_busy - self.cpu, 0.0)

    @property
    def rows(self) -> int:
        return self.manifest["rows"]["notifications"]

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def baseline_command(python: str) -> list[str]:
    """The ``pushgen`` entry point beside another interpreter (another pushgen installed there)."""
    beside = Path(python).parent / "pushgen"
    return [str(beside)] if beside.is_file() else [python, "-m", "pushgen"]


def make(label: str, users: int, months: int, extra: list[str], work: Path,
         program: list[str] | None = None) -> Run:
    """Run ``pushgen make`` once in a child process, sampling its process tree."""
    out = work / label.replace(" ", "_")
    command = [*(program or pushgen_command()), "make", "--users", str(users), "--months", str(months),
               "--out", str(out), "--force", *extra]
    env = {**os.environ, "TMPDIR": str(work)}  # Dask's scratch space lands in work too
    log = work / f"{out.name}.stderr"
    with open(log, "wb") as stderr:
        began, busy = time.perf_counter(), busy_seconds()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=work, env=env)
        sampler = TreeSampler(child.pid).start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        except BaseException:
            child.kill()
            child.wait()
            raise
        finally:
            seconds = time.perf_counter() - began
            busy = busy_seconds() - busy
            sampler.stop()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        error = log.read_text(errors="replace").strip()[-2000:]
        raise RuntimeError(f"{' '.join(command)} failed ({child.returncode}): {error}")
    scale = 1 if sys.platform == "darwin" else KIB  # ru_maxrss: bytes on macOS, KiB on Linux
    manifest = json.loads((out / "manifest.json").read_text())
    return Run(label, seconds, usage.ru_utime + usage.ru_stime, busy, usage.ru_maxrss * scale,
               sampler, manifest, folder_bytes(out))


def best(runs: list[Run]) -> Run:
    """The fastest run."""
    return min(runs, key=lambda r: r.seconds)


def mib(value: int) -> str:
    return f"{value / MIB:,.0f}"


def memory_table(runs: list[Run]) -> list[str]:
    header = ("run", "wall s", "rows/s", "CPU s", "others CPU s", "main MiB", "worker MiB",
              "tree RSS MiB", "sum of peaks MiB", "tree PSS MiB", "procs")
    rows = [header]
    for run in runs:
        s = run.sampler
        rows.append((run.label, f"{run.seconds:.2f}", f"{run.rows_per_second:,.0f}",
                     f"{run.cpu:.1f}", f"{run.others_cpu:.1f}", mib(s.main_peak),
                     mib(s.worker_peak), mib(s.rss_sum_peak), mib(s.peaks_sum),
                     mib(s.pss_sum_peak), str(s.processes)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return ["  " + "  ".join(value.ljust(w) if i == 0 else value.rjust(w)
                             for i, (value, w) in enumerate(zip(row, widths, strict=True)))
            for row in rows]


def cross_check(run: Run) -> str:
    """wait4's ru_maxrss (the largest process it covers) beside the largest per-process peak."""
    largest = max(run.sampler.peaks.values(), default=0)
    return (f"wait4 ru_maxrss {mib(run.wait4_maxrss)} MiB (a maximum, not a sum); "
            f"largest sampled process peak {mib(largest)} MiB")


def load() -> str:
    """The 1-minute load average: other work on the machine skews the timings."""
    return f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "load unknown"


def line(label: str, value: str, note: str = "") -> str:
    return f"  {label:<40}{value:>16}  {note}".rstrip()


def verdict(ok: bool) -> str:
    return "meets the aim" if ok else "misses the aim"


def compare(args: argparse.Namespace) -> None:
    """(a) to (c): the three settings, each run ``repeat`` times in turn; the fastest counts."""
    ours = pushgen_command()
    settings = [("jobs 1", ["--jobs", "1"], ours), ("jobs 2", ["--jobs", "2"], ours),
                ("dask jobs 2", ["--engine", "dask", "--jobs", "2"], ours)]
    if args.baseline:
        base = baseline_command(args.baseline)
        settings += [("base jobs 1", ["--jobs", "1"], base), ("base jobs 2", ["--jobs", "2"], base)]
    tried: dict[str, list[Run]] = {label: [] for label, _, _ in settings}
    with tempfile.TemporaryDirectory(prefix="pushgen-scale-") as tmp:
        for _ in range(args.repeat):  # in turn: a busy spell of the machine hits every setting
            for label, extra, program in settings:
                tried[label].append(make(label, args.users, args.months, extra, Path(tmp), program))
    runs = [best(tried[label]) for label, _, _ in settings]
    one, two, dask = runs[:3]

    print(f"(a) pushgen make --users {args.users} --months {args.months} --out TMP  "
          f"({one.rows:,} rows, {one.folder_bytes / MIB:.1f} MiB on disk)")
    for text in memory_table(runs):
        print(text)
    print("  CPU: user+sys of the make process and its reaped workers (wait4); others: the rest")
    print("  of the machine meanwhile. main/worker: peak RSS of the make process / of its largest")
    print("  worker. tree RSS/PSS: peak sum at one sampled instant; sum of peaks: every process's")
    print("  own peak added up")
    if args.repeat > 1:
        walls = {label: ", ".join(f"{r.seconds:.1f}" for r in tried[label]) for label in tried}
        print("  every run's wall seconds: " + "; ".join(f"{k}: {v}" for k, v in walls.items()))
    print()

    speedup = one.seconds / two.seconds
    print("(b) speed-up of --jobs 2 over --jobs 1")
    print(line("jobs 2 over jobs 1", f"{speedup:.2f}x",
               f"aim >= {AIM_SPEEDUP}x: {verdict(speedup >= AIM_SPEEDUP)}"))
    print(line("dask jobs 2 over jobs 1", f"{one.seconds / dask.seconds:.2f}x"))
    print(line("CPU of jobs 2 over jobs 1", f"{two.cpu / one.cpu:.2f}x",
               "the cost of starting a worker and of sending its parts"))
    if args.baseline:
        base_one, base_two = runs[3:]
        print(line("base jobs 2 over base jobs 1", f"{base_one.seconds / base_two.seconds:.2f}x",
                   f"the baseline's own speed-up ({args.baseline})"))
        for run in (one, two):
            print(line(f"{run.label} over base jobs 1", f"{base_one.seconds / run.seconds:.2f}x"))
        print(line("jobs 2 over base jobs 2", f"{base_two.seconds / two.seconds:.2f}x"))
    busiest = max(run.others_cpu / run.seconds for run in runs)
    if busiest > 0.2:
        print(f"  note: other work used up to {busiest:.1f} cpus meanwhile; wall times are skewed")
    print()

    print("(c) manifest fingerprints")
    reference = one.manifest["fingerprints"]
    same = all(run.manifest["fingerprints"] == reference for run in runs)
    files_same = all(run.manifest["files"] == one.manifest["files"] for run in runs)
    for name, digest in reference.items():
        print(line(name, digest[:16]))
    print(line(f"identical across the {len(runs)} runs", "yes" if same else "NO",
               "" if same else "; ".join(f"{r.label}: {r.manifest['fingerprints']}" for r in runs)))
    print(line("every file's sha256 identical", "yes" if files_same else "NO"))
    print(flush=True)


def big(args: argparse.Namespace) -> None:
    """(d): the big --jobs 2 run and the memory of all its processes together."""
    with tempfile.TemporaryDirectory(prefix="pushgen-scale-big-") as tmp:
        run = make("big jobs 2", args.big_users, args.big_months, ["--jobs", "2"], Path(tmp))
    s = run.sampler
    print(f"(d) pushgen make --users {args.big_users} --months {args.big_months} --jobs 2 "
          f"--out TMP (deleted afterwards; {load()} at the end)")
    print(line("rows", f"{run.rows:,}"))
    print(line("wall seconds", f"{run.seconds:.1f}",
               f"CPU {run.cpu:.1f} s (make process {s.cpu.get(s.pid, 0.0):.1f} s); "
               f"others {run.others_cpu:.1f} s"))
    print(line("rows per second", f"{run.rows_per_second:,.0f}"))
    print(line("folder size (MiB)", mib(run.folder_bytes), f"{len(run.manifest['files'])} files"))
    print(line("make process peak RSS (MiB)", mib(s.main_peak)))
    print(line("largest worker peak RSS (MiB)", mib(s.worker_peak)))
    print(line("sum of every process's peak (MiB)", mib(s.peaks_sum),
               f"{s.processes} processes; an upper bound; aim < {mib(AIM_BIG_BYTES)}: "
               f"{verdict(s.peaks_sum < AIM_BIG_BYTES)}"))
    print(line("tree peak RSS sum, sampled (MiB)", mib(s.rss_sum_peak),
               f"a lower bound ({s.samples} samples)"))
    print(line("tree peak PSS sum, sampled (MiB)", mib(s.pss_sum_peak), "shared pages shared out"))
    print(line("cross-check", "", cross_check(run)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--big-users", type=int, default=5000)
    parser.add_argument("--big-months", type=int, default=12)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--skip-big", action="store_true", help="skip the big --jobs 2 run")
    which.add_argument("--big-only", action="store_true", help="only the big --jobs 2 run")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting (fastest counts)")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also run --jobs 1 and 2 with the pushgen installed for this interpreter")
    args = parser.parse_args(argv)
    if min(args.users, args.months, args.big_users, args.big_months, args.repeat) < 1:
        parser.error("--users, --months, --big-users, --big-months and --repeat must be at least 1")

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    compared = (f"{args.users} users x {args.months} months"
                + (f", best of {args.repeat}" if args.repeat > 1 else ""))
    print(f"pushgen {pushgen.__version__} scale bench: "
          f"{'the big run only' if args.big_only else compared}")
    print(f"python {platform.python_version()}, {cpus} usable cpus, {platform.machine()}, "
          f"{psutil.virtual_memory().total / (1 << 30):.1f} GiB RAM; "
          f"tree sampled every {SAMPLE_SECONDS} s; {load()}")
    print(flush=True)
    if not args.big_only:
        compare(args)
    if not args.skip_big:
        big(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
