"""``sigmar bench FILE...``: every backend alone on every board, with a summary, a CSV and a cactus plot."""

from __future__ import annotations

import argparse
import math
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Result

from .bench import CsvLog, bench, cactus_plot, machine_lines, plan, run_local, summarise
from .cmd_solve import chosen_backends
from .options import add_backend, add_time_limit, apply_sat_cmd, job_count, writable_file
from .report import exit_code
from .tables import table_console


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bench",
        help="every backend on every board: progress bar, summary table, CSV and cactus plot",
        description="Run every chosen backend alone on every board (each run in a worker process, killed at "
        "the time limit), check and grade every answer, and print a summary per backend. Exit 3 if a backend "
        "answered wrongly or two disagreed, 1 if some board got no answer from any backend.",
    )
    parser.add_argument("files", metavar="FILE", nargs="+", help="board files")
    add_backend(parser)
    add_time_limit(parser, default=10.0)
    parser.add_argument(
        "--jobs", "-j", type=job_count, default=1, metavar="N", help="runs at once (default 1: the cleanest timings)"
    )
    parser.add_argument(
        "--out", type=writable_file, metavar="CSV", help="write one row per board and backend here, as runs end"
    )
    parser.add_argument("--plot", type=writable_file, metavar="PNG", help="draw the cactus plot here")
    parser.add_argument(
        "--cluster", metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://host:8786) instead of locally"
    )
    parser.set_defaults(run=run)


def fmt(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds:.3f}"


def run(args: argparse.Namespace) -> int:
    apply_sat_cmd(args)
    from .cli import UsageError

    boards_by_file: list[tuple[str, list[Board]]] = [(f, read_boards(f)) for f in args.files]
    names = chosen_backends(args.backend)
    runs = plan(boards_by_file, names)
    err = Console(stderr=True)
    client: Any = None
    log: CsvLog | None = None
    if args.cluster:
        from distributed import Client

        from .cluster import describe, run_cluster

        try:
            client = Client(args.cluster, timeout="10s")
        except (OSError, ValueError) as exc:  # ValueError: not an address at all
            raise UsageError(f"cannot reach the Dask scheduler at {args.cluster}: {exc}") from None
        where = describe(client)
        executor = run_cluster(runs, args.time_limit, client)
    else:
        where = f"local worker processes, jobs {args.jobs}"
        executor = run_local(runs, args.time_limit, args.jobs)
    header = machine_lines(names, args.time_limit, where)
    try:
        if args.out:
            log = CsvLog(args.out, header)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err,
            auto_refresh=False,  # no refresh thread: worker processes are forked while the bar is up
        ) as progress:
            task = progress.add_task(f"{len(runs)} runs", total=len(runs))

            def on_done(run_: Any, answer: Result) -> None:
                progress.update(task, advance=1, description=f"{run_.backend} {answer.status}")
                progress.refresh()

            result = bench(runs, names, executor, on_done, log.write if log else None)
    finally:
        if log is not None:
            log.close()
        if client is not None:
            client.close()

    drawn = False
    if args.plot:
        title = f"sigmar bench: {sum(len(b) for _, b in boards_by_file)} boards, limit {args.time_limit:g} s"
        try:  # checked at parse time, but the folder may have gone since: the table still prints
            cactus_plot(args.plot, result.rows, names, args.time_limit, title)
            drawn = True
        except OSError as exc:
            err.print(f"sigmar bench: cannot draw {args.plot}: {exc.strerror or exc}", highlight=False)

    console = table_console()
    for line in header:
        console.print(f"[dim]# {line}[/]", highlight=False)
    table = Table(title="sigmar bench: seconds over answered runs")
    for column in ("backend", "runs", "solved", "unsolvable", "unknown", "error", "wrong"):
        table.add_column(column, justify="right" if column != "backend" else "left")
    for column in ("median", "p90", "p99", "max"):
        table.add_column(column, justify="right")
    for s in summarise(result.rows, names):
        counts = (s.runs, s.solved, s.unsolvable, s.unknown, s.error)
        wrong = f"[red]{s.wrong}[/]" if s.wrong else "0"
        table.add_row(s.backend, *map(str, counts), wrong, fmt(s.median), fmt(s.p90), fmt(s.p99), fmt(s.max))
    console.print(table)
    trouble = 0
    for board, verdict in result.verdicts:
        for note in verdict.notes:
            trouble += 1
            console.print(f"[bold red]{board.name}[/]: {note}", highlight=False)
    if args.out:
        console.print(f"wrote {args.out}")
    if drawn:
        console.print(f"drew {args.plot}")
    board_results = [v.result.with_(wrong=True) if v.any_wrong or not v.agree else v.result for _, v in result.verdicts]
    return exit_code(board_results)
