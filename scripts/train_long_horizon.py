"""Train MaskablePPO on the long-horizon task with training users, score it on held-out users.

    pip install ".[rl]"                # from a checkout: stable-baselines3, sb3-contrib, torch
    python scripts/train_long_horizon.py --split pushgen-v4 --steps 400000 --eval-every 150000 \
        --replicates 1 --estimates --warm-start 100000 --learning-rate 3e-5
    python scripts/train_long_horizon.py --split pushgen-mini-v4 --steps 4096 --replicates 1

Training: ``pushgen/LongHorizon-v0`` episodes of the training users (task 1's test months, each
with its default app), one environment per user stepped together, reward the opens (fresh
outcome entropy at every reset). MaskablePPO (sb3-contrib) with ``MultiInputPolicy`` and the
shared slot scorer (``pushgen.baselines.slot_scorer``; ``--extractor flat``: the default
extractor, the app's counters normalised by ``VecNormalize``); ``--estimates`` adds the policy's
own LinUCB upper bound per slot to its observation, and ``--warm-start N`` first clones LinUCB
with the board's send threshold on N training steps (``long_horizon_warm_start``; they count in
``--steps``). Chosen on the training users: at the start and every ``--eval-every`` steps the
policy (its most likely actions, and actions drawn from it) plays every training user's 42-day
test months, and the best of these on the training users is the one scored. Scored once like the
leaderboard's long-horizon section (``pushgen.benchmark.long_horizon``): it plays each held-out
user (task 2's cold-start users) ``--replicates`` times with the run's outcome entropy, beside
the myopic greedy true model and a random candidate at its own send share on the same draws
(paired differences per held-out user).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from long_horizon_warm_start import OnlineEstimates, with_estimates

from pushgen.baselines.long_horizon import HORIZON_BASELINES, HorizonSetting
from pushgen.benchmark.long_horizon import BOARD_SEED, Options, outcome_entropy, play, users
from pushgen.envs.long_horizon import LongHorizonEnv
from pushgen.replay.metrics import paired

COUNTERS = ("app_counts", "days_into_episode", "hours_since_last")  # the Box entries, normalised


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
                    options: Options, task: int = 2) -> np.ndarray:
    """Per user of ``held_out`` (task ``task``'s), the mean opens over the replicates (the entropy
    of ``options``) of the policy ``make(env, user)`` returns (a new one for each episode)."""
    scores = []
    for user in held_out:
        env = LongHorizonEnv(split, user=user, k=options.k, horizon_days=options.horizon_days,
                             send_cost=options.send_cost, task=task)
        scores.append(np.mean([play(env, make(env, user), outcome_entropy(user, r, options.entropy))[0]
                               for r in range(options.replicates)]))
    return np.array(scores)


def trained_scores(model: Any, normalize: Any, split: str, users_: list[int], options: Options,
                   deterministic: bool, estimates: bool, task: int = 2) -> tuple[np.ndarray, float]:
    """The trained policy's per-user scores and its share of steps that send."""
    import torch

    torch.manual_seed(0)  # the policy's own draws when it samples (the outcomes are the board's)
    played: list[Trained] = []

    def make(env: LongHorizonEnv, user: int) -> Trained:
        played.append(Trained(model, normalize, deterministic, OnlineEstimates(env.k) if estimates else None))
        return played[-1]

    normalize.training = False
    scores = held_out_scores(make, split, users_, options, task)
    normalize.training = True
    return scores, sum(p.sends for p in played) / max(sum(p.steps for p in played), 1)


def baseline(name: str, options: Options, **knobs: Any) -> Callable[[LongHorizonEnv, int], Any]:
    """A maker of the board's baseline ``name`` with ``knobs`` for ``held_out_scores``."""
    made = HORIZON_BASELINES[name]

    def make(env: LongHorizonEnv, user: int) -> Any:
        seed = np.random.SeedSequence([BOARD_SEED, user])
        return made.make(HorizonSetting(options.k, seed, **knobs, env=env if made.reads_truth else None))

    return make


def compare(scores: np.ndarray, share: float, split: str, held_out: list[int], options: Options) -> None:
    """The trained policy's held-out ``scores`` against the myopic greedy true model and against a
    uniform random candidate sent at the trained policy's own send share, on the same draws."""
    for label, make in (("greedy true model", baseline("greedy", options)),
                        (f"random at {share:.3f} of the steps", baseline("random", options, rate=share))):
        other = held_out_scores(make, split, held_out, options)
        c = paired(scores, other)
        print(f"  vs {label} ({other.mean():.1f}): {c['difference']:+.1f} "
              f"[{c['low']:+.1f}, {c['high']:+.1f}] per held-out user, paired 95%", flush=True)


