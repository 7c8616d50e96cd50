"""Steps per second of random actions on the replay environments, beside gymnasium's CartPole-v1.

    python scripts/bench_env.py [--split pushgen-v4] [--seconds 2] [--envs 256]

Prints first the reference, ``CartPole-v1`` made with ``gym.make`` (actions drawn beforehand),
then for each environment: a single environment made with ``gym.make`` (actions drawn
beforehand, then drawn by ``action_space.sample()`` at every step) and its speed as a multiple
of CartPole's, and ``gym.make_vec`` with 8 copies in ``sync`` and ``async`` mode; for the
generation and selection environments also the native vector environment
(``vectorization_mode="vector_entry_point"``) with ``--envs`` environments, and its speed as a
multiple of the single environment, of ``sync`` ``make_vec`` and of CartPole's own native vector
environment with as many environments, all measured in the same run. Beside each rate: the CPU
time per step (nanoseconds), which a loaded machine inflates less than the wall-clock rate.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import gymnasium as gym

import pushgen

gym.register_envs(pushgen)

LABEL = 37  # the widest label: "CartPole-v1, actions drawn beforehand"
ENVS = {
    "generation": (pushgen.envs.GENERATION_ID, {"task": 1}),
    "selection": (pushgen.envs.SELECTION_ID, {"task": 1}),
    "inbox": (pushgen.envs.INBOX_ID, {}),
}
NATIVE = ("generation", "selection")
REFERENCE = "CartPole-v1"
COPIES = 8


Rate = tuple[float, float]  # steps per second (wall clock), CPU nanoseconds per step


def rate(steps: int, start: float, cpu_start: float) -> Rate:
    return steps / (time.perf_counter() - start), (time.process_time() - cpu_start) / steps * 1e9


def single(env_id: str, kwargs: dict, seconds: float, sample_each_step: bool) -> Rate:
    env = gym.make(env_id, **kwargs)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4096)]
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for k in range(1024):
            action = env.action_space.sample() if sample_each_step else actions[k]
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        steps += 1024
    measured = rate(steps, start, cpu_start)
    env.close()
    return measured


def vector(env_id: str, kwargs: dict, seconds: float, mode: str) -> Rate:
    envs = gym.make_vec(env_id, num_envs=COPIES, vectorization_mode=mode, **kwargs)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(128):
            envs.step(envs.action_space.sample())
        steps += 128 * COPIES
    measured = rate(steps, start, cpu_start)
    envs.close()
    return measured


def native(env_id: str, kwargs: dict, seconds: float, num_envs: int) -> Rate:
    """The native vector environment, actions drawn beforehand (as an RL library's batch)."""
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    actions = [envs.action_space.sample() for _ in range(64)]
    for action in actions[:8]:  # the first step computes the part's row terms once
        envs.step(action)
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for action in actions:
            envs.step(action)
        steps += len(actions) * num_envs
    measured = rate(steps, start, cpu_start)
    envs.close()
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="pushgen-v4", help="split name or folder")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--envs", type=int, default=256, help="environments of the native vector env")
    args = parser.parse_args()
    print(f"split {args.split}; random actions; steps per second in total (higher is better)")
    print(f"{'':<10} {'':<{LABEL}} {'steps/s':>12} {'CPU ns/step':>12}")
    reference = single(REFERENCE, {}, args.seconds, False)
    show("reference", REFERENCE + ", actions drawn beforehand", reference)
    reference_vector = native(REFERENCE, {}, args.seconds, args.envs)
    show("reference", f"{REFERENCE} native vector x{args.envs}", reference_vector)
    for name, (env_id, extra) in ENVS.items():
        kwargs = {"split": args.split, **extra}
        # the history would be pickled to the main process at every step
        quiet = {**kwargs, "history_in_info": False} if name == "generation" else kwargs
        measurements = {
            "single, actions drawn beforehand": partial(single, env_id, kwargs, args.seconds, False),
            "single, action_space.sample()": partial(single, env_id, kwargs, args.seconds, True),
            f"make_vec x{COPIES} sync": partial(vector, env_id, kwargs, args.seconds, "sync"),
            f"make_vec x{COPIES} async": partial(vector, env_id, quiet, args.seconds, "async"),
        }
        if name in NATIVE:
            measurements[f"native vector x{args.envs}"] = partial(native, env_id, kwargs, args.seconds,
                                                                  args.envs)
        rates = {}
        for label, measure in measurements.items():
            rates[label] = measure()
            show(name, label, rates[label])
        alone = rates["single, actions drawn beforehand"]
        print(f"{name:<10} single / {REFERENCE}: {ratio(alone, reference)}")
        if name in NATIVE:
            fast = rates[f"native vector x{args.envs}"]
            sync = rates[f"make_vec x{COPIES} sync"]
            print(f"{name:<10} native vector / single: {ratio(fast, alone)}; / make_vec x{COPIES} sync: "
                  f"{ratio(fast, sync)}; / {REFERENCE} native vector x{args.envs}: "
                  f"{ratio(fast, reference_vector)}")


def show(name: str, label: str, measured: Rate) -> None:
    print(f"{name:<10} {label:<{LABEL}} {measured[0]:>12,.0f} {measured[1]:>12,.0f}")


def ratio(faster: Rate, slower: Rate) -> str:
    """How many times ``slower``'s speed: by wall-clock rate, and by CPU time per step."""
    return f"{faster[0] / slower[0]:.2f}x (CPU per step: {slower[1] / faster[1]:.2f}x)"

if __name__ == "__main__":
    main()
