"""Attack the online environments with what they hand a learner, and with the public seeds.

    python scripts/attack_online.py --split pushgen-v4            # the cold-start users

- fed the reward: LinUCB learning from whatever the environment returns as the reward, against
  the same LinUCB learning from ``opened`` (the leaderboard's loop), both in the learner-facing
  mode on the same outcome draws, scored by the true P(open) of what they send (the scorer's
  reading); and, for scale, fed the reward of the ``expected`` evaluation mode (the true P(open),
  which learners must not be scored in);
- the public seeds: after ``reset(seed=s)``, every stream a policy can derive from ``s``
  (gymnasium's ``np_random``, ``default_rng(s)``, the outcome generator of entropy ``s``) is
  used to predict each response of slot 0; the agreement is set beside that of a guess
  independent of the draws with the same rate (chance); the same for the generation
  environment (task 2) answering each context with the user's logged notification, where the
  split's own draw of the row (the ground truth behind the logged action, on disk with the
  split) is tried as well.

Exit status 1 if the reward-fed learner is separated above the opened-fed one, or a public
stream agrees with the responses more than 4 standard deviations above chance.
"""

from __future__ import annotations

import argparse
import copy
import sys

import numpy as np

from pushgen.baselines.selection import LinUCB, PublicHistory, SelectionSetting
from pushgen.envs.generation import NotificationGenerationEnv
from pushgen.envs.outcomes import outcome_generator
from pushgen.envs.selection import NotificationSelectionEnv
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.publishing.access import load_split
from pushgen.replay.metrics import paired
from pushgen.replay.scoring import sequence_probabilities


def linucb_score(env: NotificationSelectionEnv, public: PublicHistory, user: int, fed: str) -> float:
    """LinUCB's mean true P(open) per context over the user's episode, learning from ``fed``."""
    policy = LinUCB(SelectionSetting(k=env.k, seed=np.random.SeedSequence(user), public=public))
    observation, _ = env.reset(seed=user, options={"outcome_entropy": user})
    total = 0.0
    for _ in range(len(env.episode)):
        action = policy.act(observation)
        following, reward, _, _, info = env.step(action)
        total += env.last_p_open
        if info["sent"]:
            policy.update(observation, action, info["opened"] if fed == "opened" else reward)
        observation = following
    return total / len(env.episode)


def public_seed_agreement(env: NotificationSelectionEnv, seed: int,
                          steps: int) -> tuple[dict[str, int], float]:
    """How many of ``steps`` responses each public stream predicts, and the chance count."""
    env.reset(seed=seed)
    streams = {"np_random": copy.deepcopy(env.np_random), "default_rng(seed)": np.random.default_rng(seed),
               "outcome_generator(seed)": outcome_generator(seed)}
    agree = dict.fromkeys(streams, 0)
    chance = 0.0  # a guess drawn apart from the response agrees with probability p^2 + (1 - p)^2
    for _ in range(min(steps, len(env.episode))):
        p = env.candidate_probabilities()[0]
        guesses = {name: stream.random() < p for name, stream in streams.items()}
        opened = env.step(0)[4]["opened"]
        chance += p**2 + (1 - p) ** 2
        for name, guess in guesses.items():
            agree[name] += guess == opened
    return agree, chance


def generation_seed_agreement(env: NotificationGenerationEnv, seed: int,
                               steps: int) -> tuple[dict[str, int], float, int]:
    """How many responses to the user's logged notifications each public stream and the split's
    own draws predict after ``reset(seed=seed)``, the chance count and the number of responses."""
    n = min(steps, len(env.episode))
    codes = {f: env.episode.codes[f][:n] for f in NOTIFICATION_FEATURES}
    rows = np.arange(env.episode.rows.start, env.episode.rows.start + n)
    p = sequence_probabilities(env.replay, rows, codes)
    env.reset(seed=seed)
    streams = {"np_random": copy.deepcopy(env.np_random), "default_rng(seed)": np.random.default_rng(seed),
               "outcome_generator(seed)": outcome_generator(seed)}
    guesses = {name: stream.random(n) < p for name, stream in streams.items()}
    guesses["the split's own draw"] = env.episode.draw[:n] < p
    opened = np.array([env.step({f: int(c[i]) for f, c in codes.items()})[4]["opened"] for i in range(n)])
    return {name: int((guess == opened).sum()) for name, guess in guesses.items()}, float(
        np.sum(p**2 + (1 - p) ** 2)), n


def report_agreement(title: str, agree: dict[str, int], chance: float, total: float) -> bool:
    """Print each stream's agreement beside chance; whether one is 4 standard deviations above."""
    spread = np.sqrt(total * 0.25)
    print(f"{title}, {int(total)} responses: chance agreement {chance:.0f} (sd <= {spread:.0f})")
    for name, count in agree.items():
        print(f"  {name:<24} agrees {count} ({count - chance:+.0f})")
    return any(count > chance + 4 * spread for count in agree.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4")
    parser.add_argument("--steps", type=int, default=500, help="responses predicted per user")
    args = parser.parse_args(argv)
    public = PublicHistory.of(load_split(args.split, 1).train)
    users = [int(u) for u in NotificationSelectionEnv(args.split, task=2).replay.users]
    scores: dict[str, list[float]] = {"opened": [], "reward": [], "expected-mode reward": []}
    agree: dict[str, int] = {}
    generation: dict[str, int] = {}
    chance = total = generation_chance = generation_total = 0.0
    for user in users:
        learner = NotificationSelectionEnv(args.split, user=user, task=2)
        evaluation = NotificationSelectionEnv(args.split, user=user, task=2, mode="expected")
        scores["opened"].append(linucb_score(learner, public, user, "opened"))
        scores["reward"].append(linucb_score(learner, public, user, "reward"))
        scores["expected-mode reward"].append(linucb_score(evaluation, public, user, "reward"))
        probe = NotificationSelectionEnv(args.split, user=user, task=2, candidate_p_in_info=True)
        counts, expected = public_seed_agreement(probe, user, args.steps)
        for name, count in counts.items():
            agree[name] = agree.get(name, 0) + count
        chance += expected
        total += min(args.steps, len(learner.episode))
        played = NotificationGenerationEnv(args.split, user=user, task=2)
        counts, expected, n = generation_seed_agreement(played, user, args.steps)
        for name, count in counts.items():
            generation[name] = generation.get(name, 0) + count
        generation_chance += expected
        generation_total += n
    print(f"{args.split}: {len(users)} cold-start users; LinUCB's mean true P(open) per context")
    failed = False
    for fed in ("reward", "expected-mode reward"):
        versus = paired(np.array(scores[fed]), np.array(scores["opened"]))
        print(f"fed {fed:<22} {np.mean(scores[fed]):.4f}  vs fed opened {np.mean(scores['opened']):.4f}: "
              f"{versus['difference']:+.4f} [{versus['low']:+.4f}, {versus['high']:+.4f}]")
        failed |= fed == "reward" and versus["low"] > 0
    failed |= report_agreement("selection, public seeds", agree, chance, total)
    failed |= report_agreement("generation (task 2), public seeds and the split's draws", generation,
                               generation_chance, generation_total)
    print("the environment hands a learner nothing a deployment would not: " + ("NO" if failed else "yes"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
