"""The selection task's leaderboard: every selection baseline on held-out users, whole episodes.

Each policy plays ``pushgen/NotificationSelection-v0`` (K candidates, hold, the same
candidates for every policy: ``candidate_seed``) over each user's whole test episode, by
default the cold-start users of task 2, which no policy saw before. Policies play the
environment's learner-facing ``sampled`` mode and hear only whether the user opened (the same
draws for every policy: the scorer gives the episode the outcome entropy ``seed + user``). The
score is the scorer's: in ``expected`` mode P(open) of what is sent (read by the scorer, never
shown to the policy), less the cost per send; in ``sampled`` mode the reward the policy got.
Per user: mean score per context, the share of contexts with a send, the mean P(open) of what
was sent.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from pushgen.baselines.base import Baseline
from pushgen.baselines.selection import (
    SELECTION_BASELINES,
    PublicHistory,
    SelectionPolicy,
    SelectionSetting,
)
from pushgen.data.dataset import DatasetError
from pushgen.envs.selection import NotificationSelectionEnv
from pushgen.publishing.access import load_split
from pushgen.replay.metrics import interval, paired
from pushgen.replay.rewards import check_mode
from pushgen.text_tables import counted, html_table

T = TypeVar("T")
SELECTION_REFERENCE = "linucb"  # the best learner: every row is paired with it


class SelectionError(DatasetError):
    """Selection baselines that cannot run as asked (the message says why)."""


@dataclass(repr=False)
class SelectionResults:
    task: int
    k: int
    candidate_seed: int
    cost: float
    mode: str
    labels: dict[str, str]
    marks: dict[str, dict[str, bool]]
    per_user: pd.DataFrame  # baseline, user_id, mean_reward, send_rate, sent_p_open
    rewards: dict[str, dict[int, np.ndarray]]  # baseline -> user -> reward per context

    def _title(self) -> str:
        users = counted(self.per_user["user_id"].nunique(), "user")
        return (f"SelectionResults task {self.task}, k = {self.k}, mode {self.mode}: "
                f"{counted(len(self.labels), 'baseline')} on {users}")

    def __repr__(self) -> str:
        return f"<{self._title()}\n {ranking_line(self.per_user)}; .per_user, .rewards>"

    def _repr_html_(self) -> str:
        return ranking_html(self.per_user, self._title())


def ranking(per_user: pd.DataFrame, keys: tuple[str, ...] = ()) -> pd.DataFrame:
    """Each baseline's mean over users of its mean reward, best first (within ``keys``)."""
    table = per_user.groupby([*keys, "baseline"], observed=True).agg(
        users=("user_id", "nunique"), mean_reward=("mean_reward", "mean")).reset_index()
    return table.sort_values([*keys, "mean_reward"], ascending=[True] * len(keys) + [False],
                             ignore_index=True)


def ranking_line(per_user: pd.DataFrame) -> str:
    """The best baseline and its score, for a repr."""
    if per_user.empty:
        return "no runs"
    best = ranking(per_user).iloc[0]
    return f"best {best['baseline']} (mean reward {float(best['mean_reward']):.4f})"


def ranking_html(per_user: pd.DataFrame, caption: str, keys: tuple[str, ...] = ()) -> str:
    """The ranking as a notebook's HTML table."""
    table = ranking(per_user, keys) if not per_user.empty else pd.DataFrame(
        columns=[*keys, "baseline", "users", "mean_reward"])
    rows = [[*(str(row[k]) for k in keys), row["baseline"], f"{int(row['users']):,}",
             f"{row['mean_reward']:.4f}"] for _, row in table.iterrows()]
    return html_table([*keys, "baseline", "users", "mean reward"], rows, caption=caption,
                      right=[False] * (len(keys) + 1) + [True, True])


def by_name(names: Iterable[str] | None, catalogue: dict[str, T], kind: str,
            error: type[Exception]) -> list[T]:
    """The entries of ``catalogue`` named (default: all), in its order; ``error`` lists the names."""
    if names is None:
        return list(catalogue.values())
    wanted = [n.strip() for n in names if n.strip()]
    unknown = [n for n in wanted if n not in catalogue]
    twice = [n for i, n in enumerate(wanted) if n in wanted[:i]]
    if unknown or twice or not wanted:
        what = (f"unknown {kind} {unknown[0]!r}" if unknown else f"{kind} {twice[0]!r} is named twice"
                if twice else f"no {kind} given")
        raise error(f"{what}; choose from {', '.join(catalogue)}")
    return [b for name, b in catalogue.items() if name in wanted]


