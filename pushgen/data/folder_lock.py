"""Readers and replacers of a folder agree through a lock on the folder itself.

A reader holds a shared lock (``flock``) on the folder it reads from its first read (the
description) to the end of its work: every file it opens is of that one version. ``--force``
takes the lock exclusively on the folder it replaces for its two renames, so it waits for the
readers of the old folder; a reader that opened the old folder just before the renames finds
the path naming another folder once it holds the lock, and takes the new one instead. Readers
never block each other, and nothing is written beside an input (a read-only folder works too).

The locks live in a reading session: ``session()`` around a command or a library call, and
``hold(folder)`` in the readers, which keeps the lock until the outermost session ends. Where
``fcntl`` is missing (Windows) folders are read without the lock.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import time
from collections.abc import Iterator
from pathlib import Path

from pushgen.data.outputs import lock_path
from pushgen.progress import note

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

APPEARS_SECONDS = 2.0  # how long a reader waits for a folder whose replacement is under way

_held: contextvars.ContextVar[dict[tuple[int, int], int] | None] = contextvars.ContextVar(
    "pushgen_read_locks", default=None)


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Keep the folders ``hold`` locks within the block locked until its end (a session inside
    another joins the outer one)."""
    if _held.get() is not None:
        yield
        return
    held: dict[tuple[int, int], int] = {}
    token = _held.set(held)
    try:
        yield
    finally:
        _held.reset(token)
        for descriptor in held.values():
            os.close(descriptor)  # closing the last descriptor of a folder releases its lock


def hold(folder: Path) -> None:
    """Lock ``folder`` for reading until the current session ends (nothing outside a session,
    or if the folder does not exist: the reader's own checks then say what is wrong)."""
    held = _held.get()
    if held is None or fcntl is None:
        return
    descriptor = _locked(Path(folder), fcntl.LOCK_SH, wait_for_writer=True)
    if descriptor is None:
        return
    key = _identity(os.fstat(descriptor))
    if key in held:
        os.close(descriptor)
    else:
        held[key] = descriptor


@contextlib.contextmanager
def replacing(folder: Path) -> Iterator[None]:
    """Lock ``folder`` exclusively for the block: its readers finish first, and new readers wait
    (this session's own read of it is over: the run replaces what it read)."""
    held = _held.get()
    with contextlib.suppress(OSError):
        own = None if held is None else held.pop(_identity(os.stat(folder)), None)
        if own is not None:
            os.close(own)
    descriptor = None if fcntl is None else _locked(Path(folder), fcntl.LOCK_EX, wait_for_writer=False)
    try:
        yield
    finally:
        if descriptor is not None:
            os.close(descriptor)


def claim(folder: Path) -> int | None:
    """Lock ``folder`` exclusively without waiting; its descriptor (close it to release), or None
    if another process holds it (or locks are not available)."""
    if fcntl is None:
        return None
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def _identity(status: os.stat_result) -> tuple[int, int]:
    return status.st_dev, status.st_ino


def _locked(folder: Path, how: int, wait_for_writer: bool) -> int | None:
    """A descriptor of ``folder`` locked ``how``, once the path still names that folder."""
    deadline = time.monotonic() + APPEARS_SECONDS
    while True:
        try:
            descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            if wait_for_writer and time.monotonic() < deadline and _being_replaced(folder):
                time.sleep(0.01)
                continue
            return None
        try:
            _flock(descriptor, how, folder)
        except OSError:  # a file system without locks
            os.close(descriptor)
            return None
        except BaseException:
            os.close(descriptor)
            raise
        with contextlib.suppress(OSError):  # gone meanwhile: try again
            if _identity(os.fstat(descriptor)) == _identity(os.stat(folder)):
                return descriptor
        os.close(descriptor)


def _flock(descriptor: int, how: int, folder: Path) -> None:
    """Lock; a replacement that must wait for readers says so (two runs that each read what the
    other replaces would wait for ever: Ctrl-C stops either)."""
    try:
        fcntl.flock(descriptor, how | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        if how == fcntl.LOCK_EX:
            note(f"waiting for the runs that read {folder} to finish before replacing it (Ctrl-C stops)")
    fcntl.flock(descriptor, how)


def _being_replaced(folder: Path) -> bool:
    """Whether a run writes ``folder`` now (it holds the lock file beside it)."""
    return lock_path(folder).exists()
