"""Off-policy evaluation over episodes of the long-horizon task: each target policy's true value
beside the trajectory estimators and the per-step bandit estimate, from one command.

    python scripts/ope_trajectories_table.py --split pushgen-mini-v4
    python scripts/ope_trajectories_table.py --split pushgen-v4 --replicates 50 --truth-episodes 50 \
        --bootstrap 50

Logs ``--replicates`` episodes per held-out user from the softened threshold logging policy
(``pushgen.ope.episodes.LOGGING_POLICY``, what ``pushgen log --task long-horizon`` writes), then
for each target policy of ``TARGET_POLICIES``: its true value (Monte Carlo over
``--truth-episodes`` episodes per user in the environment, with its standard error), PDIS, WPDIS,
DR (reward model: the true P(open) of each action at the logged step, the simulator's; an honest
model here, since the log is a simulation), MIS (state key: sends in the last day bucketed, a channel
off) and the per-step IPW that treats every step as an independent bandit round (its
per-step value times the logged steps per episode); each with its 95% interval (WPDIS's and
MIS's: a percentile bootstrap over the logged episodes) and whether it covers the truth.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import replace

from pushgen.benchmark.long_horizon import users as task_users
from pushgen.ope.episodes import TARGET_POLICIES, HorizonOptions, log_episodes, true_value
from pushgen.ope.estimators import OPEWarning, ipw
from pushgen.ope.feedback import Estimate
from pushgen.ope.trajectories import (
    TRAJECTORY_ESTIMATORS,
    Trajectories,
    bootstrap_interval,
    estimate_trajectories,
)
from pushgen.text_tables import markdown_table

COLUMNS = (*TRAJECTORY_ESTIMATORS, "per-step IPW")
BOOTSTRAPPED = ("WPDIS", "MIS")


def cell(estimate: Estimate, truth: float) -> str:
    covered = "covers" if estimate.covers(truth) else f"misses by {estimate.value - truth:+.1f}"
    return f"{estimate.value:.1f} [{estimate.low:.1f}, {estimate.high:.1f}] {covered}"


def estimates(trajectories: Trajectories, bootstrap: int, seed: int) -> list[Estimate]:
    """The trajectory estimators; WPDIS's and MIS's intervals by the bootstrap over episodes."""
    out = []
    for name in TRAJECTORY_ESTIMATORS:
        estimate = estimate_trajectories(trajectories, name)
        if name in BOOTSTRAPPED:
            low, high = bootstrap_interval(trajectories, name, bootstrap, seed)
            estimate = replace(estimate, low=low, high=high)
        out.append(estimate)
    return out


def table(split: str, users: list[int], replicates: int, truth_episodes: int, options: HorizonOptions,
          seed: int, bootstrap: int) -> tuple[list[list[str]], dict]:
    """The rows (one per target policy) and the log's facts."""
    log = log_episodes(split, users, replicates, seed, options)
    steps_per_episode = len(log.steps) / log.episodes
    rows = []
    for policy in TARGET_POLICIES:
        truth, se = true_value(split, policy, users, truth_episodes, options, seed + 1)
        trajectories = log.trajectories(policy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OPEWarning)
            naive = ipw(log.feedback(policy))
        scaled = Estimate("per-step IPW", naive.value * steps_per_episode, naive.low * steps_per_episode,
                          naive.high * steps_per_episode, naive.rounds, naive.effective_rounds,
                          naive.max_weight)
        estimated = estimates(trajectories, bootstrap, seed)
        ess = estimated[0].effective_rounds
        rows.append([policy.name, f"{truth:.1f} ± {se:.1f}", *(cell(e, truth) for e in [*estimated, scaled]),
                     f"{ess:.1f}"])
    facts = {"episodes": log.episodes, "steps": len(log.steps), "users": log.recipe["users"],
             "held": float(log.steps["held"].mean())}
    return rows, facts


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-mini-v4")
    parser.add_argument("--users", type=int, default=None,
                        help="the first USERS held-out users [default: all]")
    parser.add_argument("--replicates", type=int, default=100, help="logged episodes per user")
    parser.add_argument("--truth-episodes", type=int, default=100, help="Monte Carlo episodes per user")
    parser.add_argument("--horizon-days", type=float, default=HorizonOptions.horizon_days)
    parser.add_argument("--bootstrap", type=int, default=100,
                        help="resamples for WPDIS's and MIS's intervals")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.replicates, args.truth_episodes, args.users or 1, args.bootstrap - 1) < 1:
        parser.exit(2, "ope_trajectories_table.py: --users and --replicates must be >= 1, "
                       "--truth-episodes and --bootstrap >= 2\n")
    started = time.perf_counter()
    try:
        playable = task_users(args.split, 2)
        users = playable if args.users is None else playable[: args.users]
        rows, facts = table(args.split, users, args.replicates, args.truth_episodes,
                            HorizonOptions(horizon_days=args.horizon_days), args.seed, args.bootstrap)
    except (ValueError, OSError) as error:
        parser.exit(2, f"ope_trajectories_table.py: {error}\n")
    header = ["target policy", "true value ± se", *COLUMNS, "PDIS effective episodes"]
    text = markdown_table(header, rows) + "\n"
    text += (f"\nSplit {args.split}: held-out users {facts['users']}, {facts['episodes']} logged episodes "
             f"({facts['steps']:,} steps, {facts['held']:.0%} held) of {args.horizon_days:g} days, "
             f"truth from {args.truth_episodes} episodes per user; "
             f"{time.perf_counter() - started:.0f} s.\n")
    print(text, end="")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
