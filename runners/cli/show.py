"""``sigmar show FILE [--solution S] [--svg OUT] [--html OUT]``: boards to look at.

Without ``--svg`` or ``--html``, the hexagon in the terminal, one colour per
kind (each metal its own, gold distinct); a replay names the cells of every move, so
``--no-color`` loses nothing.  The files are drawn by :mod:`sigmar.runners.render.svg` and
:mod:`sigmar.runners.render.board_pages`; this module only reads the input and names them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from rich.markup import escape
from rich.text import Text

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.hexgrid import from_rowcol, row_lengths
from sigmar.models.result import Move
from sigmar.models.rules import Illegal, Position
from sigmar.models.solution import Solution, match_solutions, read_solutions, to_moves
from sigmar.runners.cli.board_args import selected_names, solutions_for, stream_picked
from sigmar.runners.cli.conventions import add_time_limit, follow
from sigmar.runners.cli.options import add_board_file
from sigmar.runners.render.terminal import PipeConsole

STYLES = {
    "a": "bold bright_cyan",
    "e": "bold green",
    "f": "bold red",
    "w": "bold blue",
    "s": "bold white",
    "v": "bold magenta",
    "m": "bold bright_black",
    "q": "bold bright_white on grey23",
    "x": "bold khaki1",
    # each metal its own colour (lead, tin, iron, copper, silver, then the larger boards' metals)
    "1": "bold grey50",
    "2": "bold dark_khaki",
    "3": "bold dark_orange3",
    "4": "bold orange3",
    "5": "bold grey89",
    "6": "bold aquamarine3",
    "7": "bold medium_purple2",
    "8": "bold pink3",
    "9": "bold light_sky_blue3",
}
GOLD_STYLE = "bold gold1 on grey23"  # the board's gold, whatever its digit


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "show",
        help="draw boards (and a solution, move by move)",
        description="Draw each board as a hexagon, one colour per tile kind; with "
        "--solution, the board before every move with its tiles highlighted and named by cell, then the board at the "
        "end. --svg writes a picture of each board; --html a page "
        "that replays the solution (or, without one, asks 'prove': a solvable board is solved and replayed, an "
        "unsolvable one shows its checked certificate). OUT ending in '/' (or an existing folder) gets one file per "
        "board, NAME.svg or NAME.html, named after the board; a file OUT with several boards gets the board's index "
        "before its suffix (out.0.svg, out.1.svg, ...).",
    )
    add_board_file(parser)
    parser.add_argument("--solution", metavar="SOLUTION", help="a solution to play out (as for 'verify')")
    parser.add_argument("--svg", metavar="OUT", help="write each board as SVG (OUT a file, or a folder: DIR/)")
    parser.add_argument("--html", metavar="OUT", help="write a self-contained page per board (OUT a file, or DIR/)")
    parser.add_argument("--coords", action="store_true", help="write each cell's row,col in the SVG")
    add_time_limit(parser, "seconds for 'prove' per board, for --html without a solution")
    follow(
        parser,
        boards=True,
        board_help="only the board of this name; a plain solution is for it (default: the first board picked)",
        json_help="print one JSON object per board (name, side, tiles, the board as text; the files written; "
        "the replay's end; the answer drawn) instead of drawing it",
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
                style = GOLD_STYLE if symbol == board.gold else STYLES[symbol]
                if cell in highlight:
                    style += " reverse"
                text.append(symbol, style=style)
        text.append("\n")
    return text


def run(args: argparse.Namespace) -> int:
    if args.svg and not args.solution and not args.html:  # one board in memory at a time, as on the terminal
        from sigmar.runners.cli.show_files import stream_svgs

        return stream_svgs(args)
    # Drawn one at a time (a file of many boards is never held) unless a solution or a file needs them all.
    played: dict[str, Solution] = {}
    boards: Iterable[Board]
    if args.solution:
        boards, every = selected_names(args.file, args.board)
        solutions = solutions_for(read_solutions(args.solution), boards, every, args.solution)
        played = {b.name: sol for b, sol in match_solutions(boards, solutions, args.board, args.solution)}
    elif args.svg or args.html:
        boards, _ = selected_names(args.file, args.board)
    else:
        boards = stream_picked(args.file, args.board)
    if args.svg or args.html:
        from sigmar.runners.cli.show_files import write_files

        assert isinstance(boards, list)
        return write_files(args, boards, played)
    console = PipeConsole(no_color=args.no_color, highlight=False)
    for board in boards:
        solution = played.get(board.name)
        moves = to_moves(board, solution, args.solution) if solution is not None else None
        if args.json:
            record = board_json(board, moves)
            print(json.dumps(record), flush=True)
            legal = "illegal_move" not in record
        elif args.quiet:
            legal = moves is None or replay(board, moves)[2] is None
        else:
            legal = draw(console, board, moves)
        if not legal:
            return 1
    return 0


def replay(board: Board, moves: list[Move]) -> tuple[Position, int, Illegal | None]:
    """The position reached, the number of moves played, and why the next one is illegal (None: all played)."""
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        why = position.why_illegal(move)
        if why is not None:
            return position, number - 1, why
        position = position.play(move)
    return position, len(moves), None


def board_json(board: Board, moves: list[Move] | None) -> dict[str, Any]:
    """``show --json``: the board, and with a solution how its replay ends."""
    record: dict[str, Any] = {
        "board": board.name,
        "dim": board.dim,
        "tiles": len(board),
        "text": format_board(board, with_name=False),
    }
    if moves is not None:
        position, played, why = replay(board, moves)
        record |= {"moves": len(moves), "played": played, "cleared": why is None and position.is_clear}
        if why is not None:
            record |= {"illegal_move": played + 1, "fault": why.fault.value, "detail": why.detail}
    return record


def draw(console: PipeConsole, board: Board, moves: list[Move] | None) -> bool:
    """The board, or the replay of ``moves`` (the board before each move, its cells named); False at an
    illegal move."""
    plural = "" if len(board) == 1 else "s"
    console.print(f"[bold]{escape(board.name)}[/bold]  ({len(board)} tile{plural}, side {board.dim})")
    if moves is None:
        console.print(render(board))
        return True
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        why = position.why_illegal(move)
        console.print(f"move {number}: {move_text(board, move)}", highlight=False)
        console.print(render(board, position.occupied, move.cells))
        if why is not None:
            console.print(f"[red]move {number} is illegal: {why.fault.value}: {escape(why.detail)}[/red]")
            return False
        position = position.play(move)
    console.print(render(board, position.occupied))
    console.print("cleared" if position.is_clear else f"[red]{len(position.occupied)} tiles left[/red]")
    return True


def move_text(board: Board, move: Move) -> str:
    """``a [0, 0] + a [1, 2]``: each tile of the move by its symbol and cell, so a plain replay names them."""
    return " + ".join("{} [{}, {}]".format(board.symbol_at.get(c, "?"), *board.rowcol(c)) for c in move.cells)
