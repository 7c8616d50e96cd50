"""How a generated notification is scored against the logged one in the same context.

The simulated user is the generator's engagement model with the split's ground-truth
parameters and the logged row's dynamic state, so P(open) of a generated notification is
``open_probability`` of it in that row. Reward table of the challenge (``REWARDS[logged
opened][generated opened]``):

    actual opened,    generated opened:    +1
    actual dismissed, generated dismissed:  0
    actual dismissed, generated opened:    +2
    actual opened,    generated dismissed: -1

Two modes:

- ``sampled``: the generated notification is opened iff a uniform draw is below its P(open):
  for a task 1 submission the row's own random draw (the one that decided the logged action),
  so that submitting the logged notification reproduces the logged action exactly (+1 per
  opened row, 0 per dismissed row); online, in the environments and a recorded task 2 run,
  a draw from the episode's outcome entropy (``pushgen.replay.outcomes``), which no public
  value predicts.
- ``expected`` (the evaluator's default, the environments' evaluation mode): the logged action
  is what happened, so it is fixed; only the generated response is uncertain, and the reward
  is its exact expectation:
  ``p*(+1) + (1-p)*(-1) = 2p - 1`` when the logged notification was opened and
  ``p*(+2) + (1-p)*0 = 2p`` when it was dismissed. Deterministic and of the lowest variance,
  which is what a leaderboard needs.
"""

from __future__ import annotations

import numpy as np

MODES = ("expected", "sampled")
DEFAULT_MODE = "expected"
REWARDS = ((0.0, 2.0), (-1.0, 1.0))  # [logged opened][generated opened]


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


def rewards(logged_opened: np.ndarray, p_generated: np.ndarray, draw: np.ndarray,
            mode: str) -> np.ndarray:
    """Reward per row of generated notifications with P(open) ``p_generated``."""
    logged_opened = np.asarray(logged_opened, dtype=bool)
    p_generated = np.asarray(p_generated, dtype=np.float64)
    if check_mode(mode) == "expected":
        return np.where(logged_opened, 2.0 * p_generated - 1.0, 2.0 * p_generated)
    generated_opened = np.asarray(draw) < p_generated
    table = np.asarray(REWARDS)
    return table[logged_opened.astype(np.int64), generated_opened.astype(np.int64)]
