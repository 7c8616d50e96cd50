"""The long-horizon task's leaderboard: every baseline on held-out users, R paired replicates each.

Each policy plays ``pushgen/LongHorizon-v0`` (default: k 8, 42 days) on each user ``replicates``
times; replicate ``r`` of user ``u`` gets the outcome entropy ``outcome_entropy(u, r, key)``, where
``key`` (``Options.entropy``) is drawn afresh for each run and never shown to a policy, so every
policy meets the same draws (the comparisons are paired) and no public value (the users, the
replicates, the policies' seeds) predicts them. The score of a policy on a user is its mean opens
(less the send cost) over the replicates; the board gives its mean over the users with the
t-interval across users, and the paired difference from the best planning policy (the best of
the planning oracle and the tuned heuristics) with its interval. The heuristics' knobs are tuned
on the training users (task 1's test months); the planning oracle is the best of the state-aware
family (``PLANNER_GRID``) per held-out user.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting, horizon_bound
from pushgen.data.dataset import DatasetError
from pushgen.envs.base import task_of_user
from pushgen.envs.horizon import playable_apps
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.envs.outcomes import fresh_entropy
from pushgen.replay.metrics import interval, paired
from pushgen.replay.parts import load_part
from pushgen.text_tables import markdown_table

BOARD_SEED = 34
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
CAPS = (2, 5, 10, 20, 50)
RATES = (0.02, 0.05, 0.1, 0.2, 0.5)
BOUNDS = (0.0, 0.3, 0.5, 0.7, 0.9)  # linucb's least upper bound worth a send
PLANNER_GRID = tuple(product((0.0, 0.1, 0.2, 0.3, 0.4), (0.5, 0.8, 1.0)))  # (theta, rho)
PLANNING = ("planning oracle", "threshold", "daily-cap")
TUNED = {"threshold": "threshold", "daily-cap": "daily-cap", "random-rate": "random",
         "history-cap": "history-cap", "linucb": "linucb"}  # a leaderboard row -> its baseline


@dataclass(frozen=True)
class Options:
    """The episodes' options (the environment's), the replicates per user and the run's outcome key
    (fresh entropy unless given: the scorer's, never a policy's)."""

    k: int = 8
    horizon_days: float = 42.0
    send_cost: float = 0.0
    replicates: int = 8
    tune_replicates: int = 2
    entropy: int = field(default_factory=lambda: fresh_entropy(), repr=False)  # patchable


def outcome_entropy(user: int, replicate: int, key: int) -> int:
    """The outcome entropy of replicate ``replicate`` of ``user`` in the run whose key is ``key``
    (``Options.entropy``): the scorer's, the same for every policy."""
    words = np.random.SeedSequence([key, user, replicate]).generate_state(4, dtype=np.uint32)
    return int(sum(int(w) << (32 * n) for n, w in enumerate(words)))


def play(env: LongHorizonEnv, policy, entropy: int) -> tuple[float, float, int]:
    """One episode: (reward, the sends' P(open) less their cost, sends)."""
    observation, _ = env.reset(options={"outcome_entropy": entropy})
    total = expected = 0.0
    sends = 0
    while True:
        action = policy.act(observation)
        following, reward, terminated, _, info = env.step(action)
        policy.update(observation, action, info["opened"])
        total += reward
        if info["sent"]:
            sends += 1
            expected += env.last_p_open - env.send_cost
        observation = following
        if terminated:
            return total, expected, sends


