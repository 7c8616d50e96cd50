"""Where the sampled responses of the online environments come from: entropy no public value predicts.

Each episode's responses are drawn from a generator of its own, seeded by 128 bits of fresh
entropy from the operating system (``fresh_entropy``) unless the scorer gives the entropy
(``reset(options={"outcome_entropy": E})``) to replay a run's draws. Neither the public reset
seed, gymnasium's ``np_random`` nor the split's own draws enter it, so a policy that knows
every public seed predicts no outcome better than chance. The entropy used is the
environment's ``outcome_entropy``: recorded for the scorer, never shown to the policy. The
environments draw from it one number a step (``pushgen.envs.outcomes``), and the scorer
re-derives a recorded run's responses from it (``pushgen.replay.run_digest``).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from pushgen.checks import whole_number

OUTCOME_STREAM = 0x6F7574636F6D65  # the outcome generator's stream, apart from np_random's


def fresh_entropy() -> int:
    """128 bits from the operating system: an outcome stream that no public value predicts."""
    return secrets.randbits(128)


def outcome_generator(entropy: int) -> np.random.Generator:
    """The generator of the sampled responses of an episode whose outcome entropy is ``entropy``.

    Parameters
    ----------
    entropy : int
        The episode's outcome entropy (``env.outcome_entropy``: drawn afresh at each reset, or
        given back in ``reset(options={"outcome_entropy": ...})`` to replay a run).

    Returns
    -------
    numpy.random.Generator
        A stream of its own (apart from gymnasium's ``np_random``): the same draws for the same
        entropy.

    Examples
    --------
    >>> from pushgen.replay.outcomes import outcome_generator
    >>> float(outcome_generator(7).random()) == float(outcome_generator(7).random())
    True
    """
    return np.random.default_rng([entropy, OUTCOME_STREAM])



def outcome_entropy_of(options: dict[str, Any] | None) -> int:
    """The outcome entropy a scorer gives in ``reset``'s options, else fresh entropy."""
    entropy = (options or {}).get("outcome_entropy")
    if entropy is None:
        return fresh_entropy()
    return whole_number("outcome_entropy", entropy, 0)


__all__ = ["OUTCOME_STREAM", "fresh_entropy", "outcome_entropy_of", "outcome_generator"]
