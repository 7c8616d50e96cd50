"""Compiles the model's kernels ahead of time (see ``ahead_of_time``) with numba's pycc.

Run by the wheel's build hook (``hatch_build.py``) in pushgen's build environment, which holds
numba, numpy and setuptools but not pushgen's other dependencies, so the package's ``__init__``
is not run. In a checkout: ``python pushgen/model/ahead_of_time_build.py [FOLDER]`` (default:
beside the kernels, where an editable install looks for them).

Every variant of ``kernel_signatures.SIGNATURES`` becomes an export of the ``_kernels`` extension,
compiled for a generic CPU of the build machine's architecture, so that a wheel runs on any
machine of it; numba's JIT compiles for the machine's own CPU.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import Any

MODEL = Path(__file__).resolve().parent


def signature_text(numba_type: Any) -> str:
    """A numba type as the signature string that ``kernel_signatures`` declares it by."""
    from numba import types as nb

    if isinstance(numba_type, nb.Array):
        dtype = _scalar_text(numba_type.dtype)
        if numba_type.layout == "C" and numba_type.mutable and numba_type.aligned:
            return f"{dtype}[{', '.join([':'] * (numba_type.ndim - 1) + ['::1'])}]"
        readonly = ", readonly=True" if not numba_type.mutable else ""
        return f"Array({dtype}, {numba_type.ndim}, {numba_type.layout!r}{readonly})"
    if isinstance(numba_type, nb.UniTuple):
        return f"UniTuple({signature_text(numba_type.dtype)}, {numba_type.count})"
    if isinstance(numba_type, nb.BaseTuple):
        return f"Tuple(({', '.join(signature_text(element) for element in numba_type)}))"
    return _scalar_text(numba_type)


def _scalar_text(numba_type: Any) -> str:
    return "boolean" if str(numba_type) == "bool" else str(numba_type)


def type_key(numba_type: Any) -> Any:
    """``ahead_of_time.argument_key``'s key of an argument numba types as ``numba_type``."""
    from numba import types
    from numba.np.numpy_support import as_dtype

    if isinstance(numba_type, types.Array):
        return (as_dtype(numba_type.dtype).str, numba_type.ndim, numba_type.layout, numba_type.mutable)
    if isinstance(numba_type, types.BaseTuple):
        return tuple(type_key(element) for element in numba_type)
    return as_dtype(numba_type).str


def dispatcher_signatures(dispatcher: Any) -> list[str]:
    """``return(arguments)`` of every variant a numba dispatcher has compiled."""
    return [f"{signature_text(dispatcher.overloads[arguments].signature.return_type)}"
            f"({', '.join(signature_text(argument) for argument in arguments)})"
            for arguments in dispatcher.signatures]


def _import_kernels_alone() -> Any:
    """``pushgen.model.kernel_signatures`` and the kernel modules, imported without the package's
    ``__init__`` (whose dependencies a build environment lacks) unless pushgen is already loaded."""
    for name, path in (("pushgen", MODEL.parent), ("pushgen.model", MODEL)):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package
    return importlib.import_module("pushgen.model.kernel_signatures")


def compile_kernels(folder: Path) -> list[Path]:
    """Writes the ``_kernels`` extension and its table into ``folder``; returns both."""
    signatures = _import_kernels_alone()
    from numba.core import sigutils

    from pushgen.model import ahead_of_time

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's pending deprecation
        from numba.pycc import CC

    folder.mkdir(parents=True, exist_ok=True)
    extension = CC(ahead_of_time.EXTENSION)
    exports: dict[str, list[list[Any]]] = {}
    for kernel, variants in signatures.SIGNATURES.items():
        module, name = kernel.split(".")
        function = getattr(importlib.import_module(f"pushgen.model.{module}"), name).python
        for variant, text in enumerate(variants):
            arguments, _ = sigutils.normalize_signature(text)
            export = ahead_of_time.export_name(kernel, variant)
            extension.export(export, text)(function)
            key = tuple(type_key(argument) for argument in arguments)
            exports.setdefault(kernel, []).append([_as_json(key), export])
    with tempfile.TemporaryDirectory(dir=folder) as scratch:  # the same file system: an atomic rename
        extension.output_dir = scratch
        extension.compile()
        built = Path(scratch) / extension.output_file
        target = folder / built.name
        built.replace(target)
    table = ahead_of_time.table_of(target)
    contents = {"digest": ahead_of_time.source_digest(MODEL), "kernels": exports}
    table.write_text(json.dumps(contents, indent=1) + "\n")
    return [target, table]


def _as_json(key: Any) -> Any:
    return [_as_json(element) for element in key] if isinstance(key, tuple) else key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compile pushgen's kernels ahead of time.")
    parser.add_argument("folder", nargs="?", type=Path, default=MODEL,
                        help="where to write the extension and its table (default: beside the kernels)")
    args = parser.parse_args(argv)
    for path in compile_kernels(args.folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
