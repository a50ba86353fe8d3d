"""``sigmar show FILE [--solution S] [--svg OUT] [--html OUT]``: boards to look at.

Without ``--svg`` or ``--html``, the hexagon in the terminal, one colour per
kind.  The files are drawn by :mod:`sigmar.runners.render.svg` and
:mod:`sigmar.runners.render.board_pages`; this module only reads the input and names them.
"""

from __future__ import annotations

import argparse

from rich.markup import escape
from rich.text import Text

from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards, stream_boards
from sigmar.models.hexgrid import from_rowcol, row_lengths
from sigmar.models.rules import Position
from sigmar.models.solution import Solution, match_solutions, read_solutions, to_moves
from sigmar.models.tiles import METALS

from ..render.terminal import PipeConsole
from .options import add_board_file, seconds

STYLES = {
    "a": "bold bright_cyan",
    "e": "bold green",
    "f": "bold red",
    "w": "bold blue",
    "s": "bold white",
    "v": "bold magenta",
    "m": "bold bright_black",
    "q": "bold bright_white on grey23",
}
METAL_STYLE = "bold yellow"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "show",
        help="draw boards (and a solution, move by move)",
        description="Draw each board as a hexagon, one colour per tile kind; with "
        "--solution, the board before every move with its two tiles highlighted, then the board at the end. "
        "--svg writes a picture of each board; --html a page "
        "that replays the solution (or, without one, asks 'prove': a solvable board is solved and replayed, an "
        "unsolvable one shows its checked certificate). With several boards, OUT gets the board's index before "
        "its suffix (out.0.svg, out.1.svg, ...).",
    )
    add_board_file(parser)
    parser.add_argument("--solution", metavar="SOLUTION", help="a solution to play out (as for 'verify')")
    parser.add_argument("--board", metavar="NAME", help="which board a plain solution is for (default: the first)")
    parser.add_argument("--no-color", action="store_true", help="plain text")
    parser.add_argument("--svg", metavar="OUT", help="write each board as SVG")
    parser.add_argument("--html", metavar="OUT", help="write a self-contained page per board")
    parser.add_argument("--coords", action="store_true", help="write each cell's row,col in the SVG")
    parser.add_argument(
        "--time-limit",
        type=seconds,
        default=60.0,
        metavar="S",
        help="seconds for 'prove' per board, for --html without a solution (default 60)",
    )
    parser.set_defaults(run=run)


def render(board: Board, occupied: frozenset | None = None, highlight: tuple = ()) -> Text:
    """The hexagon as rich Text; ``highlight`` marks the cells about to leave."""
    occupied = occupied if occupied is not None else frozenset(t.cell for t in board.tiles)
    lengths = row_lengths(board.dim)
    text = Text()
    for row, length in enumerate(lengths):
        text.append(" " * (2 * board.dim - 1 - length))
        for col in range(length):
            cell = from_rowcol(row, col, board.dim)
            symbol = board.symbol_at.get(cell) if cell in occupied else None
            if col:
                text.append(" ")
            if symbol is None:
                text.append(".", style="grey42")
            else:
                style = METAL_STYLE if symbol in METALS else STYLES[symbol]
                if cell in highlight:
                    style += " reverse"
                text.append(symbol, style=style)
        text.append("\n")
    return text


def run(args: argparse.Namespace) -> int:
    if args.svg and not args.solution and not args.html:  # one board in memory at a time, as on the terminal
        from .show_files import stream_svgs

        return stream_svgs(args)
    # Drawn one at a time (a file of many boards is never held) unless a solution or a file needs them all.
    boards = read_boards(args.file) if args.solution or args.svg or args.html else stream_boards(args.file)
    played: dict[str, Solution] = {}
    if args.solution:
        solutions = read_solutions(args.solution)
        assert isinstance(boards, list)
        played = {b.name: sol for b, sol in match_solutions(boards, solutions, args.board, args.solution)}
    if args.svg or args.html:
        from .show_files import write_files

        assert isinstance(boards, list)
        return write_files(args, boards, played)
    console = PipeConsole(no_color=args.no_color, highlight=False)
    for board in boards:
        plural = "" if len(board) == 1 else "s"
        console.print(f"[bold]{escape(board.name)}[/bold]  ({len(board)} tile{plural}, side {board.dim})")
        solution = played.get(board.name)
        if solution is None:
            console.print(render(board))
            continue
        position = Position.start(board)
        for number, move in enumerate(to_moves(board, solution, args.solution), start=1):
            why = position.why_illegal(move)
            tiles = "".join(board.symbol_at.get(c, "?") for c in move.cells)
            console.print(f"move {number}: {tiles}")
            console.print(render(board, position.occupied, move.cells))
            if why is not None:
                console.print(f"[red]move {number} is illegal: {why.fault.value}: {why.detail}[/red]")
                return 1
            position = position.play(move)
        console.print(render(board, position.occupied))
        console.print("cleared" if position.is_clear else f"[red]{len(position.occupied)} tiles left[/red]")
    return 0
