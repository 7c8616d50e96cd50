"""The ``pushgen`` command line's front door: answers ``--version`` at once and hands every
other command to ``pushgen.commands`` (imported only then: it needs pandas and pyarrow)."""

from __future__ import annotations

import sys
from typing import Any

from pushgen._version import __version__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pushgen`` command (see ``pushgen.commands.main``)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        print(f"pushgen, version {__version__}")
        return 0
    from pushgen.commands import main as run

    return run(args)


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, for click's test runner
        from pushgen.commands import cli

        return cli
    raise AttributeError(f"module 'pushgen.cli' has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
