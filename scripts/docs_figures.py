"""Redraw the documentation's committed pictures: those the tutorials draw (kept beside their
pages) and the README's figure from ``pushgen report`` (``docs/figures/report-context.png``).

    python scripts/docs_figures.py
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tutorials

import pushgen
from pushgen.report import figures

README_FIGURE = tutorials.DOCS / "figures" / "report-context.png"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    for name in tutorials.TUTORIALS:
        page = tutorials.page(name)
        if tutorials.images(page):
            with tempfile.TemporaryDirectory() as folder:
                tutorials.run(page, Path(folder))
                for image in tutorials.images(page):
                    shutil.copy(Path(folder) / image, page.parent / image)
                    print(f"wrote {page.parent / image}")
    # the dataset of the README's first command: pushgen make --users 50 --months 6
    drawn = figures(pushgen.generate(users=50, months=6, seed=0))
    drawn["context"].savefig(README_FIGURE, dpi=72, bbox_inches="tight")
    print(f"wrote {README_FIGURE}")


if __name__ == "__main__":
    main()
