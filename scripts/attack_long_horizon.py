"""Attacks on the long-horizon task (``pushgen/LongHorizon-v0``): each prints what it measured.

    python scripts/attack_long_horizon.py leaks  --split pushgen-v4   # what a policy can read
    python scripts/attack_long_horizon_cheap.py --split pushgen-v4    # rules without the true model
    python scripts/attack_long_horizon.py oracle --split pushgen-v4   # the bound and the planning oracle
    python scripts/attack_long_horizon_args.py --split pushgen-mini-v4  # bad arguments, replay, vectors

Every policy plays the held-out users with the board's paired outcome entropy
(``pushgen.benchmark.long_horizon.outcome_entropy``), so its scores pair with the board's rows;
``scripts/attack_long_horizon_cheap.py`` tunes rules without the true model on the training users.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import ClassVar

import gymnasium as gym
import numpy as np

import pushgen  # noqa: F401  (registers the environments)
from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting, allowed_slots, horizon_bound
from pushgen.benchmark import long_horizon as board
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.envs.outcomes import outcome_generator
from pushgen.replay.metrics import interval, paired
from pushgen.schemas import NOTIFICATION_FEATURES

SUBJECT, CATEGORY = NOTIFICATION_FEATURES.index("subject"), NOTIFICATION_FEATURES.index("category")


class RateRule:
    """No true model: the allowed candidate whose (category, subject) has the best observed open
    rate (Beta(a, b) prior), sent when that rate is at least ``theta`` and fewer than ``week``
    sends went out in the last 7 days."""

    def __init__(self, k: int, theta: float, week: float = np.inf, a: float = 1.0, b: float = 1.0) -> None:
        self.k, self.theta, self.week, self.a, self.b = k, theta, week, a, b
        self.sends: dict = defaultdict(float)
        self.opens: dict = defaultdict(float)

    def key(self, observation: dict, j: int) -> tuple:
        codes = np.asarray(observation["candidates"]).reshape(self.k, -1)[j]
        return int(codes[CATEGORY]), int(codes[SUBJECT])

    def rate(self, key: tuple) -> float:
        return (self.opens[key] + self.a) / (self.sends[key] + self.a + self.b)

    def best(self, observation: dict) -> tuple[int, float]:
        slots = allowed_slots(observation)
        if not len(slots):
            return self.k, 0.0
        rates = [self.rate(self.key(observation, j)) for j in slots]
        n = int(np.argmax(rates))
        return int(slots[n]), rates[n]

    def act(self, observation: dict) -> int:
        j, rate = self.best(observation)
        if j == self.k or rate < self.theta or observation["app_counts"][2] >= self.week:
            return self.k
        return j

    def update(self, observation: dict, action: int, opened: bool) -> None:
        if action != self.k:
            key = self.key(observation, action)
            self.sends[key] += 1
            self.opens[key] += opened


class Clairvoyant(RateRule):
    """The board's seed leak: the policy's seed is SeedSequence([BOARD_SEED, user, replicate, n]),
    so its entropy names the user and the replicate, hence the board's outcome entropy, hence every
    draw. Sends the best-rate candidate only when the open draw is below ``cut`` (no true model),
    or below the true P(open) when given ``env``."""

    tally: ClassVar[dict] = defaultdict(float)  # sends and opens over every instance

    def __init__(self, k: int, seed: np.random.SeedSequence, cut: float, env: LongHorizonEnv | None = None):
        super().__init__(k, 0.0)
        _, user, replicate, _ = seed.entropy
        self.draws = outcome_generator(board.outcome_entropy(user, replicate, board.BOARD_SEED))
        self.cut, self.env = cut, env

    def act(self, observation: dict) -> int:
        u = self.draws.random(4)
        if self.env is not None:
            p = self.env.candidate_probabilities()
            j = int(np.argmax(p))
            return j if u[0] < p[j] and u[1:].min() > 0.01 else self.k
        j, _ = self.best(observation)
        return j if u[0] < self.cut and u[1:].min() > 0.05 else self.k

    def update(self, observation: dict, action: int, opened: bool) -> None:
        super().update(observation, action, opened)
        if action != self.k:
            self.tally["sends"] += 1
            self.tally["opens"] += opened


def baseline(name: str, env: LongHorizonEnv, seed, **knobs):
    made = HORIZON_BASELINES[name]
    return made.make(HorizonSetting(8, seed, **knobs, env=env if made.reads_truth else None))


def run(split: str, users: list[int], makers: dict, replicates: int, key: int | None = None
        ) -> dict[str, np.ndarray]:
    """Mean reward per user of each policy maker (env, seed) -> policy, paired draws from the run's
    ``key`` (fresh by default; ``BOARD_SEED`` is the key the board used before it drew one afresh)."""
    key = board.Options().entropy if key is None else key
    out: dict[str, list[float]] = {name: [] for name in makers}
    for user in users:
        env = LongHorizonEnv(split, user=user, task=board.task_of_user(split, user))
        for n, (name, make) in enumerate(makers.items()):
            rewards = [board.play(env, make(env, np.random.SeedSequence([board.BOARD_SEED, user, r, n])),
                                  board.outcome_entropy(user, r, key))[0] for r in range(replicates)]
            out[name].append(float(np.mean(rewards)))
    return {name: np.array(v) for name, v in out.items()}


def report(scores: dict[str, np.ndarray], reference: str) -> None:
    for name, values in sorted(scores.items(), key=lambda kv: -kv[1].mean()):
        low, high = interval(values)
        versus = paired(values, scores[reference])
        print(f"  {name:34s} {values.mean():8.1f} [{low:7.1f}, {high:7.1f}]   vs {reference}: "
              f"{versus['difference']:+8.1f} [{versus['low']:+7.1f}, {versus['high']:+7.1f}]")


BOARD_ROWS = {
    "greedy": lambda env, s: baseline("greedy", env, s),
    "threshold 0.4 (board's tuned)": lambda env, s: baseline("threshold", env, s, theta=0.4),
    "linucb cap 50": lambda env, s: baseline("linucb", env, s, cap=50),
    "random": lambda env, s: baseline("random", env, s),
}


def leaks(split: str, replicates: int) -> None:
    held = board.users(split, 2)
    print(f"[leaks] {split}: info and observation keys")
    env = gym.make("pushgen/LongHorizon-v0", split=split, user=held[0])
    observation, info = env.reset(seed=0)
    _, _, _, _, step_info = env.step(8)
    print("  observation:", sorted(observation), "\n  reset info:", sorted(info), "\n  step info:",
          sorted(step_info))
    public = sorted(a for a in vars(env.unwrapped) if not a.startswith("_"))
    print("  public attributes of the environment:", public)
    print("[leaks] chance test: predict each send's open from generators seeded by every public seed")
    raw = env.unwrapped
    surprise = defaultdict(lambda: [[], []])  # predictor -> opened - P(open), when predicted not / open
    sends = 0
    for episode in range(40):
        user = held[episode % len(held)]
        observation, info = env.reset(seed=episode, options={"user": user})
        guesses = {"reset seed": outcome_generator(episode), "user": outcome_generator(user),
                   "np_random(reset seed)": np.random.default_rng(episode),
                   "board entropy(user, 0)": outcome_generator(board.outcome_entropy(user, 0, 34)),
                   "control: env.outcome_entropy": outcome_generator(raw.outcome_entropy)}
        terminated = False
        while not terminated:
            p = raw.candidate_probabilities()
            j = int(np.argmax(p))
            action = j if p[j] > 0.2 else 8
            u = {name: g.random(4)[0] for name, g in guesses.items()}
            observation, _, terminated, _, step_info = env.step(action)
            if step_info["sent"]:
                sends += 1
                for name, value in u.items():
                    p_open = raw.last_p_open
                    surprise[name][int(value < p_open)].append(float(step_info["opened"]) - p_open)
    print("  (opened - true P(open)) averages 0 in both groups when the predictor knows nothing)")
    for name, (no, yes) in surprise.items():
        print(f"  {name:30s} {sends} sends: predicted open {np.mean(yes):+.3f} (n {len(yes)}), "
              f"predicted not {np.mean(no):+.3f} (n {len(no)})")
    print(f"[leaks] the board's seeds: a policy reading its own seed replays the board's draws ({split}, "
          f"{len(held)} held-out users, {replicates} replicates)")
    makers = dict(BOARD_ROWS)
    makers["rate rule theta 0.2 (no leak)"] = lambda env, s: RateRule(8, 0.2)
    makers["clairvoyant, no true model (cut 0.3)"] = lambda env, s: Clairvoyant(8, s, 0.3)
    makers["clairvoyant + true P(open)"] = lambda env, s: Clairvoyant(8, s, 0.0, env)
    makers["planner 0.3 0.8"] = lambda env, s: baseline("planner", env, s, theta=0.3, rho=0.8)
    bounds = np.array([horizon_bound(LongHorizonEnv(split, user=u, task=2)) for u in held])
    for label, key in (("the board's public key (BOARD_SEED, as before the fix)", board.BOARD_SEED),
                       ("a fresh key per run (Options.entropy, the fix)", None)):
        Clairvoyant.tally.clear()
        scores = run(split, held, makers, replicates, key)
        print(f"  draws from {label}:")
        report({**scores, "upper bound": bounds}, "threshold 0.4 (board's tuned)")
        tally = Clairvoyant.tally
        print(f"  clairvoyant policies: {tally['opens']:.0f} opens of {tally['sends']:.0f} sends")
        over = scores["clairvoyant + true P(open)"] - bounds
        print(f"  clairvoyant + true P(open) above the bound on {int((over > 0).sum())} of {len(held)} "
              f"users (max {over.max():+.1f})")


class Adaptive(RateRule):
    """A state-aware rule that reads the true model (what-if): the best candidate when its P(open)
    is at least ``low + span`` times the share of the tolerance the send would leave."""

    def __init__(self, env: LongHorizonEnv, low: float, span: float) -> None:
        super().__init__(8, 0.0)
        self.env, self.low, self.span = env, low, span

    def act(self, observation: dict) -> int:
        p = self.env.candidate_probabilities()
        j = int(np.argmax(p))
        share = min(self.env.annoyance_after(j) / self.env.long_term_user.tolerance, 1.0) if p[j] else 1.0
        return j if p[j] >= self.low + self.span * share else self.k


def oracle(split: str, replicates: int) -> None:
    held = board.users(split, 2)
    makers = {f"threshold {t}": (lambda env, s, t=t: baseline("threshold", env, s, theta=t))
              for t in (0.3, 0.4, 0.5, 0.6, 0.7)}
    planners = {f"planner {t} {r}": (lambda env, s, t=t, r=r: baseline("planner", env, s, theta=t, rho=r))
                for t, r in board.PLANNER_GRID}
    adaptive = {f"adaptive {lo} + {span} x share": (lambda env, s, lo=lo, span=span: Adaptive(env, lo, span))
                for lo, span in ((0.2, 0.4), (0.3, 0.2), (0.3, 0.4))}
    scores = run(split, held, {**makers, **planners, **adaptive}, replicates)
    shown = {"planning oracle (board's family, best per user)": np.max([scores[n] for n in planners], axis=0),
             "best threshold per user (no state)": np.max([scores[n] for n in makers], axis=0),
             **{n: scores[n] for n in (*makers, *adaptive)}}
    print(f"[oracle] {split}: {len(held)} held-out users, {replicates} replicates")
    report(shown, "planning oracle (board's family, best per user)")
    bounds = np.array([horizon_bound(LongHorizonEnv(split, user=u, task=2)) for u in held])
    top = np.array(list(scores.values())).max(axis=0)
    print(f"  best of every policy above minus the bound, per user: max {np.max(top - bounds):+.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("attack", choices=("leaks", "oracle"))
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--replicates", type=int, default=4)
    args = parser.parse_args()
    started = time.perf_counter()
    globals()[args.attack](args.split, args.replicates)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
