"""``sigmar verify FILE SOLUTION``: the rule engine's judgement of a solution."""

from __future__ import annotations

import argparse
import json

from sigmar.models.rules import verify
from sigmar.models.solution import match_solutions, read_solutions, to_moves
from sigmar.runners.cli.board_args import selected_names, solutions_for
from sigmar.runners.cli.conventions import follow
from sigmar.runners.cli.options import add_board_file


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "verify",
        help="check a solution against the rule engine",
        description="Replay a solution with the reference rule engine. SOLUTION is the JSON that "
        "'sigmar solve --json' printed, or one move a line as 'row,col row,col' (gold alone: 'row,col'). "
        "Exit 0 valid, 1 invalid, 2 bad input.",
    )
    add_board_file(parser)
    parser.add_argument("solution", metavar="SOLUTION", help="solution file")
    follow(
        parser,
        boards=True,
        board_help="only the board of this name; a plain solution is for it (default: the first board picked)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    boards, every = selected_names(args.file, args.board)
    solutions = solutions_for(read_solutions(args.solution), boards, every, args.solution)
    pairs = match_solutions(boards, solutions, args.board, args.solution)
    all_valid = True
    for board, solution in pairs:
        verdict = verify(board, to_moves(board, solution, args.solution))
        all_valid &= verdict.valid
        if args.json:
            record = {"board": board.name, "valid": verdict.valid, "moves": len(solution.moves)}
            if not verdict.valid:
                record.update(
                    move=verdict.move_number,
                    fault=verdict.fault.value if verdict.fault else None,
                    detail=verdict.detail,
                )
            print(json.dumps(record))
        elif not args.quiet:
            print(f"{board.name}: {verdict}")
    return 0 if all_valid else 1
