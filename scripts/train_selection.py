"""Train PPO on the selection environment with training users, score it on held-out users.

    pip install ".[rl]"                # from a checkout: stable-baselines3, sb3-contrib, torch
    python scripts/train_selection.py --split pushgen-v4 --steps 200000
    python scripts/train_selection.py --split pushgen-mini-v4 --steps 25600 --baselines random,greedy

Training: ``pushgen/NotificationSelection-v0`` episodes of task 1's test users (four environments
per user, stepped together), never the users it is scored on, in the environment's ``sampled``
mode, the mode learners play: the reward is whether what is sent is opened, drawn from fresh
outcome entropy, never its P(open). Only the frozen policy's score on the held-out users is
read in the ``expected`` evaluation mode (the mean true P(open) of what it sends).
MaskablePPO (sb3-contrib) when installed, else PPO, with ``MultiInputPolicy`` and the shared
slot scorer of ``pushgen.baselines.slot_scorer``. Every ``--eval-every`` steps the policy
(deterministic) plays the whole episodes of task 2's cold-start users, which it never trained
on, and the learning curve is printed; at the end a table sets its held-out score beside the
selection baselines on the same users and candidates (``pushgen.benchmark.selection``) and
says which share of the gap from the uniform random candidate to the greedy true model it
closes. ``--baselines`` names the table's rows (``none``: no table; the full table plays the
oracle's look-ahead and the upper bound, minutes on a standard split); ``--vector`` trains on the
native vector environment through ``pushgen.envs.sb3.SB3VecEnv`` instead of one environment per
episode.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial

import gymnasium as gym
import numpy as np

import pushgen
from pushgen.benchmark.selection import SelectionResults, run_selection, selection_board
from pushgen.envs import SELECTION_ID

COPIES = 4  # environments per training user: larger batches for the policy network
TABLE = ("random", "hold", "slot-0", "frequent-app", "category-rate", "linucb", "rdsm", "greedy", "oracle",
         "upper-bound")


def users_of(split: str, task: int) -> list[int]:
    env = gym.make(SELECTION_ID, split=split, task=task).unwrapped
    return [int(u) for u in env.replay.users]


def held_out_score(model, split: str, users: list[int], k: int, candidate_seed: int, masked: bool) -> float:
    """Mean over ``users`` of the mean reward per context of whole episodes, deterministic actions."""
    scores = []
    for user in users:
        env = gym.make(SELECTION_ID, split=split, user=user, task=2, k=k,
                       candidate_seed=candidate_seed, mode="expected").unwrapped  # a frozen policy scored
        observation, _ = env.reset(seed=user)
        total, done = 0.0, False
        while not done:
            kwargs = {"action_masks": env.action_masks()} if masked else {}
            action, _ = model.predict(observation, deterministic=True, **kwargs)
            observation, reward, done, _, _ = env.step(int(action))
            total += reward
        scores.append(total / env._n)
    return float(np.mean(scores))


def training_envs(split: str, users: list[int], k: int, candidate_seed: int, copies: int, vector: bool):
    """``copies`` environments per training user in sampled mode (reward: the response drawn, never
    P(open)): single environments in a ``DummyVecEnv``, or (``vector``) the native vector
    environment through ``SB3VecEnv``."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    if vector:
        from pushgen.envs.sb3 import SB3VecEnv

        return SB3VecEnv(gym.make_vec(SELECTION_ID, num_envs=len(users) * copies, users=users, task=1,
                                      vectorization_mode="vector_entry_point", split=split, k=k,
                                      candidate_seed=candidate_seed, mode="sampled"))
    return DummyVecEnv([lambda u=u: gym.make(SELECTION_ID, split=split, user=u, task=1, k=k,
                                             candidate_seed=candidate_seed, mode="sampled")
                        for u in users for _ in range(copies)])


