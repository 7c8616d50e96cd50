"""The ``pushgen`` commands that make, split, fetch, check, describe and report on datasets."""

from __future__ import annotations

import datetime as dt
import functools
import json
from pathlib import Path

import click

from pushgen.cli_support import UserFacingError, folder_or_standard_split, user_errors
from pushgen.cli_types import FilePath, WholeNumber
from pushgen.data.dataset import FORMATS
from pushgen.data.errors import ENGINES
from pushgen.data.outputs import check_output
from pushgen.data.recipe import MAX_DAYS, MAX_MONTHS, MAX_USERS, make_recipe
from pushgen.progress import note, quiet_option, shown
from pushgen.text_tables import counted, plural


@click.command()
@click.option("--users", type=WholeNumber(1, MAX_USERS), default=50, show_default=True,
              help="Number of users.")
@click.option("--months", type=WholeNumber(1, MAX_MONTHS), default=None,
              help="Calendar months to simulate [default: 6].")
@click.option("--days", type=WholeNumber(1, MAX_DAYS), default=None,
              help="Days to simulate (instead of --months).")
@click.option("--start", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="First day, YYYY-MM-DD [default: 2026-01-05].")
@click.option("--seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True,
              help="The dataset seed: the same recipe and seed give the same data.")
@click.option("--out", type=FilePath(path_type=Path), default=None,
              help="Output folder [default: a new folder named from the parameters].")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True)
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@click.option("--jobs", type=WholeNumber(1, 1024), default=1, show_default=True,
              help="Processes that simulate: this one and N - 1 workers (the data is the same for any N).")
@click.option("--engine", type=click.Choice(ENGINES), default="local", show_default=True,
              help="local processes, or a Dask cluster (needs pushgen[dask]).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address [default: a local cluster of --jobs workers].")
@click.option("--report", "with_report", is_flag=True,
              help="Also write report.html, the visual report, beside the data (needs pushgen[plot]).")
@quiet_option
def make(users: int, months: int | None, days: int | None, start: dt.datetime | None, seed: int,
         out: Path | None, fmt: str, force: bool, jobs: int, engine: str,
         scheduler: str | None, with_report: bool) -> None:
    """Generate a dataset of USERS users over MONTHS months."""
    from pushgen.data.build import building
    from pushgen.publishing.card import summary_paragraph
    from pushgen.publishing.standard import write_dataset_metadata

    if months is not None and days is not None:
        raise click.UsageError("give --months or --days, not both")
    if scheduler is not None and engine != "dask":
        raise click.UsageError("--scheduler goes with --engine dask")
    if out is None:
        span = f"{days}d" if days is not None else f"{months or 6}m"
        out = Path(f"pushgen-{users}u-{span}-seed{seed}")
    with user_errors():
        check_output(out, force)
        if with_report:
            _check_matplotlib()
        recipe = make_recipe(users=users, months=months, days=days,
                             start=start.date() if start else None, seed=seed)
        with building(recipe, out, fmt=fmt, force=force, jobs=jobs, engine=engine, scheduler=scheduler,
                      progress=shown()) as built:
            if with_report:  # before the card, which links it
                from pushgen.report import write_dataset_report

                built.add_file(write_dataset_report(built.folder, out.name))
            write_dataset_metadata(built)
    click.echo(summary_paragraph(built.manifest, out))


def _check_matplotlib() -> None:
    """A report needs matplotlib: checked before any work."""
    from pushgen.benchmark.plots import matplotlib_or_error

    try:
        matplotlib_or_error()
    except ImportError as error:
        raise UserFacingError(str(error)) from None


@click.command("report")
@click.argument("path")
@click.option("--out", type=FilePath(path_type=Path), default=None,
              help="The HTML file [default: NAME-report.html beside PATH].")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def report_command(path: str, out: Path | None, force: bool) -> None:
    """Write the visual report of PATH: a dataset, split or benchmark results folder, or a standard
    split's name. One HTML file with the figures embedded (needs pushgen[plot])."""
    _check_matplotlib()
    source = Path(path)
    with user_errors():  # a name the system refuses (too long, say) is one line too
        if out is None:
            named = source.resolve() if source.exists() else Path.cwd() / source.name
            out = named.with_name(f"{named.name}-report.html") if named.name else Path("report.html")
        from pushgen.report import write_report

        write_report(path, out, force=force)  # the --out checks come before any reading
    click.echo(f"Wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")


