"""``show --svg`` and ``show --html``: where each board's file goes, and what is drawn in it.

Every output path is checked before any drawing or proving, so an unwritable
OUT costs nothing and says so in one line (exit status 2).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError, read_boards, stream_boards
from sigmar.models.output_files import write_file
from sigmar.models.result import Move, Result
from sigmar.models.rules import Position
from sigmar.models.solution import Solution, to_moves

from ..render.answer_json import exit_code
from ..render.board_pages import replay_page
from ..render.svg import board_svg
from .options import UsageError


def out_path(text: str, index: int, count: int) -> Path:
    """OUT itself for one board; else OUT with the board's index before its suffix, as ``encode`` names them."""
    out = Path(text)
    return out if count == 1 else out.with_suffix(f".{index}{out.suffix}")


def out_paths(text: str, count: int) -> list[Path]:
    """Every board's output path, each checked writable before any work is done."""
    paths = [out_path(text, index, count) for index in range(count)]
    for path in paths:
        check_writable(path)
    return paths


def check_writable(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"cannot write '{path}': it is a folder")
    if not folder.is_dir():
        raise UsageError(f"cannot write '{path}': no folder '{folder}'")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write '{path}': permission denied")


def stream_svgs(args: argparse.Namespace) -> int:
    """``show --svg`` alone: one board in memory at a time, however large the file (R16).

    The file is read twice: once to check every board and count them (a bad board is found before
    any file is written, and the count decides the names), once to draw.  Standard input, which
    cannot be read twice, is held instead (it is within the board file limit).
    """
    if args.file == "-":
        boards = read_boards(args.file)
        return write_files(args, boards, {})
    count = sum(1 for _ in stream_boards(args.file))
    check_writable(out_path(args.svg, 0, count))
    for index, board in enumerate(stream_boards(args.file)):  # write_file says it in one line if one fails
        write(out_path(args.svg, index, count), board_svg(board, coords=args.coords))
    return 0


def write(path: Path, text: str) -> None:
    write_file(path, text)  # whole or not at all; a full disk is one line (exit 2)
    print(f"wrote {path}")


def checked_moves(board: Board, solution: Solution, filename: str) -> list[Move]:
    """The solution's moves, each legal in turn; the first illegal one is bad input naming the move."""
    moves = to_moves(board, solution, filename)
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        why = position.why_illegal(move)
        if why is not None:
            row, col = board.rowcol(move.cells[0]) if move.cells else (None, None)
            raise BoardFileError(
                filename, f"move {number} is illegal: {why.detail}", board=board.name, row=row, col=col
            )
        position = position.play(move)
    return moves


def write_files(args: argparse.Namespace, boards: list[Board], played: dict[str, Solution]) -> int:
    svg_paths = out_paths(args.svg, len(boards)) if args.svg else []
    html_paths = out_paths(args.html, len(boards)) if args.html else []
    # A bad solution is found before any file is written.
    moves = {name: checked_moves(b, played[name], args.solution) for b in boards if (name := b.name) in played}
    results: list[Result] = []
    for index, board in enumerate(boards):
        if svg_paths:
            write(svg_paths[index], board_svg(board, coords=args.coords))
        if not html_paths:
            continue
        if board.name in moves:
            page = replay_page(board, moves[board.name], f"Solution from {args.solution}.")
        else:
            page, result = explain(board, args.time_limit)
            results.append(result)
        write(html_paths[index], page)
    return exit_code(results)


def explain(board: Board, time_limit: float) -> tuple[str, Result]:
    """The page for a board given without a solution, and the answer it draws (for the exit status)."""
    from ..prove import prove  # the race behind prove is only started for ``--html`` without a solution
    from ..render.proof_page import page_for

    with tempfile.TemporaryDirectory(prefix="sigmar-show-") as folder:
        proved = prove(board, time_limit, proof_dir=Path(folder), corroborate_limit=None)
        return page_for(board, proved.result, time_limit), proved.result
