"""A stop the user asked for while a command runs: Ctrl-C, or SIGTERM.

The handler raises ``KeyboardInterrupt`` wherever the main thread is. C code that calls back
into Python and clears the errors it meets can lose that exception, so the stop is also
remembered, and the work checks for it where stopping is safe: between users, between buckets
and before an output takes its place.

Before that, while the program's modules load, ``starting`` stops it at once with the same line
and exit code: nothing was written yet.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

TYPE_CHECKING = False  # typing itself loads only after the handler is in place
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any, NoReturn, TypeAlias

    Handler: TypeAlias = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None

_asked = threading.Event()
_before_start: dict[int, Handler] = {}  # the handlers ``starting`` replaced
INTERRUPTED = "Interrupted; nothing was written."
INTERRUPTED_CODE = 130


def _stop_while_starting(signum: int, frame: object) -> NoReturn:
    """Ctrl-C or SIGTERM while the program's modules load: nothing was written yet, so just stop."""
    sys.stderr.write(f"{INTERRUPTED}\n")
    raise SystemExit(INTERRUPTED_CODE)


def starting() -> bool:
    """Stop the process with the interrupted line on Ctrl-C (unless the process ignores it) and
    SIGTERM (unless handled) from now until ``stoppable`` or ``started``; whether this call did so
    (not if it was done already, or off the main thread)."""
    if _before_start or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _before_start[signal.SIGINT] = signal.default_int_handler
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        _before_start[signal.SIGTERM] = signal.SIG_DFL
    for number in _before_start:
        signal.signal(number, _stop_while_starting)
    return bool(_before_start)


def started() -> None:
    """Put back the handlers ``starting`` replaced."""
    for number, handler in _before_start.items():
        if signal.getsignal(number) is _stop_while_starting:
            signal.signal(number, handler)
    _before_start.clear()


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
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _stop_while_starting):
        handlers[signal.SIGINT] = signal.getsignal(signal.SIGINT)
    handlers = {number: _before_start.get(number, handler) if handler is _stop_while_starting else handler
                for number, handler in handlers.items()}  # the start is over
    _before_start.clear()
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


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Ctrl-C held back from the block, and acted on at its end, as it would have been at its
    start. In the main thread its handler only notes it meanwhile, and the thread blocks SIGINT
    (``pthread_sigmask``): a thread or process started in the block inherits that mask, so a
    Ctrl-C sent to the whole group does not reach a new process before it has chosen what to do
    with one."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    handler, noted = signal.getsignal(signal.SIGINT), []
    if callable(handler):
        signal.signal(signal.SIGINT, lambda signum, frame: noted.append((signum, frame)))
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if callable(handler):
            signal.signal(signal.SIGINT, handler)
            if noted:
                handler(*noted[0])
