"""The ``pushgen`` commands that score models on a split: evaluate, benchmark and log."""

from __future__ import annotations

from pathlib import Path

import click

from pushgen.cli_support import UserFacingError, user_errors
from pushgen.cli_types import FilePath, FiniteNumber, WholeNumber
from pushgen.data.outputs import check_output
from pushgen.data.recipe import MAX_DAYS
from pushgen.progress import note, quiet_option, shown
from pushgen.replay.rewards import DEFAULT_MODE, MODES
from pushgen.text_tables import counted, plural


class BaselinesOption(click.Option):
    """``--baselines``, whose help lists the baselines (imported only when help is shown)."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from pushgen.baselines import BASELINES

        self.help = f"Comma-separated baselines [default: all]: {', '.join(BASELINES)}."
        return super().get_help_record(ctx)


@click.command("evaluate")
@click.option("--split", "split", required=True,
              help="A standard split's name (e.g. pushgen-v4) or a split folder.")
@click.option("--task", type=WholeNumber(1, 2), default=1, show_default=True,
              help="1: a submission for the test contexts; 2: a recorded online run.")
@click.option("--submission", type=FilePath(path_type=Path), required=True,
              help="Parquet or CSV: context_id and the 7 notification features per row.")
@click.option("--mode", type=click.Choice(MODES), default=DEFAULT_MODE,
              show_default=True, help="Expected reward, or the responses drawn (task 1: the split's own "
                                      "draws; task 2: the run's own, re-derived from its recorded entropy).")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
@click.option("--user", "users", type=WholeNumber(), multiple=True,
              help="Score only this user (repeat for several) [default: every test user].")
@click.option("--paired-with", "paired_with", type=FilePath(path_type=Path), default=None,
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


@click.command("benchmark")
@click.option("--split", "split", required=True,
              help="A standard split's name (e.g. pushgen-v4) or a split folder.")
@click.option("--task", "tasks", type=WholeNumber(1, 2), multiple=True,
              help="1 (offline) or 2 (online, cold start); repeat for both "
                   "[default: each task with test users].")
@click.option("--baselines", default=None, metavar="NAMES", cls=BaselinesOption)
@click.option("--selection", "selection", default=None, metavar="NAMES|all|none",
              help="Selection task baselines on task 2's users (pushgen/NotificationSelection-v0), "
                   "comma-separated, 'all' or 'none' [default: all when --baselines is not given, "
                   "else none].")
@click.option("--out", type=FilePath(path_type=Path), default=None,
              help="Results folder [default: benchmark-SPLIT].")
@click.option("--mode", type=click.Choice(MODES), default=DEFAULT_MODE, show_default=True,
              help="Expected reward, or the split's own draws.")
@click.option("--seed", type=WholeNumber(0, 2**63 - 1), default=0, show_default=True,
              help="Seed of the baselines' own randomness.")
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
        folder = resolve_split(split)
        check_output(out, force, keep=(folder,))  # never the split it reads
    from pushgen.benchmark import run_benchmark, select_baselines, write_results
    from pushgen.benchmark.requirements import check_requirements

    with user_errors():
        names = [b.name for b in select_baselines(baselines.split(",") if baselines is not None
                                                   else None)]
        try:
            check_requirements(names, plots=not no_plots)
        except ImportError as error:
            raise UserFacingError(str(error)) from None
        if selection is None:  # all, with every baseline on task 2's test users, if there are any
            task2 = 2 in tasks or (not tasks and has_cold_start_users(folder))
            selection = "all" if baselines is None and task2 else "none"
        from pushgen.benchmark.selection import select

        choice = selection.strip().lower()
        selected = (None if choice == "all" else [] if choice == "none"
                    else [b.name for b in select(selection.split(","))])
        results = run_benchmark(split, tasks=tasks or None, baselines=names, mode=mode, seed=seed,
                                progress=shown(), selection=selected)
        write_results(results, out, force=force, plots=not no_plots)
    click.echo((out / "leaderboard.md").read_text(), nl=False)
    note(f"Wrote {out} in {results.timings['total_seconds']:.1f} s")


def has_cold_start_users(folder: Path) -> bool:
    """Whether the split folder's task 2 test part has users, as its split.json says (read in full,
    and verified, by the benchmark)."""
    from pushgen.data.outputs import DatasetError, read_json_object

    try:
        part = read_json_object(folder / "split.json")["parts"]["task2/test"]
        return bool(part["users"])
    except (DatasetError, KeyError, TypeError):
        return True  # the benchmark says what is wrong with it


@click.command("log")
@click.argument("split")
@click.option("--task", type=click.Choice(("selection", "long-horizon")), default="selection",
              show_default=True,
              help="selection: bandit rounds of the selection task; long-horizon: whole episodes of "
                   "pushgen/LongHorizon-v0 from a softened threshold policy (its held-out users).")
@click.option("--replicates", type=WholeNumber(1, None), default=None,
              help="--task long-horizon: episodes per user [default: 20].")
@click.option("--horizon-days", type=FiniteNumber(), default=None,
              help="--task long-horizon: the episode's length in days [default: 3].")
@click.option("--policy", type=click.Choice(("uniform", "softmax", "softmax-learned")), default="uniform",
              show_default=True,
              help="The logging policy: uniform over the candidates and hold; a softmax of their true "
                   "P(open) (its propensities encode them: an answer key); or a softmax of a public "
                   "model's P(open) fitted on the split's task 1 training rows (needs scikit-learn).")
@click.option("--temperature", type=FiniteNumber(), default=None,
              help="The softmax policies' temperature, at least 0.1 [default: 0.2].")
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
@click.option("--out", type=FilePath(path_type=Path), default=None,
              help="Output folder [default: log-SPLIT-POLICY-seedSEED].")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@quiet_option
def log_command(split: str, task: str, replicates: int | None, horizon_days: float | None, policy: str,
                temperature: float | None, users: int | None, user_ids: tuple[int, ...], k: int,
                candidate_seed: int, seed: int, stationary: bool, out: Path | None, force: bool) -> None:
    """Log bandit feedback: play a known stochastic logging policy on the test users of SPLIT (a
    standard split's name or a split folder) in the selection environment and write the rounds,
    the candidates with their exact propensities, and the true P(open) (an answer key). With
    --task long-horizon: whole episodes of the long-horizon task, one row per step."""
    from pushgen.ope.folder import write_log
    from pushgen.ope.log import log_policy
    from pushgen.ope.policies import MIN_TEMPERATURE
    from pushgen.publishing.access import resolve_split

    if temperature is not None and policy == "uniform":
        raise click.UsageError("--temperature goes with --policy softmax or softmax-learned")
    if temperature is not None and temperature < MIN_TEMPERATURE:
        raise click.BadParameter(f"{temperature:g} is below {MIN_TEMPERATURE:g}, the lowest temperature "
                                 "(lower ones make propensities too small for importance weighting)",
                                 param_hint="'--temperature'")
    if users is not None and user_ids:
        raise click.UsageError("give --users or --user, not both")
    if task == "long-horizon":
        if policy != "uniform" or temperature is not None or stationary:
            raise click.UsageError("--policy, --temperature and --stationary go with --task selection")
        log_episodes_command(split, replicates, horizon_days, users, user_ids, k, candidate_seed, seed, out,
                             force)
        return
    if replicates is not None or horizon_days is not None:
        raise click.UsageError("--replicates and --horizon-days go with --task long-horizon")
    if policy == "softmax-learned":
        from pushgen.baselines.learned import require_sklearn

        try:
            require_sklearn("--policy softmax-learned needs")
        except ImportError as error:
            raise UserFacingError(str(error)) from None
    if out is None:
        out = Path(f"log-{Path(split).name}-{policy}-seed{seed}")
    with user_errors():
        folder = resolve_split(split)
        check_output(out, force, keep=(folder,))
        log = log_policy(split, policy, temperature, list(user_ids) or users, k, candidate_seed, seed,
                         stationary)
        described = write_log(log, out, force)
    click.echo(f"Wrote {out}: {counted(described['rounds'], 'round')} of "
               f"{plural(len(log.recipe['users']), 'user')} "
               f"({described['held']:,} held, {described['opened']:,} opened); propensities sum to 1 per "
               "round; the p_open columns are the simulator's ground truth (an answer key)"
               + ("; so are the softmax policy's propensities (temperature * log(pi(a) / pi(hold)) is the "
                  "true P(open) of a): --policy softmax-learned logs propensities that reveal nothing hidden"
                  if policy == "softmax" else ""))


def log_episodes_command(split: str, replicates: int | None, horizon_days: float | None, users: int | None,
                         user_ids: tuple[int, ...], k: int, candidate_seed: int, seed: int, out: Path | None,
                         force: bool) -> None:
    """``pushgen log --task long-horizon``: whole episodes from the softened threshold policy."""
    from pushgen.benchmark.long_horizon import held_out_users
    from pushgen.ope.episode_folder import write_episode_log
    from pushgen.ope.episodes import MAX_REPLICATES, HorizonOptions, log_episodes
    from pushgen.publishing.access import resolve_split

    if replicates is not None and replicates > MAX_REPLICATES:
        raise click.BadParameter(f"{replicates:,} is above {MAX_REPLICATES:,}, the most episodes per user",
                                 param_hint="'--replicates'")
    if horizon_days is not None and not 0 < horizon_days <= MAX_DAYS:
        raise click.BadParameter(f"{horizon_days:g} is not a number of days above 0 and at most {MAX_DAYS} "
                                 "(the longest dataset)", param_hint="'--horizon-days'")
    options = HorizonOptions(k, HorizonOptions.horizon_days if horizon_days is None else horizon_days,
                             candidate_seed)
    if out is None:
        out = Path(f"log-{Path(split).name}-long-horizon-seed{seed}")
    with user_errors():
        folder = resolve_split(split)
        check_output(out, force, keep=(folder,))
        playable = held_out_users(split)
        if any(u not in playable for u in user_ids):
            raise UserFacingError(f"--user must be a held-out user the long-horizon task can play: "
                                  f"{playable}")
        if users is not None and users > len(playable):
            raise UserFacingError(f"--users must be from 1 to {len(playable)} (the held-out users the "
                                  f"long-horizon task can play); got {users}")
        chosen = list(user_ids) or (playable[:users] if users is not None else playable)
        log = log_episodes(split, chosen, 20 if replicates is None else replicates, seed, options)
        described = write_episode_log(log, out, force)
    click.echo(f"Wrote {out}: {counted(described['episodes'], 'episode')} "
               f"({counted(described['rounds'], 'step')}) of "
               f"{plural(len(log.recipe['users']), 'user')} ({described['held']:,} held, "
               f"{described['opened']:,} opened); "
               "the propensities are the logging policy's own; p_open is the simulator's ground truth")
