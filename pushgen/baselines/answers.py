"""What a model of one's own must give the benchmark in tasks 1 and 2: a ``Policy`` (``fit``,
``act``, ``update``) whose ``act`` returns a batch of valid notification codes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.checks import type_name
from pushgen.envs.spaces import NOTIFICATION_FEATURES

SIZES = np.array([len(schemas.values(f)) for f in NOTIFICATION_FEATURES])
METHODS = ("fit", "act", "update")
SHAPE = f"a dict of code arrays, one per notification feature ({', '.join(NOTIFICATION_FEATURES)})"


class PolicyError(ValueError):
    """A policy returned something that is not a batch of valid notification codes."""


def checked_policy(policy: Any, user: int | None) -> Any:
    """``policy`` when it has ``fit``, ``act`` and ``update``, else ``PolicyError`` naming what is
    missing (``make(setting)`` for ``user`` returned something that is not a policy; ``user``
    None: it was given as one)."""
    missing = [m for m in METHODS if not callable(getattr(policy, m, None))]
    if missing:
        given = "the policy is" if user is None else f"make(setting) for user {user} returned"
        raise PolicyError(f"{given} {type_name(policy)}, which has no "
                          f"{' and no '.join(f'{m}()' for m in missing)}; a policy has fit(history), "
                          "act(contexts) and update(contexts, notifications, opened)")
    return policy


def answer_codes(name: str, values: Any) -> np.ndarray:
    """One feature's codes as int64 (n,), or ``PolicyError``: whole numbers only (no fractions,
    text, booleans or missing values)."""
    codes = np.asarray(values)
    if codes.ndim > 1 and codes.shape[1:] != (1,) * (codes.ndim - 1):
        raise PolicyError(f"act() returned {name} of shape {codes.shape}; {SHAPE}, each of shape (n,)")
    codes = codes.reshape(-1)
    if codes.dtype.kind in "iu":
        return codes.astype(np.int64)
    if codes.dtype.kind == "f" and np.isfinite(codes).all() and (codes == np.round(codes)).all():
        return codes.astype(np.int64)  # whole codes held as floats
    if codes.dtype.kind == "f":
        bad = codes[~(np.isfinite(codes) & (codes == np.round(codes)))][0]
        raise PolicyError(f"act() returned {name} code {bad.item()!r}, not a whole number; codes are "
                          f"the positions of pushgen.schemas.values({name!r})")
    raise PolicyError(f"act() returned {name} of dtype {codes.dtype}; codes are whole numbers, the "
                      f"positions of pushgen.schemas.values({name!r}) (pushgen.envs.spaces.encode "
                      "converts values)")


def checked(action: Any, n: int) -> np.ndarray:
    """The (n, 7) code matrix of an action batch, or ``PolicyError`` naming the problem.

    Examples
    --------
    >>> checked({f: [0] for f in NOTIFICATION_FEATURES}, 1).tolist()
    [[0, 0, 0, 0, 0, 0, 0]]
    >>> checked({f: [0.5] for f in NOTIFICATION_FEATURES}, 1)
    Traceback (most recent call last):
    ...
    pushgen.baselines.answers.PolicyError: act() returned postingApp code 0.5, not a whole number; \
codes are the positions of pushgen.schemas.values('postingApp')
    """
    if not isinstance(action, Mapping) and not hasattr(action, "columns"):  # a dict, or a data frame
        raise PolicyError(f"act() returned {type_name(action)}; it must return {SHAPE}")
    missing = [f for f in NOTIFICATION_FEATURES if f not in action]
    if missing:
        raise PolicyError(f"act() returned no {missing[0]!r}; it must return every notification "
                          f"feature: {', '.join(NOTIFICATION_FEATURES)}")
    columns = [answer_codes(f, action[f]) for f in NOTIFICATION_FEATURES]
    for feature, codes in zip(NOTIFICATION_FEATURES, columns, strict=True):
        if len(codes) != n:
            raise PolicyError(f"act() returned {len(codes)} {feature} codes for {n} contexts")
    matrix = np.column_stack(columns)
    bad = (matrix < 0) | (matrix >= SIZES)
    if bad.any():
        row, j = np.argwhere(bad)[0]
        raise PolicyError(f"act() returned {NOTIFICATION_FEATURES[j]} code {matrix[row, j]}, "
                          f"outside 0..{SIZES[j] - 1}")
    return matrix
