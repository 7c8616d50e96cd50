"""Run the tutorials: each page's Python blocks, in order, in one namespace, in a given folder.

    python scripts/tutorials.py [NAME ...]   # runs every tutorial (or those named) in a temporary folder

The test suite runs them the same way (``tests/test_tutorials.py``), so a tutorial that breaks
fails CI; ``scripts/docs_figures.py`` keeps the pictures they draw.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
TUTORIALS = ("explore-a-dataset", "task1-entry", "selection-agent", "off-policy")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)/]+\.png)\)")


def page(name: str) -> Path:
    return DOCS / "tutorials" / f"{name}.md"


def blocks(path: Path) -> list[str]:
    """The page's Python blocks, in order."""
    return BLOCK.findall(path.read_text())


def images(path: Path) -> list[str]:
    """The pictures the page shows from its own folder (which its code draws)."""
    return IMAGE.findall(path.read_text())


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def run(path: Path, folder: Path, skip: str | None = None) -> dict:
    """Every block of ``path`` in ``folder``, in order, sharing one namespace; returns it. Blocks
    that contain ``skip`` are left out."""
    namespace: dict = {"__name__": "__tutorial__"}
    with inside(folder):
        for number, code in enumerate(blocks(path), 1):
            if skip is None or skip not in code:
                exec(compile(code, f"{path.name} (block {number})", "exec"), namespace)
    return namespace


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"tutorials to run [default: all: {', '.join(TUTORIALS)}]")
    names = parser.parse_args().names
    unknown = sorted(set(names) - set(TUTORIALS))
    if unknown:
        parser.error(f"no tutorial named {', '.join(unknown)} (there are {', '.join(TUTORIALS)})")
    for name in names or TUTORIALS:
        with tempfile.TemporaryDirectory() as folder:
            run(page(name), Path(folder))
            print(f"{name}: ran {len(blocks(page(name)))} blocks")
