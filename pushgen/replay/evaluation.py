"""Score a task 1 submission or a recorded task 2 run against a split's test part.

Every submitted notification is judged by the split's simulated user (the generator's own
engagement model; see ``pushgen.replay.rewards`` for the reward table and the ``expected`` and
``sampled`` modes), in the context it answers. Metrics (``pushgen.replay.metrics``) are
computed per user. The headline score is the leaderboard's: each user's mean reward, averaged
over the users, with its 95% t-interval across users (``Evaluation.score``); the metrics
averaged over users follow, and the ``pooled over rows`` figures (``Evaluation.overall``:
performance and response times over every row pooled, diversity and learning averaged over
users) last. Diversity is measured on the generated notifications the simulated user opens with
the split's own draws, in both modes, and counts only possible notifications
(``pushgen.model.feasibility``); ``impossible_share`` is the share of submitted notifications
that no app of the user could post (never opened). The simulated user's fatigue and habituation
follow the submitted notifications in time order (``pushgen.replay.scoring``). Task 2's
learning metric is measured against the split's reference without feedback on the same
contexts (``pushgen.replay.reference``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import SupportsInt, cast

import numpy as np
import pandas as pd

from pushgen.data.dataset import DatasetError
from pushgen.data.folder_lock import session
from pushgen.model.feasibility import is_possible
from pushgen.progress import bar
from pushgen.replay import metrics
from pushgen.replay.metrics import CONFIDENCE, HEADINGS, PAIRED_REFERENCES, interval, paired
from pushgen.replay.parts import NOTIFICATION_FEATURES, load_part
from pushgen.replay.reference import apps_aware_reference
from pushgen.replay.results import read_results
from pushgen.replay.rewards import DEFAULT_MODE, check_mode, rewards
from pushgen.replay.run_digest import split_fingerprint, verdict, verified_users
from pushgen.replay.scoring import sequence_probabilities
from pushgen.replay.submission import TIMING, SubmissionError, check_submission, read_submission
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
DECISION_FLOOR_SECONDS = 1e-7  # below any decision time pushgen's runner measures (pushgen.envs.recording)


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
        reference = reference or PAIRED_REFERENCES[self.task]
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
        if rows.empty:
            names = sorted(set(table.loc[table["task"] == self.task, "baseline"]))
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


def check_decision_seconds(seconds: np.ndarray, context_ids: np.ndarray) -> None:
    """``SubmissionError`` naming the first context whose recorded decision time is below the
    floor a runner can measure (``seconds`` and ``context_ids`` in the same order)."""
    below = np.flatnonzero(np.asarray(seconds, dtype=np.float64) < DECISION_FLOOR_SECONDS)
    if len(below):
        k = int(below[0])
        raise SubmissionError(
            f"column {TIMING!r}: context {int(context_ids[k])} claims {float(seconds[k]):.3g} s, below the "
            f"{DECISION_FLOOR_SECONDS:.0e} s that any decision measured by pushgen's runner takes; "
            "record the run with pushgen.envs.record_run, which measures each decision")


def is_possible_rows(part, rows: np.ndarray, codes: dict[str, np.ndarray]) -> np.ndarray:
    """Whether each submitted notification is possible for the user of its row."""
    has_app = part.test_parameters.has_app[part.parameter_rows[rows]]
    return is_possible(codes, has_app)


def _format(key: str, value: float) -> str:
    _, spec, scale = COLUMNS[key]
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return spec.format(value * scale)


@session()
def evaluate(split: str | Path, task: int = 1, submission: str | Path | pd.DataFrame | None = None,
             mode: str = DEFAULT_MODE, users: Iterable[int] | int | None = None) -> Evaluation:
    """Score ``submission`` (a file or frame) on task ``task``'s test part of ``split``.

    Task 1: one generated notification per test context (``context_id`` and the 7
    notification features). Task 2: a recorded run (``pushgen.envs.History.save``), which
    adds ``decision_seconds``. ``users`` restricts the scoring to some users; rows of other
    users' contexts are then ignored.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    task : int, default 1
        1 or 2.
    submission : str, pathlib.Path or pandas.DataFrame
        The answers: a Parquet or CSV file, or a frame.
    mode : str, default "expected"
        ``"expected"`` (the exact expected reward) or ``"sampled"`` (the logged random draws).
    users : int or iterable of int, optional
        Score only these users.

    Returns
    -------
    Evaluation
        ``score`` (each user's mean reward per context averaged over the users, with its 95%
        interval: the leaderboard's ranking), ``per_user``, ``overall`` and ``headline()``.

    Raises
    ------
    SubmissionError
        When the submission is missing, malformed, or does not answer the test contexts (a
        ``DatasetError``, one line naming what is wrong).

    Examples
    --------
    >>> import pushgen
    >>> split = pushgen.load_split("pushgen-mini-v3", task=1)
    >>> features = ["postingApp", "category", "numberOfUpdates", "subject", "priority", "ongoing",
    ...             "visibility"]
    >>> favourite = split.train[features].astype(str).value_counts().index[0]
    >>> submission = split.test[["context_id"]].assign(**dict(zip(features, favourite)))
    >>> result = pushgen.evaluate("pushgen-mini-v3", task=1, submission=submission)
    >>> result.score["users"], -1 <= result.score["mean_reward"] <= 2
    (3, True)
    """
    if submission is None:
        raise SubmissionError("no submission given")
    try:
        mode = check_mode(mode)
    except ValueError as error:
        raise SubmissionError(str(error)) from None
    part = load_part(split, task, "test")
    if users is None:
        selected = [int(u) for u in part.users]
    else:
        if isinstance(users, (bool, np.bool_, str)):
            raise SubmissionError(f"users is a user id or a list of them; got {users!r}")
        chosen = [users] if isinstance(users, (int, np.integer)) else list(users)
        if not chosen:
            raise SubmissionError("users is empty; give some users or None for every test user")
        selected = sorted({part.check_user(u) for u in chosen})
    rows = np.concatenate([np.arange(part.rows_of(u).start, part.rows_of(u).stop) for u in selected])
    if not isinstance(submission, (pd.DataFrame, str, Path)):
        raise SubmissionError("a submission is a pandas DataFrame or the path of a Parquet or CSV file; "
                              f"got {type(submission).__name__}")
    frame = submission if isinstance(submission, pd.DataFrame) else read_submission(submission)
    codes, seconds = check_submission(frame, part.context_ids[rows], part.context_ids, part.label,
                                      timed=task == 2)
    if seconds is not None:
        check_decision_seconds(seconds, part.context_ids[rows])
    p_generated = sequence_probabilities(part, rows, codes)
    possible = is_possible_rows(part, rows, codes)
    draw = part.test_truth.draw[rows]
    logged = part.logged_opened[rows]
    reward = rewards(logged, p_generated, draw, mode)
    opened = draw < p_generated
    if seconds is not None:
        fixed = apps_aware_reference(part.folder, part.test_parameters.has_app[part.parameter_rows[rows]])
        reference_reward = rewards(logged, sequence_probabilities(part, rows, fixed), draw, mode)
    generated_open = p_generated if mode == "expected" else opened
    reference = {f: part.codes[f][rows] for f in NOTIFICATION_FEATURES}
    per_user = {}
    start = 0
    for user in bar(selected, desc="evaluate", unit="user"):
        n = part.rows_of(user).stop - part.rows_of(user).start
        own = slice(start, start + n)
        start += n
        scores = {
            **metrics.performance(reward[own], generated_open[own], logged[own]),
            "impossible_share": float(1.0 - possible[own].mean()) if n else float("nan"),
            "distinct_ratio": metrics.distinct_ratio(
                {f: c[own] for f, c in codes.items()}, opened[own] & possible[own],
                {f: c[own] for f, c in reference.items()}),
            "entropy": metrics.entropy({f: c[own] for f, c in codes.items()}, opened[own] & possible[own]),
            "useful_variety": metrics.useful_variety(
                {f: c[own] for f, c in codes.items()}, p_generated[own], possible[own], logged[own],
                {f: c[own] for f, c in reference.items()}),
        }
        if seconds is not None:
            scores.update(metrics.response_time(seconds[own]))
            scores["over_reference"] = metrics.over_reference(reward[own], reference_reward[own])
        per_user[user] = scores
    table = pd.DataFrame.from_dict(per_user, orient="index")
    table.index.name = "user_id"
    overall = metrics.performance(reward, generated_open, logged)
    overall["impossible_share"] = float(1.0 - possible.mean()) if len(possible) else float("nan")
    overall["distinct_ratio"] = float(table["distinct_ratio"].mean())
    overall["entropy"] = float(table["entropy"].mean())
    overall["useful_variety"] = float(table["useful_variety"].mean())
    if seconds is not None:
        overall.update(metrics.response_time(seconds))
        overall["over_reference"] = float(table["over_reference"].mean())
    fingerprint = split_fingerprint(part.folder)
    verified = None if seconds is None else verified_users(frame, part, selected, rows, codes, opened)
    return Evaluation(split=part.name, task=task, mode=mode, per_user=table, overall=overall,
                      fingerprint=fingerprint, verified=verified)
