"""Is a dataset learnable? Per-user models trained on the first months, scored on the rest.

For each user, rows posted in the first ``--train-months`` calendar months from the dataset's
start train a gradient-boosted classifier; the remaining rows test it (ROC AUC). Models:

    all         the 18 features plus the clock hour of posting
    notification  the 7 notification features
    context     the 11 context features plus the clock hour
    oracle      the generator's true P(open) (not learned; the ceiling)
    constant    0.5 for every row (exactly chance)

Usage: python scripts/learnability.py DATASET [--train-months 3] [--jobs 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.data.dataset import DatasetError, read_dataset
from pushgen.model.timegrid import add_months

HOUR = "hour"
MODELS: dict[str, tuple[str, ...]] = {
    "all": (*schemas.FEATURES, HOUR),
    "notification": schemas.NOTIFICATION_FEATURES,
    "context": (*schemas.CONTEXT_FEATURES, HOUR),
}
REFERENCES = ("oracle", "constant")
COLUMNS = (*schemas.FEATURES, HOUR)
HYPER_PARAMETERS = {
    "max_iter": 200,
    "learning_rate": 0.05,
    "max_leaf_nodes": 31,
    "min_samples_leaf": 20,
    "l2_regularization": 1.0,
    "early_stopping": False,
    "random_state": 0,
}


@dataclass
class UserRows:
    user_id: int
    x: np.ndarray  # (rows, len(COLUMNS)) float32: schema codes, 0/1 flags, numbers, hour
    opened: np.ndarray
    p_open: np.ndarray
    train: np.ndarray


def feature_matrix(frame: pd.DataFrame) -> np.ndarray:
    """Every column of ``COLUMNS`` as float32: categorical features as their schema codes."""
    out = np.empty((len(frame), len(COLUMNS)), dtype=np.float32)
    for j, name in enumerate(schemas.FEATURES):
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy()
            out[:, j] = np.where(codes < 0, np.nan, codes)
        else:
            out[:, j] = column.to_numpy(dtype=np.float32)
    posted = frame["posted_at"].dt
    out[:, -1] = posted.hour + posted.minute / 60.0 + posted.second / 3600.0
    return out


def load_users(folder: Path, train_months: int) -> tuple[list[UserRows], dict]:
    ds = read_dataset(folder)
    frame = ds.notifications
    truth = ds.truth_rows.set_index("notification_id")["p_open"]
    p_open = truth.reindex(frame["notification_id"]).to_numpy(dtype=np.float64)
    if np.isnan(p_open).any():
        raise DatasetError(f"{folder}: engagement_rows lacks p_open for some notifications")
    cut = pd.Timestamp(add_months(ds.recipe.start, train_months))
    train = (frame["posted_at"] < cut).to_numpy()
    opened = (frame["action"] == "opened").to_numpy()
    x = feature_matrix(frame)
    user = frame["user_id"].to_numpy()
    order = np.argsort(user, kind="stable")
    bounds = np.flatnonzero(np.diff(user[order])) + 1
    users = [
        UserRows(int(user[rows[0]]), x[rows], opened[rows], p_open[rows], train[rows])
        for rows in np.split(order, bounds) if len(rows)
    ]
    info = {
        "dataset": str(folder),
        "rows": len(frame),
        "users": len(users),
        "start": ds.recipe.start.isoformat(),
        "train_until": cut.date().isoformat(),
        "train_months": train_months,
        "train_rows": int(train.sum()),
        "test_rows": int((~train).sum()),
    }
    return users, info


def evaluate_user(rows: UserRows) -> tuple[int, dict[str, float] | None, str]:
    """ROC AUC of every model on one user's test rows (None and a reason if not evaluable)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    y_train, y_test = rows.opened[rows.train], rows.opened[~rows.train]
    for part, y in (("train", y_train), ("test", y_test)):
        if len(y) == 0:
            return rows.user_id, None, f"no {part} rows"
        if len(np.unique(y)) < 2:
            return rows.user_id, None, f"one class in {part}"
    scores: dict[str, float] = {}
    for model, names in MODELS.items():
        index = [COLUMNS.index(n) for n in names]
        categorical = [n != HOUR and schemas.field(n).is_categorical for n in names]
        classifier = HistGradientBoostingClassifier(categorical_features=categorical,
                                                    **HYPER_PARAMETERS)
        classifier.fit(rows.x[rows.train][:, index], y_train)
        predicted = classifier.predict_proba(rows.x[~rows.train][:, index])[:, 1]
        scores[model] = float(roc_auc_score(y_test, predicted))
    scores["oracle"] = float(roc_auc_score(y_test, rows.p_open[~rows.train]))
    scores["constant"] = float(roc_auc_score(y_test, np.full(len(y_test), 0.5)))
    return rows.user_id, scores, ""


