"""Attack on the long-horizon task: how close rules without the true model come to the yardsticks.

    python scripts/attack_long_horizon_cheap.py --split pushgen-v4 --replicates 4

Tunes, on the training users, a per-user observed-open-rate rule (with a weekly send budget) and a
rule that starts from open rates counted on random episodes of the training users, then plays
them on the held-out users with paired draws beside the board's greedy, tuned threshold, LinUCB
and random rows (``attack_long_horizon.run``).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from itertools import product

import numpy as np
from attack_long_horizon import BOARD_ROWS, CATEGORY, SUBJECT, RateRule, baseline, report, run

from pushgen.baselines.long_horizon import allowed_slots
from pushgen.benchmark import long_horizon as board
from pushgen.envs.long_horizon import LongHorizonEnv


class PopulationRule(RateRule):
    """No true model: open rates per (category, subject, time of day, ringer mode) counted from
    random-candidate episodes of the training users (``table``), shrunk to the user's own observed
    rates as sends accrue; sends the best estimate when it is at least ``theta``."""

    def __init__(self, k: int, theta: float, table: dict, strength: float = 10.0) -> None:
        super().__init__(k, theta)
        self.table, self.strength = table, strength

    def key(self, observation: dict, j: int) -> tuple:
        codes = np.asarray(observation["candidates"]).reshape(self.k, -1)[j]
        return (int(codes[CATEGORY]), int(codes[SUBJECT]), int(observation["time"]),
                int(observation["ringerMode"]))

    def rate(self, key: tuple) -> float:
        prior = self.table.get(key, self.table.get(key[:2], self.table["all"]))
        return (self.opens[key] + self.strength * prior) / (self.sends[key] + self.strength)


def population_table(split: str, users: list[int], replicates: int = 3) -> dict:
    """Open rates by (category, subject, time, ringerMode) and by (category, subject), from
    uniform-random-candidate episodes of ``users`` (sampled opens only)."""
    counts: dict = defaultdict(lambda: np.zeros(2))
    for user in users:
        env = LongHorizonEnv(split, user=user, task=1)
        for r in range(replicates):
            rule = PopulationRule(8, 0.0, {"all": 0.5})
            rng = np.random.default_rng([user, r])
            observation, _ = env.reset()
            terminated = False
            while not terminated:
                slots = allowed_slots(observation)
                action = int(rng.choice(slots)) if len(slots) and rng.random() < 0.3 else 8
                following, _, terminated, _, info = env.step(action)
                if info["sent"]:
                    key = rule.key(observation, action)
                    for part in (key, key[:2], "all"):
                        counts[part] += (info["opened"], 1)
                observation = following
    return {key: (c[0] + 1) / (c[1] + 2) for key, c in counts.items() if c[1] >= 5 or key == "all"}


def cheap(split: str, replicates: int) -> None:
    train, held = board.users(split, 1), board.users(split, 2)
    grid = {f"rate theta {t} week {w}": (t, w)
            for t, w in product((0.2, 0.3, 0.4, 0.5), (np.inf, 30, 60, 120))}
    started = time.perf_counter()
    tuned = run(split, train, {name: (lambda env, s, t=t, w=w: RateRule(8, t, w)) for name, (t, w) in
                               grid.items()}, 1)
    best = max(tuned, key=lambda name: tuned[name].mean())
    seconds = time.perf_counter() - started
    print(f"[cheap] tuned on {len(train)} training users (1 replicate, {seconds:.0f} s): "
          + ", ".join(f"{n.removeprefix('rate ')} {v.mean():.1f}" for n, v in
                      sorted(tuned.items(), key=lambda kv: -kv[1].mean())[:5]))
    t, w = grid[best]
    makers = dict(BOARD_ROWS)
    makers[f"cheap: {best}"] = lambda env, s: RateRule(8, t, w)
    makers["planner 0.3 0.8"] = lambda env, s: baseline("planner", env, s, theta=0.3, rho=0.8)
    started = time.perf_counter()
    table = population_table(split, train)
    pop = {f"population theta {t}": (lambda env, s, t=t: PopulationRule(8, t, table))
           for t in (0.1, 0.2, 0.3, 0.4, 0.5)}
    tuned_pop = run(split, train, pop, 1)
    best_pop = max(tuned_pop, key=lambda name: tuned_pop[name].mean())
    print(f"[cheap] population table from random episodes of the training users ({len(table)} keys, "
          f"{time.perf_counter() - started:.0f} s); tuned: "
          + ", ".join(f"{n} {v.mean():.1f}" for n, v in tuned_pop.items()))
    makers[f"cheap: {best_pop}"] = pop[best_pop]
    print(f"[cheap] held-out users ({len(held)}, {replicates} replicates, the board's paired draws):")
    report(run(split, held, makers, replicates), "threshold 0.4 (board's tuned)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--replicates", type=int, default=4)
    arguments = parser.parse_args()
    started = time.perf_counter()
    cheap(arguments.split, arguments.replicates)
    print(f"({time.perf_counter() - started:.0f} s)")
