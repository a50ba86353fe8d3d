"""``sigmar bench FILE...``: every backend alone on every board: summary (PAR-2, VBS, paired comparisons, pairwise
score, families), CSV, plots, HTML, XML."""

from __future__ import annotations

import argparse
import csv
import sys
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text

from sigmar.encoders.registry import names_all
from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.output_files import OutputLock, write_file
from sigmar.models.result import Result
from sigmar.runners.bench import (
    CsvSink,
    bench,
    busy_warning,
    cactus_plot,
    machine_lines,
    plan,
    read_csv,
    run_local,
    summarise,
)
from sigmar.runners.checking.grading import BoardVerdict
from sigmar.runners.cli.board_args import read_per_file
from sigmar.runners.cli.conventions import DEFAULT_TIME_LIMIT, Summary, add_output, add_time_limit, follow
from sigmar.runners.cli.options import (
    BOARD_ARGUMENT_HELP,
    DEFAULT_BACKEND,
    UsageError,
    add_backend,
    add_sat_cmd,
    add_verbose,
    apply_sat_cmd,
    chosen_backends,
    cluster_address,
    dask_client,
    job_count,
    sat_command,
    whole_number,
    writable_file,
)
from sigmar.runners.render.answer_json import dumps, exit_code, graded_json
from sigmar.runners.render.bench_html import Report
from sigmar.runners.render.bench_tables import (
    answers_table,
    family_table,
    fmt,
    paired_lines,
    pairwise_table,
    times_table,
)
from sigmar.runners.render.terminal import print_table, progress_bar, table_console
from sigmar.runners.statistics.paired import MIN_BOARDS, baseline_notes, compare, paired_comparisons, speedup_sentence
from sigmar.runners.statistics.record import Record
from sigmar.runners.statistics.scores import pairwise_scores, vbs
from sigmar.runners.survey import ClusterError


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bench",
        help="every backend on every board: summary (PAR-2, VBS), CSV, plots, HTML report, BenchExec XML",
        description="Run every chosen backend alone on every board (each run in a worker process, killed at "
        "the time limit), measure its wall time, CPU time and peak memory (children included) and the load "
        "average, check and grade every answer (a 'no' with a checked certificate apart from a claimed one), "
        "and print the backends ranked (correct answers, then PAR-2 by wall and CPU time, on solvable and "
        "unsolvable boards apart), the virtual best solver, a paired comparison of every two backends (the "
        "geometric-mean ratio with its 95% bootstrap interval and a Wilcoxon p-value), the MiniZinc "
        "Challenge's pairwise score, and a table per family of boards. Every output records the run: the "
        "command line, each backend's exact name, version and options, an external solver's command and "
        "version, the board files' digests (--rerun runs it again). Exit 3 if a backend answered wrongly or "
        "two disagreed, 1 if some board got no answer from any backend, 2 on bad input.",
    )
    parser.add_argument(
        "files",
        metavar="FILE",
        nargs="*",
        help=f"board files (each one or many boards; {BOARD_ARGUMENT_HELP}); none with --rerun",
    )
    parser.add_argument(
        "--rerun",
        metavar="RECORD",
        help="run a recorded bench again: the boards, backends and options of RECORD (a bench's CSV, --json "
        "output, HTML report or BenchExec XML; each records its run), the board files checked unchanged; give "
        "only outputs beside it",
    )
    add_backend(parser)
    add_time_limit(parser)
    parser.add_argument(
        "--jobs", "-j", type=job_count, default=1, metavar="N", help="runs at once (default 1: the cleanest timings)"
    )
    parser.add_argument(
        "--repeat",
        type=repeat_count,
        default=1,
        metavar="N",
        help="run each board and backend N times (default 1); the scores use each board's median run, and "
        "the spread of the runs is shown",
    )
    parser.add_argument(
        "--family",
        action="append",
        metavar="NAME",
        help="the family of each FILE, once per FILE in order (default: the file itself); a table per family",
    )
    add_output(parser, "write the CSV here: one row per board and backend (docs/formats.md)", metavar="CSV")
    parser.add_argument("--plot", type=writable_file, metavar="PNG", help="draw the cactus plot here")
    parser.add_argument("--scatter", metavar="PNG", help="draw a log-log scatter of two backends here")
    parser.add_argument("--pair", metavar="X,Y", help="the two backends of --scatter (default: the first two chosen)")
    parser.add_argument(
        "--html", type=writable_file, metavar="REPORT", help="write one self-contained HTML report here"
    )
    parser.add_argument("--xml", metavar="DIR", help="write BenchExec result XML here, one file per backend")
    parser.add_argument(
        "--aslib",
        metavar="DIR",
        help="export the bench as an ASlib scenario in DIR (description.txt, algorithm_runs.arff, "
        "feature_values.arff, feature_costs.arff, feature_runstatus.arff, cv.arff): each board's runtimes and "
        "run status per backend, its cheap features, 10 cross-validation folds (docs/bench.md#picking-the-backend)",
    )
    parser.add_argument("--baseline", metavar="OLD.csv", help="compare with an earlier bench CSV")
    parser.add_argument(
        "--mem-limit",
        type=float,
        metavar="MB",
        help="peak memory (RSS, worker and children) allowed per run (default: no limit)",
    )
    add_verbose(parser)
    parser.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDRESS",
        help="run on this Dask scheduler (e.g. tcp://host:8786, or the file its --scheduler-file wrote) instead "
        "of locally",
    )
    add_sat_cmd(parser)
    follow(parser, boards=True, json_help="print one JSON object per board as it is graded (JSON Lines), no tables")
    parser.set_defaults(run=run)