class Selection:
    """Checkpoint selection on the training users: each evaluation plays the policy (its most
    likely actions, and actions drawn from it) on every training user's 42-day test months with
    an outcome key of its own, and keeps the best (checkpoint, way of acting) by mean opens."""

    def __init__(self, split: str, train_users: list[int], replicates: int, estimates: bool) -> None:
        self.split, self.users, self.estimates = split, train_users, estimates
        self.options = Options(replicates=replicates)
        self.best: tuple[float, bool, int, Any, Any] | None = None

    def evaluate(self, model: Any, normalize: Any, what: str) -> None:
        import copy

        for deterministic in (True, False):
            scores, share = trained_scores(model, normalize, self.split, self.users, self.options,
                                           deterministic, self.estimates, task=1)
            print(f"  {model.num_timesteps:>9,} steps  training-user opens per user {scores.mean():.1f} "
                  f"{'most likely action' if deterministic else 'sampled'} (sends at {share:.3f} of the "
                  f"steps)  ({what})", flush=True)
            if self.best is None or scores.mean() > self.best[0]:
                kept = copy.deepcopy((model.policy.state_dict(), vars(normalize).get("obs_rms")))
                self.best = (float(scores.mean()), deterministic, model.num_timesteps, *kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--steps", type=int, default=1_000_000, help="the budget, warm start included")
    parser.add_argument("--eval-every", type=int, default=200_000)
    parser.add_argument("--replicates", type=int, default=Options.replicates)
    parser.add_argument("--select-replicates", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-days", type=float, default=14.0)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--ent-coef", type=float, default=0.001)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--extractor", choices=("slot", "flat"), default="slot")
    parser.add_argument("--hold-bias", type=float, default=0.0)
    parser.add_argument("--reward-scale", choices=("per-user", "shared"), default="per-user",
                        help="normalise each training user's rewards by its own returns, or all together")
    parser.add_argument("--estimates", action="store_true",
                        help="the agent's own LinUCB upper bounds per slot in its observation")
    parser.add_argument("--train-send-cost", type=float, default=0.0,
                        help="a cost per send in the training episodes only (scored: opens)")
    parser.add_argument("--warm-start", type=int, default=0, metavar="STEPS",
                        help="clone LinUCB with a send threshold on this many training steps first "
                             "(needs --estimates; counted in --steps)")
    parser.add_argument("--warm-start-theta", type=float, default=0.7,
                        help="its least upper bound worth a send (the board's, tuned on the training users)")
    parser.add_argument("--warm-start-cap", type=int, default=50, help="its sends a day at most")
    args = parser.parse_args(argv)
    if min(args.steps, args.eval_every, args.replicates, args.select_replicates) < 1:
        parser.exit(2, "train_long_horizon.py: --steps, --eval-every and the replicates must be >= 1\n")
    if not (args.train_days > 0 and 0 < args.gamma <= 1 and min(args.ent_coef, args.train_send_cost) >= 0):
        parser.exit(2, "train_long_horizon.py: --train-days must be > 0, --gamma in (0, 1], "
                    "--ent-coef and --train-send-cost >= 0\n")
    if not 0 <= args.warm_start < args.steps or (args.warm_start and not args.estimates):
        parser.exit(2, "train_long_horizon.py: --warm-start needs --estimates and fewer steps than --steps\n")
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
    from long_horizon_warm_start import clone, demonstrate

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
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=256, batch_size=512, n_epochs=4,
                        learning_rate=args.learning_rate, gamma=args.gamma, ent_coef=args.ent_coef,
                        seed=args.seed, device="cpu", verbose=0,
                        policy_kwargs=slot_policy_kwargs() if slot else None)
    if slot:
        read_scores(model, args.hold_bias)
    else:
        with torch.no_grad():
            model.policy.action_net.bias[-1] = args.hold_bias
    print(f"MaskablePPO ({args.extractor} extractor, gamma {args.gamma:g}, ent_coef {args.ent_coef:g}, "
          f"learning rate {args.learning_rate:g}, hold bias {args.hold_bias:g}, training send cost "
          f"{args.train_send_cost:g}, rewards scaled {args.reward_scale}"
          f"{', LinUCB estimates' if args.estimates else ''}) on {len(train_users)} training users of "
          f"{args.split} ({args.train_days:g}-day episodes); chosen on the training users' 42-day test "
          f"months, scored on {len(held_out)} held-out users ({options.horizon_days:g} days), "
          f"{args.replicates} replicates")
    started = time.perf_counter()
    if args.warm_start:
        data = demonstrate(envs, args.warm_start, model.policy.action_space.n - 1, args.warm_start_theta,
                           args.warm_start_cap, args.gamma)
        loss, agree = clone(model, data, seed=args.seed)
        model.num_timesteps = len(data)
        print(f"  warm start: LinUCB (theta {args.warm_start_theta:g}, at most {args.warm_start_cap} a day) "
              f"on {len(data):,} steps, cloned to {agree:.3f} agreement (loss {loss:.3f}), "
              f"{time.perf_counter() - started:.0f} s", flush=True)
    selection = Selection(args.split, train_users, args.select_replicates, args.estimates)
    selection.evaluate(model, envs, "the start")
    while model.num_timesteps < args.steps:
        model.learn(total_timesteps=min(args.eval_every, args.steps - model.num_timesteps),
                    reset_num_timesteps=False)
        selection.evaluate(model, envs, f"training {time.perf_counter() - started:.0f} s")
    assert selection.best is not None
    best, deterministic, at, weights, rms = selection.best
    model.policy.load_state_dict(weights)
    if rms is not None:
        envs.obs_rms = rms
    scores, share = trained_scores(model, envs, args.split, held_out, options, deterministic, args.estimates)
    acting = "most likely action" if deterministic else "sampled"
    print(f"  chosen: {at:,} steps, {acting} ({best:.1f} on the training users); held-out opens per user "
          f"{scores.mean():.1f} (sends at {share:.3f} of the steps)", flush=True)
    compare(scores, share, args.split, held_out, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
