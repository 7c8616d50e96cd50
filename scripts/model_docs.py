"""Rewrite the generated tables of docs/model.md from the code (``--check``: only compare).

Usage: python scripts/model_docs.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pushgen.model.tables_doc import refresh

DOC = Path(__file__).resolve().parent.parent / "docs" / "model.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is stale")
    args = parser.parse_args()
    current = DOC.read_text()
    fresh = refresh(current)
    if args.check:
        if fresh != current:
            print(f"{DOC} is stale: run python scripts/model_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(fresh)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
