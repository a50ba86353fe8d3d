"""Readable tables and progress bars: cells are plain text (board names such as "x [solvable]" are not rich markup).

Every console of the suite is a :class:`PipeConsole`, so ``NO_COLOR`` (and ``--no-color``, which sets it for
the run) is honoured in one place, and honoured whole: no colour and no bold or reverse either.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
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


def no_color() -> bool:
    """Whether the environment asks for no colour (https://no-color.org: set and not empty)."""
    return bool(os.environ.get("NO_COLOR"))


def table_console() -> Console:
    """A console for tables: the terminal's width, or 160 columns into a file or pipe."""
    console = PipeConsole()
    return console if console.is_terminal else PipeConsole(width=160)


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
