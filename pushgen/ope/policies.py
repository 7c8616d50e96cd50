"""Policies of the selection task as probabilities: the logging policies and the target policies.

A round offers ``k`` candidate slots (some may be empty) and hold (action ``k``). A policy
gives, for a batch of rounds, the probability of each action: a ``(rounds, k + 1)`` array,
zero on empty slots, each row summing to 1. Logged propensities are these probabilities.

- ``uniform``: every filled slot and hold alike.
- ``softmax``: pi(a) proportional to exp(q(a) / temperature), q the true P(open) of candidate
  a at the user's current state and 0 for hold (Open Bandit Pipeline's synthetic logging
  policy, beta = 1 / temperature). The temperature must be at least ``MIN_TEMPERATURE``: then
  no action's propensity is below exp(-1 / MIN_TEMPERATURE) = 4.5e-5 times another's. Its
  propensities encode the truth: temperature * log(pi(a) / pi(hold)) is q(a), the answer key.
- ``softmax-learned``: the same with q the P(open) of a public model
  (``pushgen.ope.models.learned_scorer``), so its propensities reveal nothing hidden.
- target policies over a ``Scorer`` (a model's open log-odds of each candidate): ``greedy``
  (its best candidate), ``epsilon_greedy`` (the bandit's exploration: a share epsilon spread
  over every allowed action), and ``hold_heavy`` (holds with probability ``hold``, else the
  greedy candidate); ``hold`` always holds.

Each is a ``pushgen.baselines.base.Policy[Slates, numpy.ndarray]`` (``SlatePolicy``): ``act``
gives the probabilities. A policy whose probabilities depend on the state (``reads_state``) is
asked round by round, with the candidates' true P(open) at the state; the others once per
episode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pushgen.model.logistic import expit
from pushgen.model.renamed import moved
from pushgen.ope.slates import Probabilities as Probabilities
from pushgen.ope.slates import Scorer as Scorer
from pushgen.ope.slates import SlatePolicy as SlatePolicy
from pushgen.ope.slates import Slates as Slates
from pushgen.ope.slates import allowed as allowed
from pushgen.ope.slates import sample as sample
from pushgen.ope.slates import scores

MIN_TEMPERATURE = 0.1
POLICIES = ("uniform", "softmax", "softmax-learned")


__getattr__ = moved(__name__, {"SelectionPolicy": "pushgen.ope.policies.SlatePolicy (a "
                                                   "pushgen.baselines.base.Policy over Slates)"})


def check_temperature(temperature: object) -> float:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.integer, np.floating)) \
            or not math.isfinite(temperature) or temperature < MIN_TEMPERATURE:
        raise ValueError(f"temperature must be a finite number >= {MIN_TEMPERATURE}; got {temperature!r}")
    return float(temperature)


def check_share(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number from 0 to 1; got {value!r}")
    return float(value)


@dataclass(frozen=True)
class UniformPolicy(Probabilities):
    """Uniform over the filled slots and hold: the logging policy of ``pushgen log --policy uniform``.

    Attributes
    ----------
    name : str
        The policy's name in logs and tables.
    reads_state : bool
        Whether it reads the candidates' P(open) at the state (``Slates.p_open``).

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Slates, UniformPolicy
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 3, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True, False]]))  # two filled slots, one empty
    >>> UniformPolicy().probabilities(slates).round(3).tolist()  # slots 0, 1 and hold
    [[0.333, 0.333, 0.0, 0.333]]
    """

    name: str = "uniform"
    reads_state: bool = False

    def probabilities(self, slates: Slates) -> np.ndarray:
        ok = allowed(slates)
        return ok / ok.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class SoftmaxPolicy(Probabilities):
    """pi(a) in proportion to exp(q(a) / temperature), q the candidate's P(open) and 0 for hold:
    Open Bandit Pipeline's synthetic logging policy with beta = 1 / temperature.

    Without a scorer (``softmax``) q is the true P(open) at the state, so the propensities
    encode it: temperature * log(pi(a) / pi(hold)) = q(a), part of the answer key. With one
    (``softmax-learned``) q = expit(scorer(slates)), a model's P(open), and the policy reads no
    state.

    Parameters
    ----------
    temperature : float, default 0.2
        At least 0.1, so that no propensity is below exp(-10) times another.
    scorer : Scorer, optional
        The candidates' open log-odds, e.g. ``pushgen.ope.models.learned_scorer(split)``.

    Raises
    ------
    ValueError
        When ``temperature`` is below 0.1 or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Slates, SoftmaxPolicy
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 3, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True, False]]), p_open=np.array([[0.5, 0.1, 0.0]]))
    >>> SoftmaxPolicy(temperature=0.2).probabilities(slates).round(3).tolist()
    [[0.821, 0.111, 0.0, 0.067]]
    >>> from scipy.special import logit
    >>> learned = SoftmaxPolicy(0.2, scorer=lambda slates: logit(np.array([[0.5, 0.1, 0.5]])))
    >>> learned.name, learned.reads_state, learned.probabilities(slates).round(3).tolist()
    ('softmax-learned', False, [[0.821, 0.111, 0.0, 0.067]])
    """

    temperature: float = 0.2
    scorer: Scorer | None = None

    def __post_init__(self) -> None:
        check_temperature(self.temperature)

    @property
    def name(self) -> str:
        return "softmax" if self.scorer is None else "softmax-learned"

    @property
    def reads_state(self) -> bool:
        return self.scorer is None

    def probabilities(self, slates: Slates) -> np.ndarray:
        if self.scorer is not None:
            p_open = expit(scores(self.scorer, slates))
        elif slates.p_open is None:
            raise ValueError("the softmax policy reads the candidates' P(open) at the state (p_open=)")
        else:
            p_open = slates.p_open
        q = np.column_stack([p_open, np.zeros(len(slates))]) / self.temperature
        q = np.where(allowed(slates), q, -np.inf)
        weights = np.exp(q - q.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)


def best_candidate(scorer: Scorer, slates: Slates) -> np.ndarray:
    """(n, k + 1) one-hot: the filled slot with the highest score (the first of ties)."""
    scored = np.where(slates.mask, scores(scorer, slates), -np.inf)
    out = np.zeros((len(slates), slates.mask.shape[1] + 1))
    best = scored.argmax(axis=1)
    out[np.arange(len(slates)), np.where(slates.mask.any(axis=1), best, slates.mask.shape[1])] = 1.0
    return out


@dataclass(frozen=True)
class GreedyPolicy(Probabilities):
    """The filled slot with the highest score (the first of ties); never holds.

    Parameters
    ----------
    scorer : Scorer
        ``scorer(slates)`` gives a score per candidate ``(n, k)``, e.g.
        ``pushgen.ope.models.learned_scorer(split)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import GreedyPolicy, Slates
    >>> slates = Slates(contexts={}, candidates=np.zeros((2, 2, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True], [False, False]]),
    ...                 p_open=np.array([[0.1, 0.5], [0.0, 0.0]]))
    >>> GreedyPolicy(lambda slates: slates.p_open).probabilities(slates).tolist()  # hold: no candidate
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    scorer: Scorer
    name: str = "greedy"
    reads_state: bool = False

    def probabilities(self, slates: Slates) -> np.ndarray:
        return best_candidate(self.scorer, slates)


