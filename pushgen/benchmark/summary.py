"""Per-user metrics of a run, the leaderboard with 95% intervals across users and paired
comparisons, learning curves.

Unpaired intervals across users overlap whenever users differ more than policies do, so the
leaderboard also compares policies user by user: each row's per-user differences against the
task's named reference (``PAIRED_REFERENCES``: the learned model in task 1, the bandit in task 2),
with their paired 95% interval and p-value, and its ``tier``: a row starts a new tier when a
paired test separates it from the row above (the interval of their per-user differences
excludes 0); rows a paired test cannot separate share a tier.
"""

from __future__ import annotations

from typing import Any, SupportsInt, cast

import numpy as np
import pandas as pd

from pushgen.baselines.base import as_codes
from pushgen.benchmark.runner import Run
from pushgen.replay import metrics
from pushgen.replay.metrics import PAIRED_REFERENCES, interval, paired, separated

CURVE_BIN = 100  # steps per point of a learning curve
AVERAGED = ("generated_open_rate", "logged_open_rate", "impossible_share", "distinct_ratio", "entropy",
            "useful_variety", "over_reference")
MARKS = ("uses_true_model", "upper_bound")


def user_metrics(run: Run, mode: str, task: int) -> dict[str, float]:
    """The challenge's metrics of one user's run (as ``pushgen.evaluate`` computes them)."""
    generated_open = run.p_open if mode == "expected" else run.opened
    generated = as_codes(run.generated)
    counted = run.opened & run.possible
    scores = {
        **metrics.performance(run.reward, generated_open, run.logged_opened),
        "impossible_share": float(1.0 - run.possible.mean()) if len(run.possible) else float("nan"),
        "distinct_ratio": metrics.distinct_ratio(generated, counted, as_codes(run.logged)),
        "entropy": metrics.entropy(generated, counted),
        "useful_variety": metrics.useful_variety(generated, run.p_open, run.possible, run.logged_opened,
                                                 as_codes(run.logged)),
    }
    if task == 2:
        scores["over_reference"] = metrics.over_reference(run.reward, run.reference_reward)
    return scores


def leaderboard(per_user: pd.DataFrame, labels: dict[str, str],
                marks: dict[str, dict[str, bool]] | None = None,
                references: dict[int, str] | None = None) -> pd.DataFrame:
    """One row per (task, baseline), best mean reward first: the mean over users of each user's
    mean reward with its 95% t-interval across users, the other metrics averaged over users,
    the baseline's marks (``uses_true_model``, ``upper_bound``), the paired comparison with the
    task's reference (``paired_reference``, ``paired_difference``, ``paired_low``,
    ``paired_high``, ``paired_p``; NaN where the reference did not run) and the ``tier``.

    Parameters
    ----------
    per_user : pandas.DataFrame
        Every metric per task, baseline and user (``Results.per_user``).
    labels : dict of str to str
        Each baseline's label.
    marks : dict, optional
        Each baseline's ``uses_true_model`` and ``upper_bound``.
    references : dict of int to str, optional
        Each task's reference row for the paired comparisons; by default the leaderboard's.

    Returns
    -------
    pandas.DataFrame
        One row per (task, baseline), best mean reward first.

    Examples
    --------
    >>> import pushgen
    >>> from pushgen.benchmark import leaderboard
    >>> results = pushgen.run_benchmark("pushgen-mini-v4", tasks=[2], baselines=["random", "bandit"])
    >>> table = leaderboard(results.per_user, results.baselines)
    >>> table["baseline"].tolist()
    ['bandit', 'random']
    """
    marks = marks or {}
    references = PAIRED_REFERENCES if references is None else references
    rows: list[dict[str, Any]] = []
    for keys, group in per_user.groupby(["task", "baseline"], sort=False):
        task, name = int(cast(SupportsInt, keys[0])), str(keys[1])  # pandas types group keys as Hashable
        low, high = interval(group["mean_reward"].to_numpy())
        row = {"task": task, "baseline": name, "label": labels.get(name, name),
               "users": len(group), "mean_reward": float(group["mean_reward"].mean()),
               "ci_low": low, "ci_high": high}
        row.update({k: float(group[k].mean()) for k in AVERAGED if k in group})
        row.update({k: bool(marks.get(name, {}).get(k, False)) for k in MARKS})
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table = table.sort_values(["task", "mean_reward", "baseline"], ascending=[True, False, True],
                              kind="stable").reset_index(drop=True)
    table.insert(1, "rank", table.groupby("task").cumcount() + 1)
    rewards = per_user.pivot_table(index=["task", "user_id"], columns="baseline", values="mean_reward")
    comparisons, tiers = [], []
    for task_key, board in table.groupby("task", sort=False):
        users = pd.DataFrame(rewards.loc[task_key])
        reference = references.get(int(cast(SupportsInt, task_key)))
        ran = reference is not None and reference in users and bool(users[reference].notna().any())
        tier, above = 0, None
        for name in board["baseline"]:
            compared = (paired(*_common(users, name, reference).T) if ran and reference is not None
                        else dict.fromkeys(("difference", "low", "high", "p"), float("nan")))
            comparisons.append({"paired_reference": reference if ran else "",
                                **{f"paired_{k}": v for k, v in compared.items()}})
            if above is None or separated(paired(*_common(users, above, name).T)):
                tier += 1
            tiers.append(tier)
            above = name
    table = pd.concat([table, pd.DataFrame(comparisons, index=table.index)], axis=1)
    table.insert(2, "tier", tiers)
    return table


def _common(users: pd.DataFrame, first: str, second: str) -> np.ndarray:
    """(users, 2): the mean rewards of two baselines on the users both ran on."""
    return users[[first, second]].dropna().to_numpy(dtype=np.float64)


def curve(runs: list[Run], bin_steps: int = CURVE_BIN) -> pd.DataFrame:
    """Mean reward per bin of ``bin_steps`` steps, averaged over the users; up to the shortest
    episode, so every point averages the same users."""
    shortest = min((len(r.reward) for r in runs), default=0)
    bins = shortest // bin_steps
    per_user = np.stack([r.reward[: bins * bin_steps].reshape(bins, bin_steps).mean(axis=1)
                         for r in runs]) if bins else np.zeros((len(runs), 0))
    return pd.DataFrame({"step": (np.arange(bins) + 1) * bin_steps,
                         "mean_reward": per_user.mean(axis=0) if len(runs) else [],
                         "users": len(runs)})
