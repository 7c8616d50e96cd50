"""Which faker releases give the published pseudonyms of every standard split.

The pseudonyms in a split's ``users.parquet`` come from a seeded ``Faker("en_US").name()``, so
a faker release that changed its name lists would change the content (and the fingerprint) of
a regenerated split. pyproject.toml pins faker to a range this script has shown to give the
published names; run it with newer releases before widening the pin (docs/versioning.md):

    python scripts/faker_names.py 24.0.0 40.63.0 41.0.0

Each release is installed on its own into a temporary folder (``pip install --target``, no
dependencies) and asked for the names; the script prints one line per release and exits 1 if
any release gives other names than a published split holds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"

NAMES_WITH = """
import json, sys
sys.path.insert(0, sys.argv[1])
import faker
from pushgen.data.generator import pseudonyms
asks = json.loads(sys.argv[2])
print(json.dumps({"faker": faker.VERSION,
                  "names": {k: pseudonyms(seed, ids) for k, (seed, ids) in asks.items()}}))
"""


def published() -> dict[str, tuple[int, list[int], list[str]]]:
    """Every standard split's seed, user ids and pseudonyms, as published."""
    registry = json.loads((ROOT / "pushgen" / "publishing" / "registry.json").read_text())
    found = {}
    for entry in registry["splits"]:
        users = pd.read_parquet(GENERATED / entry["name"] / entry["version"] / "users.parquet")
        found[f"{entry['name']}-{entry['version']}"] = (
            entry["recipe"]["seed"], users["user_id"].tolist(), users["name"].tolist())
    return found


def names_with(release: str, asks: dict[str, tuple[int, list[int]]], scratch: Path) -> dict:
    target = scratch / release
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), f"faker=={release}"], check=True)
    done = subprocess.run([sys.executable, "-c", NAMES_WITH, str(target), json.dumps(asks)],
                          check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="+", help="faker releases to check, e.g. 24.0.0 40.63.0")
    args = parser.parse_args()
    splits = published()
    asks = {label: (seed, ids) for label, (seed, ids, _) in splits.items()}
    differing = 0
    with tempfile.TemporaryDirectory() as scratch:
        for release in args.releases:
            got = names_with(release, asks, Path(scratch))
            changed = [label for label, (_, _, names) in splits.items() if got["names"][label] != names]
            differing += bool(changed)
            verdict = f"differ in {', '.join(changed)}" if changed else "the published names"
            print(f"faker {got['faker']}: {verdict} ({len(splits)} splits, "
                  f"{sum(len(ids) for _, ids in asks.values())} pseudonyms)")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
