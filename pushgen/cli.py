"""The ``pushgen`` command line's front door: answers ``--version`` at once and hands every
other command to ``pushgen.commands`` (imported only then: it needs pandas and pyarrow)."""

from __future__ import annotations

import contextlib
import io
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
        if sys.stdout is not None:  # None: started without one, in a process not the program's
            sys.stdout.flush()
    except OSError as error:
        if not _writing_output(error):
            raise
        with contextlib.suppress(OSError, ValueError, AttributeError):  # Python's last flush must not fail
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        command = next((a for a in args if not a.startswith("-")), None)
        with contextlib.suppress(OSError, ValueError, AttributeError):  # standard error may fail as well
            sys.stderr.write(f"pushgen{f' {command}' * bool(command)}: error: cannot write to standard "
                             f"output: {error.strerror or error}\n")
        return 2
    return code


def program() -> int:
    """The ``pushgen`` program: ``main`` on the process's arguments, in a process of pushgen's own
    (``pushgen.own_process``: how numba and the cycle collector start, and how the process ends)."""
    own_process.start()
    _standard_streams()
    code = main()
    own_process.end()
    return code


class _UnreadOutput(io.FileIO):
    """Standard output's file: once no one reads it (a closed pipe, ``pushgen list | head -1``),
    what is written goes to ``os.devnull``, so the command finishes its work and exits with its
    own code, whenever the reader left."""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.fileno())
            os.close(null)
            return memoryview(data).nbytes


def _standard_streams() -> None:
    """Standard output and error as the program writes them. One the program started without
    (``>&-``) is ``os.devnull``: the command does its work and its output goes nowhere, as it
    would to a closed pipe, and no file the command opens takes the stream's place. Standard
    output is written through an ``_UnreadOutput`` (unless the caller replaced ``sys.stdout``)."""
    for number in (1, 2):
        try:
            os.fstat(number)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != number:
                os.dup2(null, number)
                os.close(null)
    before = sys.stdout
    if before is not sys.__stdout__:  # the caller's own (a test's capture)
        return
    if before is not None:
        before.flush()
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_UnreadOutput(1, "w", closefd=False)),
                                  encoding=before.encoding if before else "utf-8",
                                  errors=before.errors if before else "strict",
                                  line_buffering=bool(before and before.line_buffering))
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def _writing_output(error: OSError) -> bool:
    """Whether ``error`` came from writing the output: raised in ``click.echo`` or here."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None:
        return False
    code = frame.tb_frame.f_code
    return (code.co_name == "echo" and Path(code.co_filename).parts[-2:] == ("click", "utils.py")) or (
        code in (main.__code__, _UnreadOutput.write.__code__))


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, for click's test runner
        from pushgen.commands import cli

        return cli
    raise AttributeError(f"module 'pushgen.cli' has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(program())