def repeat_count(text: str) -> int:
    """``--repeat``: a whole number from 1 to 1000."""
    return whole_number(text, 1, 1000)


def read_baseline(path: str) -> list[dict[str, str]]:
    """An earlier bench CSV; anything else is a usage error naming the file (and the row)."""
    try:
        input_limits.regular_size(path, input_limits.BENCH_CSV)  # not a FIFO, and within the bench CSV limit
        rows = read_csv(path)
    except input_limits.InputError as exc:
        raise UsageError(f"--baseline {exc}") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"--baseline {path}: cannot read it ({exc})") from None
    needed = {"file", "board", "backend", "status", "seconds", "grade"}
    have = set(rows[0]) if rows else set()
    if not rows or not needed <= have:
        missing = ", ".join(sorted(needed - have)) or "every row"
        raise UsageError(f"--baseline {path}: not a sigmar bench CSV (missing {missing})")
    for number, row in enumerate(rows, start=1):
        try:
            float(row["seconds"])
        except (TypeError, ValueError):
            raise UsageError(f"--baseline {path}: row {number}: seconds {row['seconds']!r} is not a number") from None
    return rows


def scatter_pair(args: argparse.Namespace, names: list[str]) -> tuple[str, str] | None:
    """The two backends of ``--scatter``: ``--pair X,Y`` (both chosen, different) or the first two chosen."""
    if args.pair and not args.scatter:
        raise UsageError("--pair names the backends of --scatter; give --scatter PNG too")
    if not args.scatter:
        return None
    pair = [p.strip() for p in args.pair.split(",")] if args.pair else names[:2]
    if len(pair) != 2 or pair[0] == pair[1]:
        raise UsageError(f"--pair needs two different backends, as X,Y (got {args.pair or ','.join(names)!r})")
    missing = [p for p in pair if p not in names]
    if missing:
        raise UsageError(f"--pair: {', '.join(missing)} is not among the chosen backends ({', '.join(names)})")
    return pair[0], pair[1]


def check_outputs(args: argparse.Namespace) -> list[OutputLock]:
    """Fail before any run, with one line, when an output cannot be written or another run writes it.

    Each output is locked for the whole run (as ``-o/--output`` is, by its CsvSink): the caller releases them.
    """
    locks: list[OutputLock] = []
    try:
        for flag, path in (("--html", args.html), ("--plot", args.plot), ("--scatter", args.scatter)):
            if path:
                try:
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise UsageError(f"{flag} {path}: cannot write it ({exc.strerror or exc})") from None
                locks.append(OutputLock(path, f"{flag} file"))
        if args.xml:
            try:
                Path(args.xml).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"--xml {args.xml}: cannot make that folder ({exc.strerror or exc})") from None
            locks.append(OutputLock(args.xml, "--xml folder"))
        if args.aslib:
            locks.append(_aslib_folder(args.aslib))
    except BaseException:
        for lock in locks:
            lock.release()
        raise
    return locks