def _single_threaded() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"
    import sklearn.ensemble  # noqa: F401  (loads the OpenMP runtime so the limit below applies)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def evaluate(users: list[UserRows], jobs: int) -> list[tuple[int, dict[str, float] | None, str]]:
    if jobs <= 1:
        return [evaluate_user(u) for u in users]
    # one OpenMP thread per worker: processes, not threads, share the cores
    with ProcessPoolExecutor(max_workers=jobs, initializer=_single_threaded) as pool:
        return list(pool.map(evaluate_user, sorted(users, key=lambda u: -len(u.opened))))


def summarise(results: list[tuple[int, dict[str, float] | None, str]]) -> dict[str, dict]:
    evaluated = [s for _, s, _ in results if s is not None]
    out = {}
    for model in (*MODELS, *REFERENCES):
        values = np.array([s[model] for s in evaluated])
        out[model] = {
            "median": float(np.median(values)) if len(values) else None,
            "p10": float(np.percentile(values, 10)) if len(values) else None,
            "p90": float(np.percentile(values, 90)) if len(values) else None,
            "users": len(values),
        }
    return out


def report(info: dict, summary: dict[str, dict], skipped: dict[int, str], seconds: float) -> str:
    describe = {
        "all": f"{len(schemas.FEATURES)} features + hour",
        "notification": f"{len(schemas.NOTIFICATION_FEATURES)} notification features",
        "context": f"{len(schemas.CONTEXT_FEATURES)} context features + hour",
        "oracle": "true P(open)",
        "constant": "0.5",
    }
    lines = [
        f"dataset      {info['dataset']}: {info['rows']:,} rows, {info['users']} users",
        f"train        {info['start']} .. {info['train_until']} (first {info['train_months']} "
        f"months): {info['train_rows']:,} rows",
        f"test         the rest: {info['test_rows']:,} rows",
        "",
        f"{'model':<14}{'inputs':<28}{'median':>8}{'p10':>8}{'p90':>8}{'users':>7}",
    ]
    for model, row in summary.items():
        numbers = "".join(f"{row[k]:>8.3f}" if row[k] is not None else f"{'-':>8}"
                          for k in ("median", "p10", "p90"))
        lines.append(f"{model:<14}{describe[model]:<28}{numbers}{row['users']:>7}")
    lines.append("")
    reasons = sorted(set(skipped.values()))
    detail = "; ".join(f"{sum(r == reason for r in skipped.values())} {reason}" for reason in reasons)
    lines.append(f"skipped      {len(skipped)} users" + (f" ({detail})" if detail else ""))
    lines.append(f"ROC AUC on test rows, per user; {seconds:.1f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="dataset folder written by `pushgen make`")
    parser.add_argument("--train-months", type=int, default=3,
                        help="calendar months from the start used for training (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)
    if args.train_months < 1:
        parser.error("--train-months must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    began = time.perf_counter()
    try:
        users, info = load_users(args.dataset, args.train_months)
    except DatasetError as error:
        print(f"learnability: error: {error}", file=sys.stderr)
        return 2
    results = evaluate(users, args.jobs)
    results.sort(key=lambda r: r[0])
    summary = summarise(results)
    skipped = {user_id: reason for user_id, scores, reason in results if scores is None}
    seconds = time.perf_counter() - began
    print(report(info, summary, skipped, seconds))
    if args.json is not None:
        args.json.write_text(json.dumps({
            **info,
            "hyper_parameters": HYPER_PARAMETERS,
            "models": {m: list(names) for m, names in MODELS.items()},
            "summary": summary,
            "skipped": {str(k): v for k, v in skipped.items()},
            "per_user": {str(u): s for u, s, _ in results if s is not None},
            "seconds": seconds,
        }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
