"""How a process that runs only pushgen's code starts and ends: the ``pushgen`` program and the
workers of ``make --jobs``. A library user's process is left as it is.

- numba starts without its BLAS probe (``pushgen.model.compiled.skip_blas_probe``): about 0.2 s.
- The cycle collector looks at young objects after every ``YOUNG_OBJECTS`` allocations instead of
  Python's 700. Start-up builds some hundred thousand lasting objects (modules, numba's types and
  registries, pyarrow's); at 700 that made about 300 collections, two of them full, which found
  almost nothing (0.1 s of ``make``). The few cycles the work leaves are still collected.
- At the end, what the process holds is left out of the interpreter's last search for
  reference cycles, which walks every object numba and pyarrow made (about 0.3 s) and frees
  nothing the exit would not: files are closed and output flushed before.
"""

from __future__ import annotations

import gc

from pushgen.model.compiled import skip_blas_probe

YOUNG_OBJECTS = 10_000


def start() -> None:
    skip_blas_probe()
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])


def end() -> None:
    gc.freeze()
