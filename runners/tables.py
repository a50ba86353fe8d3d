"""Readable tables: cells are plain text (board names such as "x [solvable]" are not rich markup)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text


def add_text_row(table: Table, *cells: str) -> None:
    table.add_row(*(Text(cell) for cell in cells))


class PipeConsole(Console):
    """A rich Console that lets a broken pipe (``sigmar show ... | head -1``) reach ``cli.main``.

    Rich's own answer is ``SystemExit(1)``; the CLI instead ends quietly with 0.
    """

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError()


def table_console() -> Console:
    """A console for tables: the terminal's width, or 160 columns into a file or pipe."""
    console = PipeConsole()
    return console if console.is_terminal else PipeConsole(width=160)
