"""What an output folder may hold besides the files its description lists: one rule for
``pushgen validate`` and for every reader.

Every entry of the folder that is not a folder counts: hidden files and symbolic links too
(to a file, to a folder or to nothing). pushgen writes nothing hidden into its folders (its lock
files and temporary folders sit beside them, ``pushgen.data.output_lock``); the only entries
allowed besides the listed files are the description and the files written after it
(``Kind.written_after``, among them the cache ``.pushgen-verified.json`` of splits of pushgen <= 0.3).

The files written after the description cannot be listed in it. The Croissant description
(``croissant.json``), written last, lists the card and the description with their sha256, and the
other files as the description does: where it is there, the card must be too, as it lists. A split's
or a log's card names ``croissant.json``: with the card there, ``croissant.json`` must be too.
"""

from __future__ import annotations

import contextlib
from pathlib import Path, PurePosixPath

from pushgen.data.json_limits import MAX_BYTES
from pushgen.data.layout import CARD
from pushgen.data.outputs import (
    DatasetError,
    Kind,
    kind_named,
    read_json_object,
    sha256_file,
    unlisted,
)
from pushgen.progress import bar

CROISSANT = "croissant.json"


def _digest(entry: object) -> object:
    """The sha256 of a listing's entry (a description's object or ``listed_files``'s pair)."""
    return entry[1] if isinstance(entry, tuple) else entry.get("sha256") if isinstance(entry, dict) else None


def _file_objects(folder: Path) -> dict[str, str] | None:
    """The file objects of the folder's ``croissant.json``: path -> sha256 (None: it is not a
    Croissant description of files)."""
    try:
        distribution = read_json_object(folder / CROISSANT).get("distribution")
    except DatasetError:
        return None
    if not isinstance(distribution, list) or not all(isinstance(item, dict) for item in distribution):
        return None
    objects = {item.get("contentUrl"): item.get("sha256") for item in distribution
               if item.get("@type") == "cr:FileObject"}
    if not all(isinstance(name, str) and isinstance(digest, str) for name, digest in objects.items()):
        return None
    return objects


def _names_croissant(card: Path) -> bool:
    with contextlib.suppress(OSError), open(card, "rb") as handle:
        return CROISSANT.encode() in handle.read(MAX_BYTES)
    return False


def written_after_problems(folder: Path, listed: dict, kind: Kind) -> list[str]:
    """Every problem of the files written after a folder's description that its Croissant
    description and card show.

    Parameters
    ----------
    folder, listed, kind
        As for ``pushgen.data.outputs.unlisted`` (``listed``: the description's ``files``, or
        ``listed_files`` of it).

    Returns
    -------
    list of str
        A file ``croissant.json`` lists that is missing or changed, a file whose sha256 it gives
        otherwise than the description, ``croissant.json`` missing though the card names it (an
        empty list: none, or a kind that writes no ``croissant.json``).
    """
    folder = Path(folder)
    if CROISSANT not in kind.written_after:
        return []
    if not (folder / CROISSANT).exists():
        if (folder / CROISSANT).is_symlink() or _names_croissant(folder / CARD):
            return [f"{CROISSANT}: missing ({CARD} names it)"]
        return []
    objects = _file_objects(folder)
    if objects is None:
        return [f"{CROISSANT}: not a Croissant description of the folder's files"]
    problems = []
    for name, digest in objects.items():
        if name in listed:
            if _digest(listed[name]) != digest:
                problems.append(f"{CROISSANT}: the sha256 of {name} differs from {kind.description}")
        elif name not in (kind.description, *kind.written_after) or PurePosixPath(name).name != name:
            problems.append(f"{CROISSANT} lists {name}, which is not one of the {kind.name}'s files")
        elif not (folder / name).is_file():
            problems.append(f"{name}: missing ({CROISSANT} lists it)")
        elif sha256_file(folder / name) != digest:
            problems.append(f"{name}: sha256 differs from {CROISSANT}")
    return problems


def listing_problems(folder: Path, listed: dict, kind: str, says: str) -> list[str]:
    """Every ``listed`` file that leaves the ``kind`` folder, is missing or differs from what ``says``
    gives, every entry neither listed nor written after the description, and every problem of the
    files written after it (``written_after_problems``)."""
    known = kind_named(kind)
    problems = []
    for relative, entry in bar(listed.items(), desc="validate: sha256", unit="file"):
        if PurePosixPath(relative).is_absolute() or ".." in PurePosixPath(relative).parts:
            problems.append(f"{relative}: listed path leaves the {kind} folder")
            continue
        path = folder / relative
        try:
            if not path.is_file():
                problems.append(f"{relative}: missing")
            elif (size := path.stat().st_size) != entry.get("bytes"):
                problems.append(f"{relative}: {size} bytes; {says} says {entry.get('bytes')}")
            elif sha256_file(path) != entry.get("sha256"):
                problems.append(f"{relative}: sha256 differs from {says}")
        except OSError as error:
            problems.append(f"{relative}: cannot read ({error.strerror or error})")
    problems += [f"{other}: not listed in {known.description}" for other in unlisted(folder, listed, known)]
    return problems + written_after_problems(folder, listed, known)


def check_unlisted(folder: Path, listed: dict, kind: str, source: str) -> None:
    """Refuse an entry the description ``source`` does not list: a folder is read only through it."""
    other = unlisted(folder, listed, kind_named(kind))
    if other:
        raise DatasetError(f"{folder}/{other[0]} is not listed in {source}; a {kind} folder holds only "
                           f"the files its {Path(source).name} lists (move it away)")


def check_written_after(folder: Path, listed: dict, kind: str) -> None:
    """Refuse (``DatasetError``: the first of ``written_after_problems``, after the folder's
    path) a folder whose files written after the description are not as its Croissant
    description and card show; ``kind`` by its name ("dataset", "split", "log")."""
    if problems := written_after_problems(folder, listed, kind_named(kind)):
        raise DatasetError(f"{folder}/{problems[0]}")
