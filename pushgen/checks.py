"""Arguments that must be whole numbers: one check, one wording for every message."""

from __future__ import annotations

import numbers

import numpy as np

LONGEST_QUOTED = 80  # characters of a text quoted whole; a longer one by its start and length


def whole_number(name: str, value: object, low: int, high: int | None = None,
                 error: type[Exception] = ValueError) -> int:
    """``value`` as an ``int`` when it is a whole number (a bool is not) from ``low`` to ``high``.

    Parameters
    ----------
    name : str
        What the message calls the argument.
    value : object
        The argument.
    low : int
        The smallest value allowed.
    high : int, optional
        The largest value allowed (None: no limit).
    error : type of Exception, default ValueError
        What is raised.

    Returns
    -------
    int
        The value.

    Raises
    ------
    Exception
        ``error``, one line naming the argument, the range and the value.

    Examples
    --------
    >>> import numpy as np
    >>> whole_number("k", np.int64(3), 1, 64)
    3
    >>> whole_number("seed", -1, 0)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number >= 0; got -1
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low
            or (high is not None and int(value) > high)):
        allowed = f">= {low}" if high is None else f"from {low} to {high}"
        raise error(f"{name} must be a whole number {allowed}; got {quoted(value)}")
    return int(value)


def quoted(value: object) -> str:
    """``repr(value)`` for a message, as the user wrote it: numpy scalars as plain Python (-1.0, not
    np.float64(-1.0)), a very long integer (which Python will not print) by its size, a long text by
    its start and length.

    Examples
    --------
    >>> quoted(10 ** 200)
    'a whole number of about 201 digits'
    >>> quoted("9" * 5000)
    "'9999999999999999999999999999999999999999'... (5,000 characters)"
    """
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 128:
        return f"a whole number of about {int(abs(int(value)).bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, str) and len(value) > LONGEST_QUOTED:
        return f"{value[:LONGEST_QUOTED // 2]!r}... ({len(value):,} characters)"
    return repr(value.item() if isinstance(value, np.generic) else value)


def type_name(value: object) -> str:
    """``value``'s type as a message names it: ``list``, ``numpy.ndarray``, ``polars.DataFrame``.

    Examples
    --------
    >>> import numpy as np
    >>> type_name([1]), type_name(np.zeros(1)), type_name(None)
    ('list', 'numpy.ndarray', 'None')
    """
    if value is None:
        return "None"
    kind = type(value)
    package = kind.__module__.split(".")[0]
    return kind.__qualname__ if package == "builtins" else f"{package}.{kind.__qualname__}"