def score(split: str | Path, users: list[int], configs: dict[str, tuple[str, dict]], options: Options
          ) -> pd.DataFrame:
    """Every configuration (name -> a baseline of ``HORIZON_BASELINES`` and its knobs) on each user:
    one row per (configuration, user) with the mean reward, expected reward and sends over the
    replicates, and the user's bound."""
    rows = []
    for user in users:
        env = LongHorizonEnv(split, user=user, k=options.k, horizon_days=options.horizon_days,
                             send_cost=options.send_cost, task=task_of_user(split, user))
        bound = horizon_bound(env)
        for n, (name, (baseline, knobs)) in enumerate(configs.items()):
            made = HORIZON_BASELINES[baseline]
            assert made.make is not None, "every long-horizon baseline is a policy"
            played = []
            for r in range(options.replicates):
                setting = HorizonSetting(options.k, np.random.SeedSequence([BOARD_SEED, user, r, n]), **knobs,
                                         env=env if made.reads_truth else None)
                played.append(play(env, made.make(setting), outcome_entropy(user, r, options.entropy)))
            reward, expected, sends = np.mean(played, axis=0)
            rows.append({"policy": name, "user": user, "reward": reward, "expected": expected,
                         "sends": sends, "bound": bound})
    return pd.DataFrame(rows)


def best_knobs(table: pd.DataFrame, configs: dict[str, tuple[str, dict]]) -> dict:
    """The knobs of the configuration with the highest mean reward over the users of ``table``."""
    means = table.groupby("policy")["reward"].mean()
    return configs[str(means.idxmax())][1]


def tune(split: str | Path, users: list[int], options: Options) -> dict[str, dict]:
    """The heuristics' knobs tuned on ``users`` (the training users): threshold's theta, the
    daily cap's (cap, theta), the send rate of ``random-rate``, the cap of ``history-cap`` and the
    least upper bound LinUCB sends (under the grid's largest cap)."""
    thresholds = {f"theta {t}": ("threshold", {"theta": t}) for t in THRESHOLDS}
    caps = {f"cap {c} theta {t}": ("daily-cap", {"cap": c, "theta": t})
            for c, t in product(CAPS, (0.0, *THRESHOLDS[:3]))}
    rates = {f"rate {r}": ("random", {"rate": r}) for r in RATES}
    history = {f"history cap {c}": ("history-cap", {"cap": c}) for c in CAPS}
    bounds = {f"linucb theta {t}": ("linucb", {"cap": max(CAPS), "theta": t}) for t in BOUNDS}
    families: dict[str, dict[str, tuple[str, dict]]] = {
        "threshold": thresholds, "daily-cap": caps, "random-rate": rates, "history-cap": history,
        "linucb": bounds}
    configs = {name: config for family in families.values() for name, config in family.items()}
    table = score(split, users, configs, replace(options, replicates=options.tune_replicates))
    return {row: best_knobs(table[table.policy.isin(family)], family) for row, family in families.items()}


def held_out_table(split: str | Path, users: list[int], knobs: dict[str, dict], options: Options
                   ) -> pd.DataFrame:
    """Every policy on the held-out ``users``; the planning oracle is the best planner per user."""
    cheap = ("hold", "slot-0", "random", "greedy")
    configs: dict[str, tuple[str, dict[str, Any]]] = {name: (name, {}) for name in cheap}
    configs.update({row: (baseline, knobs[row]) for row, baseline in TUNED.items()})
    planners = {f"planner {t} {r}": ("planner", {"theta": t, "rho": r}) for t, r in PLANNER_GRID}
    table = score(split, users, {**configs, **planners}, options)
    family = table[table.policy.isin(planners)]
    oracle = family.loc[family.groupby("user")["reward"].idxmax()].assign(policy="planning oracle")
    bound = table.drop_duplicates("user").assign(policy="upper bound", reward=lambda t: t["bound"],
                                                 expected=lambda t: t["bound"], sends=np.nan)
    return pd.concat([table[~table.policy.isin(planners)], oracle, bound], ignore_index=True)


def board(table: pd.DataFrame) -> pd.DataFrame:
    """Per policy: mean reward over the users, its t-interval, and the paired difference from the
    best planning policy (``PLANNING``'s best mean)."""
    wide = table.pivot(index="user", columns="policy", values="reward")
    best = max(PLANNING, key=lambda name: wide[name].mean())
    rows = []
    for name in wide.columns:
        low, high = interval(wide[name].to_numpy())
        comparison = paired(wide[name].to_numpy(), wide[best].to_numpy())
        rows.append({"policy": name, "mean": wide[name].mean(), "low": low, "high": high,
                     "sends": table[table.policy == name]["sends"].mean(),
                     "difference": comparison["difference"], "difference_low": comparison["low"],
                     "difference_high": comparison["high"], "reference": best})
    return pd.DataFrame(rows).sort_values("mean", ascending=False, ignore_index=True)


