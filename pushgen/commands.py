"""The ``pushgen`` command line: thin commands over the library's public functions."""
# ruff: noqa: E402  (Ctrl-C is handled before the slow imports)

from __future__ import annotations

import sys

from pushgen import stopping

_STARTED_HERE = stopping.starting()  # not if the program did already

import contextlib
import datetime as dt
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pyarrow as pa

from pushgen._version import __version__
from pushgen.cli_types import FiniteNumber, WholeNumber
from pushgen.data.dataset import FORMATS, DatasetError, first_line
from pushgen.data.engines import ENGINES, EngineError
from pushgen.data.generator import MAX_DAYS, MAX_MONTHS, MAX_USERS, GenerationError, make_recipe
from pushgen.data.outputs import check_output, os_error_message
from pushgen.progress import note, quiet_option, shown
from pushgen.replay.rewards import DEFAULT_MODE, MODES

USER_ERRORS = (GenerationError, DatasetError, EngineError)
LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class BaselinesOption(click.Option):
    """``--baselines``, whose help lists the baselines (imported only when help is shown)."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from pushgen.baselines import BASELINES

        self.help = f"Comma-separated baselines [default: all]: {', '.join(BASELINES)}."
        return super().get_help_record(ctx)


class UserFacingError(click.ClickException):
    """An error the user caused: printed as one line, exit code 2."""

    exit_code = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pushgen")
def cli() -> None:
    """Synthetic smartphone push-notification datasets and benchmarks."""


@cli.command()
@click.option("--users", type=WholeNumber(1, MAX_USERS), default=50, show_default=True,
              help="Number of users.")
@click.option("--months", type=WholeNumber(1, MAX_MONTHS), default=None,
              help="Calendar months to simulate [default: 6].")
@click.option("--days", type=WholeNumber(1, MAX_DAYS), default=None,
              help="Days to simulate (instead of --months).")
@click.option("--start", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="First day, YYYY-MM-DD [default: 2026-01-05].")
@click.option("--seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None,
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
    """``make --report`` needs matplotlib: checked before generating."""
    from pushgen.benchmark.plots import matplotlib_or_error

    try:
        matplotlib_or_error()
    except ImportError as error:
        raise UserFacingError(str(error)) from None


@cli.command("report")
@click.argument("path")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="The HTML file [default: NAME-report.html beside PATH].")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def report_command(path: str, out: Path | None, force: bool) -> None:
    """Write the visual report of PATH: a dataset, split or benchmark results folder, or a standard
    split's name. One HTML file with the figures embedded (needs pushgen[plot])."""
    from pushgen.benchmark.plots import matplotlib_or_error

    try:
        matplotlib_or_error()
    except ImportError as error:
        raise UserFacingError(str(error)) from None
    source = Path(path)
    with user_errors():  # a name the system refuses (too long, say) is one line too
        if out is None:
            named = source.resolve() if source.exists() else Path.cwd() / source.name
            out = named.with_name(f"{named.name}-report.html") if named.name else Path("report.html")
        from pushgen.report import write_report

        write_report(path, out, force=force)  # the --out checks come before any reading
    click.echo(f"Wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")


def folder_or_standard_split(text: str) -> Path:
    """The folder at ``text``, or the standard split named ``text`` (fetched or from the cache)."""
    path = Path(text)
    if path.exists() or len(path.parts) != 1 or text.startswith("."):
        return path
    from pushgen.publishing.download import fetch_split
    from pushgen.publishing.registry import UnknownSplit, lookup

    try:
        entry = lookup(text)
    except UnknownSplit:
        raise DatasetError(f"{text} does not exist, and no standard split has that name "
                           "(`pushgen list` shows them)") from None
    return fetch_split(entry.name, entry.version, progress=shown())


@cli.command("describe")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@quiet_option
def describe_command(path: str, as_json: bool) -> None:
    """Print the calibration statistics of the dataset at PATH, beside the published figures."""

    from pushgen.data.describe import describe_path
    from pushgen.data.describe_report import format_description
    from pushgen.splits.validate import is_split_folder

    with user_errors():
        folder = folder_or_standard_split(path)
        if is_split_folder(folder):
            raise UserFacingError(f"{path} is a split: describe reads a dataset (a split's test parts hold "
                                  f"no outcomes); describe the dataset it was made from, or `pushgen report "
                                  f"{path}` for the split's figures")
        stats = describe_path(folder)
    click.echo(json.dumps(stats, indent=1) if as_json else format_description(stats), nl=as_json)


