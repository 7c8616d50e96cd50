"""The policy's own estimates for ``train_long_horizon.py``, and a warm start: behaviour cloning of
LinUCB with a send threshold.

``OnlineEstimates`` (``with_estimates`` wraps an environment with it) gives each allowed slot the
upper bound on its open rate of a LinUCB the policy keeps itself, learnt within the episode from
the opens of what it sent: no hidden value of the user. The demonstrator is the board's
``linucb`` row (``pushgen.baselines.long_horizon.CappedLinUCB``) read off that observation: it
learns as ``CappedLinUCB`` does, so the demonstrator sends the allowed slot with the highest bound when
that bound is at least ``theta`` and fewer than ``cap`` were sent in the last 24 hours, and
holds otherwise. ``demonstrate`` plays it in the training environments (their steps count in the
run's budget); ``clone`` fits the policy to its actions (cross-entropy over the masked actions)
and the value function to the discounted returns of the rewards the environments gave (as PPO
sees them), so PPO's first updates start from a policy that already holds when its estimates
are low, and a value function that knows what holding keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pushgen.baselines.long_horizon import allowed_first
from pushgen.baselines.selection_online import LinUCB
from pushgen.envs.long_horizon import LongHorizonEnv


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


def demonstrator_action(observation: dict[str, Any], k: int, theta: float, cap: float) -> int:
    """The thresholded LinUCB's action on one augmented observation (``k`` holds)."""
    allowed = np.flatnonzero(np.asarray(observation["candidate_mask"]))
    if not len(allowed) or observation["app_counts"][0] >= cap:
        return k
    bounds = np.asarray(observation["candidate_estimates"])[allowed, 0]
    best = int(np.argmax(bounds))
    return int(allowed[best]) if bounds[best] >= theta else k


@dataclass
class Demonstrations:
    """Observations (a dict of stacked arrays), the demonstrator's actions, the action masks and
    the discounted returns of the rewards the environments gave."""

    observations: dict[str, np.ndarray]
    actions: np.ndarray
    masks: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def demonstrate(envs: Any, steps: int, k: int, theta: float, cap: float, gamma: float) -> Demonstrations:
    """Play the demonstrator in the vectorised training ``envs`` for about ``steps`` steps in all
    (whole rounds of ``envs.num_envs``); the returns of the episodes still running at the end are
    cut there."""
    n = envs.num_envs
    observation = envs.reset()
    seen: list[dict[str, np.ndarray]] = []
    actions, masks, rewards, dones = [], [], [], []
    for _ in range(max(1, -(-steps // n))):
        rows = [{key: value[e] for key, value in observation.items()} for e in range(n)]
        action = np.array([demonstrator_action(row, k, theta, cap) for row in rows])
        seen.append({key: np.array(value) for key, value in observation.items()})
        allowed = np.asarray(observation["candidate_mask"], dtype=bool)
        masks.append(np.hstack([allowed, np.ones((n, 1), dtype=bool)]))
        observation, reward, done, _ = envs.step(action)
        actions.append(action)
        rewards.append(reward)
        dones.append(done)
    returns = np.zeros((len(rewards), n))
    following = np.zeros(n)
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following * (1.0 - dones[t])
        returns[t] = following
    observations = {key: np.concatenate([s[key] for s in seen]) for key in seen[0]}
    return Demonstrations(observations, np.concatenate(actions), np.concatenate(masks), returns.ravel())


def clone(model: Any, data: Demonstrations, epochs: int = 8, batch: int = 512, learning_rate: float = 1e-3,
          seed: int = 0) -> tuple[float, float]:
    """Fit ``model``'s policy (a MaskablePPO) to ``data``: the demonstrator's actions' negative
    log-likelihood plus the value function's squared error on the returns; return the last
    epoch's mean negative log-likelihood and the share of steps whose most likely action is the
    demonstrator's."""
    import torch
    from stable_baselines3.common.utils import obs_as_tensor

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    loss_sum = 0.0
    for _ in range(epochs):
        order = rng.permutation(len(data))
        loss_sum = 0.0
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            observations = obs_as_tensor({key: value[rows] for key, value in data.observations.items()},
                                         policy.device)
            actions = torch.as_tensor(data.actions[rows], device=policy.device)
            values, log_prob, _ = policy.evaluate_actions(observations, actions,
                                                          action_masks=data.masks[rows])
            returns = torch.as_tensor(data.returns[rows], dtype=torch.float32, device=policy.device)
            imitation = -log_prob.mean()
            loss = imitation + 0.5 * ((values.flatten() - returns) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            loss_sum += float(imitation.detach()) * len(rows)
    agree = 0
    with torch.no_grad():
        for start in range(0, len(data), batch):
            rows = np.arange(start, min(start + batch, len(data)))
            observations = obs_as_tensor({key: value[rows] for key, value in data.observations.items()},
                                         policy.device)
            distribution = policy.get_distribution(observations, action_masks=data.masks[rows])
            likely = distribution.distribution.probs.argmax(dim=1).cpu().numpy()
            agree += int((likely == data.actions[rows]).sum())
    return loss_sum / len(data), agree / len(data)
