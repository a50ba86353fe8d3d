"""The race's tail on easy boards: search alone (in this process, through one worker) against the race.

Target (issue 15): on hexmatch-easy boards 400-599, the race's p99 per board
is at most 30 ms.  The race of every backend is compared with what it is
built around, the search backend alone, on the same boards in ONE run,
interleaved board by board (the order of the variants rotates from board to
board), so that the load of this shared machine falls on every variant alike:

- ``search in-process``: the backend's ``solve`` and the rule engine's replay, here;
- ``search, one worker``: the race machinery around search alone (fork, pipes, checks);
- ``race, 20 ms head start``: every backend, the leader's head start fixed at 20 ms (as before);
- ``race``: every backend, as ``sigmar solve`` runs them now.

A board's time is the wall time of the call, checks included.  After each
race call the script waits (untimed, at most 1 s) until the losers have
stopped, so that they do not slow the next variant down; how long that took
is reported as ``settle``.  Overhead per board: the variant's mean minus the
in-process mean, and the same for p99.  ``outside solve``: a board's wall time
less the winner's own ``solve`` (in its worker for the races): where the
machinery's time goes (pickling, pipes, waking the processes, the replay).

    python scripts/bench/race_tail.py                          # hexmatch-easy 400-599
    python scripts/bench/race_tail.py --first 0 --count 100 --rounds 2

Prints a table and writes results/bench_race_tail.json (per-board times too) and .md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from benchlib import board_file, markdown_table, percentile, publish

from sigmar.encoders import registry
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Status
from sigmar.runners.checking.replay import counts_answer, replayed
from sigmar.runners.race import Race


class FixedHeadStart(Race):
    """The race as it was: the leader's head start is always ``stagger`` (20 ms)."""

    def head_start(self, leader: str) -> float:
        return self.stagger


def settle(race: Race, limit: float = 1.0) -> float:
    """Wait until every worker of ``race`` is idle (its stopped job answered), at most ``limit`` s."""
    start = time.perf_counter()
    for worker in race.workers.values():
        while worker.job_id is not None and worker.alive():
            left = limit - (time.perf_counter() - start)
            if left <= 0 or not worker.conn.poll(left):
                return time.perf_counter() - start
            worker.receive()
    return time.perf_counter() - start


Answer = tuple[bool, str, bool, float]  # answered, winner, others started, the winner's own solve seconds


class Variant:
    """One way of answering a board, with its per-board times."""

    def __init__(self, label: str, answer: Callable[[Board], Answer], race: Race | None = None):
        self.label, self.answer, self.race = label, answer, race
        self.seconds: list[float] = []
        self.outside: list[float] = []  # wall time of the call less the winner's solve: IPC, checks, waiting
        self.settle: list[float] = []
        self.answered = 0
        self.others_ran = 0  # boards on which a backend other than the winner was started
        self.wins: dict[str, int] = {}

    def run(self, board: Board) -> None:
        start = time.perf_counter()
        ok, winner, others, solve = self.answer(board)
        self.seconds.append(time.perf_counter() - start)
        self.outside.append(self.seconds[-1] - solve)
        self.answered += ok
        self.others_ran += others
        self.wins[winner] = self.wins.get(winner, 0) + 1
        if self.race is not None:
            self.settle.append(settle(self.race))


def in_process(time_limit: float) -> Callable[[Board], Answer]:
    backend = registry.make("search")

    def answer(board: Board) -> Answer:
        early = counts_answer(board)
        start = time.perf_counter()
        result = early if early is not None else backend.solve(board, time_limit)
        solve = time.perf_counter() - start
        result = result if early is not None else replayed(board, result)
        return result.status in (Status.SOLVED, Status.UNSOLVABLE), result.backend, False, solve

    return answer


def raced(race: Race, time_limit: float) -> Callable[[Board], Answer]:
    def answer(board: Board) -> Answer:
        outcome = race.solve(board, time_limit)
        busy = {name for name, worker in race.workers.items() if worker.job_id == race._job}
        result = outcome.result
        others = bool((busy | set(outcome.answers)) - {result.backend})
        own = outcome.answers.get(result.backend)  # seconds: the solve inside its worker
        solve = own.seconds if own is not None else 0.0
        return result.status in (Status.SOLVED, Status.UNSOLVABLE), result.backend, others, solve

    return answer


