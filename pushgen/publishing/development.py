"""Development splits: a standard split's recipe and parts, from another seed, to develop on.

A standard split's test users are the ones a policy is scored on; developing a task 2 policy
against them (playing their episodes again and again) tunes it to the answer key. A development
split has the same shape (users, months, parts, cold-start users) with other simulated users, so
a policy can be played and scored on it as often as needed, with the same environments and
``pushgen evaluate``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pushgen.checks import whole_number
from pushgen.data.errors import no_folder
from pushgen.data.outputs import DatasetError, check_output
from pushgen.publishing.registry import load_registry, lookup
from pushgen.publishing.standard import build_split

MAX_SEED = 2**63 - 1


def standard_seeds() -> dict[int, str]:
    """Each standard split's seed, with the split it makes (the first of each seed)."""
    seeds: dict[int, str] = {}
    for entry in load_registry():
        seeds.setdefault(int(entry.recipe["seed"]), entry.label)
    return seeds


def development_split(name: str, out: str | Path, seed: int, version: str | None = None,
                      force: bool = False, progress: bool = False) -> Path:
    """Build a split like the standard split ``name`` (e.g. ``"pushgen"`` or ``"pushgen-v2"``;
    ``version`` picks one, default the latest) from the dataset seed ``seed``, as the folder ``out``.

    Same users count, months, start day, priors and split (training, validation and test months,
    cold-start users: the highest user ids), other simulated users. A standard split's seed is
    refused (its users are the ones scored), and so is an ``out`` that exists (unless ``force``),
    before anything is simulated. Returns ``out``; load it with ``pushgen.load_split(out, task)``,
    play it with ``gym.make("pushgen/NotificationGeneration-v0", split=out, ...)`` and score it
    with ``pushgen evaluate --split out``.

    Parameters
    ----------
    name : str
        A standard split's name, with or without its version.
    out : str or pathlib.Path
        The folder to write.
    seed : int
        The dataset seed, 0 to 2**63 - 1, not a standard split's.
    version : str, optional
        The version of ``name``; by default its latest.
    force : bool, default False
        Replace ``out`` if it is a pushgen output.
    progress : bool, default False
        Draw progress bars on stderr.

    Returns
    -------
    pathlib.Path
        ``out``, the new split's folder.

    Raises
    ------
    DatasetError
        When the seed is a standard split's or out of range, the name is unknown, or ``out``
        exists (without ``force``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pushgen
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "mini-dev"
    >>> folder = pushgen.development_split("pushgen-mini", out, seed=7)
    >>> pushgen.load_split(folder, task=2).test["user_id"].nunique()
    1
    """
    seed = whole_number("seed", seed, 0, MAX_SEED, DatasetError)
    if (standard := standard_seeds().get(seed)) is not None:
        raise DatasetError(f"seed {seed} is the seed of the standard split {standard}, whose users "
                           "are the ones scored; a development split needs any other seed")
    entry = lookup(name, version)
    out = Path(out)
    if not out.parent.is_dir():
        raise DatasetError(f"cannot write {out}: {no_folder(out.parent)}")
    check_output(out, force)
    recipe = dataclasses.replace(entry.make_recipe(), seed=seed)
    return build_split(recipe, entry.make_spec(), out, name=f"{entry.name}-dev-seed{seed}", force=force,
                       progress=progress)
