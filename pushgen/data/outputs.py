"""Output folders: which folders are pushgen's own, and which may be replaced.

A folder is a pushgen output when its description (``manifest.json`` of a dataset,
``split.json`` of a split, ``benchmark.json`` of benchmark results, ``log.json`` of logged bandit
feedback) is a JSON object with that description's fields, it lists the folder's files with their
size and sha256, and the files match. Besides the listed files, only the description itself and
the few files written after it (the card, the Croissant description, a download's record) may be
there. ``--force`` replaces such a folder, or an empty one, and nothing else.

One writer per output path and the leftovers of killed runs: ``pushgen.data.output_lock``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pushgen.data.errors import DatasetError as DatasetError
from pushgen.data.errors import OutputBusy as OutputBusy
from pushgen.data.errors import os_error_message as os_error_message
from pushgen.data.errors import write_error_message as write_error_message
from pushgen.data.json_limits import MAX_BYTES, JSONLimitError, parse_json
from pushgen.data.output_lock import leftovers as leftovers
from pushgen.data.output_lock import lock_path as lock_path
from pushgen.data.output_lock import remove_leftovers as remove_leftovers
from pushgen.data.output_lock import sibling_name as sibling_name
from pushgen.data.output_lock import writer_lock as writer_lock

SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Kind:
    """A kind of pushgen output: its description file, the fields the description must hold,
    and the files written after the description (so not listed in it)."""

    name: str
    description: str
    fields: tuple[str, ...]
    written_after: tuple[str, ...]


KINDS = (
    Kind("dataset", "manifest.json", ("recipe", "rows", "files"), ("README.md", "croissant.json")),
    Kind("split", "split.json", ("recipe", "parts", "files"),
         ("README.md", "croissant.json", ".pushgen-verified.json")),  # the last: caches of pushgen <= 0.3
    Kind("benchmark", "benchmark.json", ("split", "fingerprint", "files"), ("timings.json",)),
    Kind("log", "log.json", ("recipe", "rounds", "files"), ("README.md", "croissant.json")),
)


def sha256_file(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def json_kind(value: object) -> str:
    """The JSON name of a parsed value's type ("an array", "a number", ...)."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
             int: "a number", float: "a number"}
    return kinds.get(type(value), type(value).__name__)


def read_json(path: Path) -> object:
    """A JSON file read within the limits of ``json_limits``; a ``DatasetError`` naming the file
    and what is wrong otherwise."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise JSONLimitError(f"is larger than {MAX_BYTES:,} bytes")
        return parse_json(path.read_bytes())
    except JSONLimitError as error:
        raise DatasetError(f"{path} {error}") from None
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}") from None
    except UnicodeDecodeError:
        raise DatasetError(f"{path} is not valid JSON: it is not UTF-8 text") from None
    except OSError as error:
        raise DatasetError(f"cannot read {path}: {error.strerror or error}") from None


def read_json_object(path: Path) -> dict:
    """A JSON file that must hold an object; a clear error otherwise."""
    content = read_json(path)
    if not isinstance(content, dict):
        raise DatasetError(f"{path} is not a JSON object (it holds {json_kind(content)})")
    return content


def listed_files(description: object, source: str) -> dict[str, tuple[int, str]]:
    """The ``files`` of a description: relative path -> (bytes, sha256); a clear error if malformed."""
    files = description.get("files") if isinstance(description, dict) else None
    if not isinstance(files, dict):
        raise DatasetError(f"{source}: 'files' must map each file to its bytes and sha256")
    listed = {}
    for relative, entry in files.items():
        parts = PurePosixPath(relative).parts
        if not relative or PurePosixPath(relative).is_absolute() or ".." in parts or "\\" in relative:
            raise DatasetError(f"{source}: the listed file {relative!r} is not a path inside the folder")
        size = entry.get("bytes") if isinstance(entry, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if isinstance(size, bool) or not isinstance(size, int) or size < 0 or not (
                isinstance(digest, str) and SHA256.fullmatch(digest)):
            raise DatasetError(f"{source}: the entry of {relative} must give its bytes and sha256")
        listed[relative] = (size, digest)
    return listed


def files_problem(folder: Path, files: dict[str, tuple[int, str]], source: str) -> str | None:
    """The first listed file that is missing or differs from its listing (None: all match)."""
    for relative, (size, digest) in files.items():
        path = Path(folder) / relative
        try:
            if not path.is_file():
                return f"{relative} is missing"
            actual = path.stat().st_size
            if actual != size:
                return f"{relative} has {actual:,} bytes; {source} says {size:,} (truncated or changed)"
            if sha256_file(path) != digest:
                return f"{relative}: its sha256 differs from {source} (the file changed)"
        except OSError as error:
            return f"{relative} cannot be read ({error.strerror or error})"
    return None


def entries(folder: Path) -> list[str]:
    """Every entry under ``folder`` that is not a folder, hidden ones too.

    Parameters
    ----------
    folder : pathlib.Path
        The folder.

    Returns
    -------
    list of str
        Sorted paths relative to ``folder``; symbolic links (to a file, a folder or nothing) are
        entries and are never followed.
    """
    found = []
    for root, folders, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        found += [(base / name).as_posix() for name in files]
        found += [(base / name).as_posix() for name in folders if (Path(root) / name).is_symlink()]
    return sorted(found)


def unlisted(folder: Path, listed: dict, kind: Kind) -> list[str]:
    """The entries an output folder may not hold: the one rule for validate and the readers.

    Parameters
    ----------
    folder : pathlib.Path
        The output folder.
    listed : dict
        The files its description lists.
    kind : Kind
        The kind of output.

    Returns
    -------
    list of str
        Every entry (``entries``) neither listed nor the description nor written after it.
        pushgen writes nothing hidden into its folders (its lock files and temporary folders
        sit beside them), so hidden entries count like the others.
    """
    known = {*listed, kind.description, *kind.written_after}
    return [relative for relative in entries(Path(folder)) if relative not in known]


def kind_named(name: str) -> Kind:
    return next(kind for kind in KINDS if kind.name == name)


def file_listing(folder: Path, exclude: tuple[str, ...] = ()) -> dict[str, dict]:
    """Size and sha256 of every file under ``folder`` but ``exclude``, for a description's ``files``."""
    folder = Path(folder)
    return {
        path.relative_to(folder).as_posix(): {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() not in exclude
    }


def output_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a pushgen output that ``--force`` may replace (None: it is one,
    or it is empty)."""
    folder = Path(folder)
    present = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                     if p.is_file() or p.is_symlink())
    if not present:
        return None
    kinds = [kind for kind in KINDS if kind.description in present]
    if not kinds:
        return f"it holds no {', '.join(k.description for k in KINDS[:-1])} or {KINDS[-1].description}"
    if len(kinds) > 1:
        return f"it holds both {kinds[0].description} and {kinds[1].description}"
    kind = kinds[0]
    try:
        description = read_json(folder / kind.description)
    except DatasetError:
        return f"its {kind.description} is not readable JSON"
    if not isinstance(description, dict):
        return f"its {kind.description} is not a JSON object"
    missing = [name for name in kind.fields if name not in description]
    if missing:
        return f"its {kind.description} has no {missing[0]!r}"
    try:
        files = listed_files(description, kind.description)
    except DatasetError as error:
        return str(error)
    if (problem := files_problem(folder, files, kind.description)) is not None:
        return problem
    if others := unlisted(folder, files, kind):
        return f"{others[0]} is not one of the {kind.name}'s files"
    return None


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``folder`` (to see whether it changed)."""
    folder = Path(folder)
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in folder.rglob("*") if not p.is_dir()}


