"""Build the standard splits into generated/<name>/<version>/ and record them in the registry
(pushgen/publishing/registry.json).

    python scripts/build_standard_splits.py                 # build all, update the registry
    python scripts/build_standard_splits.py --only pushgen-mini-v4
    python scripts/build_standard_splits.py --check         # rebuild in a temporary folder and
                                                            # compare with the registry; writes nothing

Only the splits of this pushgen's engagement model are built; those of earlier models stay as
they were published (their folders and registry entries are kept).

Re-running with the same generator and library versions rewrites the same bytes. A published
version must never change: if a split's fingerprint changes on purpose, add a new version to
STANDARD (and keep the old folder and registry entry) instead of rebuilding the old one.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pushgen.data.generator import make_recipe
from pushgen.model.engagement import MODEL_VERSION
from pushgen.publishing.download import standard_url
from pushgen.publishing.registry import REGISTRY_FILE, entry_for_folder, read_registry, write_registry
from pushgen.publishing.standard import build_split, write_metadata
from pushgen.splits import SplitSpec

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
MINI_LIMIT_BYTES = 1_750_000  # "about 1.5 MB": a quick start, a wheel that stays light


@dataclass(frozen=True)
class Standard:
    name: str
    version: str
    title: str
    description: str
    users: int
    months: int
    seed: int
    spec: SplitSpec
    supersedes: str | None = None
    engagement_model: int = MODEL_VERSION  # a split of another model is kept as published, not rebuilt

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"


STANDARD = (
    Standard(
        name="pushgen", version="v1",
        title="The pushgen benchmark split",
        description="As in the EvalUMAP 2019 challenge: 3 months of history and 3 test months for "
                    "50 users (task 1), and 10 more users held out for the cold-start task 2.",
        users=60, months=6, seed=2019,
        spec=SplitSpec(train_months=3, test_months=3, validation_weeks=2, cold_start_users=10),
        engagement_model=1,
    ),
    Standard(
        name="pushgen-mini", version="v1",
        title="The pushgen quick-start split",
        description="A few users and weeks for quick starts, examples and tests; shipped inside "
                    "the pushgen package, so it needs no network.",
        users=4, months=2, seed=2019,
        spec=SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=1),
        engagement_model=1,
    ),
    Standard(
        name="pushgen", version="v2",
        title="The pushgen benchmark split, engagement model 2",
        description="As in the EvalUMAP 2019 challenge: 3 months of history and 3 test months for "
                    "50 users (task 1), and 10 more users held out for the cold-start task 2. "
                    "Engagement model 2: the best notification depends on the context and on what "
                    "was sent before; models read contexts only, the answer key is in scorer/.",
        users=60, months=6, seed=2019,
        spec=SplitSpec(train_months=3, test_months=3, validation_weeks=2, cold_start_users=10),
        supersedes="pushgen-v1",
        engagement_model=2,
    ),
    Standard(
        name="pushgen-mini", version="v2",
        title="The pushgen quick-start split, engagement model 2",
        description="A few users and weeks for quick starts, examples and tests; shipped inside "
                    "the pushgen package, so it needs no network. Engagement model 2.",
        users=4, months=2, seed=2019,
        spec=SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=1),
        supersedes="pushgen-mini-v1",
        engagement_model=2,
    ),
    # v3 draws new people: a seed no earlier version used, and the mini split's own, so that no
    # user of one standard split is a user of another
    Standard(
        name="pushgen", version="v3",
        title="The pushgen benchmark split, engagement model 3",
        description="As in the EvalUMAP 2019 challenge: 3 months of history and 3 test months for "
                    "50 users (task 1), and 10 more users held out for the cold-start task 2. "
                    "Engagement model 3: users as different as real ones, quiet nights, delayed "
                    "opens, context x content effects that decide the best notification; test "
                    "contexts carry their time; the answer key is in scorer/.",
        users=60, months=6, seed=2026,
        spec=SplitSpec(train_months=3, test_months=3, validation_weeks=2, cold_start_users=10),
        supersedes="pushgen-v2",
        engagement_model=3,
    ),
    Standard(
        name="pushgen-mini", version="v3",
        title="The pushgen quick-start split, engagement model 3",
        description="A few users and weeks for quick starts, examples and tests; shipped inside "
                    "the pushgen package, so it needs no network. Engagement model 3.",
        users=4, months=2, seed=2027,
        spec=SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=1),
        supersedes="pushgen-mini-v2",
        engagement_model=3,
    ),
    # v4: thirty held-out users, enough for a paired interval to separate online learners
    Standard(
        name="pushgen", version="v4",
        title="The pushgen benchmark split, engagement model 4",
        description="As in the EvalUMAP 2019 challenge: 3 months of history and 3 test months for "
                    "50 users (task 1), and 30 more users held out for the cold-start and "
                    "long-horizon tasks. Engagement model 4: users turn apps and channels off, "
                    "or abandon them, when unwanted notifications annoy them past their "
                    "tolerance; online tasks are scored on sampled outcomes.",
        users=80, months=6, seed=2028,
        spec=SplitSpec(train_months=3, test_months=3, validation_weeks=2, cold_start_users=30),
        supersedes="pushgen-v3",
    ),
    Standard(
        name="pushgen-mini", version="v4",
        title="The pushgen quick-start split, engagement model 4",
        description="A few users and weeks for quick starts, examples and tests; shipped inside "
                    "the pushgen package, so it needs no network. Engagement model 4.",
        users=4, months=2, seed=2029,
        spec=SplitSpec(train_months=1, test_months=1, validation_weeks=1, cold_start_users=1),
        supersedes="pushgen-mini-v3",
    ),
)


def build(standard: Standard, out: Path, progress: bool) -> Path:
    recipe = make_recipe(users=standard.users, months=standard.months, seed=standard.seed)
    describe = functools.partial(write_metadata, title=standard.title, summary=standard.description,
                                 url=standard_url(standard.name, standard.version))
    return build_split(recipe, standard.spec, out, standard.name, standard.version, force=True,
                       progress=progress, describe=describe)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME-VERSION",
                        help="build only this split (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="rebuild in a temporary folder and compare with the registry")
    args = parser.parse_args(argv)
    current = [s for s in STANDARD if s.engagement_model == MODEL_VERSION]
    chosen = [s for s in current if not args.only or s.label in args.only]
    if args.only and len(chosen) != len(args.only):
        parser.error(f"--only takes one of {', '.join(s.label for s in current)} (the splits of "
                     f"engagement model {MODEL_VERSION}; the others are kept as published)")
    published = {(e.name, e.version): e for e in read_registry(REGISTRY_FILE)}
    entries = dict(published)
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for standard in chosen:
            started = time.perf_counter()
            out = (Path(scratch) if args.check else GENERATED / standard.name) / standard.version
            out.parent.mkdir(parents=True, exist_ok=True)
            build(standard, out, progress=sys.stderr.isatty())
            entry = entry_for_folder(out, standard.title, standard.description, standard.supersedes)
            old = published.get((standard.name, standard.version))
            changed = old is not None and old.fingerprint != entry.fingerprint
            print(f"{standard.label}: {entry.bytes / 1e6:.2f} MB in {len(entry.files)} files, "
                  f"fingerprint {entry.fingerprint}, {time.perf_counter() - started:.1f} s"
                  + (" (CHANGED)" if changed else ""))
            if changed or (args.check and old is None):
                failures += 1
                print(f"  {standard.label} differs from the registry (was "
                      f"{old.fingerprint if old else 'absent'}): if it is published, add a new "
                      "version to STANDARD instead of changing this one", file=sys.stderr)
            if standard.name == "pushgen-mini" and entry.bytes > MINI_LIMIT_BYTES:
                print(f"  warning: {standard.label} is over {MINI_LIMIT_BYTES / 1e6} MB", file=sys.stderr)
            entries[(standard.name, standard.version)] = entry
    if args.check:
        return 1 if failures else 0
    write_registry(list(entries.values()), REGISTRY_FILE)
    print(f"wrote {REGISTRY_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
