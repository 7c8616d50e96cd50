"""One user as a planner steps it, every possible notification scored at once: the oracle's
plans, their shadow prices, and the best fixed notification."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pushgen.model.engagement import EngagementParameters, RowTerms
from pushgen.model.exposure import HABITUATION_KEYS, HABITUATION_TAUS, keyed_exposure
from pushgen.model.simulated_user.formula import p_open, penalty_weights

if TYPE_CHECKING:
    import scipy.sparse as sp

BLOCK = 1024  # rows (or candidates) per block of a (rows x candidates) array
CANDIDATE_BLOCK = 256


def row_blocks(n: int, size: int = BLOCK) -> Iterator[slice]:
    """Consecutive slices of ``range(n)``, ``size`` long (the last shorter)."""
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


@dataclass(frozen=True)
class Prices:
    """A plan's shadow prices (``PlannedUser.prices``)."""

    fatigue: np.ndarray  # (n,) cost of one unit of fatigue added at each context
    keys: np.ndarray  # (n, priced slots) cost of one unit of exposure to each priced slot
    candidates: sp.csr_matrix  # (K, priced slots): 1 where a candidate has the slot as a key

    def of_candidates(self, rows: slice) -> np.ndarray:
        """(rows, K): each candidate's summed key prices."""
        return (self.candidates @ self.keys[rows].T).T


