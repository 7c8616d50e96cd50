"""How the model's kernels are compiled: numba in nopython mode, without the GIL, machine code
cached on disk.

numba is imported and a kernel compiled (or loaded from its cache) at the kernel's first call,
so that importing pushgen costs nothing for code that never runs one. The cache goes beside the
module, or in numba's per-user folder where that is read-only (``NUMBA_CACHE_DIR`` chooses
another); where no folder is writable, or the cache is damaged, a kernel is compiled in each
process instead. The first compile in a process says so on stderr, for the command line and a
library user alike (``pushgen.progress.note``: nothing with ``--quiet``); a warm run says nothing.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

BLAS_PROBE = "scipy.linalg.cython_blas"  # what numba imports to find a BLAS
CACHE_MODULE = "numba.core.caching"  # where numba reads and writes its cache
COMPILE_SECONDS = 15  # CPU time to compile every kernel `make` runs, on a 2-core machine of 2026
COMPILING = ("pushgen: compiling the model's kernels "
             f"(once per environment, up to about {COMPILE_SECONDS} s)...")
_probe_blas = True
_announce = True
_announced = False
_kernels: list[Kernel] = []


class Kernel:
    """A function compiled by numba at its first call; ``python`` is the function as written."""

    def __init__(self, function: Callable[..., Any]) -> None:
        functools.update_wrapper(self, function)
        self.python = function
        self._compiled: Callable[..., Any] | None = None
        _kernels.append(self)

    def compiled(self, cache: bool = True) -> Callable[..., Any]:
        """numba's dispatcher of the function, its machine code cached on disk if ``cache``
        and some cache folder is writable."""
        if self._compiled is None or not cache:
            numba = _numba()
            try:
                self._compiled = numba.njit(cache=cache, nogil=True)(self.python)
            except RuntimeError:  # no writable cache folder
                self._compiled = numba.njit(cache=False, nogil=True)(self.python)
        return self._compiled

    def __call__(self, *args: Any) -> Any:
        function = self._compiled
        if function is None:
            function = self.compiled()
        try:
            return _run(function, args)
        except Exception as error:
            if not _raised_by_cache(error):
                raise
        return _run(self.compiled(cache=False), args)  # a damaged cache entry: compiled anew, not cached


def _run(function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    try:
        return function(*args)
    except SystemError as error:
        stop = _signal_exception(error)
        if stop is None:
            raise
        raise stop from None


def _raised_by_cache(error: Exception) -> bool:
    """Whether numba raised ``error`` while it read or wrote its cache (a damaged index or data file)."""
    return any(frame.f_globals.get("__name__") == CACHE_MODULE
               for frame, _ in traceback.walk_tb(error.__traceback__))


def _signal_exception(error: SystemError) -> BaseException | None:
    """The exception a signal handler raised (Ctrl-C, a stop) while a kernel boxed its result.

    numba boxes arrays through a Python helper, where the handler can run; Python then reports
    each C call on the way out as a SystemError caused by the one inside it."""
    cause = error.__cause__
    while isinstance(cause, SystemError):
        cause = cause.__cause__
    return cause if isinstance(cause, KeyboardInterrupt | SystemExit) else None


def skip_blas_probe() -> None:
    """In a process of pushgen's own (the program, its workers): numba's CPU target, when it
    starts, finds no BLAS instead of importing scipy.linalg to look for one (about 0.2 s of every
    process that runs a kernel, most of it scipy's array-API layer). No kernel calls a BLAS.

    Only numba's choice for ``np.convolve`` and ``np.correlate`` of floats depends on it (a loop
    instead of BLAS dot), which no pushgen kernel uses; a library user's process is left alone."""
    global _probe_blas
    _probe_blas = False


def announce_compiling(announce: bool) -> None:
    """Whether this process says on stderr that it compiles the kernels (a worker of ``make
    --jobs`` does not: its parent does)."""
    global _announce
    _announce = announce


@functools.cache
def _numba() -> ModuleType:
    import numba
    from numba.core import event

    if not _probe_blas and "numba.np.arraymath" not in sys.modules and BLAS_PROBE not in sys.modules:
        # None in sys.modules makes the import fail at once (the import system's documented
        # behaviour, which typeshed's dict[str, ModuleType] does not describe)
        sys.modules[BLAS_PROBE] = None  # type: ignore[assignment]
        try:
            import numba.np.arraymath  # where numba probes, once per process
        finally:
            del sys.modules[BLAS_PROBE]

    class Announcer(event.Listener):
        """Says, as numba begins to compile (not load) a kernel, that it compiles them: once."""

        def on_start(self, event: event.Event) -> None:
            global _announced
            function = event.data["dispatcher"].py_func
            if not _announced and _announce and function in {loaded.python for loaded in _kernels}:
                from pushgen.progress import note

                _announced = True
                note(COMPILING)

        def on_end(self, event: event.Event) -> None:
            pass

    event.register("numba:compile", Announcer())
    return numba
