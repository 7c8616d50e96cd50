"""One-file outputs (a report, a recorded run) under the rule of the folder outputs.

Before any work: the path is not a folder, its folder exists, it is not inside a pushgen output
or one of the inputs, no other run writes it (the lock file ``.<name>.lock`` beside it), and an
existing file is replaced only with ``force`` and only if it is a file of the kind pushgen
writes there. The file is written under a temporary name beside it (``.<name>.partial-*``) and
renamed into place only once complete; partial files a killed run left are removed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from pushgen.data.errors import no_folder
from pushgen.data.output_lock import umask_mode
from pushgen.data.outputs import DatasetError, check_not_inside_output, sibling_name, writer_lock


@contextlib.contextmanager
def file_output(out: str | Path, force: bool, ours: Callable[[Path], bool], what: str,
                keep: tuple[Path, ...] = (), option: str = "--out") -> Iterator[Path]:
    """A temporary path to write that becomes ``out`` when the block succeeds.

    ``ours(path)`` tells whether an existing file is a ``what`` pushgen wrote (the only kind
    ``force`` replaces); ``keep`` are the inputs, which ``out`` must not be inside; ``option``
    names the argument that chose ``out`` in messages.
    """
    out = Path(out)
    if out.is_dir():
        raise DatasetError(f"{option} {out} is a folder; give a file name")
    check_not_inside_output(out)
    parent = out.absolute().parent
    if not parent.is_dir():
        raise DatasetError(f"{option} {out}: {no_folder(out.parent)}; choose another {option}")
    for path in keep:
        if Path(path).is_dir() and Path(path).resolve() in out.resolve().parents:
            raise DatasetError(f"{option} {out} is inside the input {path}; choose a file outside it")
    with writer_lock(out, option):
        for leftover in parent.glob(f"{glob.escape(sibling_name(out, 'partial-'))}*"):
            with contextlib.suppress(OSError):
                leftover.unlink()
        if out.exists() or out.is_symlink():
            if not force:
                raise DatasetError(f"{out} already exists; choose another {option} or pass --force")
            if out.is_symlink() or not out.is_file() or not ours(out):
                raise DatasetError(f"{out} is not a {what} pushgen wrote; --force replaces only those; "
                                   f"choose another {option}")
        handle, name = tempfile.mkstemp(prefix=sibling_name(out, "partial-"), dir=parent)
        try:
            os.fchmod(handle, umask_mode(0o666))  # as a file the user writes, not mkstemp's 0o600
        finally:
            os.close(handle)
        partial = Path(name)
        try:
            yield partial
            os.replace(partial, out)
        finally:
            partial.unlink(missing_ok=True)
