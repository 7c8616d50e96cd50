"""JSON read with limits: a file pushgen reads (a description, a record, the engagement model)
may be at most ``MAX_BYTES`` long, ``MAX_DEPTH`` levels deep, and hold integers of at most
``MAX_INT_DIGITS`` digits, so no file can exhaust memory, the stack or the integer parser; and
JSON written as the standard has it (``strict_json``)."""

from __future__ import annotations

import json
import math

MAX_BYTES = 256_000_000
MAX_DEPTH = 64
MAX_INT_DIGITS = 40


class JSONLimitError(ValueError):
    """JSON beyond the limits (the message says which, as a predicate: "is nested ...")."""


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JSONLimitError(f"holds a {digits:,}-digit integer (at most {MAX_INT_DIGITS} digits)")
    return int(text)


def depth(value: object) -> int:
    """How deeply arrays and objects nest in ``value`` (0: a plain value)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children)
    return deepest


def parse_json(data: bytes | str) -> object:
    """``json.loads`` within the limits: ``JSONLimitError`` beyond them, ``json.JSONDecodeError``
    (and ``UnicodeDecodeError``) for text that is not JSON."""
    if len(data) > MAX_BYTES:
        raise JSONLimitError(f"is larger than {MAX_BYTES:,} bytes")
    too_deep = JSONLimitError(f"is nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(data, parse_int=_bounded_int)
    except RecursionError:
        raise too_deep from None
    if depth(value) > MAX_DEPTH:
        raise too_deep
    return value


def strict_json(value: object) -> str:
    """``value`` as standard JSON (RFC 8259), which has no NaN or Infinity: a number that is not
    finite (the open end of the last habituation bucket) is null.

    Examples
    --------
    >>> json.loads(strict_json({"edges": [0.5, float("inf")]}))
    {'edges': [0.5, None]}
    """
    def finite(item: object) -> object:
        if isinstance(item, float):
            return item if math.isfinite(item) else None
        if isinstance(item, dict):
            return {key: finite(inner) for key, inner in item.items()}
        if isinstance(item, (list, tuple)):
            return [finite(inner) for inner in item]
        return item

    return json.dumps(finite(value), indent=1, allow_nan=False)
