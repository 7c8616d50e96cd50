"""Describe what the data layer builds: a dataset's card and Croissant description, written into
its folder before the folder takes its place; and a split built from its recipe."""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from pushgen.data.build import Built
from pushgen.data.dataset import CARD, DatasetError
from pushgen.data.errors import no_folder
from pushgen.data.folder_lock import claim
from pushgen.data.generator import Recipe, simulated_dataset
from pushgen.data.outputs import sibling_name
from pushgen.data.writer import write_dataset
from pushgen.publishing.card import dataset_card
from pushgen.publishing.croissant import croissant, dataset_croissant, write_croissant
from pushgen.publishing.split_card import write_card
from pushgen.splits import SplitSpec, make_split


def write_dataset_metadata(built: Built) -> None:
    """Add the dataset card and the Croissant description to a dataset being built
    (``with pushgen.data.build.building(...) as built``); write any other file into it first."""
    (built.folder / CARD).write_text(dataset_card(built.sample, built.manifest))
    write_croissant(built.folder, dataset_croissant(built.folder))


def write_metadata(folder: Path, title: str | None = None, summary: str | None = None,
                   url: str | None = None, final_name: str | None = None) -> None:
    """Add the dataset card and the Croissant description to a split folder (``final_name``: its
    name once written, if it is written under another)."""
    write_card(folder, title, summary, final_name)
    write_croissant(folder, croissant(folder, title, url))


def build_split(
    recipe: Recipe,
    spec: SplitSpec,
    out: Path,
    name: str,
    version: str | None = None,
    force: bool = False,
    progress: bool = False,
    describe: Callable[[Path], None] | None = None,
) -> Path:
    """Generate ``recipe`` and write its split ``spec`` as the folder ``out``.

    ``describe`` (default: ``write_metadata``) runs on the finished folder before it takes the
    place of ``out``; if it raises, nothing is written.
    """
    out = Path(out)
    if not out.parent.is_dir():
        raise DatasetError(f"cannot write {out}: {no_folder(out.parent)}")
    dataset = simulated_dataset(recipe, progress, desc=name)
    prefix = sibling_name(out, "dataset-")
    for leftover in out.parent.glob(f"{glob.escape(prefix)}*"):  # of killed runs: no one holds them
        if (held := claim(leftover)) is not None:
            shutil.rmtree(leftover, ignore_errors=True)
            os.close(held)
    with tempfile.TemporaryDirectory(prefix=prefix, dir=out.parent) as scratch:
        held = claim(Path(scratch))  # this run's own, while it runs
        try:
            source = write_dataset(dataset, Path(scratch) / "dataset")
            return make_split(source, out, spec, force=force, name=name, version=version,
                              describe=describe or write_metadata)
        finally:
            if held is not None:
                os.close(held)
