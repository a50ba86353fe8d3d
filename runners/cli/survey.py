"""``sigmar survey``: how often is a random deal solvable? Every answer checked (docs/formats.md#certificates)."""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from typing import Any

from rich.table import Table

from sigmar.encoders.registry import names_all
from sigmar.models.deal import KINDS, DealError
from sigmar.models.generator import PAIRED_TILES
from sigmar.runners.cli.conventions import Summary, add_output, add_time_limit, follow
from sigmar.runners.cli.options import (
    UsageError,
    add_backend,
    add_proof_dir,
    add_verbose,
    chosen_backends,
    cluster_address,
    cube_count,
    dask_client,
)
from sigmar.runners.render.answer_json import counts_line
from sigmar.runners.render.terminal import progress_bar, table_console
from sigmar.runners.survey import (
    ClusterError,
    Deals,
    ResultsError,
    ResultsFile,
    Tally,
    answer_locally,
    answer_on_cluster,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "survey",
        help="deal N random boards, answer each (race, checked certificates), estimate the solvable fraction",
        description="Deal N random boards and answer each through the race: solved (moves replayed by the rule "
        "engine) or unsolvable (certificate checked independently); anything else is unknown. Prints the counts "
        "and the solvable fraction as bounds that cover the unknown boards: at least solved/N, at most "
        "(solved+unknown)/N, each with its 95% Wilson interval (one number when nothing is unknown). With "
        "-o (--results) the answers are appended to a JSON Lines file as they come; a rerun with the same file "
        "continues where a killed run stopped. Exit 0 every board answered, "
        "1 some unknown, 2 bad arguments, 3 a wrong answer.",
    )
    parser.add_argument(
        "--deal",
        choices=KINDS,
        default="dense",
        help="'dense': the tiles on the cells nearest the centre, ties at random (default); "
        "'uniform': on random cells of a template (the 43 public shapes on side 6, random symmetric shapes above)",
    )
    parser.add_argument(
        "--dim",
        type=int,
        default=6,
        choices=sorted(PAIRED_TILES),
        metavar="D",
        help=f"board side, {min(PAIRED_TILES)} to {max(PAIRED_TILES)} (default 6), with generate --dim's tiles",
    )
    parser.add_argument("--count", "-n", type=int, default=100, metavar="N", help="boards to deal (default 100)")
    parser.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    add_output(
        parser,
        "append one JSON line per board (an answer as in docs/formats.md, with index, deal, dim, seed); "
        "a rerun skips the boards already in it (--results FILE says the same)",
        older=("--results",),
    )
    parser.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDR",
        help="run on an existing Dask scheduler (e.g. tcp://127.0.0.1:8786, or the file its --scheduler-file "
        "wrote); stock 'dask worker' processes do",
    )
    parser.add_argument(
        "--cubes",
        type=cube_count,
        metavar="N",
        help="a board the race leaves unknown is then split into about N cubes refuted side by side "
        "(cube-and-conquer, as 'prove --cubes'): on the cluster's workers with --cluster, else on this machine's cores",
    )
    add_backend(parser)
    add_time_limit(parser)
    add_proof_dir(parser)
    add_verbose(parser)
    follow(
        parser,
        boards=False,
        json_help="print the summary as one JSON object (the answers, one JSON object per board, go to -o FILE)",
    )
    parser.set_defaults(run=run)


def share(value: float, low: float, high: float, digits: int = 1) -> str:
    """``19.3% [18.5, 20.1]``: a fraction and its interval, in percent."""
    return f"{100 * value:.{digits}f}% [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def fraction_text(tally: Tally) -> str:
    bounds = tally.bounds()
    if bounds is None:
        return "solvable -"
    at_least, at_most = bounds
    if not tally.unknown:
        return f"solvable {share(*at_least)}"
    return f"solvable {share(*at_least)} to {share(*at_most)}, {tally.unknown} unknown"


