"""``sigmar prove FILE``: a checked unsolvability proof, or a verified solution, per board."""

from __future__ import annotations

import argparse

from rich.table import Table

from sigmar.models.result import Result, Status

from ..checking.certify import ProofStore
from ..prove import DEFAULT_PROVER, PROVERS, Prover
from ..render.answer_json import dumps, exit_code, result_json, summary_line
from ..render.terminal import add_text_row, table_console
from .conventions import Summary, add_time_limit, follow
from .options import add_board_files, add_proof_dir, read_board_files, seconds


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "prove",
        help="prove boards unsolvable with a checked certificate (or solve them)",
        description="For each board: a certificate of unsolvability (the counts, a stuck set of tiles, the "
        "board's dead states closed under every move, or a DRUP proof that its CNF is unsatisfiable), "
        "whichever route is first, checked by code independent of the backend that found it; a solvable "
        "board gets its verified solution. Exit 0 all answered, 1 some not, 2 bad input, 3 a wrong answer "
        "(a rejected certificate or solution, or a corroborating backend that solved a refuted board).",
    )
    add_board_files(parser)
    add_proof_dir(parser)
    add_time_limit(parser)
    parser.add_argument(
        "--prover",
        default=DEFAULT_PROVER,
        choices=PROVERS,
        help=f"SAT solver that writes the proof (default {DEFAULT_PROVER})",
    )
    parser.add_argument(
        "--corroborate",
        type=seconds,
        default=5.0,
        metavar="S",
        help="seconds for CP-SAT and MiniZinc to corroborate a proof (default 5)",
    )
    parser.add_argument("--no-corroborate", action="store_true", help="do not ask CP-SAT or MiniZinc")
    parser.add_argument(
        "--no-second-opinion", action="store_true", help="do not ask the verified 'drup' checker as well"
    )
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards = read_board_files(args)
    results = []
    table = Table(title=f"sigmar prove {' '.join(args.files)}")
    for column in ("board", "status", "reason", "checked", "seconds", "detail"):
        table.add_column(column)
    with (
        ProofStore(args.proof_dir) as proofs,
        Prover(
            proofs,
            prover=args.prover,
            corroborate_limit=None if args.no_corroborate else args.corroborate,
            second_opinion=not args.no_second_opinion,
        ) as engine,
    ):
        for board in boards:
            proved = engine.prove(board, args.time_limit)
            result = proved.result
            results.append(result)
            if args.json:
                print(dumps(result_json(board, result, **proved.json_extra())), flush=True)
            else:
                add_text_row(table, *row(board.name, result))
    if not args.json and not args.quiet:
        table_console().print(table)
    summary.print(results)
    return exit_code(results)


def row(name: str, result: Result) -> tuple[str, ...]:
    """One table row; text, not markup, as board names and paths may hold square brackets."""
    unsolvable = result.status is Status.UNSOLVABLE
    detail = summary_line(result)
    certificate = result.certificate
    if unsolvable and certificate is not None and certificate.file:
        detail += f" [{certificate.file}]"
    if result.message and result.status is not Status.ERROR:
        detail += f" ({result.message})"
    checked = ("yes" if result.checked else "NO") if unsolvable else ("yes" if result.verified else "-")
    return (name, str(result.status), str(result.reason or "-"), checked, f"{result.seconds:.3f}", detail)