_found_replaceable: dict[Path, dict[str, tuple[int, int]]] = {}  # outputs found replaceable, as they were


def check_replaceable(out: Path, keep: tuple[Path, ...] = ()) -> None:
    """Refuse (``DatasetError``) to replace ``out`` unless it is an earlier pushgen output or an
    empty folder, and never the current folder, one of its parents, or a folder holding one of
    the ``keep`` paths (the inputs)."""
    out = Path(out)
    if not out.is_dir() or out.is_symlink():
        raise DatasetError(f"{out} exists and is not a folder; remove it or choose another --out")
    resolved = out.resolve()
    here = Path.cwd().resolve()
    if resolved == here or resolved in here.parents:
        raise DatasetError(f"--out {out} is the current folder or holds it; choose a new folder")
    for path in keep:
        if Path(path).resolve() == resolved or resolved in Path(path).resolve().parents:
            raise DatasetError(f"--out {out} holds the input {path}; choose another --out")
    state = snapshot(out)
    if _found_replaceable.get(resolved) == state:
        return  # found so in this process already: a command checks before it starts, again under its lock
    problem = output_problem(out)
    if problem is not None:
        raise DatasetError(f"{out} is not empty and not a pushgen output; --force replaces only those "
                           f"({problem}); choose another --out")
    _found_replaceable[resolved] = state


def check_not_inside_output(out: Path) -> None:
    """Refuse an output path inside a pushgen output (dataset, split, benchmark results), whose
    description would not list it: a parent folder whose description is a JSON object with that
    description's fields (another program's ``manifest.json`` is not one)."""
    for folder in Path(out).resolve().parents:
        for kind in KINDS:
            if not (folder / kind.description).is_file():
                continue
            try:
                description = read_json(folder / kind.description)
            except DatasetError:
                continue
            if isinstance(description, dict) and all(f in description for f in kind.fields):
                raise DatasetError(f"--out {out} is inside the pushgen {kind.name} {folder} (it holds "
                                   f"{kind.description}); choose a folder outside it")


def check_output(out: Path, force: bool, keep: tuple[Path, ...] = ()) -> None:
    """Refuse an output path early: it is inside a pushgen output (an input of the command, or
    any other), it exists without ``force``, or it is not replaceable."""
    out = Path(out)
    check_not_inside_output(out)
    if out.exists() or out.is_symlink():
        if not force:
            raise DatasetError(f"{out} already exists; choose another --out or pass --force")
        check_replaceable(out, keep)
