"""A stop the user asked for while a command runs: Ctrl-C, or SIGTERM.

The handler raises ``KeyboardInterrupt`` wherever the main thread is. C code that calls back
into Python and clears the errors it meets can lose that exception, so the stop is also
remembered, and the work checks for it where stopping is safe: between users, between buckets
and before an output takes its place.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import NoReturn

_asked = threading.Event()


def ask(signum: int, frame: object) -> NoReturn:
    """The signal handler: remember the stop, and raise it where the main thread is."""
    _asked.set()
    raise KeyboardInterrupt


def asked() -> bool:
    return _asked.is_set()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a stop was asked for and the exception got lost."""
    if _asked.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """SIGTERM, and Ctrl-C unless the process ignores it, stop the block and are remembered
    until its end; the signals' earlier handlers come back after it."""
    handlers = {signal.SIGTERM: signal.getsignal(signal.SIGTERM)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        handlers[signal.SIGINT] = signal.default_int_handler
    _asked.clear()
    for number in handlers:
        signal.signal(number, ask)
    try:
        yield
    finally:
        for number, handler in handlers.items():
            if handler is not None:
                signal.signal(number, handler)
        _asked.clear()
