"""Tables as text: Markdown for cards and documents, space-aligned columns for the terminal, HTML
for notebooks."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` in the number it takes: "1 user", "2 users", "1,200 users"."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def plural(n: int, noun: str) -> str:
    """As ``counted``, with the digits not grouped: "1 user", "1200 users"."""
    return f"{n} {noun}{'s' * (n != 1)}"


def markdown_table(header: Sequence[object], rows: Iterable[Sequence[object]],
                   right: Sequence[bool] | None = None) -> str:
    """A Markdown table; ``right[i]`` aligns column i to the right (numbers)."""
    right = list(right) if right is not None else [False] * len(header)

    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if r else "---" for r in right) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def aligned_table(header: Sequence[str], rows: Iterable[Sequence[str]],
                  right: Sequence[bool] | None = None) -> list[str]:
    """Lines of space-aligned columns (two spaces apart); ``right`` as in ``markdown_table``."""
    table = [list(header), *(list(row) for row in rows)]
    right = list(right) if right is not None else [False] * len(header)
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    return ["  ".join(cell.rjust(w) if r else cell.ljust(w)
                      for cell, w, r in zip(line, widths, right, strict=True)).rstrip()
            for line in table]


def html_table(header: Sequence[object], rows: Iterable[Sequence[object]], caption: str = "",
               right: Sequence[bool] | None = None) -> str:
    """An HTML table (cells escaped) for a notebook's ``_repr_html_``; ``right`` as above."""
    right = list(right) if right is not None else [False] * len(header)

    def cells(tag: str, values: Sequence[object]) -> str:
        return "".join(f'<{tag} style="text-align: {"right" if r else "left"}">{html.escape(str(v))}</{tag}>'
                       for v, r in zip(values, right, strict=True))

    head = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f"<table>{head}<thead><tr>{cells('th', header)}</tr></thead><tbody>{body}</tbody></table>"
