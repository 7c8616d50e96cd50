"""The native vector environments as stable-baselines3's ``VecEnv`` (the ``rl`` extra:
``pip install '.[rl]'`` in a checkout).

    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from pushgen.envs import SELECTION_ID
    from pushgen.envs.sb3 import SB3VecEnv

    envs = SB3VecEnv(gym.make_vec(SELECTION_ID, num_envs=16, vectorization_mode="vector_entry_point",
                                  split="pushgen-mini-v4", task=1))
    model = MaskablePPO("MultiInputPolicy", envs).learn(20_000)

stable-baselines3 takes only its own ``VecEnv`` (a gymnasium ``VectorEnv`` is "not a Gymnasium
environment" to it) and resets an environment in the step that ends its episode, returning the
last observation in ``infos[i]["terminal_observation"]``. The native environments reset it in
the next step (gymnasium's default), which starts the episode again and ignores that step's
action; each of their environments replays one user's episode again and again, so its first
observation is always the same. The adapter therefore returns that first observation at once,
and the next step, in which the native environment resets, is a step of that first context
whose action is not taken: reward 0 and the same observation again, once per episode (an
episode of a standard split is hundreds of contexts). ``env_method("action_masks")`` (what
sb3-contrib's ``MaskablePPO`` calls) gives each environment's mask of the context it observes.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from pushgen.envs.base import Shown
from pushgen.extras import install_line

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:
    raise ImportError(f"pushgen.envs.sb3 needs stable-baselines3: {install_line('rl')}") from None


def take(observation: Any, index: int) -> Any:
    """A copy of environment ``index``'s part of a batched observation (a dict of arrays or an array)."""
    if isinstance(observation, dict):
        return {name: np.array(value[index]) for name, value in observation.items()}
    return np.array(observation[index])


def split_infos(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """gymnasium's batched infos (``key`` with its ``_key`` mask) as one dict per environment."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for name, value in info.items():
        if name.startswith("_"):
            continue
        present = info.get(f"_{name}", np.ones(n, dtype=bool))
        for i in np.flatnonzero(present):
            out[i][name] = value[i]
    return out


def put(observation: Any, index: np.ndarray, values: Any) -> None:
    """Write ``values`` (batched like ``observation``) into ``observation`` at ``index``."""
    if isinstance(observation, dict):
        for name, value in observation.items():
            value[index] = values[name][index]
    else:
        observation[index] = values[index]


class SB3VecEnv(Shown, VecEnv):
    """A native pushgen ``VectorEnv`` (next-step autoreset, one episode per environment replayed
    again and again) as a stable-baselines3 ``VecEnv``.

    Parameters
    ----------
    env : gymnasium.vector.VectorEnv
        From ``gym.make_vec(..., vectorization_mode="vector_entry_point")``.
    """

    def __init__(self, env: VectorEnv) -> None:
        if not isinstance(env, VectorEnv):
            raise TypeError(f"SB3VecEnv takes a gymnasium VectorEnv (gym.make_vec(..., "
                            f"vectorization_mode='vector_entry_point')); got {type(env).__name__}")
        if env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP) != AutoresetMode.NEXT_STEP:
            raise ValueError("SB3VecEnv takes a vector environment that resets in the next step")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._first: Any = None
        self._first_masks: np.ndarray | None = None
        self._restarting = np.zeros(env.num_envs, dtype=bool)
        self._actions: np.ndarray | None = None

    def _headline(self) -> str:
        inner = self.env._headline() if isinstance(self.env, Shown) else repr(self.env)
        return f"{type(self).__name__} (stable-baselines3) of {inner}"

    def _facts(self) -> list[tuple[str, str]]:
        return self.env._facts() if isinstance(self.env, Shown) else [("environments", f"{self.num_envs:,}")]

    def _masks(self) -> np.ndarray | None:
        masks = getattr(self.env, "action_masks", None)
        return None if masks is None else np.asarray(masks(), dtype=bool)

    def reset(self) -> Any:
        seeds = [s for s in self._seeds if s is not None]
        observation, info = self.env.reset(seed=seeds[0] if seeds else None)
        self.reset_infos = split_infos(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        self._first = ({name: value.copy() for name, value in observation.items()}
                       if isinstance(observation, dict) else observation.copy())
        self._first_masks = self._masks()
        self._restarting[:] = False
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> Any:
        observation, reward, terminated, truncated, info = self.env.step(self._actions)
        reward = np.where(self._restarting, 0.0, reward).astype(np.float32)
        done = (terminated | truncated) & ~self._restarting
        infos = split_infos(info, self.num_envs)
        ended = np.flatnonzero(done)
        for i in ended:
            infos[i]["terminal_observation"] = take(observation, int(i))
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        if len(ended):
            put(observation, ended, self._first)
        self._restarting = done
        return observation, reward, done, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, actions)``: the allowed actions at the context each environment observes
        (its first context for one that just ended)."""
        masks = self._masks()
        if masks is None:
            raise AttributeError(f"{type(self.env).__name__} has no action_masks")
        if self._first_masks is not None and self._restarting.any():
            masks[self._restarting] = self._first_masks[self._restarting]
        return masks

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[list(self._get_indices(indices))])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
