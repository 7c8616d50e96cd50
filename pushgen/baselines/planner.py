"""Planning a user's whole episode with the true model: greedy choices priced by the state they leave.

A notification sent now costs later ones: it adds fatigue (by how much it interrupts) and
habituation to its app, subject and channel, which lower the P(open) of what follows. A
myopic greedy plan takes, in each context, the possible notification with the highest P(open)
now. Its *shadow prices* estimate what one more unit of fatigue, or of exposure to a key,
at context i costs the plan's later opens (linearised: for later context j, the plan's
dP/dlogit = p_j (1 - p_j) times the penalty's slope, decayed from i to j). A priced plan
takes in each context the highest

    logit now - scale * (interruption * fatigue price + prices of its app, subject and channel)

Each plan's P(open) is computed exactly as it goes (the state follows its own choices), and
``plan_episode`` keeps the plan with the highest expected reward among the myopic one and
the priced ones at a few scales.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen.baselines.base import Truth
from pushgen.baselines.greedy import KEYS
from pushgen.baselines.true_model import TrueCandidates, true_candidates
from pushgen.model.simulated_user import PlannedUser, Prices, p_open, row_blocks

PRICE_SCALES = (2.5, 5.0, 8.0)  # the linearised prices understate the cost; the best scale is kept


@dataclass(frozen=True)
class Plan:
    chosen: np.ndarray  # (n,) candidate index per context
    notifications: np.ndarray  # (n, 7)
    p_open: np.ndarray  # (n,) exact true P(open) of the plan
    exposure: dict[str, np.ndarray]  # key -> (n,) the chosen key's exposure just before each send
    scale: float  # price scale (0: myopic)

    @property
    def total(self) -> float:
        return float(self.p_open.sum())


def planned_user(truth: Truth, candidates: TrueCandidates) -> PlannedUser:
    """The simulated user of ``truth`` as the planner steps it over ``candidates``."""
    return PlannedUser(truth.parameters, truth.parameter_row, truth.initial, candidates.keys,
                       candidates.interrupts)


def greedy_plan(truth: Truth, candidates: TrueCandidates, prices: Prices | None = None,
                scale: float = 0.0) -> Plan:
    """One pass through the episode: in each context the candidate with the highest logit now,
    less ``scale`` times its prices."""
    user = planned_user(truth, candidates)
    n = len(truth.seconds)
    steps = np.diff(np.r_[0.0, truth.seconds])
    chosen = np.empty(n, dtype=np.int64)
    logit = np.empty(n)
    before = np.empty((n, len(KEYS)))
    for block in row_blocks(n):
        scores = candidates.scores(truth, block)
        decay, fatigue_decay = user.decays(steps[block])
        cost = None
        if prices is not None and scale:
            cost = scale * (prices.fatigue[block, None] * candidates.interrupts + prices.of_candidates(block))
        for r in range(block.stop - block.start):
            i = block.start + r
            user.advance(decay[r], fatigue_decay[r])
            now = user.habituated(scores[r])
            j = int((now if cost is None else now - cost[r]).argmax())
            chosen[i] = j
            logit[i] = user.logit(now[j])
            before[i] = user.send(j)
    return Plan(chosen=chosen, notifications=candidates.matrix[chosen],
                p_open=p_open(truth.row_terms.base + logit),
                exposure={k: before[:, m] for m, k in enumerate(KEYS)}, scale=scale)


def plan_episode(truth: Truth, scales: tuple[float, ...] = PRICE_SCALES) -> Plan:
    """The best of the myopic plan and the plans priced from it at ``scales``: what one unit of
    fatigue or exposure added at each context costs the myopic plan's later P(open)
    (``PlannedUser.prices``)."""
    candidates = true_candidates(truth)
    if not len(candidates):
        n = len(truth.seconds)
        return Plan(np.zeros(n, dtype=np.int64), np.zeros((n, 7), dtype=np.int64), np.zeros(n),
                    {k: np.zeros(n) for k in KEYS}, 0.0)
    best = greedy_plan(truth, candidates)
    if not scales:
        return best
    prices = planned_user(truth, candidates).prices(truth.seconds, best.chosen, best.p_open, best.exposure)
    for scale in scales:
        plan = greedy_plan(truth, candidates, prices, scale)
        if plan.total > best.total:
            best = plan
    return best
