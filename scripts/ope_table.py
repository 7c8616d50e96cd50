"""The off-policy evaluation table of docs/ope.md: each estimator against the ground truth.

    python scripts/ope_table.py --model stationary --json ope.json   # about 2-3 minutes each
    python scripts/ope_table.py --model full --json ope.json
    python scripts/ope_table.py --json ope.json --markdown           # the table of docs/ope.md

For each simulated user model (``stationary``: no fatigue and no habituation; ``full``: the
engagement model as it is) and each of ``--seeds`` seeds, the uniform logging policy is played on
the split's test users (``pushgen.ope.log_policy``), a reward model is cross-fitted on the log,
and IPW, SNIPW, DM and DR estimate the value of three target policies:

- greedy learned: the best candidate under a logistic model fitted on the split's public task 1
  training rows (``pushgen.ope.models.learned_scorer``); never holds;
- bandit: epsilon-greedy over the same model (epsilon = 0.1, spread over the candidates and hold);
- hold-heavy: holds with probability 0.75, else the greedy candidate.

The ground truth is each target's on-policy value in the same environment
(``pushgen.ope.policy_value``, 5 rollouts: the state its own sends leave), and beside it the
value frozen to each logged trajectory (``BanditLog.frozen_value``). Per estimator the table gives
the mean estimate, bias, RMSE against the on-policy truth, and how many of the seeds' 95%
intervals hold it. Results are kept in ``--json`` (one entry per model), so the two models run as
two commands.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from pushgen.ope import (
    EpsilonGreedyPolicy,
    GreedyPolicy,
    HoldHeavyPolicy,
    OPEWarning,
    estimate_all,
    policy_value,
)
from pushgen.ope.log import log_policy
from pushgen.ope.models import learned_scorer, reward_model

MODELS = {"stationary": True, "full": False}
TARGET_LABELS = {"greedy": "greedy learned", "epsilon_greedy": "bandit (epsilon-greedy 0.1)",
                 "hold_heavy": "hold-heavy (0.75)"}


def targets(split: str):
    scorer = learned_scorer(split)
    return [GreedyPolicy(scorer), EpsilonGreedyPolicy(scorer, 0.1), HoldHeavyPolicy(scorer, 0.75)]


def run_model(split: str, model: str, seeds: int, rollouts: int) -> dict:
    stationary = MODELS[model]
    policies = targets(split)
    truth = {p.name: policy_value(p, split, stationary=stationary, rollouts=rollouts).to_dict()
             for p in policies}
    runs = []
    for seed in range(seeds):
        started = time.perf_counter()
        log = log_policy(split, "uniform", seed=seed, stationary=stationary)
        rewards = reward_model(log)
        for policy in policies:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", OPEWarning)
                estimates = estimate_all(log.feedback(policy, rewards))
            runs.append({"seed": seed, "target": policy.name, "frozen": log.frozen_value(policy),
                         "warnings": len(caught), **{name: e.to_dict() for name, e in estimates.items()}})
        print(f"{model} seed {seed}: {len(log):,} rounds in {time.perf_counter() - started:.1f} s",
              file=sys.stderr)
    return {"split": split, "seeds": seeds, "rounds": len(log), "truth": truth, "runs": runs}


def summary_rows(entry: dict) -> list[tuple[str, ...]]:
    rows = []
    for target, label in TARGET_LABELS.items():
        truth = entry["truth"][target]["value"]
        runs = [r for r in entry["runs"] if r["target"] == target]
        frozen = np.mean([r["frozen"] for r in runs])
        rows.append((label, "truth (on-policy)", f"{truth:.4f}", "", "", ""))
        rows.append((label, "frozen to the log", f"{frozen:.4f}", f"{frozen - truth:+.4f}", "", ""))
        for name in ("IPW", "SNIPW", "DM", "DR"):
            values = np.array([r[name]["value"] for r in runs])
            covered = sum(r[name]["low"] <= truth <= r[name]["high"] for r in runs)
            ess = np.mean([r[name]["effective_rounds"] for r in runs])
            rows.append((label, name, f"{values.mean():.4f}", f"{values.mean() - truth:+.4f}",
                         f"{np.sqrt(np.mean((values - truth) ** 2)):.4f}",
                         f"{covered}/{len(runs)} (ESS {ess:,.0f})"))
    return rows


def markdown(results: dict) -> str:
    from pushgen.text_tables import markdown_table

    parts = []
    for model, entry in results.items():
        title = ("stationary (no fatigue, no habituation)" if model == "stationary"
                 else "full model (fatigue and habituation)")
        parts.append(f"### {title}: {entry['seeds']} seeds of uniform logs, "
                     f"{entry['rounds']:,} rounds each\n")
        header = ("target", "estimator", "mean", "bias", "RMSE", "95% interval holds truth")
        aligned = (False, False, True, True, True, True)
        parts.append(markdown_table(header, summary_rows(entry), right=aligned))
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="pushgen-mini-v4")
    parser.add_argument("--model", choices=tuple(MODELS), default=None)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--rollouts", type=int, default=5)
    parser.add_argument("--json", type=Path, required=True, help="results file (read, then updated)")
    parser.add_argument("--markdown", action="store_true", help="print the table from --json")
    args = parser.parse_args()
    results = json.loads(args.json.read_text()) if args.json.is_file() else {}
    if args.model is not None:
        results[args.model] = run_model(args.split, args.model, args.seeds, args.rollouts)
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.markdown or args.model is None:
        print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
