"""``sigmar fuzz``: random small boards against the chosen backends; every wrong answer shrunk and written down."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from sigmar.encoders.registry import names_all
from sigmar.models.fuzz_deal import MAX_TILES, VARIANTS, fuzz_board
from sigmar.models.output_files import OutputLock, make_folder
from sigmar.runners.cli.board_args import read_selected
from sigmar.runners.cli.conventions import add_output_dir, add_time_limit, follow
from sigmar.runners.cli.options import (
    UsageError,
    add_backend,
    add_verbose,
    chosen_backends,
    cluster_address,
    dask_client,
    whole_number,
)
from sigmar.runners.fuzz import FailureGroups, Races, fuzz_locally, fuzz_on_cluster, fuzz_one
from sigmar.runners.render.terminal import progress_bar, table_console
from sigmar.runners.survey import ClusterError

DEFAULT_OUT = Path("fuzz-failures")


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "fuzz",
        help="deal random small boards and find every wrong answer of the chosen backends",
        description="Deal N random small boards (side 2 to 4), settle each by an exhaustive search over the rule "
        "engine, and grade every chosen backend's answer against it. Each failure (a rejected solution, a wrong "
        "unsolvable or solved, a rejected certificate, an error, a crash or a hang) is shrunk to a smallest board "
        "that fails the same way and written to DIR/NAME.txt and DIR/NAME.json. --json: one JSON object per "
        "board on standard output. Exit 0 when nothing failed, 3 when something did.",
    )
    add_backend(parser)
    parser.add_argument(
        "--count", type=lambda t: whole_number(t, 0), default=100, metavar="N", help="boards (default 100)"
    )
    parser.add_argument(
        "--seed", type=lambda t: whole_number(t, 0), default=0, metavar="S", help="deal seed (default 0)"
    )
    parser.add_argument(
        "--max-tiles",
        type=lambda t: whole_number(t, 1, MAX_TILES),
        default=12,
        metavar="T",
        help=f"most tiles on a board, 1 to {MAX_TILES} (default 12)",
    )
    parser.add_argument(
        "--variant", choices=VARIANTS, default="both", help="boards with quintessence or not (default both)"
    )
    add_time_limit(parser)
    add_output_dir(
        parser,
        f"where failures are written, one set of files per backend, kind and shrunk board (default ./{DEFAULT_OUT})",
        older=("--out",),
    )
    parser.add_argument(
        "--max-failures",
        type=lambda t: whole_number(t, 0),
        default=100,
        metavar="N",
        help="stop dealing once N failures are found (default 100; 0: never), so a broken backend costs "
        "N shrinks, not one per board",
    )
    parser.add_argument(
        "--cluster", type=cluster_address, metavar="ADDR", help="spread the boards over this Dask scheduler's workers"
    )
    parser.add_argument(
        "--compare-counts",
        action="store_true",
        help="also count both notions (sequences, pairings) with every chosen backend that counts, and grade a "
        "count that differs from the rule engine's as a failure (wrong-count), shrunk like the others",
    )
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help="grade the boards of FILE (such as a written failure) instead of dealing; nothing is shrunk or written; "
        f"boards of at most {MAX_TILES} tiles",
    )
    add_verbose(parser)
    follow(
        parser,
        boards=True,
        json_help="print one JSON object per board as it is graded (JSON Lines), no table",
        board_help="with --replay, only the boards of this name",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # On a cluster, which backends ``all`` grades is the workers' to say (as survey's): asked here, each built-in
    # imports its solver (OR-Tools, python-sat, MiniZinc with its solver list) for a grading that runs there.
    everything = bool(args.cluster) and not args.replay and names_all(args.backend)
    names = chosen_backends(args.backend, check=not everything)
    if args.variant == "quintessence" and args.max_tiles < 5:
        raise UsageError("--variant quintessence needs --max-tiles 5 or more (a quintessence move takes five tiles)")
    if args.replay:
        return replay(args, names)
    boards = [fuzz_board(args.seed, i, args.max_tiles, args.variant) for i in range(args.count)]
    groups = FailureGroups(args.output_dir or DEFAULT_OUT, args.seed)
    console = table_console()
    failures: list[dict[str, Any]] = []
    start = time.perf_counter()
    # One run writes a failures folder at a time (the names repeat across runs of one seed).
    lock = OutputLock(groups.out, "failures folder") if groups.out.is_dir() else None
    client = dask_client(args.cluster) if args.cluster else None
    optional = names if everything else ()
    records = (
        fuzz_on_cluster(boards, names, args.time_limit, client, args.compare_counts, optional)
        if client is not None
        else fuzz_locally(boards, names, args.time_limit, args.compare_counts)
    )
    done = 0
    graded: set[str] = set()  # the backends that answered (``all`` on a cluster: the workers had them)
    try:
        with progress_bar(quiet=args.quiet) as progress:
            task = progress.add_task("fuzz: 0 failures", total=len(boards))
            for record in records:
                done += 1
                graded.update(record["answers"])
                if args.max_failures:  # exactly N: a board's failures beyond the N-th are not counted
                    record["failures"] = record["failures"][: args.max_failures - len(failures)]
                if record["failures"] and lock is None:  # the folder is made only when there is a failure
                    lock = OutputLock(make_folder(groups.out), "failures folder")
                failures += [written_failure(groups, record, failure) for failure in record["failures"]]
                if args.json:
                    print(json.dumps(record), flush=True)
                progress.update(task, advance=1, description=f"fuzz: {len(failures)} failures")
                progress.refresh()
                if args.max_failures and len(failures) >= args.max_failures:
                    break
    except ClusterError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write failures in {groups.out}: {exc.strerror or exc}") from None
    finally:
        close = getattr(records, "close", None)
        if close is not None:
            close()
        if client is not None:
            client.close()
        if lock is not None:
            lock.release()
    wall = time.perf_counter() - start
    if not args.json and not args.quiet:
        shown = [name for name in names if name in graded] if everything else names
        console.print(failure_table(grouped(failures), done, shown, wall))
        if done < len(boards):
            console.print(f"stopped after {done} of {len(boards)} boards: {len(failures)} failures (--max-failures)")
    return 3 if failures else 0


def written_failure(groups: FailureGroups, record: dict[str, Any], failure: dict[str, Any]) -> dict[str, Any]:
    """The failure, written into its group's files, with where they are and how to see it again."""
    written = groups.add(record, failure)
    failure["files"] = [str(written.board_file), str(written.report_file)]
    failure["command"] = written.report["command"]
    if "certificate" in written.report:
        failure["certificate"] = written.report["certificate"]
    return failure


