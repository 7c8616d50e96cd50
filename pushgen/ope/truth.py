"""The ground truth of off-policy evaluation: a policy's value played on-policy, with the state
(fatigue, habituation) that its own notifications leave.

The value of a policy is its expected reward per round: the mean over the rounds of the test
users of P(open) of what it sends (0 for hold), each P(open) at the state the policy's own
earlier sends left. Expected rewards remove the response noise; a stochastic policy is played
``rollouts`` times (seeds spawned from ``seed``), and the 95% interval is over those rollouts
(a deterministic policy has a width-0 interval: its value is exact). With ``stationary=True``
the simulated user has no fatigue and no habituation, so a round's P(open) does not depend on
what was sent before.

``BanditLog.frozen_value`` gives the other ground truth: the value with the state frozen to
the logged trajectory. Their difference is the bias that the state dynamics cause in estimators
that assume i.i.d. rounds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from pushgen.checks import whole_number
from pushgen.ope.feedback import plain_floats
from pushgen.ope.log import BanditLog
from pushgen.ope.play import DEFAULT_K, play
from pushgen.ope.policies import SlatePolicy
from pushgen.replay.metrics import interval


@dataclass(frozen=True)
class PolicyValue:
    """A policy's on-policy value (mean P(open) per round) with its 95% interval over rollouts.

    Attributes
    ----------
    policy : str
        The policy's name.
    value, low, high : float
        The value and its 95% interval (width 0 for a deterministic policy).
    rollouts : int
        How many times the policy was played.
    rounds : int
        Rounds per rollout.
    send_rate : float
        The share of rounds where it sent a notification.

    Examples
    --------
    >>> from pushgen.ope import HoldPolicy, policy_value
    >>> value = policy_value(HoldPolicy(), "pushgen-mini-v4", users=[0])
    >>> value.policy, value.send_rate
    ('hold', 0.0)
    """

    policy: str
    value: float
    low: float
    high: float
    rollouts: int
    rounds: int
    send_rate: float

    def __post_init__(self) -> None:
        plain_floats(self, "value", "low", "high", "send_rate")

    def to_dict(self) -> dict:
        return asdict(self)


def policy_value(policy: SlatePolicy, split: str | Path, users: int | list[int] | None = None,
                 k: int = DEFAULT_K, candidate_seed: int = 0, stationary: bool = False, rollouts: int = 5,
                 seed: int = 0) -> PolicyValue:
    """``policy`` played on the split's test users in the selection environment: its value.

    Parameters
    ----------
    policy : SlatePolicy
        The target policy.
    split : str or pathlib.Path
        A standard split's name or a split folder.
    users : int or list of int, optional
        As for ``log_policy``.
    k : int, default 8
        As for ``log_policy``.
    candidate_seed : int, default 0
        As for ``log_policy``.
    stationary : bool, default False
        As for ``log_policy``.
    rollouts : int, default 5
        Plays of a stochastic policy (a deterministic one is played once).
    seed : int, default 0
        The seed of the policy's draws.

    Returns
    -------
    PolicyValue
        The mean true P(open) per round, with its 95% interval over the rollouts.

    Raises
    ------
    ValueError
        When ``rollouts`` is not a whole number >= 1.

    Examples
    --------
    >>> from pushgen.ope import HoldPolicy, policy_value
    >>> policy_value(HoldPolicy(), "pushgen-mini-v4", users=[0]).value  # never sends
    0.0
    """
    whole_number("rollouts", rollouts, 1)
    values, sends, rounds, exact = [], [], 0, False
    for r in range(rollouts):
        rollout_seed = int(np.random.SeedSequence([seed, r]).generate_state(1)[0])
        episodes = play(policy, split, users, k, candidate_seed, rollout_seed, stationary, record_state=False)
        rounds = sum(len(e) for e in episodes)
        values.append(sum(float(e.chosen_p.sum()) for e in episodes) / rounds)
        sends.append(sum(int((e.action < k).sum()) for e in episodes) / rounds)
        if not policy.reads_state and all(np.isin(e.probabilities, (0, 1)).all() for e in episodes):
            exact = True  # deterministic: every rollout would be the same
            break
    mean = float(np.mean(values))
    if exact:
        low = high = mean
    elif len(values) > 1:
        low, high = interval(np.asarray(values))
    else:
        low, high = -float("inf"), float("inf")
    return PolicyValue(policy.name, mean, low, high, len(values), rounds, float(np.mean(sends)))


def frozen_value(policy: SlatePolicy, log: BanditLog) -> float:
    """``policy``'s value with the state frozen to the trajectory of ``log`` (see
    ``BanditLog.frozen_value``): what the usual estimators estimate.

    Parameters
    ----------
    policy : SlatePolicy
        The target policy.
    log : BanditLog
        The log.

    Returns
    -------
    float
        The mean over rounds of the target's probabilities times the logged true P(open).

    Examples
    --------
    >>> from pushgen.ope import HoldPolicy, frozen_value
    >>> from pushgen.ope import log_policy
    >>> log = log_policy("pushgen-mini-v4", policy="uniform", users=[0], seed=0)
    >>> frozen_value(HoldPolicy(), log)
    0.0
    """
    return log.frozen_value(policy)
