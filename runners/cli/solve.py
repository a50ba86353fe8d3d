"""``sigmar solve FILE [--backend B]``: the chosen backends race on each board (SPEC §3, §4)."""

from __future__ import annotations

import argparse

from rich.table import Table

from sigmar.models.board import Board
from sigmar.models.result import Result, Status

from ..checking.certify import ProofStore
from ..race import Race, RaceOutcome
from ..render.answer_json import dumps, exit_code, result_json, summary_line
from ..render.terminal import add_text_row, table_console
from .options import add_race_arguments, race_inputs


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "solve",
        help="answer each board (backends race; the first checked answer wins)",
        description="Answer each board: solved (moves replayed by the rule engine), "
        "unsolvable (with a certificate checked independently of the backend that found it) or unknown. "
        "With several backends they race, each in its own process; a refutation without a checked "
        "certificate is a claim, listed in the answer. Exit 0 all answered, 1 some not, 2 bad input, "
        "3 a wrong answer.",
    )
    add_race_arguments(parser)
    parser.set_defaults(run=run)


def outcome_json(board: Board, outcome: RaceOutcome) -> dict[str, object]:
    extra: dict[str, object] = {}
    if outcome.wrong:
        extra["wrong"] = outcome.wrong
    return result_json(board, outcome.result, **extra)


def run(args: argparse.Namespace) -> int:
    boards, names = race_inputs(args)
    results: list[Result] = []
    table = Table(title=f"sigmar solve {' '.join(args.files)}")
    for column in ("board", "status", "backend", "seconds", "detail"):
        table.add_column(column)
    with ProofStore(args.proof_dir) as proofs, Race(names, proofs=proofs) as race:
        for board in boards:
            outcome = race.solve(board, args.time_limit)
            result = outcome.result
            # a wrong answer seen during the race is a bug worth exit 3, even if another backend won
            results.append(result.with_(wrong=True) if outcome.wrong else result)
            if args.json:
                print(dumps(outcome_json(board, outcome)), flush=True)
            else:
                detail = summary_line(result)
                if outcome.wrong:
                    detail += "; WRONG: " + "; ".join(outcome.wrong.values())
                add_text_row(table, board.name, str(result.status), result.backend, f"{result.seconds:.3f}", detail)
    if not args.json:
        table_console().print(table)
    return exit_code(results)


__all__ = ["run", "add_parser", "Status"]
