"""How the model's kernels are compiled: numba in nopython mode, without the GIL, machine code
cached on disk.

numba is imported and a kernel compiled (or loaded from the cache) at the kernel's first call,
so that importing pushgen costs nothing for code that never runs one. The cache goes beside
the module (or numba's per-user folder, or ``NUMBA_CACHE_DIR``); where no folder is writable,
a kernel is compiled in each process instead. A process of pushgen's own calls the variants
compiled when pushgen was installed (``ahead_of_time``, which hold the GIL) where the argument
types have one.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from pushgen.model import ahead_of_time

BLAS_PROBE = "scipy.linalg.cython_blas"  # what numba imports to find a BLAS
_probe_blas = True
_ahead_of_time = False
_kernels: list[Kernel] = []


class Kernel:
    """A function compiled by numba at its first call; ``python`` is the function as written."""

    def __init__(self, function: Callable[..., Any]) -> None:
        functools.update_wrapper(self, function)
        self.python = function
        self._compiled: Callable[..., Any] | None = None
        self._variants: dict[ahead_of_time.Key, Callable[..., Any]] | None = None  # None: not looked up
        _kernels.append(self)

    def compiled(self) -> Callable[..., Any]:
        if self._compiled is None:
            numba = _numba()
            try:
                self._compiled = numba.njit(cache=True, nogil=True)(self.python)
            except RuntimeError:  # no writable cache folder
                self._compiled = numba.njit(cache=False, nogil=True)(self.python)
        return self._compiled

    def variants(self) -> dict[ahead_of_time.Key, Callable[..., Any]]:
        """The variants compiled ahead of time, by argument key (none outside pushgen's own
        processes, or without a usable extension)."""
        if self._variants is None:
            everything = ahead_of_time.compiled_variants() if _ahead_of_time else None
            self._variants = (everything or {}).get(ahead_of_time.kernel_name(self.python), {})
        return self._variants

    def __call__(self, *args: Any) -> Any:
        variants = self._variants
        if variants is None:
            variants = self.variants()
        function = variants.get(ahead_of_time.argument_key(args)) if variants else None
        if function is None:
            function = self._compiled
            if function is None:
                function = self.compiled()
        try:
            return function(*args)
        except SystemError as error:
            stop = _signal_exception(error)
            if stop is None:
                raise
            raise stop from None


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


def use_ahead_of_time(use: bool = True) -> None:
    """In a process of pushgen's own: kernels call their variants compiled ahead of time, where the
    argument types have one, instead of starting numba (``ahead_of_time``)."""
    global _ahead_of_time
    _ahead_of_time = use
    for loaded in _kernels:
        loaded._variants = None


def loaded_kernels() -> list[Kernel]:
    """The kernels numba has compiled (or loaded from its cache) in this process."""
    return [loaded for loaded in _kernels if loaded._compiled is not None]


def _numba() -> ModuleType:
    import numba

    if not _probe_blas and "numba.np.arraymath" not in sys.modules and BLAS_PROBE not in sys.modules:
        sys.modules[BLAS_PROBE] = None  # makes the import fail at once
        try:
            import numba.np.arraymath  # where numba probes, once per process
        finally:
            del sys.modules[BLAS_PROBE]
    return numba


def kernel(function: Callable[..., Any]) -> Kernel:
    return Kernel(function)
