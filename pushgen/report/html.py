"""One self-contained HTML page: the figures as embedded SVG images, a table of the key figures,
and a stylesheet for screens and print. Nothing is fetched when the page is opened."""

from __future__ import annotations

import base64
import html

import pandas as pd

from pushgen._version import __version__
from pushgen.data.describe_report import Section, right_aligned

MAX_TABLE_ROWS = 60
PAGE_START = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
SUBTITLE = ("Synthetic smartphone push notifications made by pushgen; every figure below is computed from "
            "the files themselves.")
STYLE = """
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #222; background: #fff; margin: 0; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 34px 0 6px; padding-top: 8px; border-top: 1px solid #e3e6ea; }
.subtitle { color: #555; margin: 0 0 16px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0 0 12px;
           font-size: 14px; }
dl.facts dt { color: #666; } dl.facts dd { margin: 0; }
nav { background: #f5f7fa; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px 14px;
      font-size: 14px; }
nav a { display: inline-block; margin-right: 14px; color: #2f6db5; text-decoration: none; }
figure { margin: 8px 0 0; }
figure img { width: 100%; height: auto; display: block; }
.wide { overflow-x: auto; }
.wide td, .wide th { white-space: nowrap; }
figcaption { color: #555; font-size: 13.5px; margin-top: 4px; max-width: 900px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eceef1; text-align: left; vertical-align: top; }
th { background: #f5f7fa; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
footer { margin-top: 36px; color: #777; font-size: 12.5px; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  nav { display: none; }
  h2 { break-after: avoid; page-break-after: avoid; }
  figure, tr { break-inside: avoid; page-break-inside: avoid; }
  .wide { overflow: visible; font-size: 7pt; }
  .wide td, .wide th { white-space: normal; padding: 2px 4px; }
  a { color: inherit; text-decoration: none; }
}
"""


def image_tag(svg: bytes, alt: str) -> str:
    data = base64.b64encode(svg).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(alt)}">'


def table_html(section: Section) -> str:
    right = right_aligned(section)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in section.header)
    body = "".join(
        "<tr>" + "".join(f'<td{" class=num" if r else ""}>{html.escape(cell)}</td>'
                         for cell, r in zip(row, right, strict=True)) + "</tr>"
        for row in section.rows)
    note = f"<figcaption>{html.escape(section.note)}</figcaption>" if section.note else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def page(title: str, facts: dict[str, str], blocks: list[tuple[str, str, str]]) -> str:
    """The page: ``blocks`` are (anchor, heading, inner HTML) in order."""
    rows = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in facts.items())
    nav = " ".join(f'<a href="#{a}">{html.escape(h)}</a>' for a, h, _ in blocks)
    sections = "".join(f'<section id="{a}"><h2>{html.escape(h)}</h2>{inner}</section>'
                       for a, h, inner in blocks)
    return (
        PAGE_START + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body><main>"
        f"<h1>{html.escape(title)}</h1>"
        f"<p class=\"subtitle\">{SUBTITLE}</p>"
        f"<dl class=\"facts\">{rows}</dl><nav>{nav}</nav>{sections}"
        f"<footer>Made by <code>pushgen report</code> (pushgen {html.escape(__version__)}). The page "
        "needs no network: the figures are embedded.</footer>"
        "</main></body></html>\n"
    )


def frame_section(frame: pd.DataFrame, title: str, max_rows: int = MAX_TABLE_ROWS) -> Section:
    """A table as it is, every column; numbers to 4 decimals; the first ``max_rows`` rows."""
    def cell(value: object) -> str:
        if isinstance(value, float):
            return "-" if value != value else f"{value:.4f}"
        return str(value)

    shown = frame.head(max_rows)
    note = "" if len(frame) <= max_rows else f"The first {max_rows} of {len(frame):,} rows."
    return Section(title, tuple(map(str, frame.columns)),
                   tuple(tuple(cell(v) for v in row) for row in shown.itertuples(index=False)), note)


def benchmark_tables(benchmark) -> list[tuple[str, str, str]]:
    """Blocks of the leaderboard with every column, and of every other table of the results folder."""
    tables = {"leaderboard": benchmark.leaderboard, **benchmark.other_tables}
    return [(f"table_{name}", f"Table: {name}.csv",
             f'<div class="wide">{table_html(frame_section(frame, name))}</div>')
            for name, frame in tables.items()]
