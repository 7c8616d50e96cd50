"""Visual reports of a dataset, a split or a benchmark run (matplotlib: ``pip install 'pushgen[plot]'``).

    from pushgen.report import figures, write_report

    figures("pushgen-50u-6m-seed0")     # {name: matplotlib Figure}, shown by a notebook
    write_report("pushgen-mini", "mini.html")   # one self-contained HTML file

A source is a dataset folder, a ``pushgen.data.generator.Dataset``, a split folder or a standard
split's name, or a ``pushgen benchmark`` results folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from pushgen.data.dataset import REPORT, DatasetError
from pushgen.data.describe_report import sections
from pushgen.data.folder_lock import session
from pushgen.data.generator import Dataset
from pushgen.data.outputs import check_not_inside_output
from pushgen.progress import stages
from pushgen.report.catalog import Entry, entries
from pushgen.report.data_figures import View
from pushgen.report.html import benchmark_tables, image_tag, page, table_html
from pushgen.report.sources import Source, load_source
from pushgen.report.style import svg_bytes

__all__ = ["figures", "report_html", "write_dataset_report", "write_report"]


def figures(source: str | Path | Dataset | Source) -> dict:
    """The report's figures of ``source`` as matplotlib Figures, by name, in the report's order."""
    loaded = source if isinstance(source, Source) else load_source(source)
    return {name: figure for name, _, _, figure in _drawn(loaded)}


def _drawn(loaded: Source) -> list[tuple[str, Entry, str, object]]:
    """(name, catalog entry, heading, figure) of every figure that applies to ``loaded``."""
    view = View(loaded)
    out = []
    for entry in entries(loaded.kind):
        drawn = entry.draw(loaded, view)
        several = drawn if isinstance(drawn, list) else [("", drawn)] if drawn is not None else []
        for k, (title, figure) in enumerate(several):
            name = entry.name if k == 0 else f"{entry.name}_{k + 1}"
            out.append((name, entry, f"{entry.heading}: {title}" if title else entry.heading, figure))
    return out


def report_html(source: str | Path | Dataset | Source) -> str:
    """The report of ``source`` as one HTML page."""
    loaded = source if isinstance(source, Source) else load_source(source)
    blocks = []
    if loaded.stats is not None:
        key = next(s for s in sections(loaded.stats) if s.title == "Key figures")
        blocks.append(("key_figures", "Key figures", table_html(key)))
    for name, entry, heading, figure in _drawn(loaded):
        inner = (f"<figure>{image_tag(svg_bytes(figure), heading)}"
                 f"<figcaption>{entry.caption}</figcaption></figure>")
        blocks.append((name, heading, inner))
    if loaded.benchmark is not None:
        blocks += benchmark_tables(loaded.benchmark)
    return page(f"pushgen report: {loaded.title}", loaded.facts, blocks)


@session()
def write_report(source: str | Path | Dataset | Source, out: str | Path, force: bool = False,
                 title: str | None = None) -> Path:
    """Write the report of ``source`` to the HTML file ``out`` (refused if it exists, unless ``force``,
    and inside a pushgen output, whose description would not list it); ``title`` names the source
    [default: its folder's or split's name]."""
    out = Path(out)
    if out.is_dir():
        raise DatasetError(f"{out} is a folder; give --out a file name such as report.html")
    check_not_inside_output(out)
    if not out.absolute().parent.is_dir():
        raise DatasetError(f"--out {out}: there is no folder {out.parent}; create it or choose another --out")
    return _write(source, out, force, title)


def write_dataset_report(folder: Path, title: str) -> Path:
    """Write ``report.html`` into the dataset folder ``folder`` that is being made (its manifest then
    lists the file); ``title`` names the dataset."""
    return _write(folder, Path(folder) / REPORT, False, title)


def _write(source: str | Path | Dataset | Source, out: Path, force: bool, title: str | None) -> Path:
    if out.exists() and not force:
        raise DatasetError(f"{out} already exists; choose another --out or pass --force")
    with stages("report", 2) as begin:
        begin("reading")
        loaded = source if isinstance(source, Source) else load_source(source, title)
        begin("figures")
        text = report_html(loaded)
    partial = out.with_name(f".{out.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return out
