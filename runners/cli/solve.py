"""``sigmar solve FILE [--backend B]``: the chosen backends race on each board (docs/formats.md)."""

from __future__ import annotations

import argparse

from sigmar.encoders.registry import names_all
from sigmar.models.board import Board
from sigmar.models.result import Result, Status

from ..checking.certify import ProofStore
from ..race import Race, RaceOutcome
from ..render.answer_json import dumps, exit_code, result_json, summary_line
from ..render.columns import columns
from .conventions import Summary, add_time_limit, follow
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
    add_time_limit(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def outcome_json(board: Board, outcome: RaceOutcome) -> dict[str, object]:
    extra: dict[str, object] = {}
    if outcome.wrong:
        extra["wrong"] = outcome.wrong
    return result_json(board, outcome.result, **extra)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards, names = race_inputs(args, check=False)
    optional = names if names_all(args.backend) else []  # looked at only when a board needs them
    results: list[Result] = []
    rows: list[tuple[str, ...]] = []
    with ProofStore(args.proof_dir) as proofs, Race(names, proofs=proofs, optional=optional) as race:
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
                rows.append((board.name, str(result.status), result.backend, f"{result.seconds:.3f}", detail))
    if not args.json and not args.quiet:
        print_table(rows)
    summary.print(results)
    return exit_code(results)


def print_table(rows: list[tuple[str, ...]]) -> None:
    """The answers as plain columns (see render.columns: no rich on this path)."""
    print(columns(("board", "status", "backend", "seconds", "detail"), rows))


__all__ = ["run", "add_parser", "Status"]
