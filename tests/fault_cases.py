"""Fault injection: damage a copy of a dataset or split folder, run a command on it, judge the outcome.

The standard every command is held to: it succeeds, or it prints one line naming what is wrong
and exits with code 2 (``validate``: 1, "validated and found invalid"), never a traceback, and
it leaves nothing behind. Damage to a file the folder's description lists (its bytes or its
presence) must be noticed. The folders' files are read from their description (``manifest.json``
or ``split.json``), so the cases follow any layout. ``scripts/reliability.py`` runs the same
cases by family.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import shutil
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

import pushgen
from pushgen import schemas
from pushgen.cli import main
from pushgen.data.dataset import DatasetError

DESCRIPTIONS = ("manifest.json", "split.json")
BYTE_DAMAGE = ("truncate", "flip", "delete", "append", "empty")
JSON_DAMAGE = ("json-drop", "json-set", "json-invalid")
EXTRA_DAMAGE = "extra"  # a copy of a listed file under a name the description does not list
LIMIT_DAMAGE = ("json-deep-array", "json-deep-object", "json-digits")  # valid JSON beyond the limits
LIMIT_VALUES = {"json-deep-array": "[" * 150_000 + "]" * 150_000,
                "json-deep-object": '{"a": ' * 70 + "0" + "}" * 70,
                "json-digits": "-" + "9" * 5001}
JSON_VALUES = (None, -3, 0, 1.5, "x", [], {}, True)
SPLIT_ARGS = ("--train-months", "1", "--test-months", "1", "--validation-weeks", "1")


@dataclass(frozen=True)
class Damage:
    """One thing done to one file of a folder."""

    kind: str
    file: str
    at: float = 0.5  # where, as a fraction of the file (truncate, flip)
    mask: int = 0xFF  # the bits flipped (flip)
    path: tuple = ()  # the JSON value edited (json-drop, json-set)
    value: object = None  # its new value (json-set)

    def __str__(self) -> str:
        where = {"truncate": f" to {self.at:.0%}", "flip": f" at {self.at:.0%}",
                 "json-drop": f" {'/'.join(map(str, self.path))}",
                 "json-set": f" {'/'.join(map(str, self.path))}={json.dumps(self.value)}"}
        return f"{self.kind} {self.file}{where.get(self.kind, '')}"


def description_name(folder: Path) -> str:
    return next(name for name in DESCRIPTIONS if (Path(folder) / name).is_file())


def listed_files(folder: Path) -> list[str]:
    """The files the folder's description lists (with their sha256)."""
    return sorted(json.loads((Path(folder) / description_name(folder)).read_text())["files"])


def all_files(folder: Path) -> list[str]:
    folder = Path(folder)
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def json_paths(document: object, depth: int = 3) -> list[tuple]:
    """Every key path into ``document`` (object keys, array indices), at most ``depth`` deep."""
    if depth == 0:
        return []
    items = (document.items() if isinstance(document, dict)
             else enumerate(document) if isinstance(document, list) else ())
    paths = []
    for key, value in items:
        paths.append((key,))
        paths += [(key, *rest) for rest in json_paths(value, depth - 1)]
    return paths


def apply(folder: Path, damage: Damage) -> None:
    path = Path(folder) / damage.file
    if damage.kind == "delete":
        path.unlink()
    elif damage.kind == EXTRA_DAMAGE:
        shutil.copyfile(path, extra_name(path))
    elif damage.kind in LIMIT_DAMAGE:
        text = path.read_text().rstrip()
        path.write_text(f'{text[:-1].rstrip()}, "extra": {LIMIT_VALUES[damage.kind]}}}')
    elif damage.kind == "empty":
        path.write_bytes(b"")
    elif damage.kind == "append":
        path.write_bytes(path.read_bytes() + b"\x00garbage")
    elif damage.kind == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * damage.at)])
    elif damage.kind == "flip":
        data = bytearray(path.read_bytes())
        if data:
            data[min(int(len(data) * damage.at), len(data) - 1)] ^= damage.mask
        path.write_bytes(bytes(data))
    elif damage.kind == "json-invalid":
        path.write_text(path.read_text()[:-3] + "{")
    else:
        document = json.loads(path.read_text())
        *parents, last = damage.path
        holder = document
        for key in parents:
            holder = holder[key]
        if damage.kind == "json-drop":
            del holder[last]
        else:
            holder[last] = damage.value
        path.write_text(json.dumps(document, indent=1))


