"""Which notifications are possible: the one definition the generator and the judge share.

A notification is possible for a user when
1. one of its app's channels posts it: the channel's fixed ``category``, ``priority``,
   ``visibility`` and ``ongoing``, one of the channel's subjects and ``numberOfUpdates``
   levels (``pushgen.model.channels`` lists them per kind of app), and
2. the user has the app.

The generator only ever posts through channels; the judge gives an impossible notification
P(open) = 0.
"""

from __future__ import annotations

import functools

import numpy as np

from pushgen.model.catalog import app_catalog
from pushgen.model.channel_table import SIGNATURE
from pushgen.schemas import NOTIFICATION_FEATURES, values

CHANNEL_FIELDS = ("postingApp", *SIGNATURE)


def same_integer_arrays(arrays: list[np.ndarray]) -> bool:
    """Whether the arrays are of one type as a compiled kernel takes them together: the same native
    signed integer type, all writable or all read-only."""
    first = arrays[0]
    return first.dtype.kind == "i" and first.dtype.isnative and all(
        a.dtype == first.dtype and a.flags.writeable == first.flags.writeable for a in arrays)


def check_positions(values: np.ndarray, what: str, size: int | None = None) -> None:
    """IndexError unless every value is a position: at least 0 (and below ``size``)."""
    if len(values) and (values.min() < 0 or (size is not None and values.max() >= size)):
        allowed = "at least 0" if size is None else f"from 0 to {size - 1}"
        raise IndexError(f"{what} must be {allowed}; got values from {values.min()} to {values.max()}")


def channel_of(codes: dict[str, np.ndarray]) -> np.ndarray:
    """The channel that posts each notification (arrays of schema codes), -1 where none does.

    Checks every field: a subject or numberOfUpdates level the channel does not carry gives -1.
    """
    channel = app_catalog().channels.channel_of(codes)
    subject = np.asarray(codes["subject"], dtype=np.int64)
    updates = np.asarray(codes["numberOfUpdates"], dtype=np.int64)
    carried = _carried_levels()[np.maximum(channel, 0), subject, updates]
    return np.where((channel >= 0) & carried, channel, -1)


@functools.cache
def _carried_levels() -> np.ndarray:
    """(channels, subjects, numberOfUpdates levels) whether a channel carries the subject and the
    level (made once: the catalog is fixed)."""
    table = app_catalog().channels
    return table.subjects[:, :, None] & table.updates[:, None, :]


def is_possible(codes: dict[str, np.ndarray], has_app: np.ndarray) -> np.ndarray:
    """Whether each notification is possible for its user.

    A notification is possible when the user has its app and the app posts through a channel
    with these features; an impossible one is never opened.

    Parameters
    ----------
    codes : dict of str to numpy.ndarray
        The 7 notification features' schema codes (arrays of one length).
    has_app : numpy.ndarray
        The user's apps, a boolean array over app codes, either one user's ``(A,)`` or one row
        per notification ``(n, A)``.

    Returns
    -------
    numpy.ndarray
        One bool per notification.

    Examples
    --------
    >>> import numpy as np
    >>> import pushgen
    >>> from pushgen import schemas
    >>> from pushgen.envs import encode
    >>> split = pushgen.load_split("pushgen-mini-v4", task=1)
    >>> features = ["postingApp", "category", "numberOfUpdates", "subject", "priority", "ongoing",
    ...             "visibility"]
    >>> logged = split.train[features].head(3)
    >>> rows = [encode(row) for row in logged.to_dict("records")]
    >>> codes = {f: np.array([row[f] for row in rows]) for f in features}
    >>> every_app = np.ones(len(schemas.values("postingApp")), dtype=bool)
    >>> pushgen.is_possible(codes, every_app).tolist()  # what was logged was possible
    [True, True, True]
    >>> pushgen.is_possible(codes, ~every_app).tolist()  # a user without these apps
    [False, False, False]
    """
    missing = [f for f in NOTIFICATION_FEATURES if f not in codes]
    if missing:
        raise ValueError(f"codes must hold the {len(NOTIFICATION_FEATURES)} notification features "
                         f"({', '.join(NOTIFICATION_FEATURES)}); {missing[0]!r} is missing")
    for name in NOTIFICATION_FEATURES:
        codes_of = np.asarray(codes[name], dtype=np.int64).ravel()
        check_positions(codes_of, f"codes of {name}", len(values(name)))
    app = np.asarray(codes["postingApp"], dtype=np.int64)
    apps = len(values("postingApp"))
    has_app = np.asarray(has_app)
    if has_app.dtype == object or has_app.shape not in ((apps,), (len(app), apps)):
        raise ValueError(f"has_app must be booleans over the {apps} app codes, one user's ({apps},) or one "
                         f"row per notification ({len(app)}, {apps}); got shape {has_app.shape}")
    has_app = has_app.astype(bool, copy=False)
    owned = has_app[app] if has_app.ndim == 1 else has_app[np.arange(len(app)), app]
    return (channel_of(codes) >= 0) & owned
