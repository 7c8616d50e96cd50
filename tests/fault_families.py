"""The fault families beyond damaged folders, for ``scripts/reliability.py`` and the tests: a kill
between the renames of ``--force``, downloads beyond their limits, runs that cannot fit or write
inside an input, arguments and surroundings that are not what they claim, and the names the
documents give. A case runs one fault and says what fell short of the standard (None: nothing);
the words of its answer match the outcomes the script counts."""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from fault_cases import Outcome, made_folders, problem, run_cli, snapshot
from fault_servers import data_url, faulty_server, listener, remote_registered

ROOT = Path(__file__).resolve().parents[1]
SPLIT_ARGS = ["--train-months", "1", "--test-months", "1", "--validation-weeks", "1"]
DIGITS = "9" * 5001


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    run: Callable[[], str | None]


def one_line(outcome: Outcome, *fragments: str, codes: tuple[int, ...] = (2,)) -> str | None:
    """What is wrong with a refusal: not one line with the right code, or a fragment missing."""
    wrong = problem(outcome, True, codes)
    if wrong is not None:
        return wrong
    missing = [f for f in fragments if f not in outcome.out + outcome.err]
    return f"the message does not say {missing[0]!r}: {outcome.err.strip()!r}" if missing else None


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="pushgen-family-") as folder:
        yield Path(folder)


@contextlib.contextmanager
def patched(module: object, **values: object) -> Iterator[None]:
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


@contextlib.contextmanager
def environment(**values: str) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def left_behind(folder: Path, allowed: set[str]) -> str | None:
    left = sorted(p.name for p in folder.iterdir() if p.name not in allowed)
    return f"it left {', '.join(left)}" if left else None


# -- a kill between the renames of --force -------------------------------------------------

KILL_BETWEEN_RENAMES = """
    import os, signal, sys
    import pushgen.data.dataset
    pushgen.data.dataset.after_moving_aside = lambda out: os.kill(os.getpid(), signal.SIGKILL)
    from pushgen.cli import main
    sys.exit(main({args!r}))
"""


def killed_between_renames(args: list[str]) -> subprocess.CompletedProcess:
    """``pushgen ARGS`` in a process killed (SIGKILL) once ``--force`` moved the old output aside."""
    code = textwrap.dedent(KILL_BETWEEN_RENAMES).format(args=args)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def force_killed(kind: str) -> str | None:
    dataset, _ = made_folders()
    with scratch() as root:
        out = root / "out"
        write = (["make", "--users", "1", "--days", "3", "--out", str(out)] if kind == "dataset"
                 else ["split", str(dataset), *SPLIT_ARGS, "--out", str(out)])
        if run_cli(write).code != 0:
            return "other: the first output could not be made"
        before = snapshot(out)
        killed = killed_between_renames([*write, "--force"])
        if killed.returncode != -signal.SIGKILL:
            return f"other: the run was not killed between the renames: {killed.stderr!r}"
        if out.exists():
            return "other: the output was in place while it was being replaced"
        wrong = one_line(run_cli(write), f"{out} already exists")  # the next run, without --force
        if wrong is None and (not out.is_dir() or snapshot(out) != before):
            wrong = "the earlier output was lost"
        return wrong or left_behind(root, {"out"})


# -- downloads beyond their limits ---------------------------------------------------------

def download_limit(mode: str, limits: dict, reason: str) -> str | None:
    from pushgen.publishing import transfer
    from pushgen.publishing.download import fetch_split

    with scratch() as root, remote_registered() as entry, faulty_server(root / "served") as server, \
            environment(PUSHGEN_DATA_URL=data_url(server), NO_PROXY="127.0.0.1"), patched(transfer, **limits):
        server.mode = mode
        cache = root / "cache"
        outcome = run_cli(["download", entry.label, "--cache", str(cache)])
        wrong = one_line(outcome, f"cannot download {server.target} from", reason, "nothing was kept")
        if wrong is None and cache.exists():
            wrong = "it left the cache folder"
        server.mode = "normal"
        if wrong is None and not (fetch_split(entry.label, cache=cache) / server.target).is_file():
            wrong = "other: the next download failed"
        return wrong


def bad_data_url(url: str, message: str) -> str | None:
    with scratch() as root, remote_registered() as entry, environment(PUSHGEN_DATA_URL=url):
        return one_line(run_cli(["download", entry.label, "--cache", str(root / "cache")]), message) or (
            left_behind(root, set()))


# -- runs that cannot fit, outputs inside inputs -------------------------------------------

def cannot_fit(free: int) -> str | None:
    from pushgen.data import capacity

    with scratch() as root, patched(capacity, free_bytes=lambda path: free):
        outcome = run_cli(["make", "--users", "50", "--months", "6", "--out", str(root / "d")])
        return one_line(outcome, "50 users over 181 days would take about",
                        f"has {capacity.human_bytes(free)} free") or left_behind(root, set())


def inside(kind: str) -> str | None:
    dataset, split = made_folders()
    with scratch() as root:
        ds, sp = root / "dataset", root / "split"
        for source, copy in ((dataset, ds), (split, sp)):
            subprocess.run(["cp", "-r", str(source), str(copy)], check=True)
        make = ["make", "--users", "1", "--days", "2"]
        benchmark = ["benchmark", "--split", str(sp), "--task", "1", "--baselines", "random", "--no-plots"]
        args, message = {
            "split into its dataset": ([*SPLIT_ARGS, "--out", str(ds / "s")],
                                       f"is inside the pushgen dataset {ds}"),
            "make into a dataset": ([*make, "--out", str(ds / "ground_truth" / "x")],
                                    f"is inside the pushgen dataset {ds}"),
            "split into a split": ([*SPLIT_ARGS, "--out", str(sp / "task1" / "x")],
                                   f"is inside the pushgen split {sp}"),
            "benchmark into a split": ([*benchmark, "--out", str(sp / "bench")],
                                       f"is inside the pushgen split {sp}"),
        }[kind]
        if args[0].startswith("--"):
            args = ["split", str(ds), *args]
        before = (snapshot(ds), snapshot(sp))
        wrong = one_line(run_cli(args), message)
        if wrong is None and (snapshot(ds), snapshot(sp)) != before:
            wrong = "the input folder changed"
        return wrong