@cli.command("validate")
@click.argument("path")
@quiet_option
def validate_command(path: str) -> None:
    """Check the dataset, split or bandit log folder at PATH (or a standard split's name) against
    its manifest.json, split.json or log.json and the schemas (exit 1 if invalid)."""
    from pushgen.data.dataset import read_manifest
    from pushgen.data.validate import validate
    from pushgen.ope.folder import is_log_folder, read_description, validate_log
    from pushgen.splits.validate import is_split_folder, validate_split

    with user_errors():
        folder = folder_or_standard_split(path)
    split = is_split_folder(folder)
    log = not split and is_log_folder(folder)
    with user_errors():
        problems = validate_split(folder) if split else validate_log(folder) if log else validate(folder)
    if problems:
        for problem in problems:
            click.echo(problem)
        click.echo(f"invalid: {folder} ({len(problems)} problem{'s' * (len(problems) > 1)})", err=True)
        raise click.exceptions.Exit(1)
    if split:
        described = json.loads((folder / "split.json").read_text())
        rows = sum(part["rows"] for name, part in described["parts"].items()
                   if not name.startswith("scorer/"))
        click.echo(f"valid: {folder} (split, {len(described['parts'])} parts, {rows:,} rows, "
                   f"{described['users']:,} users; every file's sha256 and every table's "
                   "fingerprint checked)")
        return
    if log:
        described = read_description(folder)
        click.echo(f"valid: {folder} (bandit log, {described['rounds']:,} rounds, "
                   f"{described['candidate_rows']:,} actions; every file's sha256 checked, propensities "
                   "sum to 1 per round)")
        return
    rows = read_manifest(folder)["rows"]
    click.echo(f"valid: {folder} ({rows['notifications']:,} notifications, {rows['users']:,} users)")


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's user errors into one-line CLI errors."""
    try:
        yield
    except USER_ERRORS as error:
        raise UserFacingError(str(error)) from None
    except OSError as error:  # a full disk, a file that cannot be read or written
        raise UserFacingError(os_error_message(error)) from None
    except pa.ArrowException as error:  # a table that cannot be read
        raise UserFacingError(f"a table cannot be read: {first_line(error)}") from None


@cli.command("split")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None,
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
    from pushgen.data.verify import verify_dataset
    from pushgen.publishing.split_card import plural
    from pushgen.publishing.standard import write_metadata
    from pushgen.splits import SplitSpec, fill_months, left_out, make_split

    if out is None:
        source = dataset.resolve()
        out = source.with_name(f"{source.name}-split")
    with user_errors():
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


