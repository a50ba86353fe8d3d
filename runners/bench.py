"""The benchmark engine: every backend alone on every board, timed, graded, written out.

A run is one (board, backend) pair, or with ``--repeat N`` one of its N
repetitions.  Each run gets the backend to itself
(no race), in a worker process that is killed and replaced when the backend
overstays its time limit or dies, so one bad run costs one row and nothing
else.  ``seconds`` is the wall time of ``solve`` inside the worker: process
start-up and the parent's checking are not the backend's time.  The worker
also measures each run's CPU time and peak memory, its solver children
included (:mod:`sigmar.encoders.processes.usage`), and holds it to ``--mem-limit``.

Runs go to ``jobs`` local worker processes (default) or to an existing
Dask distributed cluster (:mod:`sigmar.runners.cluster`).  Answers are
checked in this process (the rule engine replays every solution) and graded
per board across the backends and repetitions (:mod:`sigmar.runners.checking.grading`).
Each row also records the machine's load average when its answer came in,
so a reader can see which numbers were taken on a busy machine.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import hashlib
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from sigmar.encoders import registry
from sigmar.encoders.processes.usage import load_average
from sigmar.models.board import Board
from sigmar.models.output_files import OutputLock, cannot_write, write_file
from sigmar.models.result import Result, Status
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.grading import BoardVerdict, Grade, grade_board
from sigmar.runners.checking.intake import taken_in
from sigmar.runners.checking.replay import replayed
from sigmar.runners.statistics.cost import NO_USAGE, Usage
from sigmar.runners.statistics.record import BackendRecord, FileRecord, Record, RecordError
from sigmar.runners.statistics.runs import Row, Summary
from sigmar.runners.statistics.scores import cpu_par2, par2, percentile, representatives, spread, vbs
from sigmar.runners.workers import Worker, WorkerSet, with_output

COLUMNS = (
    "file",
    "board",
    "backend",
    "status",
    "reason",
    "seconds",
    "cpu_seconds",
    "memory_mb",
    "grade",
    "moves",
    "verified",
    "message",
    "certified",
    "certificate",
    "family",
    "repeat",
    "cpu_wall",
    "load1",
    "truth",
    "answered_by",
)
# What an executor yields: a run, its raw answer, and what it cost (None where nothing was measured).
Outcome = tuple["Run", Result, Usage | None]


@dataclass(frozen=True)
class Run:
    """One (board, backend) pair to time; ``repeat`` counts its repetitions from 1."""

    index: int
    file: str
    board: Board
    backend: str
    board_index: int = 0  # the board's place in the bench, from 0
    repeat: int = 1
    family: str = ""  # the board's family (its file, or the name --family gave it)


def plan(
    boards_by_file: list[tuple[str, list[Board]]],
    names: list[str],
    repeat: int = 1,
    families: list[str] | None = None,
) -> list[Run]:
    """Board-major order: every backend on board 1 (``repeat`` times, backends in turn), then on board 2, ...

    A board's repetitions follow one another, each going through every backend,
    so the runs that a paired comparison sets side by side ran close in time.
    ``families`` names each file's family (default: the file itself).
    """
    runs: list[Run] = []
    board_index = 0
    for position, (file, boards) in enumerate(boards_by_file):
        family = families[position] if families else file
        for board in boards:
            for rep in range(1, repeat + 1):
                for name in names:
                    runs.append(Run(len(runs), file, board, name, board_index, rep, family))
            board_index += 1
    return runs


def run_label(name: str, repeat: int) -> str:
    """How a run is named when a board is graded: the backend, and its repetition from the second on."""
    return name if repeat == 1 else f"{name} (run {repeat})"


# -- local worker processes ------------------------------------------------------


class WorkerPool:
    """Idle workers kept per backend: a worker only ever runs one backend.

    So a run's memory is its own backend's (a Python heap rarely shrinks:
    a worker that had just run CP-SAT would lend its size to the next
    backend's run), and no backend's caches warm up another's.
    """

    def __init__(self, mem_limit_mb: float | None) -> None:
        self.mem_limit_mb = mem_limit_mb
        self.idle: dict[str, list[Worker]] = {}
        self.live: list[Worker] = []
        self.started = 0

    def take(self, backend: str) -> Worker:
        spare = self.idle.get(backend, [])
        while spare:
            worker = spare.pop()
            if worker.alive():
                return worker
            self.retire(worker)
        worker = Worker(f"bench-{self.started}", mem_limit_mb=self.mem_limit_mb, measure=True)
        self.started += 1
        self.live.append(worker)
        return worker

    def give_back(self, backend: str, worker: Worker) -> None:
        self.idle.setdefault(backend, []).append(worker)

    def retire(self, worker: Worker) -> None:
        worker.kill()
        if worker in self.live:
            self.live.remove(worker)

    def kill_all(self) -> None:
        for worker in self.live:
            worker.kill()


def run_local(
    runs: list[Run], time_limit: float | None, jobs: int = 1, slack: float = 1.0, mem_limit_mb: float | None = None
) -> Iterator[Outcome]:
    """Yield (run, raw answer, usage) as runs finish, ``jobs`` at a time in worker processes.

    A run still going ``slack`` seconds past the time limit is killed
    (``unknown``); a worker that dies gives ``error``; a run over
    ``mem_limit_mb`` gives ``error`` (reason memory) and a fresh worker.
    Workers are replaced as needed and all killed at the end, even when the
    caller stops early.
    """
    todo = list(reversed(runs))
    pool = WorkerPool(mem_limit_mb)
    busy: WorkerSet[Worker] = WorkerSet()
    running: dict[Worker, tuple[Run, float]] = {}  # worker -> (run, started)
    try:
        while todo or busy:
            while todo and len(busy) < max(1, jobs):
                run = todo.pop()
                worker = pool.take(run.backend)
                worker.submit(run.index, run.backend, run.board, time_limit)
                started = time.perf_counter()
                deadline = None if time_limit is None else started + time_limit + slack
                busy.add(worker, worker, run.backend, deadline, time_limit)
                running[worker] = (run, started)
            for heard in busy.wait():
                run, started = running.pop(heard.worker)
                done = heard.done
                if done is None:  # it died, or outlived the time limit
                    pool.retire(heard.worker)
                    yield run, heard.answer(time.perf_counter() - started), None
                    continue
                if done.usage is not None and done.usage.over_memory:
                    pool.retire(heard.worker)  # its watchdog may be taking it down; start clean
                else:
                    pool.give_back(run.backend, heard.worker)
                answer = taken_in(done.result, run.backend).with_(seconds=done.seconds)
                yield run, with_output(answer, done.output), done.usage
    finally:
        pool.kill_all()


# -- the whole benchmark ---------------------------------------------------------


@dataclass
class BenchResult:
    rows: list[Row]
    verdicts: list[tuple[Board, BoardVerdict]]


def bench(
    runs: list[Run],
    names: list[str],
    executor: Iterable[Outcome],
    on_done: Callable[[Run, Result], None] | None = None,
    on_board: Callable[[list[Row]], None] | None = None,
    on_verdict: Callable[[Board, BoardVerdict, dict[str, Result]], None] | None = None,
) -> BenchResult:
    """Collect every run's answer from ``executor``, check it and its certificate, and grade each board.

    A board is graded as soon as every backend answered it (every repetition),
    against the answers of all of them, and its rows go to ``on_board`` then
    (the CSV is written row by row, so a killed bench keeps what it measured),
    and the board, its verdict and the answers to ``on_verdict``.
    """
    by_board: dict[int, list[Run]] = {}
    for run in runs:
        by_board.setdefault(run.board_index, []).append(run)
    answers: dict[int, dict[str, tuple[Result, Usage | None, float]]] = {}
    graded: dict[int, tuple[list[Row], tuple[Board, BoardVerdict]]] = {}

    def grade(index: int) -> None:
        board_runs = by_board[index]
        board = board_runs[0].board
        got = answers.pop(index, {})
        ordered = [(run, got[label]) for run in board_runs if (label := run_label(run.backend, run.repeat)) in got]
        by_label = {run_label(run.backend, run.repeat): answer for run, (answer, _, _) in ordered}
        verdict = grade_board(board, by_label)
        rows = [
            Row(
                run.file,
                board.name,
                run.backend,
                answer,
                verdict.grades[run_label(run.backend, run.repeat)],
                usage or NO_USAGE,
                run.repeat,
                run.family,
                load,
                verdict.truth,
            )
            for run, (answer, usage, load) in ordered
        ]
        graded[index] = (rows, (board, verdict))
        if on_board is not None:
            on_board(rows)
        if on_verdict is not None:
            on_verdict(board, verdict, by_label)

    try:
        with ProofStore() as proofs:
            for run, raw, usage in executor:
                answer = certify(run.board, replayed(run.board, raw, run.backend), proofs)
                index = run.board_index
                answers.setdefault(index, {})[run_label(run.backend, run.repeat)] = (answer, usage, load_average())
                if on_done is not None:
                    on_done(run, answer)
                if len(answers[index]) == len(by_board[index]):
                    grade(index)
    finally:
        # Whatever ended the loop (an error while checking, Ctrl-C), the executor stops now: its workers are
        # killed here, not left running (a local worker is not a daemon, so exit would wait for it for ever).
        close = getattr(executor, "close", None)
        if close is not None:
            close()
        # Boards a stopped or interrupted executor left part-answered: a CSV keeps them too.
        for index in sorted(answers):
            grade(index)
    ordered_boards = [graded[i] for i in sorted(graded)]
    return BenchResult([row for rows, _ in ordered_boards for row in rows], [v for _, v in ordered_boards])


# -- summary, CSV, plot ----------------------------------------------------------


def cpu_ratio(rows: list[Row]) -> float:
    measured = [r for r in rows if r.usage.cpu_seconds is not None]
    wall = sum(r.result.seconds for r in measured)
    return sum(r.usage.cpu_seconds or 0.0 for r in measured) / wall if wall > 0 else math.nan


def summarise(
    rows: list[Row], names: list[str], time_limit: float | None = None, *, by_cpu: bool = False
) -> list[Summary]:
    """Per backend (ranked, best first): counts by answer, certified and claimed apart, PAR-2 by wall and CPU
    time, overall and on solvable and unsolvable boards, percentiles over its answered runs, CPU and memory.

    With repetitions, each board counts once, through its median run (:func:`representatives`).  ``by_cpu``:
    ranked by CPU-time PAR-2 (the bench does so when the machine was busy: :func:`busy_warning`).
    """
    medians = representatives(rows)
    out = []
    for name in names:
        every = [r for r in rows if r.backend == name]
        mine = [r for r in medians if r.backend == name]
        times = sorted(r.result.seconds for r in mine if r.answered)
        memory = sorted(r.usage.memory_mb for r in every if r.usage.memory_mb is not None)
        unsolvable = [r for r in mine if r.result.status is Status.UNSOLVABLE and r.grade is not Grade.WRONG]
        out.append(
            Summary(
                backend=name,
                runs=len(mine),
                solved=sum(r.result.status is Status.SOLVED and r.grade is not Grade.WRONG for r in mine),
                unsolvable=len(unsolvable),
                unknown=sum(r.result.status is Status.UNKNOWN for r in mine),
                error=sum(r.result.status is Status.ERROR and r.grade is not Grade.WRONG for r in mine),
                wrong=sum(r.grade is Grade.WRONG for r in every),
                median=percentile(times, 50),
                p90=percentile(times, 90),
                p99=percentile(times, 99),
                max=times[-1] if times else math.nan,
                par2=par2(mine, time_limit, disqualify=every),
                cpu_ratio=cpu_ratio(every),
                memory_median=percentile(memory, 50),
                memory_max=memory[-1] if memory else math.nan,
                out_of_memory=sum(r.out_of_memory for r in mine),
                certified=sum(r.certified == "yes" for r in unsolvable),
                claimed=sum(r.certified == "no" for r in unsolvable),
                par2_cpu=cpu_par2(mine, time_limit, disqualify=every),
                par2_solvable=par2([r for r in mine if r.truth == "solvable"], time_limit, disqualify=every),
                par2_unsolvable=par2([r for r in mine if r.truth == "unsolvable"], time_limit, disqualify=every),
                spread=spread(every),
            )
        )
    return ranked(out, by_cpu=by_cpu)


def ranked(summaries: list[Summary], *, by_cpu: bool = False) -> list[Summary]:
    """Best first, each with its ``rank``: a backend with a wrong answer last, then most correct answers
    (a verified solution or a checked certificate; a claim is not one), then the lowest PAR-2 (by CPU time
    with ``by_cpu``: on a busy machine the wall times wait for a core, the CPU times much less).

    So a backend that only claims is never ranked above one that certifies the same
    boards in the same time: its claims are not correct answers and cost PAR-2 twice the limit.
    """

    def key(s: Summary) -> tuple[bool, int, float]:
        score = s.par2_cpu if by_cpu else s.par2
        return (s.wrong > 0, -s.correct, score if not math.isnan(score) else math.inf)

    order = sorted(summaries, key=key)
    return [replace(s, rank=place) for place, s in enumerate(order, start=1)]


BUSY_CPU_WALL = 0.8  # a median CPU/wall below this, over runs long enough to tell, means runs waited for a core
BUSY_MIN_SECONDS = 0.05  # runs shorter than this say little about CPU/wall (start-up, timer grain)


def busy_warning(rows: list[Row], cpus: int | None = None) -> str | None:
    """One line when the machine was busy while the bench ran, else None.

    Busy: the 1-minute load average went above the number of cores (some process
    waited for a core), or the runs' median CPU/wall was below ``BUSY_CPU_WALL``.
    Wall times are then inflated and noisy; the CPU-time scores much less so.
    """
    cpus = cpus or os.cpu_count() or 1
    loads = [r.load for r in rows if not math.isnan(r.load)]
    ratios = sorted(r.cpu_wall for r in rows if r.result.seconds >= BUSY_MIN_SECONDS and not math.isnan(r.cpu_wall))
    top = max(loads, default=math.nan)
    ratio = percentile(ratios, 50)
    why = []
    if top > cpus:
        why.append(f"load average up to {top:.1f} on {cpus} cores")
    if ratio < BUSY_CPU_WALL:
        why.append(f"median CPU/wall {ratio:.2f} over the runs of {BUSY_MIN_SECONDS:g} s or more")
    if not why:
        return None
    return (
        f"warning: the machine was busy ({'; '.join(why)}): wall times are inflated, so the backends are ranked "
        "by CPU-time PAR-2; compare the CPU-time scores, or run again on a quiet machine"
    )


def this_machine() -> str:
    """Where this process runs: platform, processor, CPU count and Python (a bench header's machine line)."""
    return (
        f"{platform.platform()}; {platform.processor() or platform.machine()}; "
        f"cpus {os.cpu_count()}; python {sys.version.split()[0]}"
    )


def machine_lines(
    names: list[str], time_limit: float | None, executor: str, workers: list[str] | None = None
) -> list[str]:
    """The CSV's comment header: where these numbers were measured (the backends, their versions and options
    follow in the run's record: runners/statistics/record.py).  On a cluster (``workers``: a line per kind
    of worker machine) the numbers come from the workers, so they are named, and this machine is the client."""
    where = "machine" if workers is None else "client machine"
    lines = [
        f"sigmar bench {datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"{where}: {this_machine()}",
        *(f"workers: {line}" for line in workers or ()),
        f"executor: {executor}; time limit {time_limit:g} s" if time_limit else f"executor: {executor}",
        f"load average at the start: {load_average():.2f} (1 minute)",
    ]
    return lines


class CsvSink:
    """The bench CSV, written row by row as boards are graded: a killed bench keeps what it measured.

    Opened (and so checked writable) before the first run, and locked for the whole run
    (:class:`~sigmar.models.output_files.OutputLock`): a second bench given the same file stops at
    once.  A write that fails (a full disk) removes the file and raises an OutputError.
    """

    def __init__(self, path: str | Path, header: list[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = OutputLock(self.path, "bench CSV")
        try:
            self._out = self.path.open("w", newline="")  # emptied under the lock
            for line in header:
                self._out.write(f"# {line}\n")
            self._writer = csv.writer(self._out)
            self._writer.writerow(COLUMNS)
            self._out.flush()
        except OSError as exc:
            self._fail(exc)

    def write(self, rows: list[Row]) -> None:
        try:
            for row in rows:
                self._writer.writerow(row.values())
            self._out.flush()
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> NoReturn:
        """No partial CSV: the file goes, and the error is one line."""
        with contextlib.suppress(OSError, AttributeError):
            self._out.close()  # its unwritten rows cannot be written either
        self.path.unlink(missing_ok=True)
        self.lock.release()
        raise cannot_write(self.path, exc)

    def close(self) -> None:
        try:
            self._out.close()
        except OSError as exc:
            self._fail(exc)
        finally:
            self.lock.release()


def write_csv(path: str | Path, rows: list[Row], header: list[str]) -> None:
    sink = CsvSink(path, header)
    try:
        sink.write(rows)
    finally:
        sink.close()


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """The rows of a bench CSV (comment lines skipped), for scripts and tests."""
    with Path(path).open(newline="") as src:
        return list(csv.DictReader(line for line in src if not line.startswith("#")))


def cactus_plot(path: str | Path, rows: list[Row], names: list[str], time_limit: float | None, title: str) -> None:
    """Boards answered (y) against time (x, log): one step line per backend and the virtual best solver's,
    dashed, as the HTML report draws it: the field's usual picture."""
    from sigmar.runners.render.bench_plots import cactus_figure, save_png

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    best = vbs(rows, names, time_limit)
    write_file(path, save_png(cactus_figure(rows, names, time_limit, title, best.times)))


# -- the bench's record (runners/statistics/record.py says what it holds and where it goes) ----------------
#
# Making one asks each backend for its exact name and options (an instance is made and dropped: the plugin
# contract keeps constructors cheap), digests each board file, and asks an external SAT solver for its own
# version: ``PROGRAM --version``, else the banner it prints on a formula of one clause (a solver that prints
# neither is recorded as "version unknown"), each within 5 seconds.  A ``--rerun`` is checked against it.

ASK_SECONDS = 5.0
# A line of a banner or of --version output that gives a version.
VERSION_LINE = re.compile(r"\bversion\b|\bv?\d+\.\d+(\.\d+)?\b", re.I)


def sha256(path: str) -> str:
    if path == "-":
        return ""
    digest = hashlib.sha256()
    with contextlib.suppress(OSError), open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
        return digest.hexdigest()
    return ""


def backend_record(name: str, sat_cmd: str | None) -> BackendRecord:
    """One backend: its exact name and options from an instance, its family's version, and for an external
    solver the command and the solver's own version."""
    family, _ = registry.split_name(name)
    found = registry.info(family)
    exact, options = name, {}
    try:
        backend = registry.make(name)
        exact = backend.name
        if dataclasses.is_dataclass(backend.options) and not isinstance(backend.options, type):
            options = {k: _plain(v) for k, v in dataclasses.asdict(backend.options).items()}
        own_cmd = getattr(backend, "sat_cmd", None)
    except Exception:  # a backend that cannot be made here is recorded by name: the bench reports its errors
        own_cmd = None
    command = own_cmd or (sat_cmd if name.endswith(":external") else None)
    return BackendRecord(
        name,
        exact,
        family,
        str(found.version),
        options,
        command,
        external_solver(command) if command else None,
    )


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def external_solver(command: str) -> dict[str, str]:
    """The program of a ``--sat-cmd`` command and its own version: ``--version``'s first line, else the
    banner's version line on a one-clause formula; and its Debian package and version where it has one."""
    program = shlex.split(command)[0]
    found = shutil.which(program) or program
    version = _asked([found, "--version"]) or _banner(found) or "version unknown"
    out = {"program": found, "version": version}
    package = debian_package(found)
    if package:
        out["package"] = package
    return out


def _asked(argv: list[str], stdin: str | None = None) -> str:
    """The first version line ``argv`` prints (standard output, then error), or ""."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=ASK_SECONDS, input=stdin or "", errors="replace"
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    for stream in (done.stdout, done.stderr):
        lines = [line.strip().removeprefix("c ").strip() for line in stream.splitlines() if line.strip()]
        if argv[-1] == "--version" and done.returncode == 0 and lines and len(lines[0]) < 100:
            return lines[0]
        for line in lines[:60]:
            if VERSION_LINE.search(line) and len(line) < 100:
                return line
    return ""


def _banner(program: str) -> str:
    """The version line of the banner a solver prints when it solves ``p cnf 1 1 / 1 0``."""
    with tempfile.TemporaryDirectory(prefix="sigmar-version-") as folder:
        path = Path(folder) / "one.cnf"
        path.write_text("p cnf 1 1\n1 0\n")
        return _asked([program, str(path)])


def debian_package(program: str) -> str:
    """``cadical 1.5.3-2`` when dpkg knows the file, else ""."""
    if not shutil.which("dpkg-query") or not os.path.isabs(program):
        return ""
    real = os.path.realpath(program)
    try:
        owner = subprocess.run(["dpkg-query", "-S", real], capture_output=True, text=True, timeout=ASK_SECONDS)
        package = owner.stdout.split(":", 1)[0].strip() if owner.returncode == 0 else ""
        if not package or " " in package:
            return ""
        shown = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True, timeout=ASK_SECONDS
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"{package} {shown.stdout.strip()}" if shown.returncode == 0 and shown.stdout.strip() else ""


def make_record(
    argv: list[str],
    per_argument: list[tuple[str, str, list[Board]]],
    names: list[str],
    options: dict[str, Any],
    sat_cmd: str | None,
    machine: str,
    backends: list[BackendRecord] | None = None,
) -> Record:
    """The record of a bench about to run: ``per_argument`` is each FILE argument, its file and its boards;
    ``backends``: the backends' records where another machine runs them (a cluster's worker), else made here."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        sigmar = version("sigmar")
    except PackageNotFoundError:
        sigmar = "(not installed)"
    files = [FileRecord(arg, path, sha256(path), [b.name for b in boards]) for arg, path, boards in per_argument]
    return Record(
        argv=list(argv),
        cwd=os.getcwd(),
        sigmar=sigmar,
        started=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        files=files,
        backends=backends if backends is not None else [backend_record(name, sat_cmd) for name in names],
        options=options,
        machine=machine,
        load1=round(load_average(), 2),
    )


def resolve(record: Record) -> list[tuple[str, str]]:
    """Each recorded FILE argument as it can be read here, and its path: as recorded when that path exists,
    else under the recorded folder.  A file whose content changed since (its SHA-256 differs) is a
    RecordError: it would not give the same boards."""
    out = []
    for entry in record.files:
        path = entry.path
        if not os.path.isabs(path) and not os.path.exists(path) and record.cwd:
            moved = os.path.join(record.cwd, path)
            if os.path.exists(moved):
                path = moved
        if not os.path.exists(path):
            raise RecordError(f"the recorded board file {entry.path} is not here (nor under {record.cwd})")
        digest = sha256(path)
        if entry.sha256 and digest != entry.sha256:
            raise RecordError(
                f"{path} changed since the record (SHA-256 {digest[:12]}…, recorded {entry.sha256[:12]}…): "
                "it would not give the same boards"
            )
        argument = path + entry.argument[len(entry.path) :] if entry.argument.startswith(entry.path) else path
        out.append((argument, path))
    return out


def differences(old: Record, new: Record) -> list[str]:
    """What differs between a record and its rerun's: the boards (an error for the caller), and the versions
    and options of the backends (notes: a rerun on a newer solver is a reason to rerun)."""
    notes = []
    for before, after in zip(old.backends, new.backends, strict=False):
        if before.version_text() != after.version_text():
            notes.append(f"{before.name}: version {after.version_text()} here, {before.version_text()} recorded")
        if before.options != after.options or before.exact != after.exact:
            notes.append(f"{before.name}: options {after.options_text()} here, {before.options_text()} recorded")
    return notes
