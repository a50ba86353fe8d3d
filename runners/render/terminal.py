"""Readable tables and progress bars: cells are plain text (board names such as "x [solvable]" are not rich markup).

Every console of the suite is a :class:`PipeConsole`, so ``NO_COLOR`` (and ``--no-color``, which sets it for
the run) is honoured in one place, and honoured whole: no colour and no bold or reverse either.

A table wider than the terminal is printed by :func:`print_table` in parts (:func:`fitted`), each repeating its
first columns (the backend's or the board's name), so that every name and every score is shown whole at any
width; rich alone would squeeze the columns to "…" (at 80 columns the bench's backends and scores were lost).
"""

from __future__ import annotations

import copy
import dataclasses
import os
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Column, Table
from rich.text import Text

if TYPE_CHECKING:
    from rich.progress import Progress


def add_text_row(table: Table, *cells: str) -> None:
    table.add_row(*(Text(cell) for cell in cells))


class PipeConsole(Console):
    """A rich Console that lets a broken pipe (``sigmar show ... | head -1``) reach ``cli.main``.

    Rich's own answer is ``SystemExit(1)``; the CLI instead ends quietly with 0.  With ``NO_COLOR`` set (or
    ``no_color=True``) it writes no escape sequence at all: rich's own reading of ``NO_COLOR`` drops the
    colours but keeps bold and reverse.
    """

    def __init__(self, **options: Any) -> None:
        if options.get("no_color") or no_color():
            options["color_system"] = None
        super().__init__(**options)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError()


def _natural(column: Column) -> int:
    """How wide a column wants to be: its widest line, header included (cells are Text or str)."""
    cells = [column.header, *column._cells]
    texts = [cell.plain if isinstance(cell, Text) else str(cell) for cell in cells]
    return max(max((cell_len(line) for line in text.split("\n")), default=0) for text in texts)


def _span(widths: list[int]) -> int:
    """A table's width for columns of these widths: a space each side of a cell, a rule between and around."""
    return sum(widths) + 3 * len(widths) + 1


def fitted(table: Table, width: int, keys: int = 1) -> list[Table]:
    """``table`` whole when it fits in ``width``, else in parts by columns: each part repeats the first ``keys``
    columns and takes as many of the others, in order, as fit.  A first column that may fold (a board's name)
    counts at its ``min_width`` (rich folds it there, whole); the title goes on the first part, the caption on
    the last."""
    widths = [_natural(column) for column in table.columns]
    if _span(widths) <= width or len(widths) <= keys:
        return [table]
    for i in range(keys):
        column = table.columns[i]
        if column.overflow == "fold" and not column.no_wrap:
            widths[i] = min(widths[i], max(column.min_width or 10, 10))
    parts = _packed(widths, keys, width, len(widths))
    # as few parts, their columns shared out evenly (no last part of one column) where they still fit
    per_part = -(-(len(widths) - keys) // len(parts))
    even = _packed(widths, keys, width, per_part)
    if len(even) == len(parts):
        parts = even
    return [_part(table, [*range(keys), *chosen], n, len(parts), width) for n, chosen in enumerate(parts)]


def _packed(widths: list[int], keys: int, width: int, most: int) -> list[list[int]]:
    """The columns after the first ``keys``, in order, in parts of at most ``most`` that fit in ``width``."""
    parts: list[list[int]] = [[]]
    for i in range(keys, len(widths)):
        chosen = [widths[k] for k in range(keys)] + [widths[j] for j in parts[-1]] + [widths[i]]
        if parts[-1] and (_span(chosen) > width or len(parts[-1]) >= most):
            parts.append([])
        parts[-1].append(i)
    return parts


def _part(table: Table, chosen: list[int], number: int, parts: int, width: int) -> Table:
    part = copy.copy(table)
    part.columns = [dataclasses.replace(table.columns[i], _index=n) for n, i in enumerate(chosen)]
    part.rows = list(table.rows)
    title = table.title.plain if isinstance(table.title, Text) else table.title
    part.title = f"{title} (part 1 of {parts})" if number == 0 and title else f"(part {number + 1} of {parts})"
    part.caption = table.caption if number == parts - 1 else None
    part.min_width = min(table.min_width, width) if table.min_width else None
    return part


def print_table(console: Console, table: Table, keys: int = 1) -> None:
    """``table`` on ``console``, in parts when it is wider than the console (:func:`fitted`)."""
    for part in fitted(table, console.width, keys):
        console.print(part)


def no_color() -> bool:
    """Whether the environment asks for no colour (https://no-color.org: set and not empty)."""
    return bool(os.environ.get("NO_COLOR"))


def table_console() -> Console:
    """A console for tables: ``COLUMNS`` when set, else the terminal's width, or 160 columns into a file or pipe."""
    from sigmar.runners.render.columns import terminal_width

    return PipeConsole(width=terminal_width() or 160)


def progress_bar(*, quiet: bool = False) -> Progress:
    """The long runs' progress bar, on standard error (standard output keeps the tables and JSON).

    No refresh thread (``auto_refresh=False``): worker processes are forked
    while the bar is up, and a thread holding a lock across a fork can hang
    the child; the caller refreshes after each answer.  ``quiet`` (``--quiet``): never drawn.
    """
    # Here, not at import: only the long runs show a bar.
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=PipeConsole(stderr=True),
        auto_refresh=False,
        disable=quiet,
    )