def train(split: str, steps: int, k: int, candidate_seed: int, seed: int, eval_every: int,
          use_masks: bool = True, quiet: bool = False, evaluate: bool = True, copies: int = COPIES,
          n_steps: int = 128, batch_size: int = 256, vector: bool = False):
    """The trained model, its learning curve [(steps, held-out score)] (``evaluate``), the
    algorithm's name, the training users and the held-out users."""
    from pushgen.baselines.slot_scorer import read_scores, slot_policy_kwargs

    try:
        from sb3_contrib import MaskablePPO as Algorithm

        masked = use_masks
    except ImportError:
        from stable_baselines3 import PPO as Algorithm

        masked = False
    if not masked:
        from stable_baselines3 import PPO as Algorithm
    train_users, test_users = users_of(split, 1), users_of(split, 2)
    envs = training_envs(split, train_users, k, candidate_seed, copies, vector)
    model = Algorithm("MultiInputPolicy", envs, n_steps=n_steps, batch_size=batch_size, n_epochs=4,
                      learning_rate=1e-3,
                      gamma=0.9, ent_coef=0.01, seed=seed, device="cpu", verbose=0,
                      policy_kwargs=slot_policy_kwargs())
    read_scores(model)
    score = partial(held_out_score, model, split, test_users, k, candidate_seed, masked)
    curve = [(0, score())] if evaluate else []
    started = time.perf_counter()
    while model.num_timesteps < steps:
        model.learn(total_timesteps=min(eval_every, steps - model.num_timesteps), reset_num_timesteps=False)
        if not evaluate:
            continue
        curve.append((model.num_timesteps, score()))
        if not quiet:
            print(f"  {curve[-1][0]:>8,} steps  held-out mean reward {curve[-1][1]:.4f}  "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    return model, curve, type(model).__name__, train_users, test_users


def table(name: str, score: float, baselines: SelectionResults) -> tuple[str, float]:
    """The held-out scores, best first, and the share of the gap from the random candidate to the
    greedy true model that ``score`` closes (NaN without both rows)."""
    board = selection_board(baselines).set_index("baseline")
    if {"random", "greedy"} <= set(board.index):
        random, greedy = board.loc["random", "mean_reward"], board.loc["greedy", "mean_reward"]
    else:
        random = greedy = float("nan")
    rows = [(name, score), *((board.loc[b, "label"], board.loc[b, "mean_reward"])
                             for b in TABLE if b in board.index)]
    rows.sort(key=lambda row: -row[1])
    width = max(len(label) for label, _ in rows)
    lines = [f"{'policy':<{width}}  held-out mean reward",
             *(f"{label:<{width}}  {value:.4f}" for label, value in rows)]
    closed = (score - random) / (greedy - random) if greedy > random else float("nan")
    return "\n".join(lines), closed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--eval-every", type=int, default=20_000)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--candidate-seed", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-masks", action="store_true",
                        help="plain PPO even where sb3-contrib is installed")
    parser.add_argument("--baselines", default=",".join(TABLE),
                        help=f"comma-separated rows of the final table among {', '.join(TABLE)}, or none "
                             "(default: all; the oracle and the upper bound take minutes)")
    parser.add_argument("--vector", action="store_true",
                        help="train on the native vector environment (pushgen.envs.sb3.SB3VecEnv)")
    args = parser.parse_args(argv)
    rows = [] if args.baselines.strip() == "none" else [b.strip() for b in args.baselines.split(",")]
    unknown = [b for b in rows if b not in TABLE]
    if unknown or not (rows or args.baselines.strip() == "none"):
        parser.error(f"--baselines: {', '.join(unknown) or 'empty'} is not a row; choose among "
                     f"{', '.join(TABLE)}, or none")
    try:
        import torch

        torch.set_num_threads(1)  # small networks: threads cost more than they give
    except ImportError:
        from pushgen.extras import install_line

        print(f"this script needs stable-baselines3: {install_line('rl')}", file=sys.stderr)
        return 2
    print(f"pushgen {pushgen.__version__}; split {args.split}; K = {args.k}; "
          f"candidate seed {args.candidate_seed}")
    model, curve, algorithm, train_users, test_users = train(
        args.split, args.steps, args.k, args.candidate_seed, args.seed, args.eval_every, not args.no_masks,
        vector=args.vector)
    print(f"{algorithm} trained on task 1 users {train_users}; scored on task 2 users {test_users} "
          f"(held out), whole episodes")
    if not rows:
        print(f"{algorithm} ({model.num_timesteps:,} steps): held-out mean reward {curve[-1][1]:.4f}")
        return 0
    baselines = run_selection(args.split, rows, task=2, k=args.k, candidate_seed=args.candidate_seed)
    text, closed = table(f"{algorithm} ({model.num_timesteps:,} steps)", curve[-1][1], baselines)
    print(text)
    if closed == closed:
        print(f"{algorithm} closes {closed:.0%} of the gap from the uniform random candidate to the greedy "
              "true model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
