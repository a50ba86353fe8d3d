"""Plain aligned columns: the answer table of ``sigmar solve``.

``solve`` is the command a puzzle designer runs on one board at a time, and
rich's table costs about 35 ms to import, a third of such a run.  So solve
prints its answers as plain columns, two spaces apart, which also read well
through ``grep`` and ``cut``; the longer commands keep rich's tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# Every column but the last is at most this wide: a longer cell (a board named by a sentence) is cut
# with an ellipsis, as rich's tables did (``--json`` has it whole); the last column is never cut.
MAX_WIDTH = 40


def _cut(cell: str) -> str:
    return cell if len(cell) <= MAX_WIDTH else cell[: MAX_WIDTH - 1] + "…"


def columns(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """The header and rows as left-aligned columns, one line each, no trailing spaces."""
    table = [[*map(_cut, row[:-1]), row[-1]] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in table)
    return "\n".join(line.rstrip() for line in lines)


def fixed_row(cells: Sequence[str], widths: Sequence[int]) -> str:
    """One line of columns of known widths (a long cell cut with an ellipsis), for a table printed a row at a
    time as its rows are done; the last cell, beyond the widths, is never cut."""
    fitted = [(c if len(c) <= w else c[: w - 1] + "…").ljust(w) for c, w in zip(cells, widths, strict=False)]
    return "  ".join([*fitted, *cells[len(widths) :]]).rstrip()
