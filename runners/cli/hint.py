"""``sigmar hint FILE [--played MOVES]``: every legal move of a position marked safe, losing or unknown, proved."""

from __future__ import annotations

import argparse

from sigmar.models.board import Board
from sigmar.models.result import Move
from sigmar.models.solution import match_solutions, read_solutions, to_moves
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli.board_args import selected_names, solutions_for
from sigmar.runners.cli.conventions import AnswersOutput, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import add_board_files, add_proof_dir, read_board_files
from sigmar.runners.design.hint import Hint, MoveHint, PositionError, hint, hint_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "hint",
        help="mark every legal move of a position safe or losing, each with its proof",
        description="For the position reached by the moves played (--played; without it, each board as it "
        "stands), every legal move is marked 'safe' (the position after it can be cleared: a solution, replayed "
        "by the rule engine from the start of the board), 'losing' (it cannot: a certificate the independent "
        "checker accepted, the tile counts, a stuck set, a dead-states file or a DRUP proof of that position) or "
        "'unknown' (neither within the time limit, which all the moves of a position share). Exit 0 every move "
        "marked, 1 some move unknown, 2 bad input (an illegal or malformed position).",
    )
    add_board_files(parser)
    parser.add_argument(
        "--played",
        metavar="MOVES",
        help="the moves played so far, as a solution file (one move a line as 'row,col row,col', gold alone "
        "'row,col'; or the JSON 'solve --json' prints): its moves are replayed from the board's start, and the "
        "first the rules refuse is an error (exit 2). With several boards, one solution per board, in order or "
        "named",
    )
    add_time_limit(parser, "seconds for all the moves of one position")
    add_proof_dir(parser)
    add_answers_output(parser, "also write each position's hint into FILE as JSON Lines (what --json prints)")
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def positions(args: argparse.Namespace) -> list[tuple[Board, list[Move]]]:
    """Each board picked with the moves played on it (none without ``--played``)."""
    if args.played is None:
        return [(board, []) for board in read_board_files(args)]
    boards, every = selected_names(args.files, args.board)
    solutions = solutions_for(read_solutions(args.played), boards, every, args.played)
    pairs = match_solutions(boards, solutions, args.board, args.played)
    return [(board, to_moves(board, solution, args.played)) for board, solution in pairs]


def run(args: argparse.Namespace) -> int:
    found: list[Hint] = []
    with AnswersOutput(args) as answers, ProofStore(args.proof_dir) as proofs:
        for board, played in positions(args):
            try:
                one = hint(board, played, args.time_limit, proofs)
            except PositionError as exc:  # one line naming the file of the moves played, the board and the move
                raise PositionError(f"{args.played}: {exc}") from None
            found.append(one)
            answers.write(hint_json(one))
            if not args.json and not args.quiet:
                print(("\n" if len(found) > 1 else "") + text(one), flush=True)
    return 1 if any(one.status == "unknown" or one.count("unknown") for one in found) else 0


def text(found: Hint) -> str:
    """One position's hint for a person: a line for the position, then a line per move, safe ones first."""
    board = found.board
    played = len(found.played)
    where = "at the start" if not played else f"after {played} move{'s' if played != 1 else ''}"
    head = f"{board.name}: {where}, {len(found.left)} tiles left: {found.status}"
    if not found.left:
        return head
    moves = len(found.moves)
    head += (
        f"; {moves} legal move{'s' if moves != 1 else ''}: {found.count('safe')} safe, "
        f"{found.count('losing')} losing, {found.count('unknown')} unknown ({found.seconds:.2f} s)"
    )
    lines = [head]
    if not found.moves and found.stuck is not None:
        lines.append(f"  no legal move: {found.stuck.explanation or found.stuck.message}")
    order = {"safe": 0, "losing": 1, "unknown": 2}
    for item in sorted(found.moves, key=lambda m: order[m.mark]):
        lines.append(move_line(board, item))
    return "\n".join(lines)


def move_line(board: Board, item: MoveHint) -> str:
    from sigmar.runners.render.board_pages import tile_name

    tiles = " + ".join(
        f"{tile_name(board, board.symbol_at[cell])} {row},{col}"
        for cell in item.move.cells
        for row, col in [board.rowcol(cell)]
    )
    answer = item.answer
    if item.mark == "safe":
        count = len(answer.moves)
        why = f"cleared in {count} more move{'s' if count != 1 else ''} after it (replayed)" if count else "clears it"
    elif item.mark == "losing":
        kind = answer.certificate.kind if answer.certificate is not None else "counts"
        why = f"{kind} certificate checked: {answer.explanation}"
    else:
        why = answer.message or "no answer within the time limit"
    return f"  {item.mark:<7} {tiles}: {why}"
