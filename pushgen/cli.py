"""The ``pushgen`` command line: thin commands over the library's public functions."""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from pushgen._version import __version__
from pushgen.dataset import FORMATS, DatasetError, write_dataset
from pushgen.generate import MAX_DAYS, MAX_MONTHS, MAX_USERS, GenerationError, generate

USER_ERRORS = (GenerationError, DatasetError)


class UserFacingError(click.ClickException):
    """An error the user caused: printed as one line, exit code 2."""

    exit_code = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pushgen")
def cli() -> None:
    """Synthetic smartphone push-notification datasets and benchmarks."""


@cli.command()
@click.option("--users", type=click.IntRange(1, MAX_USERS), default=50, show_default=True,
              help="Number of users.")
@click.option("--months", type=click.IntRange(1, MAX_MONTHS), default=None,
              help="Calendar months to simulate [default: 6].")
@click.option("--days", type=click.IntRange(1, MAX_DAYS), default=None,
              help="Days to simulate (instead of --months).")
@click.option("--start", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="First day, YYYY-MM-DD [default: 2026-01-05].")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: a new folder named from the parameters].")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True)
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
def make(users: int, months: int | None, days: int | None, start: dt.datetime | None, seed: int,
         out: Path | None, fmt: str, force: bool) -> None:
    """Generate a dataset of USERS users over MONTHS months."""
    from pushgen.card import dataset_card, summary_paragraph

    if months is not None and days is not None:
        raise click.UsageError("give --months or --days, not both")
    if out is None:
        span = f"{days}d" if days is not None else f"{months or 6}m"
        out = Path(f"pushgen-{users}u-{span}-seed{seed}")
    if out.exists() and not force:
        raise UserFacingError(f"{out} already exists; choose another --out or pass --force")
    with user_errors():
        dataset = generate(users=users, months=months, days=days,
                           start=start.date() if start else None, seed=seed,
                           progress=sys.stderr.isatty())
        write_dataset(dataset, out, fmt=fmt, force=force, card=dataset_card)
    click.echo(summary_paragraph(dataset, out))


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's user errors into one-line CLI errors."""
    try:
        yield
    except USER_ERRORS as error:
        raise UserFacingError(str(error)) from None


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors with exit code 2, never a traceback for user mistakes."""
    try:
        cli.main(args=argv, prog_name="pushgen", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("Interrupted; nothing was written.", err=True)
        return 130
    except click.ClickException as error:
        command = f"pushgen {error.ctx.command.name}" if getattr(error, "ctx", None) else "pushgen"
        if getattr(error, "ctx", None) is not None and error.ctx.parent is None:
            command = "pushgen"
        click.echo(f"{command}: error: {error.format_message()}", err=True)
        return 2
    except click.exceptions.Exit as done:
        return done.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