def users(split: str | Path, task: int) -> list[int]:
    """Task ``task``'s test users with an app the task can play (``playable_apps``): task 1's are
    the training users, task 2's the held-out ones."""
    part = load_part(split, task, "test")
    return [int(u) for u in part.users if playable_apps(part, int(u))]


def held_out_users(split: str | Path) -> list[int]:
    """Task 2's test users (the held-out ones) with an app the long-horizon task can play.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.

    Returns
    -------
    list of int
        Their ids, at least one.

    Raises
    ------
    DatasetError
        One line naming the split when it has none (no cold-start users, or none with an app
        the task can play).

    Examples
    --------
    >>> from pushgen.benchmark.long_horizon import held_out_users
    >>> len(held_out_users("pushgen-mini-v4")) > 0
    True
    """
    found = users(split, 2)
    if not found:
        held_out = len(load_part(split, 2, "test").users)
        raise DatasetError(f"split {split} has no held-out user the long-horizon task can play "
                           + (f"(none of its {held_out} has an app the task can play)" if held_out
                              else "(it holds no cold-start users)"))
    return found


@dataclass(frozen=True)
class Board:
    """A leaderboard: the per-(policy, user) table, the board over users, the tuned knobs."""

    split: str
    options: Options
    table: pd.DataFrame
    rows: pd.DataFrame
    knobs: dict[str, dict]
    held_out: int  # the held-out users, with or without an app the task can play


def run_board(split: str, options: Options) -> Board:
    """Tune on the training users, then play every policy on the held-out users."""
    knobs = tune(split, users(split, 1), options)
    table = held_out_table(split, users(split, 2), knobs, options)
    return Board(split, options, table, board(table), knobs, len(load_part(split, 2, "test").users))


def _cell(value: float, low: float, high: float, signed: bool = False) -> str:
    form = "{:+.1f}" if signed else "{:.1f}"
    span = "" if np.isnan(low) else f" [{form.format(low)}, {form.format(high)}]"
    return form.format(value) + span


def markdown(result: Board) -> str:
    """The board as the leaderboard's table, with the tuned knobs under it."""
    rows = result.rows
    reference = str(rows["reference"].iloc[0])
    body = []
    for n, (_, row) in enumerate(rows.iterrows()):
        versus = "-" if row.policy == reference else _cell(row.difference, row.difference_low,
                                                          row.difference_high, signed=True)
        body.append([n + 1, row.policy, _cell(row["mean"], row.low, row.high), versus,
                     "-" if np.isnan(row.sends) else f"{row.sends:.1f}"])
    o = result.options
    table = markdown_table(["rank", "policy", "opens per user, 95% interval",
                            f"vs {reference}, paired 95%", "sends per user"], body,
                           right=[True, False, True, True, True])
    threshold, cap = result.knobs["threshold"], result.knobs["daily-cap"]
    played = len(result.table.user.unique())
    return (f"{table}\n\nSplit {result.split}: {played} of its {result.held_out} held-out users (those with "
            "an app the task can play), "
            f"{o.replicates} replicates each, k {o.k}, {o.horizon_days:g} days, send cost {o.send_cost:g}. "
            f"Tuned on the training users ({o.tune_replicates} replicates): threshold theta "
            f"{threshold['theta']:g}; daily cap {cap['cap']} a day with theta {cap['theta']:g}; random-rate "
            f"sends at {result.knobs['random-rate']['rate']:g} of the contexts; history-cap at most "
            f"{result.knobs['history-cap']['cap']} a day; linucb sends an upper bound of at least "
            f"{result.knobs['linucb']['theta']:g}, at most {result.knobs['linucb']['cap']} a day.\n")
