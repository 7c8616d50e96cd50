"""Reads that cannot mix: readers of a dataset or split folder that another run replaces (as
``--force`` does) over many timings each read one version whole, never parts of two."""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import pushgen
from pushgen.data import folder_lock
from pushgen.data.dataset import atomic_folder, read_dataset
from pushgen.data.describe import describe_path
from pushgen.data.fingerprint import fingerprint
from pushgen.data.outputs import DatasetError
from pushgen.data.validate import validate
from pushgen.data.writer import write_dataset
from pushgen.publishing.access import load_split
from pushgen.splits import SplitSpec, make_split, table_fingerprints

SEEDS = (10, 11)
SPEC = SplitSpec(train_months=1, test_months=1, validation_weeks=1)
TIMINGS = 20  # reads of each kind (100 reads in all): about 25 s on a loaded 2-core machine


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    """Two datasets (seeds 10 and 11) and their splits, each with what a reader must find in it."""
    root = tmp_path_factory.mktemp("versions")
    found = {}
    for seed in SEEDS:
        dataset = write_dataset(pushgen.generate(users=3, months=2, seed=seed), root / f"d{seed}")
        split = make_split(dataset, root / f"s{seed}", SPEC)
        found[seed] = {"dataset": dataset, "split": split, "splits": table_fingerprints(split),
                       "describe": describe_path(dataset),
                       "notifications": fingerprint(read_dataset(dataset).notifications_arrow)}
    return found


def wait_for_waiting_note(capsys, folder: Path, limit_seconds: float = 600.0) -> str:
    """Stderr up to the note of a replacement waiting for the readers of ``folder`` (the event that
    it reached the lock), polled with a long safety limit only."""
    seen, deadline = "", time.monotonic() + limit_seconds
    while f"waiting for the runs that read {folder} to finish" not in seen:
        assert time.monotonic() < deadline, "the replacement never waited for the reader"
        seen += capsys.readouterr().err
        time.sleep(0.05)  # ok-timing: a polling interval, it decides nothing
    return seen


class Replacer(threading.Thread):
    """Replaces ``out`` with a copy of one of ``sources`` after another, as ``--force`` does."""

    def __init__(self, out: Path, sources: list[Path], seed: int) -> None:
        super().__init__(daemon=True)
        self.out, self.sources, self.random = out, sources, random.Random(seed)
        self.done = threading.Event()
        self.replaced = 0

    def run(self) -> None:
        while not self.done.is_set():
            with atomic_folder(self.out, force=True) as work:
                shutil.copytree(self.random.choice(self.sources), work, dirs_exist_ok=True)
            self.replaced += 1
            time.sleep(self.random.uniform(0, 0.02))


def read_each(kind: str, versions: dict, dataset: Path, split: Path, out: Path) -> int:
    """Read ``dataset`` or ``split`` one way; the seed of the one version everything read came from
    (an ``AssertionError`` if the reads mixed versions)."""
    if kind == "make_split":
        made = make_split(dataset, out, SPEC)
        seed = json.loads((made / "split.json").read_text())["recipe"]["seed"]
        assert table_fingerprints(made) == versions[seed]["splits"], "a split mixing two datasets"
        shutil.rmtree(made)
        return seed
    if kind == "describe":
        stats = describe_path(dataset)
        matches = [seed for seed in SEEDS if versions[seed]["describe"] == stats]
        assert len(matches) == 1, "a description of neither dataset"
        return matches[0]
    if kind == "validate":
        assert validate(dataset) == [], "a valid dataset found invalid while it was replaced"
        return 0
    if kind == "read_dataset":
        read = read_dataset(dataset)
        seed = read.recipe.seed
        assert fingerprint(read.notifications_arrow) == versions[seed]["notifications"], "mixed"
        return seed
    loaded = load_split(split, 1)
    seed = loaded.description["recipe"]["seed"]
    assert fingerprint_frame(loaded.train) == fingerprint_frame(load_split(versions[seed]["split"], 1).train)
    return seed


