"""The errors of dataset folders, output paths and engines, and one-line messages for operating system
errors."""

from __future__ import annotations

import errno
from pathlib import Path

FULL_DISK = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


class DatasetError(ValueError):
    """A dataset folder or output path that cannot be used (message says why)."""


class OutputBusy(DatasetError):
    """Another run is writing the same output path."""


ENGINES = ("local", "dask")  # what simulates the users (pushgen.data.engines)


class EngineError(ValueError):
    """An engine that cannot be used (missing extra, unreachable scheduler)."""


def os_error_message(error: OSError) -> str:
    """One line for an operating system error: what happened, to which file."""
    where = f" ({error.filename})" if error.filename else ""
    if error.errno in FULL_DISK or "No space left on device" in str(error):
        return f"no space left on the device{where}; nothing was written"
    reason = error.strerror or " ".join(str(error).split()) or type(error).__name__
    return f"{reason}{where}"


def no_folder(path: Path) -> str:
    """Why no output can be written into the folder ``path``.

    Parameters
    ----------
    path : pathlib.Path
        The folder an output would go into (which is not one).

    Returns
    -------
    str
        ``"X is a file, not a folder"`` where ``path`` or a folder it would be in is a file (``"X
        is there, not a folder"`` for another thing that is not one), else ``"folder X does not
        exist"``.

    Examples
    --------
    >>> from pathlib import Path
    >>> no_folder(Path("/no/such/folder"))
    'folder /no/such/folder does not exist'
    """
    found = next((p for p in (path, *path.parents) if p.exists()), None)
    if found is not None and not found.is_dir():
        return f"{found} is {'a file' if found.is_file() else 'there'}, not a folder"
    return f"folder {path} does not exist"


def write_error_message(error: OSError, out: Path) -> str:
    """One line for an operating system error met while writing ``out``."""
    where = f" ({error.filename})" if error.filename else ""
    if error.errno in FULL_DISK or "No space left on device" in str(error):
        return f"no space left on the device while writing {out}{where}; nothing was written"
    reason = error.strerror or " ".join(str(error).split()) or type(error).__name__
    return f"cannot write {out}: {reason}{where}; nothing was written"
