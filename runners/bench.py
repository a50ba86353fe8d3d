"""The benchmark engine: every backend alone on every board, timed, graded, written out.

A run is one (board, backend) pair.  Each run gets the backend to itself
(no race), in a worker process that is killed and replaced when the backend
overstays its time limit or dies, so one bad run costs one row and nothing
else.  ``seconds`` is the wall time of ``solve`` inside the worker: process
start-up and the parent's checking are not the backend's time.

Runs go to ``jobs`` local worker processes (default) or to an existing
Dask distributed cluster (:mod:`sigmar.runners.cluster`).  Answers are
checked in this process (the rule engine replays every solution) and graded
per board across the backends (:mod:`sigmar.runners.grading`).
"""

from __future__ import annotations

import csv
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sigmar.encoders import registry
from sigmar.models.board import Board
from sigmar.models.result import Result, Status

from .certify import ProofStore, certify
from .check import checked
from .grading import BoardVerdict, Grade, grade_board
from .workers import Worker

COLUMNS = ("file", "board", "backend", "status", "reason", "seconds", "grade", "moves", "verified", "message")


@dataclass(frozen=True)
class Run:
    """One (board, backend) pair to time."""

    index: int
    file: str
    board: Board
    backend: str


@dataclass(frozen=True)
class Row:
    """One line of the CSV: a run's checked answer and its grade."""

    file: str
    board: str
    backend: str
    result: Result
    grade: Grade

    def values(self) -> list[object]:
        r = self.result
        return [
            self.file,
            self.board,
            self.backend,
            str(r.status),
            str(r.reason) if r.reason else "",
            f"{r.seconds:.6f}",
            str(self.grade),
            len(r.moves) if r.status is Status.SOLVED else "",
            int(r.verified),
            r.message.replace("\n", " "),
        ]


def plan(boards_by_file: list[tuple[str, list[Board]]], names: list[str]) -> list[Run]:
    """Board-major order: every backend on board 1, then on board 2, ..."""
    runs: list[Run] = []
    for file, boards in boards_by_file:
        for board in boards:
            for name in names:
                runs.append(Run(len(runs), file, board, name))
    return runs


# -- local worker processes ------------------------------------------------------


def run_local(
    runs: list[Run], time_limit: float | None, jobs: int = 1, slack: float = 1.0
) -> Iterator[tuple[Run, Result]]:
    """Yield (run, raw answer) as runs finish, ``jobs`` at a time in worker processes.

    A run still going ``slack`` seconds past the time limit is killed
    (``unknown``); a worker that dies gives ``error``.  Workers are replaced
    as needed and all killed at the end, even when the caller stops early.
    """
    from multiprocessing.connection import wait

    todo = list(reversed(runs))
    workers = [Worker(f"bench-{i}") for i in range(max(1, min(jobs, len(runs))))]
    busy: dict[int, tuple[Run, float]] = {}  # worker slot -> (run, started)
    try:
        while todo or busy:
            for slot, worker in enumerate(workers):
                if slot not in busy and todo:
                    run = todo.pop()
                    if not worker.alive():
                        worker.restart()
                    worker.submit(run.index, run.backend, run.board, time_limit)
                    busy[slot] = (run, time.perf_counter())
            now = time.perf_counter()
            timeout = None
            if time_limit is not None:
                timeout = max(0.0, min(started + time_limit + slack for _, started in busy.values()) - now)
            handles: dict[Any, int] = {}
            for slot in busy:
                handles[workers[slot].conn] = slot
                handles[workers[slot].sentinel] = slot
            ready = wait(list(handles), timeout)
            for slot in dict.fromkeys(handles[h] for h in ready):
                worker = workers[slot]
                done = worker.receive() if worker.conn.poll() else None
                if done is None and worker.alive():
                    continue
                run, started = busy.pop(slot)
                if done is None:
                    message = f"{run.backend}: {worker.exit_description()} while solving"
                    yield run, Result(Status.ERROR, run.backend, time.perf_counter() - started, message=message)
                    worker.restart()
                else:
                    yield run, done.result.with_(seconds=done.seconds)
            if time_limit is not None:
                now = time.perf_counter()
                for slot, (run, started) in list(busy.items()):
                    if now - started > time_limit + slack:
                        busy.pop(slot)
                        workers[slot].restart()
                        message = f"no answer in {time_limit:g} s; killed"
                        yield run, Result(Status.UNKNOWN, run.backend, now - started, message=message)
    finally:
        for worker in workers:
            worker.kill()


# -- the whole benchmark ---------------------------------------------------------


@dataclass
class BenchResult:
    rows: list[Row]
    verdicts: list[tuple[Board, BoardVerdict]]


