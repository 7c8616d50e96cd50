"""A log folder: ``rounds.parquet``, ``candidates.parquet``, ``log.json`` (the recipe, the counts
and every file's bytes and sha256), the card ``README.md`` and ``croissant.json``.

It is written atomically like every pushgen output (nothing appears unless all succeeds; an
existing folder is replaced only with ``force`` and only if it is a pushgen output) and read
back only through ``log.json``.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen._version import __version__
from pushgen.data.dataset import atomic_folder, write_table
from pushgen.data.folder_entries import check_unlisted, check_written_after
from pushgen.data.folder_lock import hold, session
from pushgen.data.outputs import (
    DatasetError,
    file_listing,
    files_problem,
    listed_files,
    read_json_object,
)
from pushgen.ope.log import CANDIDATE_COLUMNS, ROUND_COLUMNS, BanditLog, checked_log
from pushgen.ope.policies import POLICIES
from pushgen.publishing.access import resolve_split
from pushgen.splits import SPLIT_FILE

LOG_FILE = "log.json"
CARD_FILE = "README.md"
CROISSANT_FILE = "croissant.json"
TABLES = {"rounds": "rounds.parquet", "candidates": "candidates.parquet"}
SUM_TOLERANCE = 1e-9


def write_log(log: BanditLog, out: Path, force: bool = False) -> dict:
    """Write ``log`` as a folder at ``out``; returns its description (``log.json``).

    Parameters
    ----------
    log : BanditLog
        The log.
    out : pathlib.Path
        The folder to write (atomically).
    force : bool, default False
        Replace ``out`` if it is a pushgen output.

    Returns
    -------
    dict
        The description written as ``log.json``.

    Raises
    ------
    DatasetError
        When ``out`` exists (without ``force``) or lies inside another pushgen output.

    Examples
    --------
    >>> from pushgen.ope import log_policy, read_log, validate_log, write_log
    >>> log = log_policy("pushgen-mini-v4", users=[0], seed=0)
    >>> _ = write_log(log, "log-uniform")
    >>> validate_log("log-uniform"), len(read_log("log-uniform").rounds) == len(log.rounds)
    ([], True)
    """
    log = checked_log(log, "write_log")
    from pushgen.ope.card import log_card, log_croissant

    out = Path(out)
    split = resolve_split(log.recipe["split"])
    split_description = read_json_object(split / SPLIT_FILE)
    with atomic_folder(out, force, keep=(split,)) as work:
        for name, file in TABLES.items():
            table = pa.Table.from_pandas(getattr(log, name), preserve_index=False)
            write_table(table, work / file, "parquet")
        description = {
            "name": "pushgen bandit log",
            "pushgen_version": __version__,
            "recipe": log.recipe,
            "split_fingerprint": split_description.get("fingerprint"),
            "split_recipe": split_description.get("recipe"),
            "rounds": len(log.rounds),
            "candidate_rows": len(log.candidates),
            "held": int(log.rounds["held"].sum()),
            "opened": int(log.rounds["reward"].sum()),
            "files": file_listing(work),
        }
        if log.recipe.get("policy") == "softmax-learned":  # its model, and so its bytes, follow scikit-learn
            description["fitted_with"] = {"scikit-learn": metadata.version("scikit-learn")}
        (work / LOG_FILE).write_text(json.dumps(description, indent=1) + "\n")
        (work / CARD_FILE).write_text(log_card(log, description))
        croissant = log_croissant(work, description, TABLES, (LOG_FILE, CARD_FILE))
        (work / CROISSANT_FILE).write_text(json.dumps(croissant, indent=1) + "\n")
    return description


def is_log_folder(folder: Path) -> bool:
    return (Path(folder) / LOG_FILE).is_file()


def read_description(folder: Path) -> dict:
    folder = Path(folder)
    if not is_log_folder(folder):
        raise DatasetError(f"{folder} is not a pushgen log: no {LOG_FILE}")
    description = read_json_object(folder / LOG_FILE)
    for key in ("recipe", "rounds", "files"):
        if key not in description:
            raise DatasetError(f"{folder / LOG_FILE} has no {key!r}")
    return description


EPISODE_LOG = "pushgen episode log"  # the name in an episode log's log.json (pushgen.ope.episode_folder)


def checked_description(folder: Path, tables: tuple[str, ...], name: str | None = None) -> dict:
    """``folder``'s ``log.json`` (which must name ``name``, if given), once every file it lists,
    ``tables`` among them, is as listed and no other file is there."""
    folder = Path(folder)
    hold(folder)
    description = read_description(folder)
    if name is not None and description.get("name") != name:
        raise DatasetError(f"{folder} is not a {name} (its {LOG_FILE} names {description.get('name')!r})")
    if name is None and description.get("name") == EPISODE_LOG:
        raise DatasetError(f"{folder} is an episode log (pushgen log --task long-horizon), not a bandit log: "
                           "pushgen.ope.read_episode_log reads it")
    listed = listed_files(description, LOG_FILE)
    check_unlisted(folder, listed, "log", LOG_FILE)
    if (problem := files_problem(folder, listed, LOG_FILE)) is not None:
        raise DatasetError(f"{folder}: {problem}")
    check_written_after(folder, listed, "log")
    for file in tables:
        if file not in listed:
            raise DatasetError(f"{folder}: {LOG_FILE} does not list {file}")
    return description


@session()
def read_log(folder: Path) -> BanditLog:
    """A log folder read back (every file checked against ``log.json`` first).

    Parameters
    ----------
    folder : pathlib.Path
        A folder ``write_log`` or ``pushgen log`` wrote.

    Returns
    -------
    BanditLog
        Its tables and recipe.

    Raises
    ------
    DatasetError
        When a file is missing, unlisted or altered.

    Examples
    --------
    >>> from pushgen.ope import log_policy, read_log, write_log
    >>> _ = write_log(log_policy("pushgen-mini-v4", users=[0], seed=0), "log-uniform")
    >>> read_log("log-uniform").recipe["policy"]
    'uniform'
    """
    description = checked_description(folder, tuple(TABLES.values()))
    rounds, candidates = (schemas.apply_dtypes(pq.read_table(Path(folder) / file).to_pandas())
                          for file in TABLES.values())
    return BanditLog(rounds, candidates, description["recipe"])


@session()
def validate_log(folder: Path) -> list[str]:
    """Every problem of a log folder (an empty list: it is valid): its files against ``log.json``,
    a known logging policy, the tables' columns and values, one chosen action per round with the
    round's propensity, propensities that sum to 1 per round, hold included, and every propensity
    the logging policy's own, recomputed (for ``softmax-learned`` only with the scikit-learn that
    fitted its model: ``propensity_blocker``).

    Parameters
    ----------
    folder : pathlib.Path
        The log folder.

    Returns
    -------
    list of str
        One line per problem.

    Examples
    --------
    >>> from pushgen.ope import validate_log
    >>> validate_log("no-such-folder")
    ['no-such-folder is not a pushgen log: no log.json']
    """
    try:
        log = read_log(folder)
    except DatasetError as error:
        return [str(error)]
    problems = []
    if (policy := log.recipe.get("policy")) not in POLICIES:
        problems.append(f"{LOG_FILE}: unknown logging policy {policy!r}; policies: {', '.join(POLICIES)}")
    rounds, candidates = log.rounds, log.candidates
    expected = {"rounds": ROUND_COLUMNS, "candidates": CANDIDATE_COLUMNS}
    for name, frame in (("rounds", rounds), ("candidates", candidates)):
        missing = [c for c in expected[name] if c not in frame.columns]
        if missing:
            return [f"{TABLES[name]} has no column {missing[0]!r}"]
    for name, frame in (("rounds", rounds), ("candidates", candidates)):
        empty_allowed = (frame["hold"].to_numpy(dtype=bool) if name == "candidates"
                         else np.zeros(len(frame), dtype=bool))
        for f in sorted(set(frame.columns) & set(schemas.fields())):
            if (frame[f].isna().to_numpy() & ~empty_allowed).any():
                problems.append(f"{TABLES[name]}: {f} has a value outside its published value set")
    n = len(rounds)
    if not np.array_equal(rounds["round_id"].to_numpy(), np.arange(n)):
        problems.append("rounds.parquet: round_id must number the rounds 0, 1, ... in order")
        return problems
    round_id = candidates["round_id"].to_numpy()
    if len(round_id) and (round_id.min() < 0 or round_id.max() >= n):
        return [*problems, "candidates.parquet: a round_id that rounds.parquet does not have"]
    totals = np.bincount(round_id, weights=candidates["propensity"].to_numpy(), minlength=n)
    off = np.flatnonzero(np.abs(totals - 1) > SUM_TOLERANCE)
    if len(off):
        problems.append(f"round {off[0]}: the propensities sum to {totals[off[0]]:.12g}, not 1 "
                        f"({len(off)} rounds like it)")
    chosen = candidates[candidates["chosen"].to_numpy(dtype=bool)]
    if len(chosen) != n or not np.array_equal(np.sort(chosen["round_id"].to_numpy()), np.arange(n)):
        problems.append("candidates.parquet: every round needs exactly one chosen action")
    else:
        chosen = chosen.sort_values("round_id")
        if not np.array_equal(chosen["slot"].to_numpy(), rounds["slot"].to_numpy()):
            problems.append("the chosen candidate rows differ from the rounds' slot")
        if not np.allclose(chosen["propensity"].to_numpy(), rounds["propensity"].to_numpy(), rtol=0, atol=0):
            problems.append("the chosen candidate rows' propensity differs from the rounds'")
        if not np.array_equal(chosen["reward"].to_numpy(dtype=np.int64), rounds["reward"].to_numpy(np.int64)):
            problems.append("the chosen candidate rows' reward differs from the rounds'")
    for name, frame in (("rounds", rounds), ("candidates", candidates)):
        p = frame["p_open"].to_numpy(dtype=np.float64)
        if not ((p >= 0) & (p <= 1)).all():
            problems.append(f"{TABLES[name]}: p_open outside [0, 1]")
        propensity = frame["propensity"].to_numpy(dtype=np.float64)
        if not ((propensity >= 0) & (propensity <= 1)).all():
            problems.append(f"{TABLES[name]}: propensity outside [0, 1]")
    if (rounds["propensity"].to_numpy() <= 0).any():
        problems.append("rounds.parquet: a chosen action with propensity 0")
    if candidates["reward"].notna().sum() != candidates["chosen"].sum():
        problems.append("candidates.parquet: a reward on an action that was not chosen")
    if problems or propensity_blocker(read_description(folder)) is not None:
        return problems
    return propensity_problems(log)


def propensity_blocker(description: dict) -> str | None:
    """Why the propensities of the log ``description`` (its ``log.json``) cannot be recomputed
    here (None: they can): ``softmax-learned`` refits its model, which takes the scikit-learn
    that fitted it."""
    if description["recipe"].get("policy") != "softmax-learned":
        return None
    fitted = (description.get("fitted_with") or {}).get("scikit-learn")
    try:
        installed = metadata.version("scikit-learn")
    except metadata.PackageNotFoundError:
        installed = None
    if installed is not None and installed == fitted:
        return None
    return f"its model was fitted with scikit-learn {fitted}, and {installed or 'none'} is installed"


def propensity_problems(log: BanditLog) -> list[str]:
    """The logged propensities against the logging policy's own, recomputed at every round."""
    from pushgen.ope.log import logging_policy

    recipe = log.recipe
    policy = logging_policy(recipe["policy"], recipe.get("temperature"), recipe["split"])
    rows = log.candidates
    own = log.target_probabilities(policy)[rows["round_id"].to_numpy(), rows["slot"].to_numpy()]
    logged = rows["propensity"].to_numpy(dtype=np.float64)
    off = np.flatnonzero(np.abs(own - logged) > 1e-12)
    if not len(off):
        return []
    return [f"candidate row {off[0]}: propensity {logged[off[0]]:.12g} is not the logging policy's "
            f"{own[off[0]]:.12g} ({len(off)} rows like it)"]
