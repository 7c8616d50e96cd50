"""Option types of the command line that bound what they read before converting it."""

from __future__ import annotations

import math
import re
from typing import Any

import click

MAX_DIGITS = 40
WHOLE = re.compile(r"[+-]?(\d+)")


class WholeNumber(click.IntRange):
    """``click.IntRange`` that refuses a number of more than ``MAX_DIGITS`` digits in one short
    line (Python will not even convert one of 4,301 digits, and would echo it in the message)."""

    name = "integer"  # "'abc' is not a valid integer." (IntRange's own says "integer range")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        found = WHOLE.fullmatch(value.strip()) if isinstance(value, str) else None
        if found and len(found[1]) > MAX_DIGITS:
            self.fail(f"a {len(found[1]):,}-digit number is too long; give a whole number "
                      f"{self.allowed()}", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        return super()._describe_range() if self.min is not None or self.max is not None else ""

    def allowed(self) -> str:
        if self.min is not None and self.max is not None:
            return f"from {self.min} to {self.max}"
        return f"of at least {self.min}" if self.min is not None else f"of at most {MAX_DIGITS} digits"


class FilePath(click.Path):
    """``click.Path`` that refuses an empty path, which ``pathlib`` reads as the current folder.

    Parameters
    ----------
    **kwargs
        Those of ``click.Path``.

    Examples
    --------
    >>> import click
    >>> FilePath().convert("", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: the path is empty; give a file or folder name
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value:
            self.fail("the path is empty; give a file or folder name", param, ctx)
        return super().convert(value, param, ctx)


class FiniteNumber(click.types.FloatParamType):
    """click's ``FLOAT`` that also refuses ``nan`` and ``inf``."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{str(value)[:40]!r} is not a finite number", param, ctx)
        return number