def summary(variant: Variant, base: Variant) -> dict[str, Any]:
    seconds = variant.seconds
    return {
        "run": variant.label,
        "boards": len(seconds),
        "answered": variant.answered,
        "median_ms": 1000 * statistics.median(seconds),
        "p99_ms": 1000 * percentile(seconds, 99),
        "max_ms": 1000 * max(seconds),
        "mean_ms": 1000 * statistics.fmean(seconds),
        "overhead_mean_ms": 1000 * (statistics.fmean(seconds) - statistics.fmean(base.seconds)),
        "overhead_p99_ms": 1000 * (percentile(seconds, 99) - percentile(base.seconds, 99)),
        "outside_solve_median_ms": 1000 * statistics.median(variant.outside),
        "outside_solve_p99_ms": 1000 * percentile(variant.outside, 99),
        "others_started": variant.others_ran,
        "settle_median_ms": 1000 * statistics.median(variant.settle) if variant.settle else None,
        "wins": variant.wins,
    }


def table(rows: list[dict[str, Any]], heading: str) -> str:
    header = (
        "run",
        "answered",
        "median ms",
        "p99 ms",
        "max ms",
        "mean ms",
        "overhead mean ms",
        "overhead p99 ms",
        "outside solve median / p99 ms",
        "others started",
        "settle median ms",
    )
    cells = [
        (
            r["run"],
            f"{r['answered']}/{r['boards']}",
            f"{r['median_ms']:.1f}",
            f"{r['p99_ms']:.1f}",
            f"{r['max_ms']:.1f}",
            f"{r['mean_ms']:.1f}",
            f"{r['overhead_mean_ms']:+.1f}",
            f"{r['overhead_p99_ms']:+.1f}",
            f"{r['outside_solve_median_ms']:.1f} / {r['outside_solve_p99_ms']:.1f}",
            r["others_started"],
            "" if r["settle_median_ms"] is None else f"{r['settle_median_ms']:.1f}",
        )
        for r in rows
    ]
    return f"{heading}\n\n{markdown_table(header, cells)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--file", default=str(board_file("hexmatch-easy")), help="board file (default: instances/hexmatch-easy.txt.xz)"
    )
    parser.add_argument("--first", type=int, default=400, help="index of the first board (default 400)")
    parser.add_argument("--count", type=int, default=200, help="how many boards (default 200)")
    parser.add_argument("--rounds", type=int, default=1, help="go through the boards this many times")
    parser.add_argument("--backend", default="all", help="backends of the race (default all available)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", default="results/bench_race_tail")
    args = parser.parse_args(argv)

    boards = read_boards(args.file)[args.first : args.first + args.count]
    if not boards:
        print(f"no boards {args.first}..{args.first + args.count - 1} in {args.file}", file=sys.stderr)
        return 2
    names = registry.expand(args.backend)
    heading = (
        f"{len(boards)} boards ({args.file} {args.first}-{args.first + len(boards) - 1}) x {args.rounds} rounds; "
        f"race of {', '.join(names)}; time limit {args.time_limit:g} s; load average {os.getloadavg()[0]:.1f} at start"
    )
    print(heading, flush=True)
    with Race(["search"]) as one, FixedHeadStart(names) as fixed, Race(names) as now:
        variants = [
            Variant("search in-process", in_process(args.time_limit)),
            Variant("search, one worker", raced(one, args.time_limit), one),
            Variant("race, 20 ms head start", raced(fixed, args.time_limit), fixed),
            Variant("race", raced(now, args.time_limit), now),
        ]
        step = 0
        for _ in range(args.rounds):
            for board in boards:
                for k in range(len(variants)):
                    variants[(step + k) % len(variants)].run(board)
                step += 1
    heading += f", {os.getloadavg()[0]:.1f} at the end"
    rows = [summary(v, variants[0]) for v in variants]
    record = {
        "heading": heading,
        "boards": [b.name for b in boards],
        "rows": rows,
        "seconds": {v.label: v.seconds for v in variants},
    }
    out = publish(args.out, table(rows, heading), record)
    print(f"\nrace p99 {rows[-1]['p99_ms']:.1f} ms (target <= 30); wrote {out.with_suffix('.md')} and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