def bench(
    runs: list[Run],
    names: list[str],
    executor: Iterator[tuple[Run, Result]],
    on_done: Callable[[Run, Result], None] | None = None,
    on_rows: Callable[[list[Row]], None] | None = None,
) -> BenchResult:
    """Collect every run's answer from ``executor``, check it and its certificate, and grade each board.

    A board is graded, and its rows handed to ``on_rows``, as soon as its last
    run ends; when the executor fails or is interrupted, the boards begun so far
    are graded on what they have, so a CSV written from ``on_rows`` keeps every
    finished run.
    """
    per_board = len(names)
    answers: dict[int, dict[str, Result]] = {}
    graded: dict[int, tuple[Board, BoardVerdict, list[Row]]] = {}

    def grade(index: int) -> None:
        board_runs = runs[index * per_board : (index + 1) * per_board]
        board = board_runs[0].board
        got = answers.get(index, {})
        ordered = {r.backend: got[r.backend] for r in board_runs if r.backend in got}
        verdict = grade_board(board, ordered)
        rows = [
            Row(r.file, board.name, r.backend, ordered[r.backend], verdict.grades[r.backend])
            for r in board_runs
            if r.backend in ordered
        ]
        graded[index] = (board, verdict, rows)
        if on_rows is not None and rows:
            on_rows(rows)

    try:
        with ProofStore() as proofs:
            for run, raw in executor:
                answer = certify(run.board, checked(run.board, raw), proofs)
                got = answers.setdefault(run.index // per_board, {})
                got[run.backend] = answer
                if on_done is not None:
                    on_done(run, answer)
                if len(got) == per_board:
                    grade(run.index // per_board)
    finally:
        for index in sorted(set(answers) - set(graded)):
            grade(index)
    for index in range(len(runs) // per_board):
        if index not in graded:
            grade(index)
    ordered_boards = [graded[i] for i in sorted(graded)]
    return BenchResult([row for _, _, rows in ordered_boards for row in rows], [(b, v) for b, v, _ in ordered_boards])


class CsvLog:
    """The bench CSV, opened before the first run and written a board at a time (flushed each time)."""

    def __init__(self, path: str | Path, header: list[str]) -> None:
        self._file = Path(path).open("w", newline="")  # noqa: SIM115 (open across the run; close() closes it)
        for line in header:
            self._file.write(f"# {line}\n")
        self._writer = csv.writer(self._file)
        self._writer.writerow(COLUMNS)
        self._file.flush()

    def write(self, rows: list[Row]) -> None:
        for row in rows:
            self._writer.writerow(row.values())
        self._file.flush()

    def close(self) -> None:
        self._file.close()


# -- summary, CSV, plot ----------------------------------------------------------


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of an ascending list."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def answered(row: Row) -> bool:
    """A run that counts on the cactus plot: a definite answer that is not wrong."""
    return row.result.status in (Status.SOLVED, Status.UNSOLVABLE) and row.grade is not Grade.WRONG


@dataclass(frozen=True)
class Summary:
    backend: str
    runs: int
    solved: int
    unsolvable: int
    unknown: int
    error: int
    wrong: int
    median: float
    p90: float
    p99: float
    max: float


def summarise(rows: list[Row], names: list[str]) -> list[Summary]:
    """Per backend: counts by answer, and time percentiles over its answered runs."""
    out = []
    for name in names:
        mine = [r for r in rows if r.backend == name]
        times = sorted(r.result.seconds for r in mine if answered(r))
        out.append(
            Summary(
                backend=name,
                runs=len(mine),
                solved=sum(r.result.status is Status.SOLVED and r.grade is not Grade.WRONG for r in mine),
                unsolvable=sum(r.result.status is Status.UNSOLVABLE and r.grade is not Grade.WRONG for r in mine),
                unknown=sum(r.result.status is Status.UNKNOWN for r in mine),
                error=sum(r.result.status is Status.ERROR and r.grade is not Grade.WRONG for r in mine),
                wrong=sum(r.grade is Grade.WRONG for r in mine),
                median=percentile(times, 50),
                p90=percentile(times, 90),
                p99=percentile(times, 99),
                max=times[-1] if times else math.nan,
            )
        )
    return out


def machine_lines(names: list[str], time_limit: float | None, executor: str) -> list[str]:
    """The CSV's comment header: where and with what these numbers were measured."""
    lines = [
        f"sigmar bench {datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"machine: {platform.platform()}; {platform.processor() or platform.machine()}; "
        f"cpus {os.cpu_count()}; python {sys.version.split()[0]}",
        f"executor: {executor}; time limit {time_limit:g} s" if time_limit else f"executor: {executor}",
    ]
    seen = set()
    for name in names:
        family = registry.split_name(name)[0]
        if family in seen:
            continue
        seen.add(family)
        found = registry.info(family)
        lines.append(f"backend {family}: version {found.version}; available {found.available}")
    return lines


def write_csv(path: str | Path, rows: list[Row], header: list[str]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as out:
        for line in header:
            out.write(f"# {line}\n")
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow(row.values())


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """The rows of a bench CSV (comment lines skipped), for scripts and tests."""
    with Path(path).open(newline="") as src:
        return list(csv.DictReader(line for line in src if not line.startswith("#")))


def cactus_plot(path: str | Path, rows: list[Row], names: list[str], time_limit: float | None, title: str) -> None:
    """Boards answered (y) against time (x, log): one step line per backend, the field's usual picture."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    floor = 1e-4
    for name in names:
        times = sorted(max(r.result.seconds, floor) for r in rows if r.backend == name and answered(r))
        if not times:
            ax.plot([], [], label=f"{name} (0)")
            continue
        ax.step([floor, *times], [0, *range(1, len(times) + 1)], where="post", label=f"{name} ({len(times)})")
    if time_limit:
        ax.axvline(time_limit, color="grey", linestyle=":", linewidth=1, label=f"time limit {time_limit:g} s")
    boards = len({(r.file, r.board) for r in rows})
    ax.set_xscale("log")
    ax.set_xlabel("time per board (s, log scale)")
    ax.set_ylabel(f"boards answered (of {boards})")
    ax.set_ylim(0, max(boards, 1) * 1.02)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