def summary_table(deals: Deals, tally: Tally, wall: float) -> Table:
    summary = tally.summary()
    table = Table(title=f"sigmar survey: {deals.kind} deals of side {deals.dim}, seed {deals.seed}")
    table.add_column("")
    table.add_column("value", justify="right")
    rows = [
        ("boards", str(tally.total)),
        ("solved", str(tally.solved)),
        ("unsolvable (checked)", str(tally.unsolvable)),
        ("unknown", str(tally.unknown)),
    ]
    bounds = tally.bounds()
    if bounds is not None and not tally.unknown:
        rows.append(("solvable [95% Wilson interval]", share(*bounds[0], digits=2)))
    elif bounds is not None:
        rows.append(("solvable, at least: solved / boards [95% Wilson]", share(*bounds[0], digits=2)))
        rows.append(("solvable, at most: (solved + unknown) / boards", share(*bounds[1], digits=2)))
    if summary["median_s"] is not None:
        rows.append(
            (
                "seconds per board: median / p99 / max",
                f"{summary['median_s']:.3f} / {summary['p99_s']:.3f} / {summary['max_s']:.3f}",
            )
        )
    rows.append(("wall seconds (this run)", f"{wall:.1f}"))
    if tally.wrong:
        rows.append(("WRONG answers", str(tally.wrong)))
    for name, value in rows:
        table.add_row(name, value)
    return table


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    if args.count < 0:
        raise UsageError("--count must not be negative")
    if args.cluster and args.proof_dir:
        raise UsageError("--proof-dir keeps files on this machine: it does not go with --cluster")
    # On a cluster, which backends ``all`` races is the workers' to say: asked here, each built-in imports its
    # solver (OR-Tools, python-sat, MiniZinc and its solver list: 0.4 s of CPU) for a race that never runs here.
    everything = bool(args.cluster) and names_all(args.backend)
    names = chosen_backends(args.backend, check=not everything)
    deals = Deals(args.deal, args.dim, args.seed, args.count)
    out, done = _open_results(args, deals)
    tally = Tally()
    for index, record in sorted(done.items()):
        if index < args.count:
            tally.add(record)
    todo = [i for i in range(args.count) if i not in done]
    start = time.perf_counter()
    client = None
    try:
        with contextlib.ExitStack() as stack:
            client = dask_client(args.cluster) if args.cluster else None
            answers = (
                answer_on_cluster(deals, todo, names, args.time_limit, client, optional=names if everything else ())
                if client is not None
                else answer_locally(deals, todo, names, args.time_limit, args.proof_dir)
            )
            if args.cubes:
                answers = _with_cubes(stack, answers, deals, client, args)
            _consume(answers, tally, out, args.count, quiet=args.quiet)
    except ClusterError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if client is not None:
            client.close()
        if out is not None:
            out.close()
    wall = time.perf_counter() - start
    if args.json:
        print(json.dumps(_summary_json(deals, tally, wall)))
    elif not args.quiet:
        table_console().print(summary_table(deals, tally, wall))
        if tally.unknown:
            table_console().print(
                f"{tally.unknown} unknown board(s): the solvable fraction lies between the two bounds",
                highlight=False,
            )
    counts = {"solved": tally.solved, "checked": tally.unsolvable, "unknown": tally.unknown, "error": 0}
    summary.print_line(counts_line(tally.total, **counts, wall=summary.wall(), wrong=tally.wrong))
    if tally.wrong:
        return 3
    return 1 if tally.unknown else 0


def _with_cubes(stack: contextlib.ExitStack, answers: Any, deals: Deals, client: Any, args: argparse.Namespace) -> Any:
    """The answers, each unknown one then settled by cube-and-conquer on the cluster or on this machine."""
    from sigmar.runners.checking.certify import ProofStore
    from sigmar.runners.cubes.pools import DaskPool, LocalPool
    from sigmar.runners.cubes.split import CubeProver, settle_unknowns

    pool: DaskPool | LocalPool = DaskPool(client) if client is not None else LocalPool()
    stack.callback(pool.close)
    proofs = stack.enter_context(ProofStore(None if client is not None else args.proof_dir))
    return settle_unknowns(answers, deals, CubeProver(pool, proofs, cubes=args.cubes), args.time_limit)


def _open_results(args: argparse.Namespace, deals: Deals) -> tuple[ResultsFile | None, dict[int, dict[str, Any]]]:
    """The results file, locked for this run (one writer per file), and the answers already in it."""
    out = None
    try:
        deals.board(0)  # a deal that cannot be made fails here, before any work
        if not args.output:
            return None, {}
        args.output.parent.mkdir(parents=True, exist_ok=True)
        out = ResultsFile(args.output)  # locked until the run ends
        return out, out.read(deals)
    except (ResultsError, DealError, OSError) as exc:
        if out is not None:
            out.close()
        why = f"{args.output}: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        raise UsageError(why) from None


def _consume(answers: Any, tally: Tally, out: Any, count: int, *, quiet: bool = False) -> None:
    """Write each answer as it comes, and keep the bar's running fraction up to date."""
    with progress_bar(quiet=quiet) as progress:
        task = progress.add_task(fraction_text(tally), total=count, completed=tally.total)
        try:
            for record in answers:
                if out is not None:
                    out.append(record)
                tally.add(record)
                progress.update(task, advance=1, description=fraction_text(tally))
                progress.refresh()
        finally:
            close = getattr(answers, "close", None)
            if close is not None:
                close()  # stop the race's workers or the cluster client now, not at garbage collection


def _summary_json(deals: Deals, tally: Tally, wall: float) -> dict[str, Any]:
    return (
        {"deal": deals.kind, "dim": deals.dim, "seed": deals.seed, "count": deals.count}
        | tally.summary()
        | {"wall_seconds": round(wall, 3)}
    )
