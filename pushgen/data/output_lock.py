"""One writer per output path, and the leftovers of killed runs.

A run that writes ``out`` holds the lock file ``.<out>.lock`` beside it; a second run to the
same path is refused. Its temporary folders (``.<out>.partial-*``, ``.<out>.old-*``) are left
behind only if the run is killed; the next run to that path removes them, after putting back
an earlier output that was moved aside and not yet replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from pushgen.data.errors import DatasetError, OutputBusy

LEFTOVER_KINDS = ("partial", "old")  # the work folder, an output being replaced
MAX_NAME_BYTES = 255  # of one file name, on the common file systems
TEMPORARY_END_BYTES = 10  # the random end tempfile gives a temporary name


def sibling_name(out: Path, kind: str) -> str:
    """The name of pushgen's file or folder of ``kind`` (``lock``, ``partial-``, ...) beside ``out``:
    ``.<out>.<kind>``, with ``<out>`` cut short and a digest of it added where the name (and the
    random end of a temporary name) would pass the file systems' 255 bytes."""
    name = Path(out).name
    if len(os.fsencode(f".{name}.{kind}")) + TEMPORARY_END_BYTES <= MAX_NAME_BYTES:
        return f".{name}.{kind}"
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:12]
    room = MAX_NAME_BYTES - TEMPORARY_END_BYTES - len(kind) - len(digest) - 3
    return f".{os.fsencode(name)[:room].decode('utf-8', 'ignore')}~{digest}.{kind}"


def umask_mode(mode: int) -> int:
    """``mode`` less the bits the process's umask takes away.

    Parameters
    ----------
    mode : int
        0o666 for a file, 0o777 for a folder.

    Returns
    -------
    int
        The mode ``open`` gives a new file (``mkdir`` a new folder), which ``tempfile`` does not
        (it gives 0o600 and 0o700).

    Examples
    --------
    >>> import os
    >>> before = os.umask(0o022)
    >>> oct(umask_mode(0o666)), oct(umask_mode(0o777))
    ('0o644', '0o755')
    >>> _ = os.umask(before)
    """
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def lock_path(out: Path) -> Path:
    out = Path(out)
    return out.with_name(sibling_name(out, "lock"))


@contextlib.contextmanager
def writer_lock(out: Path, option: str = "--out") -> Iterator[None]:
    """Hold the lock of the output path ``out``: a second run to the same path is refused
    (its message suggests another ``option``)."""
    path = lock_path(out)
    lock = FileLock(path, timeout=0)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        raise OutputBusy(f"{out} is being written by another pushgen run (it holds {path.name}); "
                         f"wait for it to finish or choose another {option}") from None
    except OSError as error:
        parent = path.parent if str(path.parent) else Path(".")
        raise DatasetError(f"cannot write into {parent}: {error.strerror or error}") from None
    try:
        yield
    finally:
        # removed while still held: a run that opened the old file sees it unlinked and tries again
        with contextlib.suppress(OSError):
            path.unlink()
        lock.release()


def leftovers(out: Path) -> list[Path]:
    """Temporary folders of earlier runs to ``out`` (safe to remove while holding its lock)."""
    out = Path(out)
    pattern = re.compile("|".join(rf"{re.escape(sibling_name(out, f'{kind}-'))}[A-Za-z0-9_]+"
                                  for kind in LEFTOVER_KINDS))
    parent = out.parent if str(out.parent) else Path(".")
    try:
        return sorted(p for p in parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir()
                      and not p.is_symlink())
    except OSError:
        return []


def remove_leftovers(out: Path) -> None:
    """Clear what killed runs to ``out`` left behind, after putting back an earlier output that a
    ``--force`` run had moved aside (``.<out>.old-*/<out>``) when its replacement never arrived."""
    out = Path(out)
    if not (out.exists() or out.is_symlink()):
        moved_aside = [folder / out.name for folder in leftovers(out)
                       if folder.name.startswith(sibling_name(out, "old-")) and (folder / out.name).is_dir()]
        if moved_aside:
            os.replace(max(moved_aside, key=lambda path: path.stat().st_mtime_ns), out)
    for folder in leftovers(out):
        shutil.rmtree(folder, ignore_errors=True)