def select(names: Iterable[str] | None) -> list[Baseline[SelectionSetting, SelectionPolicy]]:
    return by_name(names, SELECTION_BASELINES, "selection baseline", SelectionError)


def play(env: NotificationSelectionEnv, policy: SelectionPolicy, seed: int, mode: str = "expected"
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One whole episode in the learner-facing mode: score (``mode``), sent and P(open) per context."""
    observation, _ = env.reset(seed=seed, options={"outcome_entropy": seed})
    n = len(env.episode)
    reward, sent, p_open = np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n)
    for i in range(n):
        action = policy.act(observation)
        following, reward[i], _, _, info = env.step(action)
        sent[i], p_open[i] = info["sent"], env.last_p_open
        if info["sent"]:
            policy.update(observation, action, info["opened"])
        observation = following
    if mode == "expected":
        reward = np.where(sent, p_open - env.cost, 0.0)
    return reward, sent, p_open


def run_selection(split: str | Path, baselines: Iterable[str] | None = None, task: int = 2,
                  users: Iterable[int] | None = None, k: int = 8, candidate_seed: int = 0,
                  mode: str = "expected", cost: float = 0.0, seed: int = 0) -> SelectionResults:
    """Run the selection baselines (default: all) on every test user of ``task`` (default: the
    cold-start users)."""
    chosen = select(baselines)
    check_mode(mode)
    probe = NotificationSelectionEnv(split, task=task, k=k, candidate_seed=candidate_seed, cost=cost)
    part_users = [int(u) for u in probe.replay.users] if users is None else [int(u) for u in users]
    public = PublicHistory.of(load_split(split, 1).train)
    rows: list[dict[str, object]] = []
    rewards: dict[str, dict[int, np.ndarray]] = {b.name: {} for b in chosen}
    shared: dict = {}
    for user in part_users:
        env = NotificationSelectionEnv(split, user=user, task=task, k=k, candidate_seed=candidate_seed,
                                       cost=cost)
        for baseline in chosen:
            if baseline.bound is not None:
                reward = baseline.bound(env)
                sent, p_open = reward > 0, reward + cost * (reward > 0)
            else:
                assert baseline.make is not None, "a baseline has a make or a bound"
                spawn = (zlib.crc32(baseline.name.encode()), task, user)
                setting = SelectionSetting(k=k, seed=np.random.SeedSequence(seed, spawn_key=spawn),
                                           public=public, env=env if baseline.reads_truth else None,
                                           shared=shared)
                reward, sent, p_open = play(env, baseline.make(setting), seed + user, mode)
            rewards[baseline.name][user] = reward
            rows.append({"baseline": baseline.name, "user_id": user, "mean_reward": float(reward.mean()),
                         "send_rate": float(sent.mean()),
                         "sent_p_open": float(p_open[sent].mean()) if sent.any() else 0.0})
    return SelectionResults(task=task, k=k, candidate_seed=candidate_seed, cost=cost, mode=mode,
                            labels={b.name: b.label for b in chosen},
                            marks={b.name: {"uses_true_model": b.reads_truth, "upper_bound": b.upper_bound}
                                   for b in chosen},
                            per_user=pd.DataFrame(rows), rewards=rewards)


def selection_board(results: SelectionResults) -> pd.DataFrame:
    """One row per baseline, best mean reward first, with the 95% t-interval across users and the
    paired comparison with ``SELECTION_REFERENCE`` on the same users (NaN without it)."""
    scores = results.per_user.pivot(index="user_id", columns="baseline", values="mean_reward")
    out = []
    for key, group in results.per_user.groupby("baseline", sort=False):
        name = str(key)
        low, high = interval(group["mean_reward"].to_numpy())
        versus = (paired(scores[name].to_numpy(), scores[SELECTION_REFERENCE].to_numpy())
                  if SELECTION_REFERENCE in scores else {"difference": np.nan, "low": np.nan, "high": np.nan})
        out.append({"baseline": name, "label": results.labels[name], "users": len(group),
                    "mean_reward": float(group["mean_reward"].mean()), "ci_low": low, "ci_high": high,
                    "paired_difference": versus["difference"], "paired_low": versus["low"],
                    "paired_high": versus["high"], "send_rate": float(group["send_rate"].mean()),
                    "sent_p_open": float(group["sent_p_open"].mean()), **results.marks[name]})
    board = pd.DataFrame(out).sort_values(["mean_reward", "baseline"], ascending=[False, True], kind="stable")
    board.insert(0, "rank", np.arange(1, len(board) + 1))
    return board.reset_index(drop=True)

