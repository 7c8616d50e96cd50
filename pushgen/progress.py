"""Progress of a long command on the terminal: bars and notes on stderr.

A command line run turns progress on with ``terminal_progress(quiet)``: bars are drawn only
while stderr is a terminal and ``--quiet`` was not given; notes (one-line remarks beside the
result) are written unless ``--quiet`` was given. Outside such a block (a library call, a
notebook) no bar is drawn, so the library's own functions stay silent unless asked.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

import click

T = TypeVar("T")

_BARS: ContextVar[bool | None] = ContextVar("pushgen_bars", default=None)  # None: not in a command
_QUIET: ContextVar[bool] = ContextVar("pushgen_quiet", default=False)


@contextlib.contextmanager
def terminal_progress(quiet: bool) -> Iterator[None]:
    """Within the block, bars are shown when stderr is a terminal and ``quiet`` is false."""
    bars = _BARS.set(not quiet and sys.stderr.isatty())
    silent = _QUIET.set(quiet)
    try:
        yield
    finally:
        _BARS.reset(bars)
        _QUIET.reset(silent)


def shown(outside: bool = False) -> bool:
    """Whether bars are drawn now (for functions that take a ``progress`` flag): the command's
    choice inside ``terminal_progress``, ``outside`` elsewhere."""
    bars = _BARS.get()
    return outside if bars is None else bars


def bar(iterable: Iterable[T], *, desc: str, unit: str = "it") -> Iterable[T]:
    """``iterable`` with a tqdm bar on stderr when ``shown()`` (it disappears when done), else
    ``iterable`` itself (and tqdm is not even imported)."""
    if not shown():
        return iterable
    from tqdm.auto import tqdm

    drawn: Iterable[T] = tqdm(iterable, desc=desc, unit=unit, leave=False, file=sys.stderr,
                              dynamic_ncols=True)
    return drawn


@contextlib.contextmanager
def counter(*, desc: str, total: int, unit: str, drawn: bool) -> Iterator[Callable[[int], object]]:
    """A function that advances a tqdm bar on stderr (it stays when done), or, not ``drawn``, one
    that does nothing: then tqdm is not even imported (``make`` without a terminal)."""
    if not drawn:
        yield lambda steps: None
        return
    from tqdm.auto import tqdm

    with tqdm(total=total, unit=unit, desc=desc) as shown_bar:
        yield shown_bar.update


def note(text: str) -> None:
    """A remark on stderr beside the command's result, unless ``--quiet``."""
    if not _QUIET.get():
        click.echo(text, err=True)


def quiet_option(command: Callable[..., T]) -> Callable[..., T]:
    """Decorate a click command with ``--quiet``/``-q`` and run it inside ``terminal_progress``."""

    @click.option("--quiet", "-q", is_flag=True,
                  help="No progress bars or notes on stderr (errors are still shown).")
    @functools.wraps(command)
    def run(*args: Any, quiet: bool, **kwargs: Any) -> T:
        with terminal_progress(quiet):
            return command(*args, **kwargs)

    return run


@contextlib.contextmanager
def stages(desc: str, total: int) -> Iterator[Callable[[str], None]]:
    """A bar over ``total`` named stages of one job, drawn when ``shown()``: call the yielded
    function with each stage's name as it begins (the previous one is then counted as done)."""
    if not shown():
        yield lambda name: None
        return
    from tqdm.auto import tqdm

    with tqdm(desc=desc, total=total, unit="step", leave=False, file=sys.stderr, dynamic_ncols=True,
              bar_format="{desc} [step {n}/{total}, {elapsed}]") as steps:
        begun = False

        def begin(name: str) -> None:
            nonlocal begun
            if begun:
                steps.update()
            begun = True
            steps.set_description_str(f"{desc}: {name}")

        yield begin
        if begun:
            steps.update()