def _aslib_folder(folder: str) -> OutputLock:
    """``--aslib DIR``: a folder (made when missing), locked for the run; a file there is one line, exit 2."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--aslib {folder}: a file, not a folder (the scenario is a folder of six files)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--aslib {folder}: cannot make that folder ({exc.strerror or exc})") from None
    return OutputLock(folder, "--aslib folder")


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    recorded = _rerun(args) if args.rerun else None
    if not args.files:
        raise UsageError("give the board FILEs to bench, or --rerun RECORD")
    joining = apply_sat_cmd(args)  # cnf:external, with --sat-cmd
    _check_limits(args)
    baseline = read_baseline(args.baseline) if args.baseline else None
    boards_by_file = read_per_file(args.files, args.board, prefix=False)
    locks = check_outputs(args)  # after the boards: a malformed board file leaves no empty output behind
    try:
        return _run(args, boards_by_file, baseline, joining, summary, recorded)
    finally:
        for lock in locks:
            lock.release()


RECORD_LINE = "record: "  # the CSV header's line of the record (docs/formats.md#the-bench-record)


# What a rerun takes from its record, with each option's value when not given (a given one is refused).
RECORDED = {
    "backend": DEFAULT_BACKEND,
    "time_limit": DEFAULT_TIME_LIMIT,
    "jobs": 1,
    "repeat": 1,
    "family": None,
    "mem_limit": None,
    "sat_cmd": None,
    "board": None,
}


def _rerun(args: argparse.Namespace) -> Record:
    """Fill ``args`` from the record of ``--rerun``: its board files (checked unchanged), backends and options."""
    from sigmar.runners.bench import resolve
    from sigmar.runners.statistics.record import RecordError, read_record

    given = [f"--{k.replace('_', '-')}" for k, default in RECORDED.items() if getattr(args, k) != default]
    if args.files or given:
        what = ", ".join(([f"FILE {args.files[0]}"] if args.files else []) + given)
        raise UsageError(
            f"--rerun takes the boards, backends and options from its record, not {what}; beside it give only "
            "outputs (-o, --html, --xml, --aslib, --plot, --scatter, --pair, --baseline, --json, --quiet), --verbose "
            "or --cluster"
        )
    try:
        record = read_record(args.rerun)
        args.files = [argument for argument, _ in resolve(record)]
    except RecordError as exc:
        raise UsageError(f"--rerun {exc}") from None
    options = record.options
    args.backend = ",".join(b.name for b in record.backends)
    args.sat_cmd = next((b.sat_cmd for b in record.backends if b.sat_cmd), None)
    if args.sat_cmd:
        try:
            sat_command(args.sat_cmd)
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"--rerun {args.rerun}: its --sat-cmd {args.sat_cmd!r}: {exc}") from None
    for key in ("time_limit", "jobs", "repeat", "family", "mem_limit", "board"):
        if key in options:
            setattr(args, key, options[key])
    return record


def _run(
    args: argparse.Namespace,
    boards_by_file: list[tuple[str, list[Board]]],
    baseline: Any,
    joining: list[str],
    summary: Summary,
    recorded: Record | None = None,
) -> int:
    # On a cluster, which backends ``all`` runs is the workers' to say (as survey's and fuzz's): asked here, each
    # built-in imports its solver (OR-Tools, python-sat, MiniZinc with its solver list) for runs made there.
    everything = bool(args.cluster) and names_all(args.backend)
    names = [*chosen_backends(args.backend, check=not everything), *joining]
    pair = None if everything else scatter_pair(args, names)
    client = dask_client(args.cluster) if args.cluster else None
    try:
        if everything:
            names = _on_the_workers(client, names)
            pair = scatter_pair(args, names)
        runs = plan(boards_by_file, names, args.repeat, args.family)
        executor, where = _executor(args, runs, client)
        record = _record(args, boards_by_file, names, recorded, _worker_backends(client, names, args.sat_cmd))
    except BaseException:
        if client is not None:
            client.close()
        raise
    header = machine_lines(names, args.time_limit, where, _workers(client))
    if args.repeat > 1:
        header.append(f"repeat {args.repeat}: each board and backend run {args.repeat} times")
    if args.mem_limit:
        header.append(f"memory limit {args.mem_limit:g} MB per run (RSS of the worker and its children)")
    header += [*record.header_lines(), f"{RECORD_LINE}{record.text()}"]
    started = datetime.now(UTC)
    result = _measure(args, runs, names, executor, client, header, record)
    report, common = _report(args, boards_by_file, names, header, result, baseline, record)
    if args.xml:
        from sigmar.runners.render.benchexec_xml import write_xml

        write_xml(args.xml, result.rows, names, record, args.time_limit, args.mem_limit, started)
    if args.aslib:
        _write_aslib(args, boards_by_file, result.rows)
    if args.html:
        from sigmar.runners.render.bench_html import write_html

        write_html(args.html, report, [b for _, bs in boards_by_file for b in bs])
    if args.plot:
        title = f"sigmar bench: {sum(len(b) for _, b in boards_by_file)} boards, limit {args.time_limit:g} s"
        cactus_plot(args.plot, result.rows, names, args.time_limit, title)
    if pair is not None:
        from sigmar.runners.render.bench_plots import save_png, scatter_figure

        write_file(args.scatter, save_png(scatter_figure(result.rows, *pair, args.time_limit)))
    if not args.json and not args.quiet:
        _print_summary(args, report, common, baseline is not None, pair)
    board_results = [v.result.with_(wrong=True) if v.any_wrong or not v.agree else v.result for _, v in result.verdicts]
    summary.print(board_results)
    return exit_code(board_results)


def _write_aslib(args: argparse.Namespace, boards_by_file: list[tuple[str, list[Board]]], rows: list[Any]) -> None:
    from sigmar.runners.bench import COLUMNS
    from sigmar.runners.statistics.aslib import write_scenario

    boards = {(file, board.name): board for file, bs in boards_by_file for board in bs}
    name = "sigmar-" + "-".join(Path(file.split(":")[0]).stem for file, _ in boards_by_file)[:80]
    plain = [dict(zip(COLUMNS, row.values(), strict=True)) for row in rows]
    write_scenario(args.aslib, plain, boards, args.time_limit, name=name, memory_mb=args.mem_limit)


def _record(
    args: argparse.Namespace,
    boards_by_file: list[tuple[str, list[Board]]],
    names: list[str],
    old: Record | None,
    backends: list[Any] | None = None,
) -> Record:
    """This bench's record; for a rerun, held to the old one: the same boards and backends, or exit 2 (the
    versions and options of the backends may differ, and are said).  ``backends``: the backends' records as
    the machine that runs them has them (a cluster's worker), else this machine's."""
    from sigmar.runners.bench import differences, make_record, this_machine

    options = {
        "time_limit": args.time_limit,
        "jobs": args.jobs,
        "repeat": args.repeat,
        "family": args.family,
        "mem_limit": args.mem_limit,
        "cluster": args.cluster,
        "board": args.board,
    }
    per_argument = [(arg, path, boards) for arg, (path, boards) in zip(args.files, boards_by_file, strict=True)]
    record = make_record(args.argv, per_argument, names, options, args.sat_cmd, this_machine(), backends)
    if old is None:
        return record
    if [f.boards for f in old.files] != [f.boards for f in record.files]:
        raise UsageError(f"--rerun {args.rerun}: the board files give other boards than the record names")
    if [b.name for b in old.backends] != [b.name for b in record.backends]:
        raise UsageError(f"--rerun {args.rerun}: the backends here are not the record's")
    if not args.quiet:
        boards = sum(len(f.boards) for f in record.files)
        print(f"rerun of: {old.command} ({boards} boards, recorded {old.started})", file=sys.stderr)
        for note in differences(old, record):
            print(f"rerun: {note}", file=sys.stderr)
    return record


def _report(
    args: argparse.Namespace,
    boards_by_file: list[tuple[str, list[Board]]],
    names: list[str],
    header: list[str],
    result: Any,
    baseline: list[dict[str, str]] | None,
    record: Record | None = None,
) -> tuple[Report, int]:
    """Everything the summary and the HTML report show, and how many runs the baseline shares."""
    speedups, changes, common = compare(result.rows, baseline) if baseline is not None else (None, [], 0)
    boards = sum(len(b) for _, b in boards_by_file)
    warning = busy_warning(result.rows)  # a busy machine: ranked by CPU-time PAR-2, and said so
    notes = baseline_notes(result.rows, baseline, args.time_limit, record, _old_record(args)) if baseline else []
    report = Report(
        f"sigmar bench: {boards} boards, {len(names)} backends",
        header,
        names,
        result.rows,
        result.verdicts,
        summarise(result.rows, names, args.time_limit, by_cpu=warning is not None),
        vbs(result.rows, names, args.time_limit),
        args.time_limit,
        speedups,
        changes,
        comparisons=paired_comparisons(result.rows, names),
        pairwise=pairwise_scores(result.rows, names),
        warning=warning,
        repeat=args.repeat,
        record=record,
        baseline_notes=notes,
    )
    return report, common


def _old_record(args: argparse.Namespace) -> Record | None:
    """The baseline's record, when it has one (a CSV written before records has none)."""
    from sigmar.runners.statistics.record import RecordError, read_record

    try:
        return read_record(args.baseline)
    except RecordError:
        return None


def _check_limits(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.family and len(args.family) != len(args.files):
        raise UsageError(
            f"--family names the family of each FILE in order: {len(args.files)} files but {len(args.family)} names"
        )
    if args.mem_limit is not None and not args.mem_limit > 0:
        raise UsageError(f"--mem-limit must be a positive number of MB, not {args.mem_limit:g}")


def _executor(args: argparse.Namespace, runs: list[Any], client: Any) -> tuple[Any, str]:
    """The runs' answers as they come (local workers, or the Dask cluster of ``client``) and where they run."""
    if client is None:
        where = f"local worker processes, jobs {args.jobs}"
        return run_local(runs, args.time_limit, args.jobs, mem_limit_mb=args.mem_limit), where
    from sigmar.runners.cluster import describe, run_cluster

    return run_cluster(runs, args.time_limit, client, mem_limit_mb=args.mem_limit), describe(client)


def _on_the_workers(client: Any, names: list[str]) -> list[str]:
    """Of every built-in backend (``-b all`` on a cluster), those the workers have; where no worker can say, those
    this machine has, asked here as without a cluster."""
    from sigmar.runners.cluster import worker_available

    found = worker_available(client, names)
    if found is None:
        found = [name for name in names if name in set(chosen_backends("all"))]
    if not found:
        raise UsageError("no backend of 'all' is available on the cluster's workers; see 'sigmar backends' there")
    return found


def _worker_backends(client: Any, names: list[str], sat_cmd: str | None) -> list[Any] | None:
    """The backends' records (their solvers' versions) as a worker of the cluster has them (None when local, or
    when no worker can say: the record is then this machine's)."""
    if client is None:
        return None
    from sigmar.runners.cluster import worker_backends

    return worker_backends(client, names, sat_cmd)


def _workers(client: Any) -> list[str] | None:
    """The worker machines' lines of the header under ``--cluster`` (None when local)."""
    if client is None:
        return None
    from sigmar.runners.cluster import worker_machines

    return worker_machines(client)


def _measure(
    args: argparse.Namespace,
    runs: list[Any],
    names: list[str],
    executor: Any,
    client: Any,
    header: list[str],
    record: Record,
) -> Any:
    """Every run with a progress bar; the CSV written board by board as they are graded."""
    sink = None
    if args.output:
        try:
            sink = CsvSink(args.output, header)
        except OSError as exc:
            if client is not None:
                client.close()
            raise UsageError(f"--output {args.output}: cannot write it ({exc.strerror or exc})") from None

    def print_json(board: Board, verdict: BoardVerdict, answers: dict[str, Result]) -> None:
        print(dumps(graded_json(board, verdict, answers)), flush=True)

    if args.json:  # the first line: what ran (docs/formats.md#the-bench-record)
        print(dumps({"record": record.to_json()}), flush=True)

    try:
        with progress_bar(quiet=args.quiet) as progress:
            task = progress.add_task(f"{len(runs)} runs", total=len(runs))

            def on_done(run_: Any, answer: Result) -> None:
                progress.update(task, advance=1, description=f"{run_.backend} {answer.status}")
                progress.refresh()

            return bench(
                runs, names, executor, on_done, sink.write if sink else None, print_json if args.json else None
            )
    except ClusterError as exc:  # the scheduler was lost: the CSV keeps what was measured
        raise UsageError(str(exc)) from None
    finally:
        if client is not None:
            client.close()
        if sink is not None:
            sink.close()


def _print_summary(
    args: argparse.Namespace, report: Report, common: int, with_baseline: bool, pair: tuple[str, str] | None
) -> None:
    console = table_console()
    say = partial(console.print, soft_wrap=True)  # sentences are not wrapped: a script may read them
    for line in report.header:
        if not line.startswith(RECORD_LINE):  # the record's JSON is for programs (the CSV keeps it)
            say(Text(f"# {line}", style="dim"))
    best = report.vbs
    print_table(console, answers_table(report.summaries, best, report.speedups, by_cpu=report.by_cpu), keys=2)
    print_table(console, times_table(report.summaries, best, report.repeat > 1))
    for name in best.members:
        worse, fastest = fmt(best.marginal[name]), best.winners[name]
        say(Text(f"VBS without {name}: PAR-2 worse by {worse} s (fastest on {fastest} boards)"))
    if len(report.families) > 1:
        print_table(console, family_table(report.rows, report.names, report.time_limit), keys=2)
    if report.comparisons:
        say(
            Text(
                "Paired comparisons (geometric mean of seconds over the boards both answered correctly, 95% "
                "paired-bootstrap interval, Wilcoxon signed-rank test with p Holm-adjusted over the pairs; "
                f"below {MIN_BOARDS} boards only the counts):"
            )
        )
        for sentence in paired_lines(report.comparisons):
            say(sentence)
        print_table(console, pairwise_table(report.pairwise, report.board_count))
    if with_baseline:
        _print_baseline(say, args, report, common)
    for board, verdict in report.verdicts:
        for note in verdict.notes:
            say(Text.assemble((board.name, "bold red"), f": {note}"))
    if report.warning:
        say(Text(report.warning, style="bold yellow"))
    written = [
        (args.output, f"wrote {args.output}"),
        (args.plot, f"drew {args.plot}"),
        (pair, f"drew {args.scatter} ({pair[0]} against {pair[1]})" if pair else ""),
        (args.html, f"wrote {args.html}"),
        (args.xml, f"wrote BenchExec results in {args.xml}"),
        (args.aslib, f"wrote the ASlib scenario in {args.aslib}"),
    ]
    for given, line in written:
        if given:
            say(Text(line))


def _print_baseline(say: Any, args: argparse.Namespace, report: Report, common: int) -> None:
    """The lines of ``--baseline``: where it is not like this bench, each backend's speedup, the changed boards."""
    if not common:
        say(Text(f"--baseline {args.baseline}: no board and backend in common with this bench", "yellow"))
    for note in report.baseline_notes:
        say(Text(note, "bold yellow"))
    for name, speedup in (report.speedups or {}).items():
        say(Text(speedup_sentence(name, speedup)))
    for change in report.changes:
        what = f" {change.backend}: {change.why}: {change.old} -> {change.new}"
        say(Text.assemble((change.board, "yellow"), what))
