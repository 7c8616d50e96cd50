"""The user's state that follows what it is sent: fatigue and habituation.

Every notification a user receives adds to
- **fatigue**, by how much it interrupts (``interruption``: by priority, less for an update
  of a notification already shown), decaying with time constant ``fatigue_tau``;
- **habituation** to its app, its subject and its channel: one unit to each, decaying with
  the key's own time constant (``HABITUATION_TAU_DAYS``).

At posting time ``t`` a key's exposure is the sum over earlier notifications j with the same
key of ``exp(-(t - t_j) / tau)``; the open log-odds fall with ``sqrt(exposure)`` (see
``pushgen.model.engagement``). In the generator the logged notifications drive it; in the
environments and the evaluator the agent's own notifications do, in time order, from the
state the user's earlier logged notifications left (``pushgen.model.simulated_user``, which
steps it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen import schemas
from pushgen.model.exposure_kernel import logged_decayed_sums
from pushgen.model.feasibility import check_positions
from pushgen.model.renamed import moved

HABITUATION_KEYS = ("app", "subject", "channel")
HABITUATION_TAU_DAYS = {"app": 1.0, "subject": 1.0, "channel": 3.0}
HABITUATION_TAUS = {k: HABITUATION_TAU_DAYS[k] * 86400.0 for k in HABITUATION_KEYS}  # seconds
INTERRUPTION_BY_PRIORITY = {"max": 1.0, "high": 1.0, "default": 0.7, "unknown": 0.5, "low": 0.3,
                            "min": 0.0}
UPDATE_INTERRUPTION = 0.25  # an update of a notification already on screen interrupts less
CHUNK_TAUS = 600.0  # time constants per chunk of keyed_exposure's running sums (exp(600) is finite)


INTERRUPTION_BY_CODE = np.array([INTERRUPTION_BY_PRIORITY[v] for v in schemas.field("priority").listed()])
NO_UPDATES = schemas.field("numberOfUpdates").code("none")


def interruption(priority: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """How much each notification interrupts (0-1), from its priority and numberOfUpdates codes."""
    is_update = np.asarray(updates) != NO_UPDATES
    update_factor = np.where(is_update, UPDATE_INTERRUPTION, 1.0)
    return INTERRUPTION_BY_CODE[np.asarray(priority, dtype=np.int64)] * update_factor


def keyed_exposure(seconds: np.ndarray, keys: np.ndarray, tau_seconds: float,
                   weights: np.ndarray | None = None, lead: int = 0,
                   shift_seconds: float = 0.0) -> np.ndarray:
    """For each row, the sum over earlier rows with the same key of weight * exp(-(t - t_j) / tau).

    ``seconds`` sorted ascending; the rows come at seconds + shift_seconds, after their first
    ``lead`` rows came at their seconds. Whole arrays, without a compiled kernel (the evaluator
    starts without numba): along each key's own timeline, in chunks of ``CHUNK_TAUS`` time
    constants, each row's sum is the running sum of weight * exp(time into the chunk) before it,
    scaled back by exp(-its own time into the chunk). What rows more than one chunk back add
    (below exp(-CHUNK_TAUS) in all) is left out.
    """
    w = np.ones(len(seconds)) if weights is None else np.asarray(weights, dtype=np.float64)
    t = np.asarray(seconds, dtype=np.float64)
    keys = np.asarray(keys)
    if lead or shift_seconds:
        laid_out = keyed_exposure(np.concatenate([t[:lead], t + shift_seconds]),
                                  np.concatenate([keys[:lead], keys]), tau_seconds,
                                  np.concatenate([w[:lead], w]))
        return laid_out[lead:]
    low = keys.min() if len(keys) else 0
    small = keys.dtype.kind in "iu" and len(keys) > 0 and int(keys.max()) - int(low) < 1 << 16
    order = np.argsort((keys - low).astype(np.uint16) if small else keys, kind="stable")  # uint16: radix
    key, t, w = keys[order], t[order], w[order]
    first = np.r_[True, key[1:] != key[:-1]] if len(key) else np.zeros(0, dtype=bool)
    began = t[first][np.cumsum(first) - 1]  # the key's first row's time
    chunk = np.floor((t - began) / (CHUNK_TAUS * tau_seconds))
    into = (t - (began + chunk * (CHUNK_TAUS * tau_seconds))) / tau_seconds  # time constants into the chunk
    starts = first | np.r_[True, chunk[1:] != chunk[:-1]][: len(key)]
    segment = np.cumsum(starts) - 1
    grown = w * np.exp(into)
    running = _running_sums(grown, segment, np.flatnonzero(starts))
    before = np.r_[0.0, running[:-1]][: len(key)]
    totals = running[np.r_[starts[1:], True][: len(key)]] if len(key) else running
    # each chunk starts with what the key's chunk before it left, decayed to the chunk's start
    previous = np.r_[0.0, totals[:-1]][: len(totals)]
    gap = np.where(first[starts], np.inf, np.diff(chunk[starts], prepend=0.0))  # a key's first: nothing
    carried = previous * np.exp(-CHUNK_TAUS * gap)
    before = np.where(starts, carried[segment], before + carried[segment])
    out = np.empty(len(key))
    out[order] = before * np.exp(-into)
    return out


def _running_sums(values: np.ndarray, segment: np.ndarray, first_rows: np.ndarray) -> np.ndarray:
    """The running sum of ``values`` within each segment (its rows consecutive, ``first_rows`` the
    first of each), each added in order: segments of about the same length laid out as the rows
    of one zero-padded array, summed along its rows."""
    lengths = np.diff(first_rows, append=len(values))
    position = np.arange(len(values)) - first_rows[segment]
    size_class = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.uint8)  # at most twice the cells
    by_class = np.argsort(size_class, kind="stable")
    bounds = np.flatnonzero(np.diff(size_class[by_class], prepend=-1, append=64))
    rank = np.empty(len(lengths), dtype=np.int64)  # each segment's row in its class's array
    rank[by_class] = np.arange(len(lengths)) - np.repeat(bounds[:-1], np.diff(bounds))
    rows = np.argsort(size_class[segment], kind="stable")
    row_bounds = np.r_[0, np.cumsum(lengths[by_class])[bounds[1:] - 1]]
    out = np.empty(len(values))
    for k in range(len(bounds) - 1):
        mine = rows[row_bounds[k]:row_bounds[k + 1]]
        at = rank[segment[mine]], position[mine]
        grid = np.zeros((bounds[k + 1] - bounds[k], int(lengths[by_class[bounds[k]:bounds[k + 1]]].max())))
        grid[at] = values[mine]
        np.cumsum(grid, axis=1, out=grid)
        out[mine] = grid[at]
    return out


@dataclass(frozen=True)
class Exposure:
    """The state-dependent inputs of P(open), per row."""

    fatigue: np.ndarray
    app: np.ndarray
    subject: np.ndarray
    channel: np.ndarray

    def take(self, index: slice | np.ndarray) -> Exposure:
        return Exposure(*(getattr(self, f)[index] for f in EXPOSURE_FIELDS))


EXPOSURE_FIELDS = ("fatigue", *HABITUATION_KEYS)


def key_sizes(n_channels: int) -> dict[str, int]:
    return {"app": len(schemas.values("postingApp")), "subject": len(schemas.values("subject")),
            "channel": n_channels}


def logged_exposure(seconds: np.ndarray, keys: dict[str, np.ndarray], priority: np.ndarray,
                    updates: np.ndarray, fatigue_tau_seconds: float, lead: int = 0,
                    shift_seconds: float = 0.0) -> Exposure:
    """The exposure of each of a user's time-ordered notifications to the ones before it, the
    notifications at seconds + shift_seconds after the first ``lead`` came at their seconds: fatigue
    weighted by ``interruption`` (of the priority and numberOfUpdates codes), habituation by the
    ``keys``' codes (``HABITUATION_KEYS``), in one pass (``exposure_kernel.logged_decayed_sums``)."""
    columns = [_codes(keys[key], f"{key} keys") for key in HABITUATION_KEYS]
    priority = _codes(priority, "priority codes", len(INTERRUPTION_BY_CODE))
    sizes = np.array([int(c.max()) + 1 if len(c) else 1 for c in columns], dtype=np.int64)
    sums = logged_decayed_sums(
        np.asarray(seconds, dtype=np.float64), priority, np.asarray(updates), INTERRUPTION_BY_CODE,
        NO_UPDATES, UPDATE_INTERRUPTION, float(fatigue_tau_seconds), *columns, sizes,
        np.array(list(HABITUATION_TAUS.values())), int(lead),
        float(shift_seconds))
    return Exposure(*sums)


def _codes(codes: np.ndarray, what: str, size: int | None = None) -> np.ndarray:
    """Integer codes checked to be from 0 (and below ``size``)."""
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers; got {codes.dtype}")
    check_positions(codes, what, size)
    return codes


__getattr__ = moved(__name__, {"ExposureState": "pushgen.model.simulated_user.SimulatedUsers"})