@click.command("describe")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@quiet_option
def describe_command(path: str, as_json: bool) -> None:
    """Print the calibration statistics of the dataset at PATH, beside the published figures."""
    from pushgen.data.describe import describe_path
    from pushgen.data.describe_report import format_description
    from pushgen.data.json_limits import strict_json
    from pushgen.splits.validate import is_split_folder

    with user_errors():
        folder = folder_or_standard_split(path)
        if is_split_folder(folder):
            raise UserFacingError(f"{path} is a split: describe reads a dataset (a split's test parts hold "
                                  f"no outcomes); describe the dataset it was made from, or `pushgen report "
                                  f"{path}` for the split's figures")
        stats = describe_path(folder)
    click.echo(strict_json(stats) if as_json else format_description(stats), nl=as_json)


@click.command("validate")
@click.argument("path")
@quiet_option
def validate_command(path: str) -> None:
    """Check the dataset, split, log or benchmark results folder at PATH (or a standard split's
    name) against its manifest.json, split.json, log.json or benchmark.json and the schemas (exit 1
    if invalid)."""
    from pushgen.data.dataset import read_manifest
    from pushgen.data.validate import validate
    from pushgen.ope.episode_folder import names_episode_log, validate_episode_log
    from pushgen.ope.folder import is_log_folder, propensity_blocker, read_description, validate_log
    from pushgen.publishing.registry import identity_problem
    from pushgen.replay.results import validate_results
    from pushgen.splits.validate import is_split_folder, validate_split

    with user_errors():
        folder = folder_or_standard_split(path)
    split = is_split_folder(folder)
    log = not split and is_log_folder(folder)
    episodes = log and names_episode_log(folder)
    results = not split and not log and (folder / "benchmark.json").is_file()
    with user_errors():
        problems = (validate_split(folder) if split else validate_episode_log(folder) if episodes
                    else validate_log(folder) if log else validate_results(folder) if results
                    else validate(folder))
        if split and not problems and (claim := identity_problem(folder, json.loads(
                (folder / "split.json").read_bytes()))) is not None:
            problems = [claim]
    if problems:
        for problem in problems:
            click.echo(problem)
        click.echo(f"invalid: {folder} ({plural(len(problems), 'problem')})", err=True)
        raise click.exceptions.Exit(1)
    if split:
        described = json.loads((folder / "split.json").read_text())
        rows = sum(part["rows"] for name, part in described["parts"].items()
                   if not name.startswith("scorer/"))
        click.echo(f"valid: {folder} (split, {len(described['parts'])} parts, {rows:,} rows, "
                   f"{counted(described['users'], 'user')}; every file's sha256 and every table's "
                   "fingerprint checked)")
        return
    if episodes:
        described = read_description(folder)
        click.echo(f"valid: {folder} (episode log, {counted(described['episodes'], 'episode')}, "
                   f"{counted(described['rounds'], 'step')}; every file's sha256 checked, every propensity "
                   "the logging policy's own)")
        return
    if log:
        described = read_description(folder)
        blocker = propensity_blocker(described)
        click.echo(f"valid: {folder} (bandit log, {counted(described['rounds'], 'round')}, "
                   f"{counted(described['candidate_rows'], 'action')}; every file's sha256 checked, "
                   + ("every propensity the logging policy's own)" if blocker is None else
                      f"propensities sum to 1 per round; not recomputed: {blocker})"))
        return
    if results:
        files = json.loads((folder / "benchmark.json").read_text())["files"]
        click.echo(f"valid: {folder} (benchmark results, {counted(len(files), 'file')}; every file's sha256 "
                   "and every table's columns checked)")
        return
    rows = read_manifest(folder)["rows"]
    click.echo(f"valid: {folder} ({counted(rows['notifications'], 'notification')}, "
               f"{counted(rows['users'], 'user')})")


@click.command("split")
@click.argument("dataset", type=FilePath(path_type=Path))
@click.option("--out", type=FilePath(path_type=Path), default=None,
              help="Output folder [default: DATASET-split beside DATASET].")