def extra_name(path: Path) -> Path:
    return path.with_name(f"{path.stem}-extra{path.suffix}")


def must_fail(folder: Path, damage: Damage) -> bool:
    """Whether the damage must be noticed: a listed file's bytes changed or the file is gone, the
    description is no longer JSON or beyond its limits, or a file it does not list is there."""
    if damage.kind == EXTRA_DAMAGE or damage.kind in LIMIT_DAMAGE:
        return True
    if damage.file in DESCRIPTIONS:
        return damage.kind in ("json-invalid", "empty")
    return damage.file in listed_files(folder) and damage.kind in BYTE_DAMAGE


def damages_of(folder: Path) -> list[Damage]:
    """The cases the reliability script tries on a folder: each byte damage on each file, and
    each JSON edit of each value of the description (two levels deep)."""
    cases = [Damage(kind, name) for name in all_files(folder) for kind in BYTE_DAMAGE]
    cases += [Damage("truncate", name, at=0.05) for name in listed_files(folder)]
    description = description_name(folder)
    document = json.loads((Path(folder) / description).read_text())
    cases.append(Damage("json-invalid", description))
    cases += [Damage(EXTRA_DAMAGE, name) for name in listed_files(folder)]
    cases += [Damage(kind, description) for kind in LIMIT_DAMAGE]
    for path in json_paths(document, depth=2):
        cases.append(Damage("json-drop", description, path=path))
        cases += [Damage("json-set", description, path=path, value=v) for v in (None, -3, "x", [])]
    return cases


@dataclass
class Outcome:
    """What a command did: its exit code (None: an exception escaped), output and error text."""

    code: int | None
    out: str
    err: str
    escaped: str = ""

    @property
    def error_lines(self) -> list[str]:
        return self.err.strip().splitlines()


def run_cli(args: list[str]) -> Outcome:
    """``pushgen ARGS`` in this process, as the installed command runs it."""
    out, err = io.StringIO(), io.StringIO()
    escaped, code = "", None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        except BaseException:
            escaped = traceback.format_exc()
    return Outcome(code, out.getvalue(), err.getvalue(), escaped)


def run_library(call: Callable[[], object]) -> Outcome:
    """A library call: code 0 if it returns, 2 and its one-line message if it raises a
    ``DatasetError`` or ``GenerationError``; anything else escapes."""
    try:
        call()
    except (pushgen.GenerationError, DatasetError) as error:
        return Outcome(2, "", str(error) + "\n")
    except BaseException:
        return Outcome(None, "", "", traceback.format_exc())
    return Outcome(0, "", "")


def problem(outcome: Outcome, failing: bool, codes: tuple[int, ...] = (2,)) -> str | None:
    """What is wrong with ``outcome`` by the standard (None: nothing)."""
    if outcome.escaped:
        return "an exception escaped: " + outcome.escaped.strip().splitlines()[-1]
    if "Traceback" in outcome.err:
        return "a traceback was printed"
    if outcome.code == 0:
        return "the damage went unnoticed" if failing else None
    if outcome.code not in codes:
        return f"exit code {outcome.code}, not {' or '.join(map(str, codes))}"
    if len(outcome.error_lines) != 1:
        return f"{len(outcome.error_lines)} error lines, not one: {outcome.err!r}"
    return None


def snapshot(folder: Path) -> dict[str, bytes]:
    folder = Path(folder)
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@contextlib.contextmanager
def damaged_copy(source: Path, damage: Damage | None = None) -> Iterator[tuple[Path, Path]]:
    """A damaged copy of ``source`` (as ``<scratch>/copy``) and a scratch folder for outputs."""
    with tempfile.TemporaryDirectory(prefix="pushgen-fault-") as scratch:
        copy = Path(scratch) / "copy"
        shutil.copytree(source, copy)
        if damage is not None:
            apply(copy, damage)
        yield copy, Path(scratch)


@dataclass(frozen=True)
class Command:
    """A reading command on a folder: ``args(folder, scratch)``; ``codes``: its failure codes."""

    name: str
    args: Callable[[Path, Path], list[str]] | None = None
    call: Callable[[Path, Path], object] | None = None
    codes: tuple[int, ...] = (2,)
    writes: str | None = None  # the output it writes into the scratch folder, if any

    def run(self, folder: Path, scratch: Path) -> Outcome:
        if self.args is not None:
            return run_cli(self.args(folder, scratch))
        return run_library(lambda: self.call(folder, scratch))


