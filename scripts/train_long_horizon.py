"""Train MaskablePPO on the long-horizon task with training users, score it on held-out users.

    pip install ".[rl]"                # from a checkout: stable-baselines3, sb3-contrib, torch
    python scripts/train_long_horizon.py --split pushgen-v4 --steps 1000000
    python scripts/train_long_horizon.py --split pushgen-mini-v4 --steps 4096 --replicates 1

Training: ``pushgen/LongHorizon-v0`` episodes of the training users (task 1's test months, each
with its default app), one environment per user stepped together, reward the opens (fresh
outcome entropy at every reset). MaskablePPO (sb3-contrib) with ``MultiInputPolicy`` (the
default extractor, which reads the app's public counters, normalised by ``VecNormalize`` with the
rewards). Scored like the leaderboard's
long-horizon section (``pushgen.benchmark.long_horizon``): the deterministic policy plays each
held-out user (task 2's cold-start users) ``--replicates`` times with the board's outcome
entropy, so its mean opens per user sit beside the board's rows on the same draws.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting, allowed_first
from pushgen.baselines.selection_online import LinUCB
from pushgen.benchmark.long_horizon import BOARD_SEED, Options, outcome_entropy, play, users
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.replay.metrics import paired

COUNTERS = ("app_counts", "days_into_episode", "hours_since_last")  # the Box entries, normalised


class OnlineEstimates:
    """Each allowed candidate's LinUCB upper bound on its open rate, learnt within the episode from
    the opens of what was sent (``pushgen.baselines.selection_online.LinUCB``): a per-user estimate
    the agent makes itself, read by the slot scorer as ``candidate_estimates`` (k, 1). ``augment``
    each observation once, in order; ``learn`` from each step's action and open."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.reset()

    def reset(self) -> None:
        self.learner, self.slots = LinUCB(None), np.zeros(0, dtype=int)

    def augment(self, observation: dict[str, Any]) -> dict[str, Any]:
        self.slots, packed = allowed_first(observation, self.k)
        estimates = np.zeros((self.k, 1), dtype=np.float32)
        if len(self.slots):
            estimates[self.slots, 0] = self.learner.upper_bounds(packed)
        return {**observation, "candidate_estimates": estimates}

    def learn(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        if action < self.k:
            self.learner.choose(int(np.flatnonzero(self.slots == action)[0]))
            self.learner.update(observation, action, opened)


def with_estimates(env: LongHorizonEnv) -> Any:
    """``env`` whose observations carry the agent's ``OnlineEstimates`` (a gymnasium wrapper)."""
    import gymnasium as gym
    from gymnasium import spaces

    class WithEstimates(gym.Wrapper):
        def __init__(self, inner: LongHorizonEnv) -> None:
            super().__init__(inner)
            box = spaces.Box(-np.inf, np.inf, (inner.k, 1), np.float32)
            self.observation_space = spaces.Dict({**inner.observation_space.spaces,
                                                  "candidate_estimates": box})
            self.estimates = OnlineEstimates(inner.k)

        def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
            self.estimates.reset()
            observation, info = self.env.reset(**kwargs)
            self.last = self.estimates.augment(observation)
            return self.last, info

        def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
            observation, reward, terminated, truncated, info = self.env.step(action)
            self.estimates.learn(self.last, int(action), bool(info["opened"]))
            self.last = self.estimates.augment(observation)
            return self.last, float(reward), terminated, truncated, info

    return WithEstimates(env)


class Trained:
    """A trained model on the policy interface: masked actions, the most likely one
    (``deterministic``) or drawn from the policy's distribution; counts its steps and sends."""

    def __init__(self, model: Any, normalize: Any, deterministic: bool = True,
                 estimates: OnlineEstimates | None = None) -> None:
        self.model, self.normalize, self.deterministic = model, normalize, deterministic
        self.estimates = estimates
        self.steps = self.sends = 0

    def act(self, observation: dict[str, Any]) -> int:
        mask = np.append(np.asarray(observation["candidate_mask"], dtype=bool), True)
        if self.estimates is not None:
            observation = self.seen = self.estimates.augment(observation)
        action, _ = self.model.predict(self.normalize.normalize_obs(observation),
                                       deterministic=self.deterministic, action_masks=mask)
        self.steps, self.sends = self.steps + 1, self.sends + int(action != len(mask) - 1)
        return int(action)

    def update(self, observation: dict[str, Any], action: int, opened: bool) -> None:
        if self.estimates is not None:
            self.estimates.learn(self.seen, action, opened)


def held_out_scores(make: Callable[[LongHorizonEnv, int], Any], split: str, held_out: list[int],
                    options: Options) -> np.ndarray:
    """Per held-out user, the mean opens over the replicates (the board's entropy) of the policy
    ``make(env, user)`` returns (a new one for each episode)."""
    scores = []
    for user in held_out:
        env = LongHorizonEnv(split, user=user, k=options.k, horizon_days=options.horizon_days,
                             send_cost=options.send_cost, task=2)
        scores.append(np.mean([play(env, make(env, user), outcome_entropy(user, r, options.entropy))[0]
                               for r in range(options.replicates)]))
    return np.array(scores)


def trained_scores(model: Any, normalize: Any, split: str, held_out: list[int], options: Options,
                   deterministic: bool, estimates: bool) -> tuple[np.ndarray, float]:
    """The trained policy's per-user scores and its share of steps that send."""
    import torch

    torch.manual_seed(0)  # the policy's own draws when it samples (the outcomes are the board's)
    played: list[Trained] = []

    def make(env: LongHorizonEnv, user: int) -> Trained:
        played.append(Trained(model, normalize, deterministic, OnlineEstimates(env.k) if estimates else None))
        return played[-1]

    normalize.training = False
    scores = held_out_scores(make, split, held_out, options)
    normalize.training = True
    return scores, sum(p.sends for p in played) / max(sum(p.steps for p in played), 1)


def report(model: Any, normalize: Any, split: str, held_out: list[int], options: Options, what: str,
           estimates: bool) -> tuple[np.ndarray, float]:
    """Print the held-out score of the most likely actions and of actions drawn from the policy;
    return the drawn ones' per-user scores and send share."""
    likely, _ = trained_scores(model, normalize, split, held_out, options, True, estimates)
    drawn, share = trained_scores(model, normalize, split, held_out, options, False, estimates)
    print(f"  {model.num_timesteps:>9,} steps  held-out opens per user {likely.mean():.1f} most likely "
          f"action, {drawn.mean():.1f} sampled (sends at {share:.3f} of the steps)  ({what})", flush=True)
    return drawn, share


def baseline(name: str, options: Options, **knobs: Any) -> Callable[[LongHorizonEnv, int], Any]:
    """A maker of the board's baseline ``name`` with ``knobs`` for ``held_out_scores``."""
    made = HORIZON_BASELINES[name]

    def make(env: LongHorizonEnv, user: int) -> Any:
        seed = np.random.SeedSequence([BOARD_SEED, user])
        return made.make(HorizonSetting(options.k, seed, **knobs, env=env if made.reads_truth else None))

    return make


def compare(drawn: np.ndarray, share: float, split: str, held_out: list[int], options: Options) -> None:
    """The trained (sampled) policy against the myopic greedy true model and against a uniform
    random candidate sent at the trained policy's own send share, on the same draws."""
    for label, make in (("greedy true model", baseline("greedy", options)),
                        (f"random at {share:.3f} of the steps", baseline("random", options, rate=share))):
        scores = held_out_scores(make, split, held_out, options)
        c = paired(drawn, scores)
        print(f"  vs {label} ({scores.mean():.1f}): {c['difference']:+.1f} "
              f"[{c['low']:+.1f}, {c['high']:+.1f}] per held-out user, paired 95%", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--eval-every", type=int, default=200_000)
    parser.add_argument("--replicates", type=int, default=Options.replicates)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-days", type=float, default=14.0)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--ent-coef", type=float, default=0.001)
    parser.add_argument("--extractor", choices=("slot", "flat"), default="slot")
    parser.add_argument("--hold-bias", type=float, default=0.0)
    parser.add_argument("--reward-scale", choices=("per-user", "shared"), default="per-user",
                        help="normalise each training user's rewards by its own returns, or all together")
    parser.add_argument("--estimates", action="store_true",
                        help="the agent's own LinUCB upper bounds per slot in its observation")
    parser.add_argument("--train-send-cost", type=float, default=0.0,
                        help="a cost per send in the training episodes only (scored: opens)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.eval_every < 1 or args.replicates < 1:
        parser.exit(2, "train_long_horizon.py: --steps, --eval-every and --replicates must be >= 1\n")
    if not (args.train_days > 0 and 0 < args.gamma <= 1 and min(args.ent_coef, args.train_send_cost) >= 0):
        parser.exit(2, "train_long_horizon.py: --train-days must be > 0, --gamma in (0, 1], "
                    "--ent-coef and --train-send-cost >= 0\n")
    try:
        import gymnasium as gym
        import torch
        from gymnasium.wrappers import NormalizeReward
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

        from pushgen.baselines.slot_scorer import read_scores, slot_policy_kwargs
    except ImportError:
        from pushgen.extras import install_line

        print(f"this script needs sb3-contrib: {install_line('rl')}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    options = Options(replicates=args.replicates)
    train_users, held_out = users(args.split, 1), users(args.split, 2)
    per_user = args.reward_scale == "per-user"

    def training_env(user: int) -> gym.Env:
        env = LongHorizonEnv(args.split, user=user, task=1, horizon_days=args.train_days,
                             send_cost=args.train_send_cost)
        wrapped = with_estimates(env) if args.estimates else env
        return NormalizeReward(wrapped, gamma=args.gamma) if per_user else wrapped

    single = DummyVecEnv([lambda u=u: training_env(u) for u in train_users])
    slot = args.extractor == "slot"  # the slot scorer scales its own counts
    envs = VecNormalize(single, norm_obs=not slot, norm_obs_keys=list(COUNTERS), norm_reward=not per_user,
                        gamma=args.gamma)
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=256, batch_size=512, n_epochs=4, learning_rate=3e-4,
                        gamma=args.gamma, ent_coef=args.ent_coef, seed=args.seed, device="cpu", verbose=0,
                        policy_kwargs=slot_policy_kwargs() if slot else None)
    if slot:
        read_scores(model, args.hold_bias)
    else:
        with torch.no_grad():
            model.policy.action_net.bias[-1] = args.hold_bias
    print(f"MaskablePPO ({args.extractor} extractor, gamma {args.gamma:g}, ent_coef {args.ent_coef:g}, "
          f"hold bias {args.hold_bias:g}, training send cost {args.train_send_cost:g}, rewards scaled "
          f"{args.reward_scale}{', LinUCB estimates' if args.estimates else ''}) on "
          f"{len(train_users)} training users of {args.split} ({args.train_days:g}-day episodes); scored on "
          f"{len(held_out)} held-out users ({options.horizon_days:g} days), {args.replicates} replicates")
    report(model, envs, args.split, held_out, options, "the start", args.estimates)
    started = time.perf_counter()
    while model.num_timesteps < args.steps:
        model.learn(total_timesteps=min(args.eval_every, args.steps - model.num_timesteps),
                    reset_num_timesteps=False)
        drawn, share = report(model, envs, args.split, held_out, options,
                              f"training {time.perf_counter() - started:.0f} s", args.estimates)
    compare(drawn, share, args.split, held_out, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
