"""How does `pushgen make` scale with worker processes, and how much memory does it take?

    (a) ``pushgen make --users U --months M`` with --jobs 1, --jobs 2 and --engine dask --jobs 2
        (a local Dask cluster): wall time, rows per second, CPU seconds, peak memory
    (b) the speed-up of 2 processes over 1 (aim: near-linear)
    (c) the three outputs' manifest fingerprints, which must be identical
    (d) ``--users BIG_USERS --months BIG_MONTHS --jobs 2``: rows, wall time, folder size and
        peak memory (aim: under 1 GB); the folder is deleted afterwards

Peak memory is measured two ways. ``os.wait4`` gives the child's ru_maxrss, which Linux
folds together with the ru_maxrss of every descendant reaped by its own parent: the
largest single process, never a sum. Worker processes are grandchildren (process pool,
Dask nanny), so the process tree is also sampled with psutil every 0.2 s: the main
process's peak RSS, the largest worker's, and the peak sum of RSS (and of PSS, which
shares common pages out fairly) across the whole tree at one instant. Descendants that
outlive their parent are orphaned, are reaped elsewhere and escape ru_maxrss; the
report counts them.

Needs the dask extra (pip install "pushgen[dask]"), which brings psutil.

Usage: python scripts/bench_scale.py [--users 200] [--months 6] [--big-users 5000]
       [--big-months 12] [--skip-big] [--repeat 1]
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

SAMPLE_SECONDS = 0.2
AIM_BIG_BYTES = 1 << 30
AIM_EFFICIENCY = 0.9
MIB = 1 << 20
KIB = 1 << 10
RSS_SLACK_BYTES = 8 * MIB  # 64 pages of 4 KiB for each of 32 threads


@dataclass
class TreeSampler:
    """Samples the RSS of a process and all its descendants until ``stop``."""

    pid: int
    interval: float = SAMPLE_SECONDS
    main_peak: int = 0
    rss_sum_peak: int = 0
    pss_sum_peak: int = 0
    peaks: dict[int, int] = field(default_factory=dict)
    samples: int = 0
    orphaned: set[int] = field(default_factory=set)
    parents: dict[int, int] = field(default_factory=dict)
    cpu: dict[int, float] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    _seen: dict[int, psutil.Process] = field(default_factory=dict)
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
        self._check_orphans(set())

    @property
    def worker_peak(self) -> int:
        return max((rss for pid, rss in self.peaks.items() if pid != self.pid), default=0)

    @property
    def tree_cpu(self) -> float:
        """User + system seconds of the whole tree, as of each process's last sample."""
        return sum(self.cpu.values())

    @property
    def processes(self) -> int:
        return len(self.peaks)

    def escaped(self) -> dict[int, int]:
        """Descendants below an orphaned process, with that orphan: their ru_maxrss went elsewhere."""
        below = {}
        for pid in self.peaks:
            parent = self.parents.get(pid)
            while parent is not None and parent != self.pid:
                if parent in self.orphaned:
                    below[pid] = parent
                    break
                parent = self.parents.get(parent)
        return below

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
                    self._seen[process.pid] = process
                    self.parents[process.pid] = process.ppid()
                    self.names[process.pid] = describe(process)
                self.cpu[process.pid] = times.user + times.system
                rss_sum += memory.rss
                pss_sum += getattr(memory, "pss", memory.rss)
                self.peaks[process.pid] = max(self.peaks.get(process.pid, 0), memory.rss)
                if process.pid == self.pid:
                    self.main_peak = max(self.main_peak, memory.rss)
            self.rss_sum_peak = max(self.rss_sum_peak, rss_sum)
            self.pss_sum_peak = max(self.pss_sum_peak, pss_sum)
            self.samples += 1
            self._check_orphans({p.pid for p in tree})
            self._stop.wait(self.interval)

    def _check_orphans(self, in_tree: set[int]) -> None:
        """Remember seen descendants alive outside the tree: they were not reaped by their parent."""
        for pid, process in self._seen.items():
            if pid == self.pid or pid in in_tree or pid in self.orphaned:
                continue
            try:
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    self.orphaned.add(pid)
            except psutil.NoSuchProcess:
                pass


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
    machine_busy: float
    wait4_maxrss: int
    sampler: TreeSampler
    manifest: dict
    folder_bytes: int

    @property
    def others_cpu(self) -> float:
        """CPU seconds the rest of the machine used meanwhile: other work skews the timings."""
        return max(self.machine_busy - self.sampler.tree_cpu, 0.0)

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