def grouped(failures: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """Each group's first failure and how many boards showed it (the groups are FailureGroups')."""
    counts: dict[tuple[str, str, str], list[Any]] = {}
    for failure in failures:
        counts.setdefault(FailureGroups.key(failure), [failure, 0])[1] += 1
    return [(first, count) for first, count in counts.values()]


def replay(args: argparse.Namespace, names: list[str]) -> int:
    """Grade the boards of a file against the truth: the reproduce line of a written failure."""
    boards = read_selected([args.replay], args.board)
    for board in boards:  # the truth is an exhaustive search: only boards of the size fuzz deals (R7)
        if len(board) > MAX_TILES:
            raise UsageError(
                f"{args.replay}: board {board.name} has {len(board)} tiles; fuzz settles the truth of boards of "
                f"at most {MAX_TILES} (an exhaustive search); use 'sigmar crosscheck' for larger boards"
            )
    failures: list[dict[str, Any]] = []
    start = time.perf_counter()
    with Races(names, args.time_limit, args.compare_counts) as races:
        for board in boards:
            record = fuzz_one(races, board, shrink_budget=0)
            failures += record["failures"]
            if args.json:
                print(json.dumps(record), flush=True)
    if not args.json and not args.quiet:
        table_console().print(failure_table(grouped(failures), len(boards), names, time.perf_counter() - start))
    return 3 if failures else 0


def failure_table(groups: list[tuple[dict[str, Any], int]], boards: int, names: list[str], wall: float) -> Table:
    """One row per backend, kind and message (its shape: :func:`~sigmar.runners.fuzz.message_shape`), with how
    many failures showed it, the smallest shrunk board's size and how to see it again."""
    total = sum(count for _, count in groups)
    title = f"sigmar fuzz: {boards} boards, {', '.join(names)}, {total} failures in {len(groups)} groups, {wall:.1f} s"
    table = Table(title=title)
    table.add_column("backend")
    table.add_column("failure")
    table.add_column("tiles", justify="right")
    table.add_column("failures", justify="right")
    table.add_column("reproduce (or what the checks said)")
    for failure, count in groups:
        how = failure.get("command") or failure["message"]
        if "certificate" in failure and failure["certificate"].get("check"):
            how += f"; the certificate: {failure['certificate']['check']}"
        table.add_row(failure["backend"], failure["failure"], str(failure["shrunk_tiles"]), str(count), how)
    return table
