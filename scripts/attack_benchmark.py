"""Try to game the benchmark: the cheapest policies and a search against the evaluator.

    python scripts/attack_benchmark.py                          # pushgen-v4, task 1, 8 users
    python scripts/attack_benchmark.py --split pushgen-mini-v4 --users 0 --steps 3000

Every attack writes a task 1 submission and is scored by ``pushgen.evaluate``, beside the
``oracle`` and the ``upper bound`` rows on the same users:

- constant: the most frequent notification of the public training rows, for everyone;
- random: uniform over every published value of each feature;
- public per-feature argmax: each feature's value with the best open rate in the public rows;
- scorer per-feature argmax (reads the answer key): each feature's value with the user's
  largest true weight, the cheapest use of ``scorer/ground_truth``;
- logged (reads the answer key): the logged test notifications themselves;
- hill climb (reads the simulated user): from the oracle's plan, random changes at one to
  three contexts, each to one of the context's ``TOP`` best possible notifications, kept when
  the user's whole sequence, judged by the evaluator's own function
  (``sequence_probabilities``), gains; then scored by ``evaluate``;
- holds (reads the simulated user): the oracle's plan, with an impossible notification (no
  app posts it: P(open) = 0, and the user's state is left as it was, the EvalUMAP tasks'
  only way to send nothing) put in each of its ``--steps`` least promising contexts in turn,
  kept where the user's whole sequence gains. Its lead over the oracle is what deliberate
  holds are worth; an impossible notification stays a legal, scored answer.

Task 2 (with cold-start users): the bandit honestly, and sabotaged (the impossible
notification in the first quarter of each user's contexts, then the bandit), each with its
mean reward (the rank) and its mean reward over the reference without feedback on the same
contexts, neither of which sabotage can raise (the first-to-last quarter gain and the slope,
which it raised, are no longer computed). And the bandit peeking (reads another task's test
episode): before its run it walks the same user's selection episode with holds only, which
shows no response but offers only notifications the user can receive, and keeps the public
pool's notifications it was offered. What that gains is why an entry may not open another
task's environment on its test users (docs/splits.md); it is printed, not checked.

It prints each attack's mean reward (per user, averaged over users, as the leaderboard) and
impossible share, and checks that nothing scores above the upper bound, per user and per
context, and that sabotage raises neither column averaged over the users (the rank; for a user
whom the honest bandit serves worse than sending nothing, the first quarter's holds are the
better policy, and the script counts those users); exit status 1 if something does.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import numpy as np
import pandas as pd

from pushgen import evaluate, schemas
from pushgen.baselines import BASELINES, RandomPolicy, ThompsonPolicy
from pushgen.baselines.attacks import SabotagedPolicy, impossible_notification
from pushgen.baselines.candidates import distinct, notification_matrix
from pushgen.baselines.planner import plan_episode
from pushgen.baselines.true_model import true_candidates
from pushgen.benchmark import make_setting, run_baseline, run_policy, task_data
from pushgen.benchmark.summary import user_metrics
from pushgen.envs.selection import NotificationSelectionEnv
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.replay.metrics import HEADINGS
from pushgen.replay.scoring import sequence_probabilities

TOLERANCE = 1e-9
GUARDED = ("over_reference",)  # task 2 columns beside the rank that sabotage must not raise
TOP = 8  # a hill-climb move takes one of the context's best candidates at a fresh state


def submission(part, rows: np.ndarray, matrix: np.ndarray) -> pd.DataFrame:
    """A task 1 submission: the notifications ``matrix`` (codes) at the part's ``rows``."""
    frame = pd.DataFrame({f: np.asarray(schemas.values(f), dtype=object)[matrix[:, j]]
                          for j, f in enumerate(NOTIFICATION_FEATURES)})
    return frame.assign(context_id=part.context_ids[rows])


def constant(data, users: list[int]) -> dict[int, np.ndarray]:
    unique, _, counts = distinct(notification_matrix(data.public))
    return dict.fromkeys(users, unique[np.argmax(counts)])


def public_argmax(data, users: list[int]) -> dict[int, np.ndarray]:
    opened = (data.public["action"] == "opened").to_numpy()
    choice = []
    for f in NOTIFICATION_FEATURES:
        codes = schemas.frame_codes(data.public, (f,))[f]
        rate = np.bincount(codes, weights=opened, minlength=len(schemas.values(f))) / np.maximum(
            np.bincount(codes, minlength=len(schemas.values(f))), 1)
        choice.append(int(np.argmax(rate)))
    return dict.fromkeys(users, np.array(choice))