@dataclass(frozen=True)
class HoldPolicy(Probabilities):
    """Always hold (send nothing).

    Attributes
    ----------
    name : str
        ``"hold"``.
    reads_state : bool
        False: it reads nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import HoldPolicy, Slates
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 2, 7), dtype=np.int64),
    ...                 mask=np.array([[True, False]]))
    >>> HoldPolicy().probabilities(slates).tolist()
    [[0.0, 0.0, 1.0]]
    """

    name: str = "hold"
    reads_state: bool = False

    def probabilities(self, slates: Slates) -> np.ndarray:
        out = np.zeros((len(slates), slates.mask.shape[1] + 1))
        out[:, -1] = 1.0
        return out


@dataclass(frozen=True)
class GreedyMixture(Probabilities):
    """The greedy candidate, with probability ``share`` the choice of ``other`` instead."""

    scorer: Scorer
    share: float
    other: SlatePolicy
    name: str
    reads_state: bool = False

    def __post_init__(self) -> None:
        check_share(f"{self.name}'s share", self.share)

    def probabilities(self, slates: Slates) -> np.ndarray:
        greedy = best_candidate(self.scorer, slates)
        return (1 - self.share) * greedy + self.share * self.other.probabilities(slates)


def EpsilonGreedyPolicy(scorer: Scorer, epsilon: float = 0.1) -> GreedyMixture:
    """The bandit's exploration: a share ``epsilon`` spread over every allowed action.

    Parameters
    ----------
    scorer : Scorer
        As for ``GreedyPolicy``.
    epsilon : float, default 0.1
        The share of the choice of ``UniformPolicy``, from 0 to 1.

    Returns
    -------
    GreedyMixture
        The greedy candidate mixed with ``UniformPolicy``.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import EpsilonGreedyPolicy, Slates
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 2, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True]]), p_open=np.array([[0.5, 0.1]]))
    >>> EpsilonGreedyPolicy(lambda slates: slates.p_open).probabilities(slates).round(3).tolist()
    [[0.933, 0.033, 0.033]]
    """
    return GreedyMixture(scorer, epsilon, UniformPolicy(), "epsilon_greedy")


def HoldHeavyPolicy(scorer: Scorer, hold: float = 0.75) -> GreedyMixture:
    """Holds with probability ``hold``, else the greedy candidate.

    Parameters
    ----------
    scorer : Scorer
        Scores the candidates, as for ``GreedyPolicy``.
    hold : float, default 0.75
        The probability of holding, from 0 to 1.

    Returns
    -------
    GreedyMixture
        The policy.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import HoldHeavyPolicy, Slates
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 4, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True, True, False]]), p_open=np.array([[0.5, 0.1, 0.2, 0.0]]))
    >>> HoldHeavyPolicy(lambda slates: slates.p_open).probabilities(slates).tolist()
    [[0.25, 0.0, 0.0, 0.0, 0.75]]
    """
    return GreedyMixture(scorer, hold, HoldPolicy(), "hold_heavy")