def fingerprint_frame(frame) -> str:
    return fingerprint(pa.Table.from_pandas(frame, preserve_index=False))


def test_readers_never_mix_versions_of_a_folder_being_replaced(versions, tmp_path):
    dataset, split = tmp_path / "dd", tmp_path / "ss"
    shutil.copytree(versions[10]["dataset"], dataset)
    shutil.copytree(versions[10]["split"], split)
    replacers = [Replacer(dataset, [versions[s]["dataset"] for s in SEEDS], 1),
                 Replacer(split, [versions[s]["split"] for s in SEEDS], 2)]
    for replacer in replacers:
        replacer.start()
    timing = random.Random(0)
    outcomes: dict[str, list[int | str]] = {}
    try:
        for index in range(TIMINGS):
            for kind in ("make_split", "describe", "validate", "read_dataset", "load_split"):
                time.sleep(timing.uniform(0, 0.01))
                try:
                    seed = read_each(kind, versions, dataset, split, tmp_path / f"out{index}")
                except DatasetError as error:  # a refusal in one line is allowed, a mix is not
                    assert "\n" not in str(error)
                    seed = f"refused: {error}"
                outcomes.setdefault(kind, []).append(seed)
    finally:
        for replacer in replacers:
            replacer.done.set()
        for replacer in replacers:
            replacer.join()
    assert all(replacer.replaced > 10 for replacer in replacers), [r.replaced for r in replacers]
    for kind, seeds in outcomes.items():
        assert len(seeds) == TIMINGS
        assert not [s for s in seeds if isinstance(s, str)], (kind, seeds)
    both = {kind: set(seeds) for kind, seeds in outcomes.items() if kind != "validate"}
    assert any(found == set(SEEDS) for found in both.values()), both  # the readers met both versions


def test_a_reader_keeps_its_version_until_it_is_done(versions, tmp_path, capsys):
    """``--force`` waits for the readers of the folder it replaces; a later reader sees the new one."""
    dataset = tmp_path / "dd"
    shutil.copytree(versions[10]["dataset"], dataset)
    replacer = Replacer(dataset, [versions[11]["dataset"]], 3)
    with folder_lock.session():
        assert read_dataset(dataset).recipe.seed == 10
        replacer.start()
        wait_for_waiting_note(capsys, dataset)  # waiting for this reader, and saying so
        assert replacer.replaced == 0
        assert read_dataset(dataset).recipe.seed == 10
        replacer.done.set()
    replacer.join()
    assert replacer.replaced == 1 and read_dataset(dataset).recipe.seed == 11


def test_an_environment_reads_one_version_of_its_split(versions, tmp_path, monkeypatch, capsys):
    """The constructor reads the split's parts (to choose the task) and the part it plays under one
    hold of the lock: a replacement that starts between the two waits for it."""
    from pushgen.envs import base
    from pushgen.envs.selection import NotificationSelectionEnv
    from pushgen.replay.parts import load_part

    split = tmp_path / "ss"
    shutil.copytree(versions[10]["split"], split)
    replacer = Replacer(split, [versions[11]["split"]], 4)
    task_of_user = base.task_of_user

    def then_replace(*args):
        task = task_of_user(*args)
        replacer.start()
        wait_for_waiting_note(capsys, split)  # the replacement is ready to rename by now
        return task

    monkeypatch.setattr(base, "task_of_user", then_replace)
    env = NotificationSelectionEnv(split)
    replacer.done.set()
    replacer.join()
    assert replacer.replaced >= 1
    played, task = env.replay.context_ids, env.replay.task
    assert np.array_equal(played, load_part(versions[10]["split"], task).context_ids)
    assert not np.array_equal(played, load_part(versions[11]["split"], task).context_ids)
    now = load_part(split, task).context_ids  # the replacement went ahead once the constructor was done
    assert np.array_equal(now, load_part(versions[11]["split"], task).context_ids)