# -- arguments, the scheduler, the data URL, standard output -------------------------------

INTEGER_OPTIONS = {
    "make": ["--users", "--months", "--days", "--seed", "--jobs"],
    "split": ["--train-months", "--test-months", "--validation-weeks", "--cold-start-users"],
    "evaluate": ["--task", "--user"],
    "benchmark": ["--task", "--seed"],
    "log": ["--users", "--user", "--k", "--seed", "--candidate-seed"],
}


def long_number(command: str, option: str) -> str | None:
    outcome = run_cli([command, option, DIGITS])
    wrong = one_line(outcome, f"Invalid value for '{option}': a 5,001-digit number is too long")
    return wrong or (f"not one line: {len(outcome.err):,} characters" if len(outcome.err) > 300 else None)


def not_a_scheduler(greeting: bytes, message: str) -> str | None:
    from pushgen.data import engines

    with scratch() as root, patched(engines, SCHEDULER_TIMEOUT_SECONDS=1), listener(greeting) as port:
        outcome = run_cli(["make", "--users", "1", "--days", "2", "--engine", "dask",
                           "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(root / "d")])
        return one_line(outcome, message) or left_behind(root, set())


def full_stdout(args: list[str]) -> str | None:
    dataset, _ = made_folders()
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "pushgen", *(a.format(dataset=dataset) for a in args)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    return one_line(Outcome(done.returncode, "", done.stderr), "cannot write to standard output")


# -- the names the documents give ----------------------------------------------------------

DOTTED = re.compile(r"\bpushgen(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(r"^\s*from (pushgen[\w.]*) import \(?([\w, ]+)\)?", re.MULTILINE)


def documented_names() -> set[str]:
    """Every ``pushgen.x.y`` and ``from pushgen.x import y`` that README.md and docs/ give."""
    names = set()
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = document.read_text()
        names |= set(DOTTED.findall(text))
        for module, imported in FROM_IMPORT.findall(text):
            names |= {f"{module}.{name.strip()}" for name in imported.split(",") if name.strip()}
    return names


def resolve(name: str) -> object:
    """``name`` as Python finds it: the longest importable module, then its attributes."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[end:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(name)


def name_exists(name: str) -> str | None:
    try:
        resolve(name)
    except (ImportError, AttributeError) as error:
        return f"an exception escaped: {type(error).__name__}: {error}"
    return None


DOWNLOAD_LIMITS = (
    ("endless", {}, "the server sent more than the listed"),
    ("trickle", {"MIN_SECONDS": 2, "MIN_BYTES_PER_SECOND": 10**12, "STALL_SECONDS": 30},
     "it took longer than the 2 s allowed"),
    ("stall", {"STALL_SECONDS": 1}, "no data arrived for 1 s"),
)
DATA_URLS = (("http://[::1", "is not a usable URL"), ("http://host:port", "is not a usable URL"),
             ("http://", "must be an http(s) URL"), ("ftp://x", "must be an http(s) URL"))
NOT_SCHEDULERS = (("silent port", b"", "did not answer as a Dask scheduler within 1 s"),
                  ("HTTP answer", b"HTTP/1.1 400 Bad Request\r\n\r\n", "does not speak Dask's protocol"))
INSIDE = ("split into its dataset", "make into a dataset", "split into a split", "benchmark into a split")
FULL_STDOUT = (["describe", "{dataset}"], ["list"], ["--version"])


def families() -> list[Case]:
    """Every case of the families beyond damaged folders."""
    force, download = "--force killed between its renames", "download beyond its limits"
    space, surroundings = "make beyond the disk, output inside an input", "arguments and surroundings"
    cases = [Case(force, kind, partial(force_killed, kind)) for kind in ("dataset", "split")]
    cases += [Case(download, case[0], partial(download_limit, *case)) for case in DOWNLOAD_LIMITS]
    cases += [Case(download, f"PUSHGEN_DATA_URL={url}", partial(bad_data_url, url, message))
              for url, message in DATA_URLS]
    cases += [Case(space, f"{free:,} bytes free", partial(cannot_fit, free)) for free in (0, 5_000_000)]
    cases += [Case(space, kind, partial(inside, kind)) for kind in INSIDE]
    cases += [Case(surroundings, f"{command} {option} <5,001 digits>", partial(long_number, command, option))
              for command, options in INTEGER_OPTIONS.items() for option in options]
    cases += [Case(surroundings, f"--scheduler at a {label}", partial(not_a_scheduler, greeting, m))
              for label, greeting, m in NOT_SCHEDULERS]
    if Path("/dev/full").exists():
        cases += [Case(surroundings, f"pushgen {' '.join(args)} > /dev/full", partial(full_stdout, args))
                  for args in FULL_STDOUT]
    cases += [Case("names the documents give", name, partial(name_exists, name))
              for name in sorted(documented_names())]
    from fault_families_inputs import input_families  # they build on this module's helpers

    return cases + input_families()
