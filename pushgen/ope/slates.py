"""Rounds of the selection task as a policy sees them (``Slates``), the protocol of a policy that
gives probabilities over their actions (``SlatePolicy``), and sampling from those probabilities.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from pushgen.baselines.base import NoHistory, Policy
from pushgen.checks import type_name


@dataclass(frozen=True)
class Slates:
    """Rounds as a policy sees them: contexts (feature -> codes (n,)), candidates ``(n, k, 7)``,
    their ``mask`` ``(n, k)`` and, for the policies that read the state, the candidates' true
    P(open) ``(n, k)``.

    Attributes
    ----------
    contexts : dict of str to numpy.ndarray
        Each context feature's codes, one per round.
    candidates : numpy.ndarray
        ``(n, k, 7)`` the candidates' notification codes.
    mask : numpy.ndarray
        ``(n, k)`` the filled slots.
    p_open : numpy.ndarray, optional
        ``(n, k)`` the candidates' true P(open) at the state, for the policies that read it.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Slates
    >>> slates = Slates(contexts={}, candidates=np.zeros((1, 3, 7), dtype=np.int64),
    ...                 mask=np.array([[True, True, False]]), p_open=np.array([[0.5, 0.1, 0.0]]))
    >>> len(slates), len(slates.take(np.array([0, 0])))
    (1, 2)
    """

    contexts: dict[str, np.ndarray]
    candidates: np.ndarray
    mask: np.ndarray
    p_open: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.mask)

    def take(self, index: slice | np.ndarray) -> Slates:
        return Slates({f: c[index] for f, c in self.contexts.items()}, self.candidates[index],
                      self.mask[index], None if self.p_open is None else self.p_open[index])


class SlatePolicy(Policy[Slates, np.ndarray], Protocol):
    """A ``pushgen.baselines.base.Policy`` over rounds whose decision is known as probabilities:
    ``act(slates)`` is ``probabilities(slates)``, sampled by the caller (the propensities)."""

    @property
    def name(self) -> str: ...

    @property
    def reads_state(self) -> bool: ...

    def probabilities(self, slates: Slates) -> np.ndarray:
        """(rounds, k + 1): the probability of each slot and of hold (last)."""


class Probabilities(NoHistory):
    """What every policy here shares: its decision is its ``probabilities``; nothing to learn."""

    def probabilities(self, slates: Slates) -> np.ndarray:
        raise NotImplementedError

    def act(self, observation: Slates) -> np.ndarray:
        return self.probabilities(observation)

    def update(self, observation: Slates, action: np.ndarray, opened: Any) -> None:
        return None


Scorer = Callable[[Slates], np.ndarray]  # slates -> (n, k) scores of the candidates
SLATE_POLICY = ("a pushgen.ope policy (name, reads_state and probabilities(slates), as GreedyPolicy(scorer), "
                "UniformPolicy() or SoftmaxPolicy(temperature, scorer))")


def scores(scorer: Scorer, slates: Slates) -> np.ndarray:
    """``scorer(slates)`` as float ``(n, k)`` scores, or an error naming what a scorer must give."""
    if not callable(scorer):
        raise TypeError(f"a scorer is a function of slates giving each candidate's score (n, k), such "
                        f"as pushgen.ope.models.learned_scorer(split); got {type_name(scorer)}")
    given = scorer(slates)
    try:
        out = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError):
        out = np.full((), np.nan)
    if out.shape != slates.mask.shape or np.isnan(out).any():
        got = f"{type_name(given)} of shape {out.shape}" if out.shape != slates.mask.shape else "a NaN score"
        if not isinstance(given, np.ndarray | list | tuple):
            got = type_name(given)
        raise ValueError(f"the scorer must give one number per candidate, shape (rounds, k) = "
                         f"{slates.mask.shape}; it gave {got}")
    return out


def checked_slate_policy(policy: object) -> SlatePolicy:
    """``policy`` when it is a slate policy, else a ``TypeError`` naming what it lacks."""
    missing = [m for m in ("name", "reads_state", "probabilities") if not hasattr(policy, m)]
    if missing:
        raise TypeError(f"the policy must be {SLATE_POLICY}; got {type_name(policy)}, which has no "
                        f"{' and no '.join(missing)}")
    return policy  # type: ignore[return-value]


def probabilities_of(policy: SlatePolicy, slates: Slates) -> np.ndarray:
    """``policy.probabilities(slates)``, checked (``checked_probabilities``)."""
    return checked_probabilities(policy, policy.probabilities(slates), slates)


def checked_probabilities(policy: SlatePolicy, given: Any, slates: Slates) -> np.ndarray:
    """What ``policy`` gave as its probabilities at ``slates``, checked: ``(n, k + 1)``,
    non-negative, zero on the empty slots, each row summing to 1; else a ``ValueError`` naming
    the first problem."""
    out = np.asarray(given, dtype=np.float64) if isinstance(given, np.ndarray | list | tuple) else None
    shape = (len(slates), slates.mask.shape[1] + 1)
    name = f"{getattr(policy, 'name', type_name(policy))}'s probabilities(slates)"
    if out is None or out.shape != shape:
        got = type_name(given) if out is None else f"shape {out.shape}"
        raise ValueError(f"{name} must be an array of shape (rounds, k + 1) = {shape}, each slot's "
                         f"probability and hold's last; got {got}")
    if not (np.isfinite(out) & (out >= 0)).all():
        raise ValueError(f"{name} gave a probability that is negative or not a number")
    if (out[~allowed(slates)] > 0).any():
        raise ValueError(f"{name} gave an empty slot a probability above 0")
    sums = out.sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        row = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(f"{name}: each row must sum to 1; row {row} sums to {sums[row]:.6g}")
    return out


def allowed(slates: Slates) -> np.ndarray:
    """(n, k + 1) booleans: the filled slots and hold."""
    return np.column_stack([slates.mask, np.ones(len(slates), dtype=bool)])


def sample(probabilities: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Per row, the action whose cumulative probability interval holds ``uniform`` (inverse CDF)."""
    cumulative = np.cumsum(probabilities, axis=1)
    action = (cumulative <= (uniform * cumulative[:, -1])[:, None]).sum(axis=1)
    # never an action of probability 0 (a float sum at the edge)
    last = probabilities.shape[1] - 1 - np.argmax(probabilities[:, ::-1] > 0, axis=1)
    return np.minimum(action, last)