class PlannedUser:
    """One user as a planner steps it, every candidate (``keys[key]``: its app, subject and
    channel codes; ``interrupts``) scored at once: habituation as one vector over the key slots
    end to end, and fatigue, decayed from context to context (``decays``, then ``advance``)."""

    def __init__(self, parameters: EngagementParameters, parameter_row: int, initial: dict[str, np.ndarray],
                 keys: dict[str, np.ndarray], interrupts: np.ndarray) -> None:
        weights, taus = penalty_weights(parameters, parameter_row), HABITUATION_TAUS
        sizes = {k: len(initial[k]) for k in HABITUATION_KEYS}
        offsets = dict(zip(HABITUATION_KEYS, np.cumsum([0, *sizes.values()])[:-1].tolist(), strict=True))
        self.of_candidate = [keys[k] + offsets[k] for k in HABITUATION_KEYS]  # 3 x (K,) slots
        self.weight = np.concatenate([np.full(sizes[k], weights[k]) for k in HABITUATION_KEYS])
        self.tau = np.concatenate([np.full(sizes[k], taus[k]) for k in HABITUATION_KEYS])
        self.exposure = np.concatenate([np.asarray(initial[k], dtype=np.float64) for k in HABITUATION_KEYS])
        self.fatigue = float(initial["fatigue"][0])
        self.fatigue_weight = weights["fatigue"]
        self.fatigue_tau = parameters.fatigue_tau_seconds
        self.interrupts = interrupts
        self.initial = initial
        self.keys = keys
        self.key_weight = {k: weights[k] for k in HABITUATION_KEYS}

    def decays(self, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For steps of ``steps`` seconds: each slot's decay ``(n, slots)`` and fatigue's ``(n,)``."""
        return np.exp(-steps[:, None] / self.tau), np.exp(-steps / self.fatigue_tau)

    def advance(self, decay: np.ndarray, fatigue_decay: float) -> None:
        """Time passes: the exposures decay by ``decay`` (per slot), fatigue by ``fatigue_decay``."""
        self.exposure *= decay
        self.fatigue *= fatigue_decay

    def habituated(self, scores: np.ndarray) -> np.ndarray:
        """``scores`` (per candidate) less each candidate's habituation penalty now."""
        penalty = self.weight * np.sqrt(self.exposure)
        first, second, third = self.of_candidate
        return scores - (penalty[first] + penalty[second] + penalty[third])

    def send(self, j: int) -> np.ndarray:
        """Candidate ``j`` reaches the user: the exposures to its keys just before (3,)."""
        key = [slots[j] for slots in self.of_candidate]
        before = self.exposure[key]
        self.exposure[key] += 1.0
        self.fatigue += self.interrupts[j]
        return before

    def logit(self, habituated: float) -> float:
        """The logit less its row part of a candidate scoring ``habituated`` now: fatigue taken off."""
        return habituated - self.fatigue_weight * self.fatigue

    def prices(self, seconds: np.ndarray, chosen: np.ndarray, p: np.ndarray,
               before: dict[str, np.ndarray]) -> Prices:
        """What one unit of fatigue or exposure added at each context (at ``seconds``) costs the later
        P(open) of a plan that sends candidates ``chosen`` with P(open) ``p``, exposed ``before[key]``
        to their keys just before (linearised: dP/dlogit times the penalty's slope, decayed)."""
        import scipy.sparse as sp

        t, n = seconds, len(seconds)
        slope = p * (1.0 - p)
        later = t[-1] - t[::-1] if n else t  # reversed time: "earlier" rows are the later contexts
        fatigue = self.fatigue_weight * keyed_exposure(later, np.zeros(n, dtype=np.int64), self.fatigue_tau,
                                                       slope[::-1])[::-1]
        gains = {k: self.key_weight[k] * slope / (2.0 * np.sqrt(np.maximum(before[k], 1.0)))
                 for k in HABITUATION_KEYS}
        sent = {k: self.of_candidate[m][chosen] for m, k in enumerate(HABITUATION_KEYS)}
        priced = np.concatenate([np.unique(sent[k]) for k in HABITUATION_KEYS])  # slots the plan sent to
        keys = np.zeros((n, len(priced)))
        column = 0
        for k in HABITUATION_KEYS:
            for slot in np.unique(sent[k]):
                keys[:, column] = keyed_exposure(later, np.zeros(n, dtype=np.int64), self.tau[slot],
                                                 (gains[k] * (sent[k] == slot))[::-1])[::-1]
                column += 1
        position = np.full(len(self.weight), -1)
        position[priced] = np.arange(len(priced))
        has = [position[of] for of in self.of_candidate]
        rows = np.concatenate([np.flatnonzero(h >= 0) for h in has])
        columns = np.concatenate([h[h >= 0] for h in has])
        incidence = sp.csr_matrix((np.ones(len(rows)), (rows, columns)),
                                  shape=(len(self.interrupts), len(priced)))
        return Prices(fatigue=fatigue, keys=keys, candidates=incidence)

    def fixed_totals(self, seconds: np.ndarray, row: RowTerms, base: np.ndarray,
                     per_situation: np.ndarray) -> np.ndarray:
        """Per candidate c (its parts of the logit ``base`` and ``per_situation``): the sum over the
        contexts (at ``seconds``, rows ``row``) of its P(open) when c is sent in every one, from
        the initial state.

        Sending c everywhere, its exposure to each key at row i is the decayed count of the rows
        before i plus the initial exposure to c's key, decayed; likewise fatigue, scaled by how
        much c interrupts. So every candidate is evaluated at once from four sums.
        """
        t = seconds
        taus = {"fatigue": self.fatigue_tau, **HABITUATION_TAUS}
        anyone = np.zeros(len(t), dtype=np.int64)
        sent_before = {key: keyed_exposure(t, anyone, tau) for key, tau in taus.items()}
        fading = {key: np.exp(-t / tau)[:, None] for key, tau in taus.items()}
        totals = np.zeros(len(self.interrupts))
        for rows in row_blocks(len(t), BLOCK):
            row_base = row.base[rows, None]
            fatigue = float(self.initial["fatigue"][0]) * fading["fatigue"][rows]
            for columns in row_blocks(len(totals), CANDIDATE_BLOCK):
                penalty = self.fatigue_weight * (sent_before["fatigue"][rows, None]
                                                 * self.interrupts[columns] + fatigue)
                for key in HABITUATION_KEYS:
                    exposure = (sent_before[key][rows, None]
                                + self.initial[key][self.keys[key][columns]] * fading[key][rows])
                    penalty += self.key_weight[key] * np.sqrt(exposure)
                scores = row_base + base[columns] + (row.situations[rows] @ per_situation[columns].T)
                totals[columns] += p_open(scores - penalty).sum(axis=0)
        return totals
