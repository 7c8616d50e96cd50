"""Attacks on the long-horizon task's arguments, replay and vector form: each prints what it got.

    python scripts/attack_long_horizon_args.py --split pushgen-mini-v4

Bad arguments to ``gym.make("pushgen/LongHorizon-v0", ...)`` and to
``scripts/long_horizon_board.py`` (each should give one clear line), an episode replayed with the
same outcome entropy (it should repeat exactly), and a gymnasium ``SyncVectorEnv`` of the task.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import pushgen  # noqa: F401  (registers the environments)
from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting
from pushgen.benchmark import long_horizon as board
from pushgen.envs.long_horizon import LongHorizonEnv

BOARD = Path(__file__).resolve().with_name("long_horizon_board.py")


def robust(split: str) -> None:
    cases = {"unknown app": {"app": "com.nope"}, "user not in split": {"user": 10**6},
             "horizon 0": {"horizon_days": 0}, "horizon -3": {"horizon_days": -3},
             "send_cost -1": {"send_cost": -1.0}, "k 0": {"k": 0},
             "horizon nan": {"horizon_days": float("nan")}, "app True": {"app": True}}
    for name, kwargs in cases.items():
        try:
            gym.make("pushgen/LongHorizon-v0", split=split, **kwargs).reset()
            print(f"  {name:18s} ACCEPTED")
        except Exception as error:
            print(f"  {name:18s} {type(error).__name__}: {str(error)[:110]}")
    for args in (["--split", "nope"], ["--horizon-days", "0", "--split", split],
                 ["--send-cost", "-1", "--split", split], ["--replicates", "0"]):
        done = subprocess.run([sys.executable, str(BOARD), *args], capture_output=True,
                              text=True, timeout=600)
        last = (done.stderr.strip().splitlines() or [""])[-1]
        print(f"  board {' '.join(args):40s} exit {done.returncode}: {last[:110]}")
    env = LongHorizonEnv(split, user=board.users(split, 2)[0])
    runs = []
    for _ in range(2):
        observation, _ = env.reset(options={"outcome_entropy": 12345})
        policy = HORIZON_BASELINES["random"].make(HorizonSetting(8, np.random.SeedSequence(1)))
        trace, terminated = [], False
        while not terminated:
            action = policy.act(observation)
            observation, reward, terminated, _, info = env.step(action)
            trace.append((action, reward, info["turned_off"] is not None))
        runs.append(trace)
    print(f"  replay with the same outcome entropy identical: {runs[0] == runs[1]} ({len(runs[0])} steps)")
    vector = gym.vector.SyncVectorEnv([lambda: gym.make("pushgen/LongHorizon-v0", split=split,
                                                        horizon_days=7) for _ in range(3)])
    observation, _ = vector.reset(seed=0)
    steps = 0
    for _ in range(200):
        observation, *_ = vector.step(np.full(3, 8))
        steps += 1
    print(f"  SyncVectorEnv of 3: {steps} steps, app_counts shape {observation['app_counts'].shape}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-mini-v4")
    robust(parser.parse_args().split)
