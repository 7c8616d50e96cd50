"""A stable-baselines3 features extractor for the selection environment: one scorer shared by the slots.

The observation of ``pushgen/NotificationSelection-v0`` lists K candidates slot by slot; a
plain MLP over their concatenation has to learn the same judgement K times. ``SlotScorer``
scores every slot with one small network of (candidate, context, hours since the last send),
so what it learns about a candidate in one slot holds in every slot, and scores hold with a
network of the context alone; empty slots score ``EMPTY``. Where the observation has them (the
long-horizon task), each slot's ``candidate_history`` joins its candidate and the app's
``app_counts`` join the situation, counts as log1p(count) / 5; an agent's own per-slot
``candidate_estimates`` (added by a wrapper) join their candidate as they are. Its features are
the K + 1 scores followed by the mean of the slots' hidden units (for the value function):

    model = PPO("MultiInputPolicy", env, policy_kwargs=slot_policy_kwargs())
    read_scores(model)

needs the ``rl`` extra (torch, stable-baselines3; ``pip install ".[rl]"`` from a checkout).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from gymnasium.spaces.utils import flatdim
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_SIZES

HIDDEN = 64
EMPTY = -10.0


def discrete_size(space: spaces.Space[Any]) -> int:
    """The number of values of ``space``, a ``Discrete`` space."""
    if not isinstance(space, spaces.Discrete):
        raise TypeError(f"SlotScorer needs Discrete context spaces, got {space}")
    return int(space.n)


class SlotScorer(BaseFeaturesExtractor):
    """Per-slot scores from one shared network (see the module's docstring)."""

    def __init__(self, observation_space: spaces.Dict, hidden: int = HIDDEN) -> None:
        mask = observation_space["candidate_mask"]
        if not isinstance(mask, spaces.MultiBinary):
            raise TypeError(f"SlotScorer needs a MultiBinary candidate_mask space, got {mask}")
        k = int(np.prod(mask.shape))
        super().__init__(observation_space, features_dim=k + 1 + hidden)
        self.k = k
        self.slot_width = int(sum(NOTIFICATION_SIZES))
        self.history = "candidate_history" in observation_space.spaces
        self.history_width = flatdim(observation_space["candidate_history"]) // k if self.history else 0
        self.counts_width = flatdim(observation_space["app_counts"]) if self.history else 0
        estimates = observation_space.spaces.get("candidate_estimates")
        self.estimates_width = flatdim(estimates) // k if estimates is not None else 0
        situation = sum(discrete_size(observation_space[f]) for f in CONTEXT_FEATURES) + 1 + self.counts_width
        width = self.slot_width + self.history_width + self.estimates_width + situation
        self.slot = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.score = nn.Linear(hidden, 1)
        self.hold = nn.Sequential(nn.Linear(situation, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        # stable-baselines3 hands Discrete and MultiDiscrete entries one-hot encoded
        n = observations["candidates"].shape[0]
        context = torch.cat([observations[f].reshape(n, -1) for f in CONTEXT_FEATURES], dim=1)
        hours = torch.log1p(observations["hours_since_last"].reshape(n, 1)) / 5.0
        parts = [context, hours]
        slots = observations["candidates"].reshape(n, self.k, self.slot_width)
        if self.history:
            parts.append(torch.log1p(observations["app_counts"].reshape(n, -1)) / 5.0)
            history = observations["candidate_history"].reshape(n, self.k, self.history_width)
            counts = torch.log1p(history[:, :, 0::2]) / 5.0  # (sends, rate) pairs: scale the sends
            slots = torch.cat([slots, counts, history[:, :, 1::2]], dim=2)
        if self.estimates_width:
            estimates = observations["candidate_estimates"].reshape(n, self.k, self.estimates_width)
            slots = torch.cat([slots, estimates], dim=2)
        situation = torch.cat(parts, dim=1)
        joined = torch.cat([slots, situation[:, None, :].expand(-1, self.k, -1)], dim=2)
        hidden = self.slot(joined)
        mask = observations["candidate_mask"].reshape(n, self.k)
        scores = torch.where(mask > 0.5, self.score(hidden).squeeze(-1), torch.full_like(mask, EMPTY))
        pooled = (hidden * mask[:, :, None]).sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1.0)
        return torch.cat([scores, self.hold(situation), pooled], dim=1)


def read_scores(model, hold_bias: float = 0.0) -> None:
    """Start the policy's action head as the identity on the K + 1 scores (zero on the pooled
    units), so the actions' logits are the shared scorer's scores from the first update on, with
    ``hold_bias`` added to hold's (a start that holds more often than it sends: e.g. 4 holds about
    87% of the contexts with 8 candidates at equal scores)."""
    head = model.policy.action_net
    n = head.out_features
    with torch.no_grad():
        head.weight.zero_()
        head.weight[:, :n] = torch.eye(n)
        head.bias.zero_()
        head.bias[n - 1] = hold_bias


def slot_policy_kwargs(hidden: int = HIDDEN) -> dict:
    """``policy_kwargs`` of a PPO (or MaskablePPO) ``MultiInputPolicy`` with ``SlotScorer``."""
    return {"features_extractor_class": SlotScorer, "features_extractor_kwargs": {"hidden": hidden},
            "net_arch": {"pi": [], "vf": [hidden]}}