def scorer_argmax(data, users: list[int]) -> dict[int, np.ndarray]:
    parameters = data.part.parameters
    out = {}
    for user in users:
        row = int(parameters.rows(np.array([user]))[0])
        out[user] = np.array([int(np.argmax(parameters.weights[f][row])) if f in parameters.weights
                              else 0 for f in NOTIFICATION_FEATURES])
    return out


def hill_climb(data, user: int, steps: int, rng: np.random.Generator) -> np.ndarray:
    """The oracle's plan for ``user``, improved by random single-context changes that the
    evaluator's judge rewards; returns the final notifications."""
    part, truth = data.part, data.truth(user)
    span = part.rows_of(user)
    rows = np.arange(span.start, span.stop)
    candidates = true_candidates(truth)
    top = np.argsort(-candidates.scores(truth, slice(None)), axis=1)[:, :TOP]
    current = plan_episode(truth).notifications.copy()

    def total(matrix: np.ndarray) -> float:
        codes = {f: matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
        return float(sequence_probabilities(part, rows, codes).sum())

    best = total(current)
    for _ in range(steps):
        trial = current.copy()
        at = rng.integers(len(rows), size=rng.integers(1, 4))
        trial[at] = candidates.matrix[top[at, rng.integers(top.shape[1], size=len(at))]]
        score = total(trial)
        if score > best:
            current, best = trial, score
    return current


def with_holds(data, user: int, trials: int) -> np.ndarray:
    """The oracle's plan for ``user`` with the impossible notification in each of its ``trials``
    least promising contexts in turn, kept where the user's whole sequence gains."""
    part, truth = data.part, data.truth(user)
    span = part.rows_of(user)
    rows = np.arange(span.start, span.stop)
    plan = plan_episode(truth)
    current = plan.notifications.copy()

    def total(matrix: np.ndarray) -> float:
        codes = {f: matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
        return float(sequence_probabilities(part, rows, codes).sum())

    best = total(current)
    for at in np.argsort(plan.p_open, kind="stable")[:trials]:
        trial = current.copy()
        trial[at] = impossible_notification()
        score = total(trial)
        if score > best:
            current, best = trial, score
    return current


def offered(split: str, user: int) -> set[tuple[int, ...]]:
    """The notifications the user's selection episode offers, walked with holds only."""
    env = NotificationSelectionEnv(split, user=user)
    observation, _ = env.reset()
    seen: set[tuple[int, ...]] = set()
    done = False
    while not done:
        mask = observation["candidate_mask"].astype(bool)
        seen.update(map(tuple, observation["candidates"].reshape(env.k, -1)[mask].tolist()))
        observation, _, done, _, _ = env.step(env.hold)
    env.close()
    return seen


def peeking(split: str):
    """The bandit, its public pool cut to what the user's selection episode offers."""
    def make(setting):
        seen = offered(split, setting.user_id)
        pool = setting.pool[[tuple(row) in seen for row in setting.pool.tolist()]]
        if not len(pool):
            pool = np.array(sorted(seen), dtype=setting.pool.dtype)
        return ThompsonPolicy(dataclasses.replace(setting, pool=pool))
    return make


def sabotage(split: str, users: int, seed: int) -> tuple[list[str], bool]:
    """Task 2: the bandit, honest and sabotaged; lines to print, and whether sabotage paid."""
    data = task_data(split, 2)
    chosen = data.users if users <= 0 else data.users[:users]

    def sabotaged(setting):
        return SabotagedPolicy(ThompsonPolicy(setting), len(data.episodes([setting.user_id]).rows(
            setting.user_id)) // 4)

    runs = {"bandit (honest)": run_policy(data, 2, "bandit", ThompsonPolicy, seed=seed, users=chosen),
            "bandit sabotaged: impossible notifications in the first quarter": run_policy(
                data, 2, "bandit", sabotaged, seed=seed, users=chosen),
            "reference without feedback": run_baseline(data, 2, BASELINES["apps-aware-reference"],
                                                       seed=seed, users=chosen),
            "bandit peeking: the pool cut to the selection episode's offers": run_policy(
                data, 2, "bandit", peeking(split), seed=seed, users=chosen)}
    scores = {name: pd.DataFrame([user_metrics(r, "expected", 2) for r in found])
              for name, found in runs.items()}
    columns = ["mean_reward", *GUARDED]
    lines = [f"{split}, task 2, {len(chosen)} users, expected mode",
             f"{'policy':<66} " + " ".join(f"{HEADINGS.get(c, c):>20}" for c in columns)]
    for name, table in scores.items():
        lines.append(f"{name:<66} " + " ".join(f"{table[c].mean():>+20.3f}" for c in columns))
    honest, gamed = (scores[k] for k in list(runs)[:2])
    raised = [c for c in columns if gamed[c].mean() > honest[c].mean() + TOLERANCE]
    paid = bool(raised)
    better = int((gamed["mean_reward"] > honest["mean_reward"] + TOLERANCE).sum())
    lines.append("sabotage raises neither column over the users: "
                 + ("NO: " + ", ".join(raised) if paid else "yes")
                 + f" (users it serves better: {better} of {len(honest)})")
    gain = scores[list(runs)[3]]["mean_reward"].mean() - honest["mean_reward"].mean()
    lines.append(f"peeking at another task's test episode: {gain:+.3f} mean reward over the honest bandit "
                 "(not allowed: docs/splits.md)")
    return lines, paid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--users", type=int, default=8, help="task 1 users to attack (0: all)")
    parser.add_argument("--steps", type=int, default=1500, help="hill-climb trials per user")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = task_data(args.split, 1)
    users = data.users if args.users <= 0 else data.users[:args.users]
    part = data.part
    rows = np.concatenate([np.arange(part.rows_of(u).start, part.rows_of(u).stop) for u in users])
    rng = np.random.default_rng(args.seed)

    def user_rows(user: int) -> np.ndarray:
        return np.arange(part.rows_of(user).start, part.rows_of(user).stop)

    def per_user_matrix(choices: dict[int, np.ndarray]) -> np.ndarray:
        return np.concatenate([np.tile(choices[u], (len(user_rows(u)), 1)) for u in users])

    random_policy = {u: RandomPolicy(make_setting(data, 1, "random", u, args.seed)) for u in users}
    attacks: dict[str, np.ndarray] = {
        "constant (most frequent public notification)": per_user_matrix(constant(data, users)),
        "random values": np.concatenate([np.column_stack([
            random_policy[u].act(data.episodes([u]).context_batch(user_rows(u)))[f]
            for f in NOTIFICATION_FEATURES])
            for u in users]),
        "public per-feature argmax of open rates": per_user_matrix(public_argmax(data, users)),
        "scorer per-feature argmax of true weights (reads scorer/)": per_user_matrix(
            scorer_argmax(data, users)),
        "logged test notifications (reads scorer/)": np.column_stack(
            [part.codes[f][rows] for f in NOTIFICATION_FEATURES]),
        f"hill climb from the oracle, {args.steps} trials per user (reads the user)": np.concatenate(
            [hill_climb(data, u, args.steps, rng) for u in users]),
        f"holds: the oracle, impossible notifications in up to {args.steps} contexts (reads the user)":
            np.concatenate([with_holds(data, u, args.steps) for u in users]),
    }
    bound_runs = run_baseline(data, 1, BASELINES["upper-bound"], users=users)
    bound_p = {r.user_id: r.p_open for r in bound_runs}
    bound = float(np.mean([r.reward.mean() for r in bound_runs]))
    oracle = float(np.mean([r.reward.mean() for r in run_baseline(data, 1, BASELINES["oracle"],
                                                                  users=users)]))
    print(f"{args.split}, task 1, {len(users)} users, expected mode")
    print(f"{'attack':<86} {'mean reward':>11} {'impossible':>10}")
    print(f"{'upper bound (provable)':<86} {bound:>11.4f} {'':>10}")
    print(f"{'oracle':<86} {oracle:>11.4f} {'':>10}")
    broken = 0
    scores: dict[str, float] = {}
    for name, matrix in attacks.items():
        result = evaluate(args.split, task=1, submission=submission(part, rows, matrix), users=users)
        codes = {f: matrix[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
        p = sequence_probabilities(part, rows, codes)
        above_context = int((p > np.concatenate([bound_p[u] for u in users]) + TOLERANCE).sum())
        above_user = int((result.per_user["mean_reward"].to_numpy()
                          > np.array([r.reward.mean() for r in bound_runs]) + TOLERANCE).sum())
        broken += above_context + above_user
        above = above_context + above_user
        flag = f"  ABOVE THE BOUND in {above_context} contexts, {above_user} users" if above else ""
        scores[name] = float(result.per_user["mean_reward"].mean())
        print(f"{name:<86} {scores[name]:>11.4f} {result.overall['impossible_share']:>10.3f}{flag}")
    holds = next(v for k, v in scores.items() if k.startswith("holds"))
    print(f"deliberate holds are worth {holds - oracle:+.4f} mean reward over the oracle's plan")
    print(f"nothing above the upper bound: {'yes' if not broken else 'NO'}")
    paid = False
    if load_split_users(args.split, 2):
        lines, paid = sabotage(args.split, args.users, args.seed)
        print("\n".join(["", *lines]))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 1 if broken or paid else 0


def load_split_users(split: str, task: int) -> list[int]:
    from pushgen.publishing.access import load_split

    return load_split(split, 1).description.get("parts", {}).get(f"task{task}/test", {}).get("users", [])


if __name__ == "__main__":
    sys.exit(main())