@click.option("--train-months", type=WholeNumber(1, MAX_MONTHS), default=None,
              help="Months of history for task 1, validation weeks included [default: half the "
                   "dataset's months].")
@click.option("--test-months", type=WholeNumber(1, MAX_MONTHS), default=None,
              help="Months after the training months that make the test sets [default: the rest "
                   "of the dataset].")
@click.option("--validation-weeks", type=WholeNumber(0, None), default=2, show_default=True,
              help="The last weeks of the training months, kept for model selection.")
@click.option("--cold-start-users", type=WholeNumber(0, None), default=0, show_default=True,
              help="Users held out entirely for task 2 (the highest user ids).")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def split_command(dataset: Path, out: Path | None, train_months: int | None, test_months: int | None,
                  validation_weeks: int, cold_start_users: int, force: bool) -> None:
    """Split the dataset folder DATASET for task 1 (offline) and task 2 (cold start); every month
    of it goes into a part unless --train-months and --test-months say otherwise."""
    from pushgen.data.verify import existing_folder, verify_dataset
    from pushgen.publishing.standard import write_metadata
    from pushgen.splits import SplitSpec, fill_months, left_out, make_split

    with user_errors():
        existing_folder(dataset)  # before the default --out beside it is judged
        if out is None:
            source = dataset.resolve()
            out = source.with_name(f"{source.name}-split")
        check_output(out, force, keep=(dataset,))
        recipe = verify_dataset(dataset)["recipe"]
        train_months, test_months = fill_months(recipe, train_months, test_months)
        spec = SplitSpec(train_months, test_months, validation_weeks, cold_start_users)
        make_split(dataset, out, spec, force=force,
                   describe=functools.partial(write_metadata, final_name=out.name))
    description = json.loads((out / "split.json").read_text())
    parts = ", ".join(f"{part} {p['rows']:,} rows ({plural(len(p['users']), 'user')})"
                      for part, p in description["parts"].items())
    click.echo(f"Wrote {out} ({train_months} training + {test_months} test months): {parts}")
    if (unused := left_out(recipe, spec)) is not None:
        note(f"Note: {unused}")


@click.command("list")
@click.option("--cache", type=FilePath(path_type=Path), default=None,
              help="Cache folder [default: $PUSHGEN_CACHE or the user cache folder].")
def list_command(cache: Path | None) -> None:
    """List the standard splits: name, version, users, months, size, where they are at hand, and
    whether a newer version supersedes them."""
    from pushgen.publishing.download import where
    from pushgen.publishing.registry import list_splits, superseded_by
    from pushgen.text_tables import aligned_table

    rows = [("SPLIT", "VERSION", "USERS", "COLD-START", "MONTHS", "SIZE", "AT HAND", "STATUS")]
    for entry in list_splits():
        newer = superseded_by(entry.label)
        rows.append((entry.label, entry.version, str(entry.users), str(entry.cold_start_users),
                     str(entry.months or "-"), f"{entry.bytes / 1e6:.1f} MB",
                     where(entry, cache) or "-", f"superseded by {newer.label}" if newer else "current"))
    for line in aligned_table(rows[0], rows[1:]):
        click.echo(line)


@click.command("download")
@click.argument("name")
@click.option("--version", "version", default=None, help="Version, e.g. v4 (or 4) [default: the latest].")
@click.option("--regenerate", is_flag=True,
              help="No network: rebuild the split from its recipe and check its fingerprint.")
@click.option("--cache", type=FilePath(path_type=Path), default=None,
              help="Cache folder [default: $PUSHGEN_CACHE or the user cache folder].")
@quiet_option
def download_command(name: str, version: str | None, regenerate: bool, cache: Path | None) -> None:
    """Fetch the standard split NAME (e.g. pushgen-v4) and print its folder."""
    from pushgen.publishing.download import fetch_split
    from pushgen.publishing.registry import lookup

    with user_errors():
        entry = lookup(name, version)
        folder = fetch_split(entry.name, entry.version, cache=cache, regenerate=regenerate,
                             progress=shown())
    how = ("regenerated; content fingerprint matches" if regenerate
           else "every file's sha256 checked")
    note(f"{entry.label}: {how} ({entry.fingerprint[:16]})")
    click.echo(str(folder))

