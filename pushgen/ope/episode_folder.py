"""An episode log folder (the long-horizon task): ``steps.parquet``, ``log.json`` (the recipe, the
counts and every file's bytes and sha256) and the card ``README.md``; written atomically like every
pushgen output and read back only through ``log.json``, as a bandit log folder is
(``pushgen.ope.folder``).
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pushgen._version import __version__
from pushgen.data.dataset import atomic_folder, write_table
from pushgen.data.outputs import DatasetError, file_listing
from pushgen.ope.episodes import STEP_COLUMNS, EpisodeLog, EpisodePolicy
from pushgen.ope.folder import CARD_FILE, EPISODE_LOG, LOG_FILE, checked_description, read_description
from pushgen.ope.trajectories import steps_in_order
from pushgen.publishing.access import resolve_split

NAME = EPISODE_LOG
STEPS_FILE = "steps.parquet"


def episode_card(log: EpisodeLog, description: dict) -> str:
    policy = log.recipe["policy"]
    return "\n".join([
        f"# Episode log of {log.recipe['split']} (long-horizon task)", "",
        f"Written by pushgen {__version__}: {description['episodes']:,} episodes "
        f"({description['rounds']:,} steps) of `pushgen/LongHorizon-v0` on users {log.recipe['users']}, "
        f"{log.recipe['replicates']} per user, {log.recipe['horizon_days']:g} days, k {log.k}.", "",
        f"Logging policy `{policy['name']}` (pushgen.ope.episodes.EpisodePolicy): theta {policy['theta']:g}, "
        f"scale {policy['scale']:g}, cap {policy['cap']}, epsilon {policy['epsilon']:g}.", "",
        f"`{STEPS_FILE}`: one row per step: episode, user, replicate, step, context, the state key "
        "(sends in the last 7 days, hours since the last send, a channel off; `state` joins them), "
        "sends in the last day, the action (`slot`; k = hold) and its exact propensity, the reward, "
        "and the true P(open) of each candidate and the allowed actions at that step (an answer key: "
        "what a true-model target policy's probability of the logged action is recomputed from).", ""])


def write_episode_log(log: EpisodeLog, out: Path, force: bool = False) -> dict:
    """Write ``log`` as a folder at ``out`` (atomically: all of it or nothing).

    Parameters
    ----------
    log : EpisodeLog
        The logged episodes (``pushgen.ope.episodes.log_episodes``).
    out : pathlib.Path
        The folder to write; an existing one is replaced only with ``force``.
    force : bool, default False
        Replace ``out`` if it exists.

    Returns
    -------
    dict
        The folder's description, as written to ``log.json``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pushgen.ope import read_episode_log, validate_episode_log, write_episode_log
    >>> from pushgen.ope.episodes import HorizonOptions, log_episodes
    >>> log = log_episodes("pushgen-mini-v4", replicates=1, options=HorizonOptions(horizon_days=0.25))
    >>> folder = Path(tempfile.mkdtemp()) / "episodes"
    >>> write_episode_log(log, folder)["episodes"], validate_episode_log(folder)
    (1, [])
    >>> len(read_episode_log(folder).steps) == len(log.steps)
    True
    """
    out = Path(out)
    split = resolve_split(log.recipe["split"])
    with atomic_folder(out, force, keep=(split,)) as work:
        write_table(pa.Table.from_pandas(log.steps, preserve_index=False), work / STEPS_FILE, "parquet")
        description = {"name": NAME, "pushgen_version": __version__, "recipe": log.recipe,
                       "rounds": len(log.steps), "episodes": log.episodes,
                       "held": int(log.steps["held"].sum()), "opened": int(log.steps["reward"].sum()),
                       "files": file_listing(work)}
        (work / LOG_FILE).write_text(json.dumps(description, indent=1) + "\n")
        (work / CARD_FILE).write_text(episode_card(log, description))
    return description


def read_episode_log(folder: Path) -> EpisodeLog:
    """An episode log folder read back, every file checked against ``log.json`` first.

    Parameters
    ----------
    folder : pathlib.Path
        A folder written by ``write_episode_log`` (or ``pushgen log SPLIT --task long-horizon``).

    Returns
    -------
    EpisodeLog
        Its steps and recipe.

    Raises
    ------
    pushgen.DatasetError
        When the folder is not an episode log, or a file is missing, unlisted or changed.

    Examples
    --------
    See ``write_episode_log``.
    """
    description = checked_description(folder, (STEPS_FILE,), NAME)
    log = EpisodeLog(pq.read_table(Path(folder) / STEPS_FILE).to_pandas(), description["recipe"])
    check_description(Path(folder) / LOG_FILE, description, log)
    return log


def check_description(source: Path, description: dict, log: EpisodeLog) -> None:
    """Refuse a ``log.json`` whose recipe or counts are not as ``write_episode_log`` writes them
    (``log.json`` is listed nowhere else, so nothing else would notice an edit)."""
    recipe = description["recipe"]
    policy = recipe.get("policy") if isinstance(recipe, dict) else None
    if not (isinstance(policy, dict) and set(policy) == {f.name for f in fields(EpisodePolicy)}
            and isinstance(policy["name"], str) and _whole(policy["cap"]) and _whole(recipe.get("k"))
            and recipe["k"] >= 1 and all(_number(policy[f]) for f in ("theta", "scale", "epsilon"))):
        raise DatasetError(f"{source}: the recipe must give k (a whole number from 1) and the logging "
                           f"policy's name, theta, scale, cap and epsilon as pushgen log writes them")
    steps = log.steps
    counts = {"rounds": len(steps)}
    if "episode" in steps:
        counts["episodes"] = steps["episode"].nunique()
    for key, count in counts.items():
        if description.get(key) != count or not _whole(description.get(key)):
            raise DatasetError(f"{source}: {key} is {description.get(key)!r}, but {STEPS_FILE} holds {count}")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)


def validate_episode_log(folder: Path) -> list[str]:
    """Every problem of an episode log folder: its files, its columns, each episode's steps in order
    from 0, and every propensity equal to the logging policy's own, recomputed.

    Parameters
    ----------
    folder : pathlib.Path
        The folder to check.

    Returns
    -------
    list of str
        One line per problem; empty when the folder is a valid episode log.

    Examples
    --------
    See ``write_episode_log``.
    """
    try:
        log = read_episode_log(folder)
    except DatasetError as error:
        return [str(error)]
    steps = log.steps
    missing = [c for c in STEP_COLUMNS if c not in steps.columns]
    if missing:
        return [f"{STEPS_FILE} has no column {missing[0]!r}"]
    problems = []
    if not steps_in_order(steps["episode"].to_numpy(), steps["step"].to_numpy()):
        problems.append(f"{STEPS_FILE}: each episode's steps must be consecutive rows numbered 0, 1, ...")
    propensity = steps["propensity"].to_numpy()
    if not ((propensity > 0) & (propensity <= 1)).all():
        problems.append(f"{STEPS_FILE}: a propensity outside (0, 1]")
    slot = steps["slot"].to_numpy()
    if len(steps) and (slot.min() < 0 or slot.max() > log.k):
        return [*problems, f"{STEPS_FILE}: a slot outside 0..{log.k}"]
    own = log.probabilities(log.logged_policy())[np.arange(len(steps)), slot]
    off = np.flatnonzero(np.abs(own - propensity) > 1e-12)
    if len(off):
        problems.append(f"step row {off[0]}: propensity {propensity[off[0]]:.12g} is not the logging "
                        f"policy's {own[off[0]]:.12g} ({len(off)} rows like it)")
    return problems


def names_episode_log(folder: Path) -> bool:
    """Whether ``folder``'s ``log.json`` says it is an episode log (False when it cannot be read)."""
    try:
        return read_description(Path(folder)).get("name") == NAME
    except DatasetError:
        return False