def make(label: str, users: int, months: int, extra: list[str], work: Path) -> Run:
    """Run ``pushgen make`` once in a child process, sampling its process tree."""
    out = work / label.replace(" ", "_")
    command = [*pushgen_command(), "make", "--users", str(users), "--months", str(months),
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
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    manifest = json.loads((out / "manifest.json").read_text())
    return Run(label, seconds, busy, usage.ru_maxrss * scale,
               sampler, manifest, folder_bytes(out))


def best(runs: list[Run]) -> Run:
    """The fastest run."""
    return min(runs, key=lambda r: r.seconds)


def mib(value: int) -> str:
    return f"{value / MIB:,.0f}"


def kib(value: int) -> str:
    return f"{value / KIB:,.0f}"


def rss_slack(maxrss: int) -> int:
    """How far a sampled RSS may lie above a ru_maxrss that covers it: ru_maxrss comes in whole
    KiB, and Linux folds each thread's cached RSS count (up to 64 pages) into the high-water
    mark only now and then, so a sample can run ahead of it by a few hundred KiB a thread."""
    return max(RSS_SLACK_BYTES, maxrss // 100)


def memory_table(runs: list[Run]) -> list[str]:
    header = ("run", "wall s", "rows/s", "CPU s", "others CPU s", "main MiB", "worker MiB",
              "tree RSS MiB", "tree PSS MiB", "wait4 MiB", "procs", "orphans")
    rows = [header]
    for run in runs:
        s = run.sampler
        rows.append((run.label, f"{run.seconds:.2f}", f"{run.rows_per_second:,.0f}",
                     f"{s.tree_cpu:.1f}", f"{run.others_cpu:.1f}", mib(s.main_peak),
                     mib(s.worker_peak), mib(s.rss_sum_peak), mib(s.pss_sum_peak),
                     mib(run.wait4_maxrss), str(s.processes), str(len(s.orphaned))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return ["  " + "  ".join(value.ljust(w) if i == 0 else value.rjust(w)
                             for i, (value, w) in enumerate(zip(row, widths, strict=True)))
            for row in rows]


def coverage(run: Run) -> str:
    """Whether wait4's ru_maxrss saw the workers, judged from the sampled process tree."""
    s = run.sampler
    escaped = s.escaped()
    orphans = ", ".join(sorted({s.names[pid] for pid in s.orphaned}))
    if escaped:
        reapers = ", ".join(sorted({s.names[pid] for pid in escaped.values()}))
        return (f"no: {len(escaped)} worker(s) (largest {mib(max(s.peaks[p] for p in escaped))} MiB) "
                f"were reaped by {reapers}, which outlived the make process")
    if s.worker_peak > run.wait4_maxrss + rss_slack(run.wait4_maxrss):
        return (f"no: a worker was sampled at {kib(s.worker_peak)} KiB, "
                f"above wait4's {kib(run.wait4_maxrss)} KiB by more than the counters' slack")
    if s.orphaned:
        return (f"yes: the workers were reaped by their parent; only {orphans} "
                f"({mib(max(s.peaks[p] for p in s.orphaned))} MiB) outlived the make process")
    return "yes: every descendant was reaped by its parent"


def load() -> str:
    """The 1-minute load average: other work on the machine skews the timings."""
    return f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "load unknown"


def line(label: str, value: str, note: str = "") -> str:
    return f"  {label:<40}{value:>16}  {note}".rstrip()


def verdict(ok: bool) -> str:
    return "meets the aim" if ok else "misses the aim"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--big-users", type=int, default=5000)
    parser.add_argument("--big-months", type=int, default=12)
    parser.add_argument("--skip-big", action="store_true", help="skip the big --jobs 2 run")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting (fastest counts)")
    args = parser.parse_args(argv)
    if min(args.users, args.months, args.big_users, args.big_months, args.repeat) < 1:
        parser.error("--users, --months, --big-users, --big-months and --repeat must be at least 1")

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"pushgen {pushgen.__version__} scale bench: {args.users} users x {args.months} months"
          + (f", best of {args.repeat}" if args.repeat > 1 else ""))
    print(f"python {platform.python_version()}, {cpus} usable cpus, {platform.machine()}, "
          f"{psutil.virtual_memory().total / (1 << 30):.1f} GiB RAM; "
          f"tree sampled every {SAMPLE_SECONDS} s; {load()}")
    print(flush=True)

    settings = [("jobs 1", ["--jobs", "1"]), ("jobs 2", ["--jobs", "2"]),
                ("dask jobs 2", ["--engine", "dask", "--jobs", "2"])]
    with tempfile.TemporaryDirectory(prefix="pushgen-scale-") as tmp:
        work = Path(tmp)
        runs = [best([make(label, args.users, args.months, extra, work)
                      for _ in range(args.repeat)]) for label, extra in settings]
    one, two, dask = runs

    print(f"(a) pushgen make --users {args.users} --months {args.months} --out TMP  "
          f"({one.rows:,} rows, {one.folder_bytes / MIB:.1f} MiB on disk)")
    for text in memory_table(runs):
        print(text)
    print("  CPU: user+sys of the whole tree; others: the rest of the machine meanwhile")
    print("  main/worker: peak RSS of the make process / of its largest descendant; tree: peak sum")
    print("  at one instant; wait4: ru_maxrss of the child and the descendants its tree reaped (a max)")
    for run in runs[1:]:
        print(line(f"wait4 covers the workers ({run.label})", "", coverage(run)))
    print()

    speedup = one.seconds / two.seconds
    efficiency = speedup / 2
    print("(b) speed-up of 2 processes over 1")
    print(line("jobs 2 over jobs 1", f"{speedup:.2f}x",
               f"{efficiency:.0%} of linear; aim >= {AIM_EFFICIENCY:.0%}: "
               f"{verdict(efficiency >= AIM_EFFICIENCY)}"))
    print(line("dask jobs 2 over jobs 1", f"{one.seconds / dask.seconds:.2f}x"))
    if cpus is not None and cpus < 3:
        print(f"  note: {cpus} cpus; with --jobs 2 the main process (writing, fingerprints) "
              "competes with 2 workers")
    print()

    print("(c) manifest fingerprints")
    reference = one.manifest["fingerprints"]
    same = all(run.manifest["fingerprints"] == reference for run in runs)
    for name, digest in reference.items():
        print(line(name, digest[:16]))
    print(line("identical across the three runs", "yes" if same else "NO",
               "" if same else "; ".join(f"{r.label}: {r.manifest['fingerprints']}" for r in runs)))
    print(flush=True)

    if not args.skip_big:
        with tempfile.TemporaryDirectory(prefix="pushgen-scale-big-") as tmp:
            big = make("big jobs 2", args.big_users, args.big_months, ["--jobs", "2"], Path(tmp))
        s = big.sampler
        print(f"(d) pushgen make --users {args.big_users} --months {args.big_months} --jobs 2 "
              f"--out TMP (deleted afterwards; {load()} at the end)")
        print(line("rows", f"{big.rows:,}"))
        print(line("wall seconds", f"{big.seconds:.1f}",
                   f"CPU {s.tree_cpu:.1f} s (main {s.cpu.get(big.sampler.pid, 0.0):.1f} s); "
                   f"others {big.others_cpu:.1f} s"))
        print(line("rows per second", f"{big.rows_per_second:,.0f}"))
        print(line("folder size (MiB)", mib(big.folder_bytes),
                   f"{len(big.manifest['files'])} files"))
        print(line("main process peak RSS (MiB)", mib(s.main_peak)))
        print(line("largest worker peak RSS (MiB)", mib(s.worker_peak)))
        print(line("tree peak RSS sum (MiB)", mib(s.rss_sum_peak),
                   f"aim < {mib(AIM_BIG_BYTES)}: {verdict(s.rss_sum_peak < AIM_BIG_BYTES)}"))
        print(line("tree peak PSS sum (MiB)", mib(s.pss_sum_peak),
                   f"aim < {mib(AIM_BIG_BYTES)}: {verdict(s.pss_sum_peak < AIM_BIG_BYTES)}"))
        print(line("wait4 ru_maxrss (MiB)", mib(big.wait4_maxrss), coverage(big)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