@cli.command("list")
@click.option("--cache", type=click.Path(path_type=Path), default=None,
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


@cli.command("download")
@click.argument("name")
@click.option("--version", "version", default=None, help="Version, e.g. v1 [default: the latest].")
@click.option("--regenerate", is_flag=True,
              help="No network: rebuild the split from its recipe and check its fingerprint.")
@click.option("--cache", type=click.Path(path_type=Path), default=None,
              help="Cache folder [default: $PUSHGEN_CACHE or the user cache folder].")
@quiet_option
def download_command(name: str, version: str | None, regenerate: bool, cache: Path | None) -> None:
    """Fetch the standard split NAME (e.g. pushgen-v3) and print its folder."""
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


@cli.command("evaluate")
@click.option("--split", "split", required=True,
              help="A standard split's name (e.g. pushgen-v3) or a split folder.")
@click.option("--task", type=WholeNumber(1, 2), default=1, show_default=True,
              help="1: a submission for the test contexts; 2: a recorded online run.")
@click.option("--submission", type=click.Path(path_type=Path), required=True,
              help="Parquet or CSV: context_id and the 7 notification features per row.")
@click.option("--mode", type=click.Choice(MODES), default=DEFAULT_MODE,
              show_default=True, help="Expected reward, or the split's own draws.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
@click.option("--user", "users", type=WholeNumber(), multiple=True,
              help="Score only this user (repeat for several) [default: every test user].")
@click.option("--paired-with", "paired_with", type=click.Path(path_type=Path), default=None,
              help="A `pushgen benchmark` results folder of the split: compare user by user with a row.")
@click.option("--reference", default=None,
              help="The row of --paired-with to compare with [default: learned (task 1), bandit (task 2)].")
@quiet_option
def evaluate_command(split: str, task: int, submission: Path, mode: str, as_json: bool,
                     users: tuple[int, ...], paired_with: Path | None, reference: str | None) -> None:
    """Score a task 1 submission or a recorded task 2 run on a split's test part."""
    from pushgen.replay.evaluation import evaluate

    with user_errors():
        if reference is not None and paired_with is None:
            raise UserFacingError("--reference needs --paired-with (a benchmark results folder)")
        result = evaluate(split, task=task, submission=submission, mode=mode, users=users or None)
        if paired_with is not None:
            result = result.paired_with(paired_with, reference)
    click.echo(result.to_json() if as_json else result.table())


@cli.command("benchmark")
@click.option("--split", "split", required=True,
              help="A standard split's name (e.g. pushgen-v3) or a split folder.")
@click.option("--task", "tasks", type=WholeNumber(1, 2), multiple=True,
              help="1 (offline) or 2 (online, cold start); repeat for both "
                   "[default: each task with test users].")
@click.option("--baselines", default=None, metavar="NAMES", cls=BaselinesOption)
@click.option("--selection", "selection", default=None, metavar="NAMES|all|none",
              help="Selection task baselines on task 2's users (pushgen/NotificationSelection-v0), "
                   "comma-separated, 'all' or 'none' [default: all when --baselines is not given, "
                   "else none].")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Results folder [default: benchmark-SPLIT].")
@click.option("--mode", type=click.Choice(MODES), default=DEFAULT_MODE, show_default=True,
              help="Expected reward, or the split's own draws.")
@click.option("--seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True)
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots (no matplotlib needed).")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def benchmark_command(split: str, tasks: tuple[int, ...], baselines: str | None, selection: str | None,
                      out: Path | None, mode: str, seed: int, no_plots: bool, force: bool) -> None:
    """Run the baselines on a split's tasks; write the leaderboard, per-user results and plots."""
    from pushgen.publishing.access import resolve_split

    if out is None:
        out = Path(f"benchmark-{Path(split).name}")
    with user_errors():
        check_output(out, force, keep=(resolve_split(split),))  # never the split it reads
    from pushgen.benchmark import run_benchmark, select_baselines, write_results
    from pushgen.benchmark.requirements import check_requirements

    with user_errors():
        names = [b.name for b in select_baselines(baselines.split(",") if baselines is not None
                                                   else None)]
        try:
            check_requirements(names, plots=not no_plots)
        except ImportError as error:
            raise UserFacingError(str(error)) from None
        if selection is None:
            selection = "all" if baselines is None and (not tasks or 2 in tasks) else "none"
        from pushgen.benchmark.selection import select

        choice = selection.strip().lower()
        selected = (None if choice == "all" else [] if choice == "none"
                    else [b.name for b in select(selection.split(","))])
        results = run_benchmark(split, tasks=tasks or None, baselines=names, mode=mode, seed=seed,
                                progress=shown(), selection=selected)
        write_results(results, out, force=force, plots=not no_plots)
    click.echo((out / "leaderboard.md").read_text(), nl=False)
    note(f"Wrote {out} in {results.timings['total_seconds']:.1f} s")


@cli.command("log")
@click.argument("split")
@click.option("--policy", type=click.Choice(("uniform", "softmax")), default="uniform", show_default=True,
              help="The logging policy: uniform over the candidates and hold, or a softmax of their "
                   "true P(open).")
@click.option("--temperature", type=FiniteNumber(), default=None,
              help="The softmax policy's temperature, at least 0.1 [default: 0.2].")
@click.option("--users", type=WholeNumber(1, None), default=None,
              help="Log the first USERS test users of the split [default: every test user].")
@click.option("--user", "user_ids", type=WholeNumber(0, None), multiple=True,
              help="Log this test user (repeat for several) instead of --users.")
@click.option("--k", type=WholeNumber(1, 64), default=8, show_default=True,
              help="Candidate notifications per context (besides hold).")
@click.option("--candidate-seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True,
              help="Seed of the candidate generator (every policy meets the same candidates).")
@click.option("--seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True,
              help="Seed of the logging policy's choices and of the sampled rewards.")
@click.option("--stationary", is_flag=True, help="A simulated user without fatigue and habituation.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: log-SPLIT-POLICY-seedSEED].")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def log_command(split: str, policy: str, temperature: float | None, users: int | None,
                user_ids: tuple[int, ...], k: int, candidate_seed: int, seed: int, stationary: bool,
                out: Path | None, force: bool) -> None:
    """Log bandit feedback: play a known stochastic logging policy on the test users of SPLIT (a
    standard split's name or a split folder) in the selection environment and write the rounds,
    the candidates with their exact propensities, and the true P(open) (an answer key)."""
    from pushgen.ope.folder import write_log
    from pushgen.ope.log import log_policy
    from pushgen.ope.policies import MIN_TEMPERATURE
    from pushgen.publishing.access import resolve_split

    if temperature is not None and policy != "softmax":
        raise click.UsageError("--temperature goes with --policy softmax")
    if temperature is not None and temperature < MIN_TEMPERATURE:
        raise click.BadParameter(f"{temperature:g} is below {MIN_TEMPERATURE:g}, the lowest temperature "
                                 "(lower ones make propensities too small for importance weighting)",
                                 param_hint="'--temperature'")
    if users is not None and user_ids:
        raise click.UsageError("give --users or --user, not both")
    if out is None:
        out = Path(f"log-{Path(split).name}-{policy}-seed{seed}")
    with user_errors():
        folder = resolve_split(split)
        check_output(out, force, keep=(folder,))
        log = log_policy(split, policy, temperature, list(user_ids) or users, k, candidate_seed, seed,
                         stationary)
        described = write_log(log, out, force)
    click.echo(f"Wrote {out}: {described['rounds']:,} rounds of {len(log.recipe['users'])} users "
               f"({described['held']:,} held, {described['opened']:,} opened); propensities sum to 1 per "
               "round; the p_open columns are the simulator's ground truth (an answer key)")


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors with exit code 2, never a traceback for user mistakes."""
    args = sys.argv[1:] if argv is None else argv
    if (text := next((a for a in args if not a.isascii() and not _utf8(a)), None)) is not None:
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


def _utf8(text: str) -> bool:
    """Whether ``text`` is Unicode text (not bytes of another encoding the system passed through)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