def check(command: Command, source: Path, damage: Damage) -> str | None:
    """Run ``command`` on a copy of ``source`` with ``damage``; what is wrong (None: nothing)."""
    failing = must_fail(source, damage)
    with damaged_copy(source, damage) as (copy, scratch):
        before = snapshot(copy)
        outcome = command.run(copy, scratch)
        wrong = problem(outcome, failing, command.codes)
        if wrong is None and snapshot(copy) != before:
            wrong = "the input folder changed"
        allowed = {"copy", command.writes} if outcome.code == 0 else {"copy"}
        left = sorted(p.name for p in scratch.iterdir() if p.name not in allowed)
        if wrong is None and left:
            wrong = f"it left {', '.join(left)}"
    return None if wrong is None else f"{command.name} after {damage}: {wrong}"


@cache
def scratch_folder() -> Path:
    """A folder for this process's shared inputs, removed when it ends."""
    root = Path(tempfile.mkdtemp(prefix="pushgen-faults-"))
    atexit.register(shutil.rmtree, root, True)
    return root


@cache
def submission_for(split: Path) -> Path:
    """A task 1 submission for every test context of ``split`` (the same notification each time)."""
    contexts = pushgen.load_split(split, task=1).test["context_id"]
    frame = pd.DataFrame({"context_id": contexts,
                          **{f: schemas.values(f)[0] for f in schemas.NOTIFICATION_FEATURES}})
    path = scratch_folder() / f"submission-{len(list(scratch_folder().iterdir()))}.parquet"
    frame.to_parquet(path, index=False)
    return path


def dataset_commands() -> list[Command]:
    from pushgen.data.dataset import read_dataset
    from pushgen.data.describe import describe_path
    from pushgen.data.verify import verify_dataset
    from pushgen.splits import SplitSpec, make_split

    spec = SplitSpec(train_months=1, test_months=1, validation_weeks=1)
    return [
        Command("pushgen describe", args=lambda d, s: ["describe", str(d)]),
        Command("pushgen validate", args=lambda d, s: ["validate", str(d)], codes=(1, 2)),
        Command("pushgen split", args=lambda d, s: ["split", str(d), *SPLIT_ARGS, "--out", str(s / "out")],
                writes="out"),
        Command("describe_path()", call=lambda d, s: describe_path(d)),
        Command("verify_dataset()", call=lambda d, s: verify_dataset(d)),
        Command("read_dataset()", call=lambda d, s: read_dataset(d)),
        Command("make_split()", call=lambda d, s: make_split(d, s / "out", spec), writes="out"),
    ]


def split_commands(split: Path, benchmark: bool = True) -> list[Command]:
    submission = str(submission_for(split))
    commands = [
        Command("pushgen evaluate", args=lambda d, s: ["evaluate", "--split", str(d), "--task", "1",
                                                       "--submission", submission]),
        Command("load_split(task=1)", call=lambda d, s: pushgen.load_split(d, task=1)),
        Command("load_split(task=2)", call=lambda d, s: pushgen.load_split(d, task=2)),
        Command("evaluate()", call=lambda d, s: pushgen.evaluate(d, task=1, submission=submission)),
        Command("pushgen validate", args=lambda d, s: ["validate", str(d)], codes=(1, 2)),
    ]
    if benchmark:
        commands.append(Command(
            "pushgen benchmark",
            args=lambda d, s: ["benchmark", "--split", str(d), "--task", "1", "--baselines", "random",
                               "--no-plots", "--out", str(s / "bench")], writes="bench"))
    return commands


@cache
def made_folders() -> tuple[Path, Path]:
    """A dataset made by ``pushgen make`` (3 users, 2 months) and its split by ``pushgen split``
    (one cold-start user), made once per process."""
    dataset, split = scratch_folder() / "dataset", scratch_folder() / "split"
    for args in (["make", "--users", "3", "--months", "2", "--seed", "3", "--out", str(dataset)],
                 ["split", str(dataset), *SPLIT_ARGS, "--cold-start-users", "1", "--out", str(split)]):
        outcome = run_cli(args)
        assert outcome.code == 0, outcome.err + outcome.escaped
    return dataset, split
