"""``show --svg`` and ``show --html``: where each board's file goes, and what is drawn in it.

OUT is a file, or a folder (``pics/``) that gets one file per board named after it
(``pics/NAME.svg``: safe, unique names, see :func:`.conventions.file_stems`).

Every output path is checked before any drawing or proving, so an unwritable
OUT costs nothing and says so in one line (exit status 2).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError
from sigmar.models.output_files import write_file
from sigmar.models.result import Move, Result, Status
from sigmar.models.rules import Position
from sigmar.models.solution import Solution, to_moves
from sigmar.runners.cli.board_args import selected_names, split_selector, stream_picked
from sigmar.runners.cli.conventions import Summary, file_stems, say
from sigmar.runners.cli.options import UsageError, writable_folder
from sigmar.runners.render.answer_json import dumps, exit_code, result_json
from sigmar.runners.render.board_pages import replay_page
from sigmar.runners.render.svg import board_svg


def is_folder(text: str) -> bool:
    """OUT names a folder: it ends in a path separator, or is a folder already."""
    return text.endswith(("/", os.sep)) or Path(text).is_dir()


def out_paths(text: str, names: list[str], suffix: str) -> list[Path]:
    """Where each board's file goes: DIR/NAME.SUFFIX for a folder (names from the boards, safe and
    unique; the folder is made when the first file is written); else OUT for one board, OUT with the
    board's index before its suffix for several, as ``encode`` names them.  Each path is checked
    writable before anything is drawn."""
    out = Path(text)
    if is_folder(text):
        folder = writable_folder_or_usage(text)
        paths = [folder / f"{stem}{suffix}" for stem in file_stems(names)]
        for path in paths:
            if path.is_dir():
                raise UsageError(f"cannot write '{path}': it is a folder")
        return paths
    paths = [out if len(names) == 1 else out.with_suffix(f".{index}{out.suffix}") for index in range(len(names))]
    for path in paths:
        check_writable(path)
    return paths


def writable_folder_or_usage(text: str) -> Path:
    try:
        return writable_folder(text)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"cannot write files in '{text}': {exc}") from None


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

    The file is read twice: once to check every board and take its name (a bad board is found before
    any file is written, and the names decide the files'), once to draw.  Standard input, which
    cannot be read twice, is held instead (it is within the board file limit).
    """
    if split_selector(args.file)[0] == "-":
        boards, _ = selected_names(args.file, args.board)
        return write_files(args, boards, {})
    paths = out_paths(args.svg, [b.name for b in stream_picked(args.file, args.board)], ".svg")
    for board, path in zip(stream_picked(args.file, args.board), paths, strict=True):
        write(args, path, board_svg(board, coords=args.coords))  # write_file says it in one line if one fails
        if args.json:
            print(dumps(files_json(board, [str(path)])), flush=True)
    return 0


def files_json(board: Board, written: list[str]) -> dict[str, Any]:
    """``show --svg/--html --json``: a board and the files drawn of it."""
    return {"board": board.name, "dim": board.dim, "tiles": len(board), "files": written}


def write(args: argparse.Namespace, path: Path, text: str) -> None:
    write_file(path, text)  # whole or not at all, its folder made if missing; a full disk is one line (exit 2)
    say(args, f"wrote {path}")


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
    summary = Summary(args)
    names = [b.name for b in boards]
    svg_paths = out_paths(args.svg, names, ".svg") if args.svg else []
    html_paths = out_paths(args.html, names, ".html") if args.html else []
    # A bad solution is found before any file is written.
    moves = {name: checked_moves(b, played[name], args.solution) for b in boards if (name := b.name) in played}
    results: list[Result] = []
    for index, board in enumerate(boards):
        written: list[str] = []
        answer: Result | None = None
        if svg_paths:
            write(args, svg_paths[index], board_svg(board, coords=args.coords))
            written.append(str(svg_paths[index]))
        if html_paths:
            if board.name in moves:
                page = replay_page(board, moves[board.name], f"Solution from {args.solution}.")
            else:
                page, answer = explain(board, args.time_limit)
                results.append(answer)
            write(args, html_paths[index], page)
            written.append(str(html_paths[index]))
        if args.json:
            record = files_json(board, written)
            if answer is not None:
                record["answer"] = result_json(board, answer)
            print(dumps(record), flush=True)
    if results:  # boards answered by 'prove' for --html: the closing line of a verb that answers boards
        summary.print(results)
    return exit_code(results)


def explain(board: Board, time_limit: float) -> tuple[str, Result]:
    """The page for a board given without a solution, and the answer it draws (for the exit status).

    An unsolvable board's page also gives its deepest play and smallest repair (``sigmar explain``'s),
    whatever certificate refuted it.
    """
    from sigmar.runners.checking.certify import ProofStore
    from sigmar.runners.checking.trust import accepted
    from sigmar.runners.design.explain import explain as explained
    from sigmar.runners.design.explain_page import explained_page
    from sigmar.runners.prove import prove  # the race behind prove is only started for ``--html`` without a solution
    from sigmar.runners.render.proof_page import page_for

    with tempfile.TemporaryDirectory(prefix="sigmar-show-") as folder:
        proved = prove(board, time_limit, proof_dir=Path(folder), corroborate_limit=None)
        result = proved.result
        if result.status is Status.UNSOLVABLE and accepted(result) and result.certificate is not None:
            with ProofStore(Path(folder) / "explain") as proofs:
                explanation = explained(board, result, time_limit, proofs)
            return explained_page(board, result, explanation), result
        return page_for(board, result, time_limit), result
