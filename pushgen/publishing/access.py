"""Open a split by name or folder: the standard splits' names resolve through the registry.

``load_split`` and ``resolve_split`` sit above the download layer (a name may need a fetch),
so the splits module below stays free of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.dataset import DatasetError
from pushgen.data.folder_lock import hold, session
from pushgen.data.verify import verify_split
from pushgen.publishing.registry import identity_problem
from pushgen.splits import SPLIT_FILE, Split, read_part, task_number


def resolve_split(source: str | Path) -> Path:
    """A split folder from a path, or a standard split's name (fetched or from the cache)."""
    if not isinstance(source, (str, os.PathLike)) or not str(source):
        raise DatasetError(f"a split is a standard split's name or a split folder; got {source!r}")
    path = Path(source)
    hold(path)  # the folder stays this version to the end of the reading session
    if path.is_dir():
        verify_split(path)
        if (problem := identity_problem(path, json.loads((path / SPLIT_FILE).read_bytes()))) is not None:
            raise DatasetError(problem)
        return path
    if path.exists():
        raise DatasetError(f"{path} is not a split folder")
    if isinstance(source, Path) or len(path.parts) > 1 or str(source).startswith("."):
        raise DatasetError(f"no split folder at {source}")
    from pushgen.publishing.download import fetch_split  # a name: the network layer only when needed

    folder = fetch_split(str(source))
    verify_split(folder)
    return folder


@session()
def load_split(source: str | Path, task: int = 1) -> Split:
    """Load task ``task`` (1: offline, 2: cold start) of a split folder or standard split.

    ``train`` and ``validation`` are the history (notifications, contexts, actions, timings);
    ``test`` holds the test contexts only (``user_id``, ``context_id``, ``posted_at``: when the
    notification would be delivered, not a feature, absent from the standard splits up to
    version 2; and the 11 context features). The logged test notifications, actions and
    timings and the simulated user live in the split's ``scorer/`` folder, which only the
    evaluator and the environments read; a model must not read it.

    Parameters
    ----------
    source : str or pathlib.Path
        A standard split's name (``"pushgen-v4"``; downloaded or regenerated on first use) or a
        split folder.
    task : int, default 1
        1 (offline: history, then test contexts) or 2 (cold start: test contexts only; the
        history frames are empty).

    Returns
    -------
    Split
        ``train``, ``validation``, ``test`` and ``users`` as pandas frames, the ``folder`` and the
        ``description`` (``split.json``).

    Raises
    ------
    DatasetError
        When ``task`` is not 1 or 2, or ``source`` is neither a standard split nor a split folder.

    Examples
    --------
    >>> import pushgen
    >>> split = pushgen.load_split("pushgen-mini-v4", task=1)
    >>> split.test.columns[:3].tolist()
    ['user_id', 'context_id', 'posted_at']
    >>> "action" in split.train and "action" not in split.test
    True
    """
    task = task_number(task)
    folder = resolve_split(source)
    description = json.loads((folder / SPLIT_FILE).read_text())
    test = read_part(folder, f"task{task}/test")
    if task == 1:
        train, validation = read_part(folder, "task1/train"), read_part(folder, "task1/validation")
    else:  # no history: empty tables with the history's columns
        train = validation = schemas.apply_dtypes(
            pq.read_schema(folder / "task1/train.parquet").empty_table().to_pandas())
    return Split(folder=folder, task=task, description=description, train=train, validation=validation,
                 test=test, users=pq.read_table(folder / "users.parquet").to_pandas())

