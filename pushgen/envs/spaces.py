"""Gymnasium spaces derived from the schemas, and conversions between codes and values.

Every feature is a ``Discrete(n)`` space whose code ``i`` stands for
``pushgen.schemas.values(feature)[i]``: the position of the value in the published list.
For example ``values("ongoing") == (False, True)``, so code 1 means ``True``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from gymnasium import spaces

from pushgen import schemas
from pushgen.schemas import frame_codes as frame_codes

NOTIFICATION_FEATURES = schemas.NOTIFICATION_FEATURES
CONTEXT_FEATURES = schemas.CONTEXT_FEATURES
ACTION_VALUES: tuple[str, ...] = schemas.values("action")
OPENED = ACTION_VALUES.index("opened")
DISMISSED = ACTION_VALUES.index("dismissed")


NOTIFICATION_SIZES = tuple(len(schemas.values(f)) for f in NOTIFICATION_FEATURES)


def feature_space(features: Iterable[str]) -> spaces.Dict:
    """A ``Dict`` of one ``Discrete`` space per feature, sized by its published value list."""
    return spaces.Dict({name: spaces.Discrete(len(schemas.values(name))) for name in features})


def notification_space(flat: bool = False) -> spaces.Dict | spaces.MultiDiscrete:
    """The space of a notification: ``Dict`` of ``Discrete`` over the 7 notification features, or
    with ``flat`` one ``MultiDiscrete`` vector of their codes in ``NOTIFICATION_FEATURES`` order
    (postingApp, category, numberOfUpdates, subject, priority, ongoing, visibility).

    Parameters
    ----------
    flat : bool, default False
        One vector of codes instead of a dict.

    Returns
    -------
    gymnasium.spaces.Dict or gymnasium.spaces.MultiDiscrete
        Code ``i`` of a feature is ``pushgen.schemas.values(feature)[i]``.

    Examples
    --------
    >>> from pushgen.envs import notification_space
    >>> list(notification_space())  # gymnasium orders a Dict's keys
    ['category', 'numberOfUpdates', 'ongoing', 'postingApp', 'priority', 'subject', 'visibility']
    >>> notification_space(flat=True).nvec.tolist()[:3]
    [106, 12, 4]
    """
    if flat:
        return spaces.MultiDiscrete(np.array(NOTIFICATION_SIZES, dtype=np.int64))
    return feature_space(NOTIFICATION_FEATURES)


def context_space() -> spaces.Dict:
    """The space of a context: ``Dict`` of ``Discrete`` over the 11 context features.

    Returns
    -------
    gymnasium.spaces.Dict
        As for ``notification_space``.

    Examples
    --------
    >>> from pushgen.envs import context_space
    >>> len(context_space()), int(context_space()["charging"].n)
    (11, 2)
    """
    return feature_space(CONTEXT_FEATURES)


def flat_to_codes(action: Any, n: int | None = None) -> dict[str, np.ndarray]:
    """A flat action (7 codes; or ``n`` x 7 for ``n`` environments) as codes per feature.
    Raises ``ValueError`` naming the shape or the value that is not a whole-number code."""
    array = np.asarray(action)
    shape = (len(NOTIFICATION_FEATURES),) if n is None else (n, len(NOTIFICATION_FEATURES))
    if array.shape != shape:
        raise ValueError(f"a flat action is an array of shape {shape} of codes in the order "
                         f"{', '.join(NOTIFICATION_FEATURES)}; got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"a flat action holds whole-number codes; got dtype {array.dtype}")
    array = array.reshape(-1, len(NOTIFICATION_FEATURES)).astype(np.int64)
    outside = (array < 0) | (array >= np.array(NOTIFICATION_SIZES))
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise ValueError(f"action {NOTIFICATION_FEATURES[column]}: code {array[row, column]} is outside "
                         f"0..{NOTIFICATION_SIZES[column] - 1}")
    return {f: array[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)}


INTEGER_TYPES = frozenset({int, *(np.dtype(code).type for code in np.typecodes["AllInteger"])})


def whole_code(value: Any) -> int | None:
    """``value`` as a code if it is a whole number (a Python or numpy integer, or a one-element
    integer array), else None: 1.5, "1" and True are not codes."""
    if type(value) in INTEGER_TYPES:  # what action spaces sample: no further checks
        return int(value)
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item() if np.issubdtype(value.dtype, np.integer) else None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


def encode(values: Mapping[str, Any]) -> dict[str, int]:
    """Codes of feature values, e.g. ``{"priority": "high"}`` -> ``{"priority": 1}``.

    Raises ``ValueError`` naming the feature and the allowed values when a value is not
    published. Booleans may be given as ``True``/``False`` or ``"true"``/``"false"``.

    Parameters
    ----------
    values : mapping of str to value
        Feature values by feature name.

    Returns
    -------
    dict of str to int
        Each feature's code, its position in the published value list.

    Raises
    ------
    ValueError
        When a feature is unknown or a value is not published.

    Examples
    --------
    >>> from pushgen.envs import decode, encode
    >>> codes = encode({"priority": "high", "ongoing": "false"})
    >>> decode(codes) == {"priority": "high", "ongoing": False}
    True
    """
    out = {}
    for name, value in values.items():
        field = schemas.field(name)
        if field.type == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        elif isinstance(value, np.generic):
            value = value.item()
        if field.type == "string" and not isinstance(value, str):
            raise ValueError(f"{name}: {value!r} is not one of {list(field.listed())}")
        out[name] = field.code(value)
    return out


def decode(codes: Mapping[str, Any]) -> dict[str, Any]:
    """Feature values of codes, e.g. an observation or action -> ``{"priority": "high", ...}``.

    Parameters
    ----------
    codes : mapping of str to int
        Codes by feature name (an observation, or an action of the generation environment).

    Returns
    -------
    dict of str to value
        Each feature's published value.

    Examples
    --------
    >>> from pushgen.envs import decode
    >>> decode({"ringerMode": 0, "time": 0})
    {'ringerMode': 'vibrate', 'time': 'night'}
    """
    out = {}
    for name, code in codes.items():
        allowed = schemas.values(name)
        index = int(code)
        if not 0 <= index < len(allowed):
            raise ValueError(f"{name}: code {index} is outside 0..{len(allowed) - 1}")
        out[name] = allowed[index]
    return out


def codes_frame(codes: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """A frame of feature values (schema dtypes) from arrays of codes."""
    columns = {}
    for name, c in codes.items():
        field = schemas.field(name)
        c = np.asarray(c)
        columns[name] = schemas.column_from_codes(
            name, c if field.is_categorical else np.asarray(field.values)[c])
    return pd.DataFrame(columns)
