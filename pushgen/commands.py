"""The ``pushgen`` command line: thin commands over the library's public functions."""
# ruff: noqa: E402  (Ctrl-C is handled before the slow imports)

from __future__ import annotations

import sys

from pushgen import stopping

_STARTED_HERE = stopping.starting()  # not if the program did already

import re
from typing import Any

import click

from pushgen import cli_bench, cli_data

LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
NOT_UTF8 = re.compile("[\ud800-\udfff]")  # lone surrogates: bytes of another encoding passed through


class _Commands(click.Group):
    """The ``pushgen`` group. A stop inside a command leaves it as ``click``'s ``Abort``: click's
    ``main`` would write an empty line to stderr before it (for a terminal's ``^C``), and the
    stop's message is stderr's one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise click.exceptions.Abort() from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "--version", package_name="pushgen", prog_name="pushgen")
def cli() -> None:
    """Synthetic smartphone push-notification datasets and benchmarks."""


for _command in (cli_data.make, cli_data.report_command, cli_data.describe_command,
                 cli_data.validate_command, cli_data.split_command, cli_data.list_command,
                 cli_data.download_command, cli_bench.evaluate_command, cli_bench.benchmark_command,
                 cli_bench.log_command):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors with exit code 2, never a traceback for user mistakes."""
    args = sys.argv[1:] if argv is None else argv
    if (text := next((a for a in args if NOT_UTF8.search(a)), None)) is not None:
        click.echo(f"{_command_name(args)}: error: {ascii(text)[1:-1]} is not valid UTF-8 text; pushgen "
                   "names its files and reads its arguments in UTF-8 (rename it)", err=True)
        return 2
    from pushgen.data.folder_lock import session

    # a stopped run cleans up like Ctrl-C; the folders read stay one version each to the end
    with stopping.stoppable(), session():
        try:
            result = cli.main(args=args, prog_name="pushgen", standalone_mode=False)
        except click.exceptions.NoArgsIsHelpError as help_text:
            click.echo(help_text.ctx.get_help())
            return 0
        except (click.exceptions.Abort, KeyboardInterrupt):
            return _interrupted()
        except click.ClickException as error:
            click.echo(f"{_command_name(args)}: error: {one_line(error.format_message())}", err=True)
            return error.exit_code
        except click.exceptions.Exit as done:
            return done.exit_code
        except Exception:
            if stopping.asked():  # whatever the stop broke on its way
                return _interrupted()
            raise
    return result if isinstance(result, int) else 0


def _interrupted() -> int:
    click.echo(stopping.INTERRUPTED, err=True)
    return stopping.INTERRUPTED_CODE


def one_line(text: str) -> str:
    """``text`` on one line: line breaks and other control characters (say, in a file name) escaped."""
    return LINE_BREAKING.sub(lambda found: repr(found[0])[1:-1], text.strip())


def _command_name(args: list[str]) -> str:
    command = next((a for a in args if not a.startswith("-")), None)
    return f"pushgen {command}" if command in cli.commands else "pushgen"


if _STARTED_HERE:  # imported by a library user (click's test runner): the process's handlers come back
    stopping.started()

if __name__ == "__main__":
    sys.exit(main())
