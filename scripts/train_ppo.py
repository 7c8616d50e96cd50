"""Train stable-baselines3's PPO on the flat-action generation environment, then score it.

    pip install "pushgen[rl]"
    python scripts/train_ppo.py --split pushgen-mini-v2 --steps 2048 --out ppo-submission.parquet

One environment per test user of task 1 (``flat_actions=True``: a ``MultiDiscrete`` action of
the 7 notification codes, which ``PPO("MultiInputPolicy", ...)`` takes unmodified), trained
together in a ``DummyVecEnv`` for ``--steps`` steps. The trained policy then answers every test
context of every user (deterministic actions; the evaluator judges them with the users' states
following these notifications), the answers are written as a task 1 submission and scored with
``pushgen.evaluate``, as ``pushgen evaluate --split SPLIT --task 1 --submission OUT`` would.
Prints the mean reward beside the best fixed notification overall and the random baseline.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd

import pushgen
from pushgen import schemas
from pushgen.envs import GENERATION_ID
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES

BATCH = 64


def make_env(split: str, user: int) -> gym.Env:
    return gym.make(GENERATION_ID, split=split, task=1, user=user, flat_actions=True, history_in_info=False)


def answer(model, split: str) -> pd.DataFrame:
    """The trained policy's notification for every test context of task 1 (one batched call:
    the policy reads only the context)."""
    contexts = pushgen.load_split(split, task=1).test
    observation = schemas.frame_codes(contexts, CONTEXT_FEATURES)
    actions, _ = model.predict(observation, deterministic=True)
    actions = np.asarray(actions, dtype=np.int64)
    values = {f: np.asarray(schemas.values(f), dtype=object)[actions[:, j]]
              for j, f in enumerate(NOTIFICATION_FEATURES)}
    return pd.DataFrame({"context_id": contexts["context_id"].to_numpy(), **values})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-mini-v2")
    parser.add_argument("--steps", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("ppo-submission.parquet"))
    args = parser.parse_args(argv)
    try:
        from stable_baselines3 import PPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError:
        print("this example needs stable-baselines3: pip install 'pushgen[rl]'", file=sys.stderr)
        return 2
    users = [int(u) for u in pushgen.load_split(args.split, task=1).test["user_id"].unique()]
    envs = DummyVecEnv([lambda u=u: make_env(args.split, u) for u in users])
    n_steps = BATCH * max(1, round(args.steps / (len(users) * BATCH)))
    model = PPO("MultiInputPolicy", envs, n_steps=n_steps, batch_size=BATCH, seed=args.seed, verbose=0,
                device="cpu")
    model.learn(total_timesteps=args.steps)
    submission = answer(model, args.split)
    submission.to_parquet(args.out, index=False)
    result = pushgen.evaluate(args.split, task=1, submission=args.out)
    print(f"PPO, {args.steps} steps on {len(users)} users of {args.split}: mean reward "
          f"{result.overall['mean_reward']:.3f}, open rate {result.overall['generated_open_rate']:.3f}, "
          f"impossible {result.overall['impossible_share']:.3f}; submission {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
