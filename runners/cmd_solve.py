"""``sigmar solve FILE [--backend B]``: answer each board, every answer checked."""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table
from sigmar.encoders.registry import expand, make
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Result, Status

from .check import counts_answer, run_checked
from .options import add_backend, add_board_file, add_json, add_time_limit
from .report import dumps, exit_code, result_json, summary_line


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "solve",
        help="answer each board (backends race; the first checked answer wins)",
        description="Answer each board: solved (moves replayed by the rule engine), "
        "unsolvable (with its reason) or unknown. Exit 0 all answered, 1 some not, "
        "2 bad input, 3 a wrong answer.",
    )
    add_board_file(parser)
    add_backend(parser)
    add_time_limit(parser)
    add_json(parser)
    parser.set_defaults(run=run)


def solve_one(names: list[str], board, time_limit: float) -> Result:
    """The first backend's checked answer (a race replaces this when several are named)."""
    start = time.perf_counter()
    early = counts_answer(board)
    if early is not None:
        return early.with_(seconds=time.perf_counter() - start)
    result = run_checked(make(names[0]), board, time_limit)
    return result.with_(seconds=time.perf_counter() - start)


def run(args: argparse.Namespace) -> int:
    boards = read_boards(args.file)
    names = expand(args.backend)
    if not names:
        from .cli import UsageError

        raise UsageError("no backend is available here; see 'sigmar backends'")
    results = []
    table = Table(title=f"sigmar solve {args.file}")
    for column in ("board", "status", "backend", "seconds", "detail"):
        table.add_column(column)
    for board in boards:
        result = solve_one(names, board, args.time_limit)
        results.append(result)
        if args.json:
            print(dumps(result_json(board, result)), flush=True)
        else:
            table.add_row(board.name, str(result.status), result.backend, f"{result.seconds:.3f}", summary_line(result))
    if not args.json:
        Console().print(table)
    return exit_code(results)


__all__ = ["run", "add_parser", "solve_one", "Status"]
