"""Visual reports of a dataset, a split or a benchmark run (matplotlib, the ``plot`` extra:
``pip install '.[plot]'`` in a checkout).

    from pushgen.report import figures, write_report

    figures("pushgen-50u-6m-seed0")     # {name: matplotlib Figure}, shown by a notebook
    write_report("pushgen-mini", "mini.html")   # one self-contained HTML file

A source is a dataset folder, a ``pushgen.data.generator.Dataset``, a split folder or a standard
split's name, or a ``pushgen benchmark`` results folder.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from pushgen.data.dataset import REPORT, DatasetError
from pushgen.data.describe_report import sections
from pushgen.data.file_output import file_output
from pushgen.data.folder_lock import session
from pushgen.data.generator import Dataset
from pushgen.progress import stages
from pushgen.report.catalog import Entry, entries
from pushgen.report.data_figures import View
from pushgen.report.html import PAGE_START, SUBTITLE, benchmark_tables, image_tag, page, table_html
from pushgen.report.sources import Source, load_source
from pushgen.report.style import svg_bytes

__all__ = ["figures", "report_html", "write_dataset_report", "write_report"]
REPORT_HEAD_BYTES = 65_536  # the page's start and subtitle come first (after a short style sheet)


def figures(source: str | Path | Dataset | Source) -> dict:
    """The report's figures of ``source`` as matplotlib Figures, by name, in the report's order.

    Parameters
    ----------
    source : str, pathlib.Path or Dataset
        A dataset folder or ``Dataset``, a split folder or a standard split's name, or a
        ``pushgen benchmark`` results folder.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        The figures that apply to the source.

    Raises
    ------
    DatasetError
        When ``source`` is none of these.

    Examples
    --------
    >>> from pushgen.report import figures
    >>> drawn = figures("pushgen-mini-v4")
    >>> "hours" in drawn and type(drawn["hours"]).__name__
    'Figure'
    """
    loaded = source if isinstance(source, Source) else load_source(source)
    return {name: figure for name, _, _, figure in _drawn(loaded)}


def _drawn(loaded: Source) -> list[tuple[str, Entry, str, object]]:
    """(name, catalog entry, heading, figure) of every figure that applies to ``loaded``."""
    view = View(loaded)
    out = []
    for entry in entries(loaded.kind):
        drawn = entry.draw(view)
        several = drawn if isinstance(drawn, list) else [("", drawn)] if drawn is not None else []
        for k, (title, figure) in enumerate(several):
            name = entry.name if k == 0 else f"{entry.name}_{k + 1}"
            out.append((name, entry, f"{entry.heading}: {title}" if title else entry.heading, figure))
    return out


def report_html(source: str | Path | Dataset | Source) -> str:
    """The report of ``source`` as one HTML page.

    Parameters
    ----------
    source : str, pathlib.Path or Dataset
        As for ``figures``.

    Returns
    -------
    str
        A self-contained page: every figure embedded as an SVG data URI.

    Examples
    --------
    >>> from pushgen.report import report_html
    >>> page = report_html("pushgen-mini-v4")
    >>> page.startswith("<!DOCTYPE html>"), "data:image/svg+xml;base64," in page
    (True, True)
    """
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
    """Write the report of ``source`` to the HTML file ``out``; ``title`` names the source [default:
    its folder's or split's name]. Refused before any reading (``pushgen.data.file_output``): an
    existing ``out`` unless ``force``, and with it anything but a pushgen report; ``out`` inside a
    pushgen output or the source; a second run writing ``out``.

    Parameters
    ----------
    source : str, pathlib.Path or Dataset
        As for ``figures``.
    out : str or pathlib.Path
        The HTML file to write.
    force : bool, default False
        Replace ``out`` if it is a pushgen report.
    title : str, optional
        The report's title.

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    DatasetError
        When ``out`` is refused (the message says why).

    Examples
    --------
    >>> from pushgen.report import write_report
    >>> write_report("pushgen-mini-v4", "mini.html").stat().st_size > 10_000
    True
    """
    keep = (Path(source),) if isinstance(source, str | Path) else ()
    with file_output(out, force, is_report, "report", keep) as partial:
        _write(source, partial, title)
    return Path(out)


def write_dataset_report(folder: Path, title: str) -> Path:
    """Write ``report.html`` into the dataset folder ``folder`` that is being made (its manifest then
    lists the file): what ``pushgen make --report`` adds to the folder it writes.

    Parameters
    ----------
    folder : pathlib.Path
        A dataset folder (notifications, users and manifest written; no report yet).
    title : str
        The report's title, the dataset's name.

    Returns
    -------
    pathlib.Path
        ``folder / "report.html"``.

    Raises
    ------
    DatasetError
        When the folder already holds a report.

    Examples
    --------
    >>> from pathlib import Path
    >>> from pushgen.data.build import make_dataset
    >>> from pushgen.data.generator import make_recipe
    >>> from pushgen.report import write_dataset_report
    >>> folder = make_dataset(make_recipe(users=2, days=3, seed=0), Path("tiny"))
    >>> write_dataset_report(folder, "tiny").name
    'report.html'
    """
    out = Path(folder) / REPORT
    if out.exists():
        raise DatasetError(f"{out} already exists")
    return _write(folder, out, title)


def is_report(path: Path) -> bool:
    """Whether the file ``path`` is a report pushgen wrote (its page's start and subtitle)."""
    with contextlib.suppress(OSError), open(path, "rb") as handle:
        head = handle.read(REPORT_HEAD_BYTES)
        return head.startswith(PAGE_START.encode()) and SUBTITLE.encode() in head
    return False


def _write(source: str | Path | Dataset | Source, out: Path, title: str | None) -> Path:
    with stages("report", 2) as begin:
        begin("reading")
        loaded = source if isinstance(source, Source) else load_source(source, title)
        begin("figures")
        text = report_html(loaded)
    out.write_text(text, encoding="utf-8")
    return out
