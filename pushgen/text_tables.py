"""Tables as text: Markdown for cards and documents, space-aligned columns for the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


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
