"""The online environments' sampled responses: one draw a step from entropy no public value predicts.

The entropy and its generator are ``pushgen.replay.outcomes`` (the scorer re-derives a recorded
run's responses from them); this module adds the vector environments' per-environment draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pushgen.replay.outcomes import OUTCOME_STREAM, fresh_entropy, outcome_entropy_of, outcome_generator


class OutcomeDraws:
    """Each environment's uniform draws from its own outcome generator, drawn ahead in blocks: the
    same numbers in the same order as one ``random()`` per step.

    Parameters
    ----------
    generators : list of numpy.random.Generator
        One outcome generator per environment.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.envs.outcomes import OutcomeDraws, outcome_generator
    >>> draws = OutcomeDraws([outcome_generator(1), outcome_generator(2)])
    >>> float(draws.next(np.array([True, False]))[0]) == float(outcome_generator(1).random())
    True
    """

    BLOCK = 64

    def __init__(self, generators: list[np.random.Generator]) -> None:
        self.generators = generators
        self.ahead = np.stack([g.random(self.BLOCK) for g in generators])
        self.used = np.zeros(len(generators), dtype=np.int64)

    @classmethod
    def at_reset(cls, num_envs: int, options: dict[str, Any] | None) -> OutcomeDraws:
        """Environment ``i``'s draws after a reset: from ``E + i`` when the scorer gives
        ``options={"outcome_entropy": E}``, else from fresh entropy each."""
        if (options or {}).get("outcome_entropy") is None:
            return cls([outcome_generator(fresh_entropy()) for _ in range(num_envs)])
        entropy = outcome_entropy_of(options)
        return cls([outcome_generator(entropy + i) for i in range(num_envs)])

    def next(self, stepping: np.ndarray) -> np.ndarray:
        """The next draw of each environment that steps (0 for the others)."""
        draws = np.zeros(len(self.generators))
        envs = np.flatnonzero(stepping)
        for i in envs[self.used[envs] == self.BLOCK]:
            self.ahead[i] = self.generators[i].random(self.BLOCK)
            self.used[i] = 0
        draws[envs] = self.ahead[envs, self.used[envs]]
        self.used[envs] += 1
        return draws


__all__ = ["OUTCOME_STREAM", "OutcomeDraws", "fresh_entropy", "outcome_entropy_of", "outcome_generator"]
