"""Score a task 1 submission or a recorded task 2 run against a split's test part.

Every submitted notification is judged by the split's simulated user (the generator's own
engagement model; see ``pushgen.replay.rewards`` for the reward table and the ``expected`` and
``sampled`` modes), in the context it answers. Metrics (``pushgen.replay.metrics``) are
computed per user. The headline score is the leaderboard's: each user's mean reward, averaged
over the users, with its 95% t-interval across users (``Evaluation.score``); the metrics
averaged over users follow, and the ``pooled over rows`` figures (``Evaluation.overall``:
performance and response times over every row pooled, diversity and learning averaged over
users) last. Diversity is measured on the generated notifications the simulated user opens, in
both modes, and counts only possible notifications
(``pushgen.model.feasibility``); ``impossible_share`` is the share of submitted notifications
that no app of the user could post (never opened). The simulated user's fatigue and habituation
follow the submitted notifications in time order (``pushgen.replay.scoring``). Task 2's
reward over the reference is measured against the split's reference without feedback on the same
contexts (``pushgen.replay.reference``). The responses are drawn by the split's own draws for task 1
and, for a recorded task 2 run, re-derived from each user's recorded outcome entropy (the draws the
environment made; the split's own where none is recorded), which also checks the run
(``pushgen.replay.run_digest``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen.checks import type_name
from pushgen.data.dataset import DatasetError
from pushgen.data.folder_lock import session
from pushgen.model.engagement import notification_terms
from pushgen.progress import bar
from pushgen.replay import metrics
from pushgen.replay.evaluation_result import Evaluation as Evaluation
from pushgen.replay.parts import NOTIFICATION_FEATURES, load_part
from pushgen.replay.reference import apps_aware_reference
from pushgen.replay.rewards import DEFAULT_MODE, check_mode, rewards
from pushgen.replay.run_digest import recorded_entropies, run_draws, split_fingerprint, verified_users
from pushgen.replay.scoring import sequence_probabilities
from pushgen.replay.submission import TIMING, SubmissionError, check_submission, read_submission
from pushgen.splits.spec import no_test_users

DECISION_FLOOR_SECONDS = 1e-7  # below any decision time pushgen's runner measures (pushgen.envs.recording)


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
        ``"expected"`` (the exact expected reward: a fixed submission's named evaluation) or
        ``"sampled"`` (the responses drawn: task 1 by the split's own draws, a recorded task 2
        run by its own, re-derived from its outcome entropy).
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
    DatasetError
        When the split cannot be read, or its task ``task`` has no test users (a split without
        cold-start users has none for task 2).

    Examples
    --------
    >>> import pushgen
    >>> split = pushgen.load_split("pushgen-mini-v4", task=1)
    >>> features = ["postingApp", "category", "numberOfUpdates", "subject", "priority", "ongoing",
    ...             "visibility"]
    >>> favourite = split.train[features].astype(str).value_counts().index[0]
    >>> submission = split.test[["context_id"]].assign(**dict(zip(features, favourite)))
    >>> result = pushgen.evaluate("pushgen-mini-v4", task=1, submission=submission)
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
    if not len(part.users):
        raise DatasetError(no_test_users(part.name, task))
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
        convert = " (its to_pandas() makes one)" if callable(getattr(submission, "to_pandas", None)) else ""
        raise SubmissionError("a submission is a pandas DataFrame or the path of a Parquet or CSV file; "
                              f"got {type_name(submission)}{convert}")
    frame = submission if isinstance(submission, pd.DataFrame) else read_submission(submission)
    codes, seconds = check_submission(frame, part.context_ids[rows], part.context_ids, part.label,
                                      timed=task == 2)
    if seconds is not None:
        check_decision_seconds(seconds, part.context_ids[rows])
    terms = notification_terms(part.test_parameters, part.parameter_rows[rows], codes)
    p_generated = sequence_probabilities(part, rows, codes, terms)
    possible = terms.possible  # whether each row's user can receive it (has the app, the channel on)
    entropies = {} if seconds is None else recorded_entropies(frame, part, selected)
    draw = run_draws(part, selected, rows, entropies)
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
    verified = None if seconds is None else verified_users(
        frame, part, selected, rows, codes, opened, rewards(logged, p_generated, draw, "sampled"), entropies)
    return Evaluation(split=part.name, task=task, mode=mode, per_user=table, overall=overall,
                      fingerprint=fingerprint, verified=verified)
