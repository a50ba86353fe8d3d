"""Plain aligned columns: the answer tables of ``sigmar solve``, ``count`` and ``prove``.

``solve`` is the command a puzzle designer runs on one board at a time, and
rich's table costs about 35 ms to import, a third of such a run.  So solve
prints its answers as plain columns, two spaces apart, which also read well
through ``grep`` and ``cut``; the longer commands keep rich's tables.

In a terminal (or with ``COLUMNS`` set) a table is fitted to its width and never cut: when its rows do
not fit, a long first cell (the board's name) wraps inside a column of 40 and the last (the detail) in
what is left; when that leaves the detail less than 30 columns, each row is folded, its first cell whole
on a line of its own and the other cells on the lines below, aligned under a header that names them; when
even those do not fit, one cell a line, each named.  Into a pipe or a file the columns are as before: a
name is cut at 40 with "…", for grep and cut.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence

# Every column but the last is at most this wide: a longer cell (a board named by a sentence) is cut
# with an ellipsis, as rich's tables did (``--json`` has it whole); the last column is never cut.
MAX_WIDTH = 40


def _cut(cell: str) -> str:
    return cell if len(cell) <= MAX_WIDTH else cell[: MAX_WIDTH - 1] + "…"


def terminal_width() -> int | None:
    """The width a table is fitted to: ``COLUMNS`` when set, else the terminal's when standard output is one;
    None into a pipe or a file (there a table keeps its whole lines, for grep and cut)."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):  # a replaced or closed standard output
        return None
    import shutil  # here: only a terminal asks (shutil costs a one-board solve 16 M instructions)

    return shutil.get_terminal_size().columns


def _wrap(text: str, width: int, break_on_hyphens: bool = False) -> list[str]:
    """``textwrap.wrap(text, width, break_on_hyphens=...)``; a cell that fits as it is (nearly all of them) is its
    own line without importing textwrap, which a one-board solve's table would otherwise pay for."""
    if len(text) <= width and text == text.strip(" ") and text.isprintable():
        return [text] if text else []
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=break_on_hyphens)


INDENT = "  "
# A folded row's last cell (the detail) goes on a line of its own when fewer columns than this are left for it.
MIN_LAST = 30


def columns(
    header: Sequence[str], rows: Iterable[Sequence[str]], width: int | None = None, *, detail: bool = True
) -> str:
    """The header and rows as left-aligned columns, one line each, no trailing spaces; with ``width`` (a
    terminal's), fitted to it: whole cells, rows folded when they do not fit (see the module's docstring).
    ``detail``: the last column is a sentence (never cut; wrapped under itself), else a value like the others."""
    rows = list(rows)
    if not detail:  # an empty sentence after the last value
        header, rows = (*header, ""), [(*row, "") for row in rows]
    if width is None:
        table = [[*map(_cut, row[:-1]), row[-1]] for row in [header, *rows]]
        return _aligned(table)
    whole = [list(row) for row in [header, *rows]]
    if max(len(line) for line in _aligned(whole).split("\n")) <= width:
        return _aligned(whole)
    widths = [max(len(row[i]) for row in whole) for i in range(len(header) - 1)]
    widths[0] = min(widths[0], MAX_WIDTH)  # a longer name wraps inside its column, whole
    lead = sum(widths) + 2 * len(widths)
    if lead + (MIN_LAST if detail else 0) <= width:  # the columns fit; the first and the last wrap in theirs
        return "\n".join(line for row in whole for line in _wrapped_row(row, widths, width))
    return "\n".join(folded(header, rows, width))


