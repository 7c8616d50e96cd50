"""What the ``pushgen`` commands share: one-line user errors and reading a split by name or folder."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import click
import pyarrow as pa

from pushgen.data.dataset import DatasetError, first_line
from pushgen.data.errors import EngineError, os_error_message
from pushgen.data.recipe import GenerationError
from pushgen.progress import shown

USER_ERRORS = (GenerationError, DatasetError, EngineError)


class UserFacingError(click.ClickException):
    """An error the user caused: printed as one line, exit code 2."""

    exit_code = 2


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's user errors into one-line CLI errors."""
    try:
        yield
    except USER_ERRORS as error:
        raise UserFacingError(str(error)) from None
    except OSError as error:  # a full disk, a file that cannot be read or written
        raise UserFacingError(os_error_message(error)) from None
    except pa.ArrowException as error:  # a table that cannot be read
        raise UserFacingError(f"a table cannot be read: {first_line(error)}") from None


def folder_or_standard_split(text: str) -> Path:
    """The folder at ``text``, or the standard split named ``text`` (fetched or from the cache)."""
    if not text:  # pathlib reads "" as the current folder
        raise DatasetError("the path is empty; give a folder or a standard split's name")
    path = Path(text)
    if path.exists() or len(path.parts) != 1 or text.startswith("."):
        return path
    from pushgen.publishing.download import fetch_split
    from pushgen.publishing.registry import UnknownSplit, lookup

    try:
        entry = lookup(text)
    except UnknownSplit:
        raise DatasetError(f"{text} does not exist, and no standard split has that name "
                           "(`pushgen list` shows them)") from None
    return fetch_split(entry.name, entry.version, progress=shown())
