"""The result of scoring a submission (``Evaluation``): the headline score, the metrics per user,
averaged over users and pooled over rows, their tables and the paired comparison.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import SupportsInt, cast

import numpy as np
import pandas as pd

from pushgen.data.dataset import DatasetError
from pushgen.replay.metrics import CONFIDENCE, HEADINGS, PAIRED_REFERENCES, interval, paired
from pushgen.replay.results import read_results
from pushgen.replay.run_digest import verdict
from pushgen.replay.submission import SubmissionError
from pushgen.text_tables import aligned_table, counted, html_table

COLUMNS = {  # metric -> (table heading, format, scale); headings as on the leaderboard
    "steps": ("steps", "{:.0f}", 1),
    "total_reward": ("total reward", "{:.2f}", 1),
    "mean_reward": (HEADINGS["mean_reward"], "{:.4f}", 1),
    "generated_open_rate": (HEADINGS["generated_open_rate"], "{:.4f}", 1),
    "logged_open_rate": (HEADINGS["logged_open_rate"], "{:.4f}", 1),
    "impossible_share": (HEADINGS["impossible_share"], "{:.4f}", 1),
    "distinct_ratio": (HEADINGS["distinct_ratio"], "{:.4f}", 1),
    "entropy": (HEADINGS["entropy"], "{:.4f}", 1),
    "useful_variety": (HEADINGS["useful_variety"], "{:.4f}", 1),
    "response_p50_seconds": ("p50 ms", "{:.3f}", 1000),
    "response_p95_seconds": ("p95 ms", "{:.3f}", 1000),
    "over_reference": (HEADINGS["over_reference"], "{:+.4f}", 1),
}
MEAN_OVER_USERS, POOLED = "mean over users", "pooled over rows"


@dataclass
class Evaluation:
    """Per-user and overall metrics of one submission.

    ``score``: the headline, as the leaderboard ranks: ``mean_reward`` (each user's mean reward,
    averaged over the users), ``ci_low`` and ``ci_high`` (its 95% t-interval across users) and
    ``users``. ``per_user``: every metric per user. ``overall``: the metrics pooled over rows.
    """

    split: str
    task: int
    mode: str
    per_user: pd.DataFrame  # index: user_id; columns: metric names
    overall: dict[str, float]  # pooled over rows
    fingerprint: str = ""  # of the split
    paired: dict | None = None  # the paired comparison with a leaderboard row (``paired_with``)
    verified: tuple[int, ...] | None = None  # task 2: the users whose run digest checks out

    def paired_with(self, results: str | Path, reference: str | None = None) -> Evaluation:
        """This evaluation with its paired comparison against the row ``reference`` (default: the
        task's leaderboard reference) of the benchmark results folder ``results`` (written by
        ``pushgen benchmark`` on the same split, mode and users): the mean of the per-user
        differences of the mean reward, its 95% t-interval and the paired t-test's p, as the
        leaderboard shows them."""
        folder = Path(results)
        reference = PAIRED_REFERENCES[self.task] if reference is None else reference
        try:
            loaded = read_results(folder, needed=("per_user.csv",))
        except DatasetError as error:
            raise SubmissionError(f"--paired-with: {error}") from None
        meta, table = loaded.description, loaded.tables["per_user.csv"]
        if meta.get("fingerprint") != self.fingerprint or meta.get("mode") != self.mode:
            raise SubmissionError(f"--paired-with {folder}: its results are of split "
                                  f"{meta.get('split')} ({str(meta.get('fingerprint'))[:16]}), mode "
                                  f"{meta.get('mode')}; this evaluation is of {self.split} "
                                  f"({self.fingerprint[:16]}), mode {self.mode}")
        rows = table[(table["task"] == self.task) & (table["baseline"] == reference)]
        names = sorted(set(table.loc[table["task"] == self.task, "baseline"]))
        if not names:
            tasks = sorted({int(task) for task in table["task"]})
            raise SubmissionError(f"--paired-with {folder} holds no task {self.task} results (its tasks: "
                                  f"{', '.join(map(str, tasks)) or 'none'}); run pushgen benchmark "
                                  f"--task {self.task} on the split")
        if rows.empty:
            raise SubmissionError(f"--reference {reference!r} has no task {self.task} results in {folder}; "
                                  f"choose from {', '.join(names) or 'none'}")
        theirs = rows.set_index("user_id")["mean_reward"]
        missing = [int(u) for u in self.per_user.index if u not in theirs.index]
        if missing:
            raise SubmissionError(f"--paired-with {folder}: {reference} has no result for user {missing[0]}")
        mine = self.per_user["mean_reward"].to_numpy(dtype=np.float64)
        comparison = paired(mine, theirs.loc[self.per_user.index].to_numpy(dtype=np.float64))
        return replace(self, paired={"reference": reference, "results": str(folder), **comparison})

    @property
    def score(self) -> dict[str, float]:
        values = self.per_user["mean_reward"].to_numpy(dtype=np.float64)
        low, high = interval(values)
        return {"mean_reward": float(values.mean()) if len(values) else float("nan"),
                "ci_low": low, "ci_high": high, "users": len(values)}

    @property
    def mean_over_users(self) -> dict[str, float]:
        return {k: float(self.per_user[k].mean()) for k in COLUMNS if k in self.per_user}

    def to_dict(self) -> dict:
        def clean(value):
            if isinstance(value, float) and not math.isfinite(value):
                return None
            return int(value) if isinstance(value, (np.integer,)) else value

        return {
            "split": self.split,
            "task": self.task,
            "mode": self.mode,
            "score": {k: clean(v) for k, v in self.score.items()},
            **({"paired": {k: clean(v) for k, v in self.paired.items()}} if self.paired else {}),
            **({"verified_users": list(self.verified)} if self.verified is not None else {}),
            "mean_over_users": {k: clean(v) for k, v in self.mean_over_users.items()},
            "pooled_over_rows": {k: clean(v) for k, v in self.overall.items()},
            "users": [{"user_id": int(cast(SupportsInt, user)),  # an index label is Hashable to pandas
                       **{k: clean(float(v)) if k != "steps" else int(v) for k, v in row.items()}}
                      for user, row in self.per_user.iterrows()],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def headline(self) -> str:
        score = self.score
        ci = ("no interval with one user" if not math.isfinite(score["ci_low"])
              else f"{CONFIDENCE:.0%} interval [{score['ci_low']:.4f}, {score['ci_high']:.4f}]")
        line = (f"mean reward {score['mean_reward']:.4f}, {ci}: each user's mean reward per context, "
                f"averaged over the {counted(int(score['users']), 'user')} (as the leaderboard ranks)")
        if self.verified is not None:
            line += "\n" + verdict([int(u) for u in self.per_user.index], self.verified)
        if not self.paired:
            return line
        compared = self.paired
        low, high = compared["low"], compared["high"]
        interval_text = (f", {CONFIDENCE:.0%} interval [{low:+.4f}, {high:+.4f}]" if math.isfinite(low)
                         else "")
        p = "" if not math.isfinite(compared["p"]) else f", paired t-test p = {compared['p']:.2g}"
        return (f"{line}\nvs {compared['reference']}, paired over the same users: "
                f"{compared['difference']:+.4f}{interval_text}{p}")

    def _rows(self) -> tuple[list[str], list[list[str]]]:
        keys = [k for k in COLUMNS if k in self.overall]
        header = ["user", *(COLUMNS[k][0] for k in keys)]
        rows = [[str(user), *(_format(k, row[k]) for k in keys)]
                for user, row in self.per_user.iterrows()]
        averaged = self.mean_over_users
        rows.append([MEAN_OVER_USERS, *("-" if k in ("steps", "total_reward") else _format(k, averaged[k])
                                        for k in keys)])
        rows.append([POOLED, *(_format(k, self.overall[k]) for k in keys)])
        return header, rows

    def _title(self) -> str:
        return (f"split {self.split}, task {self.task}, mode {self.mode}: "
                f"{counted(len(self.per_user), 'user')}, {counted(int(self.overall['steps']), 'context')}")

    def table(self) -> str:
        header, rows = self._rows()
        return "\n".join([self._title(), self.headline(),
                          *aligned_table(header, rows, right=[False] + [True] * (len(header) - 1))])

    def __repr__(self) -> str:
        return f"<Evaluation {self._title()}\n {self.headline()}>"

    def _repr_html_(self) -> str:
        header, rows = self._rows()
        return html_table(header, rows, caption=f"{self._title()}; {self.headline()}",
                          right=[False] + [True] * (len(header) - 1))


def _format(key: str, value: float) -> str:
    _, spec, scale = COLUMNS[key]
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return spec.format(value * scale)
