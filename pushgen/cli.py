"""The ``pushgen`` command line's front door: answers ``--version`` at once and hands every
other command to ``pushgen.commands`` (imported only then: it needs pandas and pyarrow)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from pushgen import own_process


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pushgen`` command (see ``pushgen.commands.main``)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        if args == ["--version"]:
            from pushgen._version import __version__

            print(f"pushgen, version {__version__}")
            code = 0
        else:
            from pushgen.commands import main as run

            code = run(args)
        sys.stdout.flush()
    except OSError as error:
        if not _writing_output(error):
            raise
        with contextlib.suppress(OSError, ValueError):  # Python's last flush at exit must not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        command = next((a for a in args if not a.startswith("-")), None)
        sys.stderr.write(f"pushgen{f' {command}' * bool(command)}: error: cannot write to standard "
                         f"output: {error.strerror or error}\n")
        return 2
    return code


def program() -> int:
    """The ``pushgen`` program: ``main`` on the process's arguments, in a process of pushgen's own
    (``pushgen.own_process``: how numba and the cycle collector start, and how the process ends)."""
    own_process.start()
    code = main()
    own_process.end()
    return code


def _writing_output(error: OSError) -> bool:
    """Whether ``error`` came from writing the output: raised in ``click.echo`` or here."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None:
        return False
    code = frame.tb_frame.f_code
    return (code.co_name == "echo" and Path(code.co_filename).parts[-2:] == ("click", "utils.py")) or (
        code is main.__code__)


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, for click's test runner
        from pushgen.commands import cli

        return cli
    raise AttributeError(f"module 'pushgen.cli' has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(program())