def _wrapped_row(row: Sequence[str], widths: Sequence[int], width: int) -> list[str]:
    """One row as lines: the first cell wrapped in its column, the middle cells on the first line, the last
    (the detail) wrapped in what is left of ``width``."""
    lead = sum(widths) + 2 * len(widths)
    first = _wrap(row[0], widths[0], break_on_hyphens=False) or [""]
    last = _wrap(row[-1], max(width - lead, 20), break_on_hyphens=False) or [""]
    lines = []
    for n in range(max(len(first), len(last))):
        cells = [first[n] if n < len(first) else "", *(row[1:-1] if n == 0 else [""] * (len(row) - 2))]
        lines.append(
            (
                "".join(c.ljust(w) + "  " for c, w in zip(cells, widths, strict=False))
                + (last[n] if n < len(last) else "")
            ).rstrip()
        )
    return lines


def _aligned(table: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in table)
    return "\n".join(line.rstrip() for line in lines)


def fold_widths(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """The widths of a folded table's middle cells (all but the first and the last)."""
    return [max(len(row[i]) for row in [header, *rows]) for i in range(1, len(header) - 1)]


def folded(header: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """The header and each row folded to ``width``: the first cell on a line, the others below it."""
    widths = fold_widths(header, rows)
    lines = folded_header(header, widths, width)
    for row in rows:
        lines += folded_row(row, widths, width, header)
    return lines


def folded_header(header: Sequence[str], widths: Sequence[int], width: int) -> list[str]:
    if not _fits(widths, width):
        return []  # each cell is named where it is shown
    return [header[0], *folded_row(header, widths, width)[1:]]


def folded_row(row: Sequence[str], widths: Sequence[int], width: int, header: Sequence[str] | None = None) -> list[str]:
    """One row folded: its first cell whole (wrapped at ``width``), then the middle cells aligned to
    ``widths`` and the last after them, or on its own line below when little room is left; when the
    middle cells do not fit in ``width`` at all, one cell a line, each named by ``header``."""
    lines = _wrap(row[0], width, break_on_hyphens=False) or [""]
    if not _fits(widths, width):
        names = header or [""] * len(row)
        for name, cell in zip(names[1:], row[1:], strict=False):
            if name or cell:
                lines += _wrapped(f"{INDENT}{name}: " if name else INDENT, cell, width)
        return [line.rstrip() for line in lines]
    middle = INDENT + "  ".join(c.ljust(w) for c, w in zip(row[1:-1], widths, strict=False))
    last = row[-1] if len(row) > 1 else ""
    if width - len(middle) - 2 >= MIN_LAST or not last:
        lines += _wrapped(middle + "  ", last, width)
    else:
        lines += [middle.rstrip(), *_wrapped(INDENT * 2, last, width)]
    return [line.rstrip() for line in lines]


def _fits(widths: Sequence[int], width: int) -> bool:
    return len(INDENT) + sum(widths) + 2 * max(len(widths) - 1, 0) <= width


def _wrapped(lead: str, text: str, width: int) -> list[str]:
    """``text`` after ``lead``, wrapped at ``width`` under itself (at least 20 columns for it)."""
    room = max(width - len(lead), 20)
    parts = _wrap(text, room, break_on_hyphens=False) or [""]
    return [lead + parts[0], *(" " * len(lead) + part for part in parts[1:])]


def fixed_row(cells: Sequence[str], widths: Sequence[int], width: int | None = None) -> str:
    """One line of columns of known widths (a long cell cut with an ellipsis), for a table printed a row at a
    time as its rows are done; the last cell, beyond the widths, is never cut.  With ``width`` (a terminal's)
    nothing is cut: the first cell wraps inside its column and the last in what is left; when the widths and
    a last cell of at least 30 columns do not fit, the row is folded as :func:`folded_row` folds it (the same
    choice for every row of the same widths)."""
    if width is not None:
        if sum(widths) + 2 * len(widths) + MIN_LAST > width:
            return "\n".join(folded_row(cells, widths[1:], width))
        return "\n".join(_wrapped_row(cells, widths, width))
    fitted = [(c if len(c) <= w else c[: w - 1] + "…").ljust(w) for c, w in zip(cells, widths, strict=False)]
    return "  ".join([*fitted, *cells[len(widths) :]]).rstrip()
