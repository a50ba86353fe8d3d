"""How long each backend takes to count, and whether every exact count equals the rule engine's.

    python scripts/bench_counts.py [--boards 100] [--seed 1] [--time-limit 10] [--backends search,cnf,cpsat,minizinc]

Deals ``--boards`` random boards of 12 to 20 tiles (a fixed seed: the same boards every run; one in four of
the quintessence variant), whose tile counts pair up, on the central cells of side 3 or 4.  Each backend
counts both notions on every board through the runner (``Race.count_all``: its own worker process, killed
half a second past the time limit), one backend at a time, and each count is graded against the rule
engine's (``checking.count_grade``).  Prints, per backend and notion, the median and the largest seconds,
how many counts were only lower bounds (or none), and how many were wrong; writes the table to
docs/measured/counts.md (with the date, machine, load and this command) and every count to
results/bench_counts.json.  Exit 3 if any count was wrong.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchlib import RESULTS, ROOT, markdown_table, median, publish

from sigmar.models.board import Board, Tile
from sigmar.models.counting import Notion, count_in, reference_count
from sigmar.models.hexgrid import cells, distance
from sigmar.models.tiles import ELEMENTS
from sigmar.runners.checking.count_grade import CountGrade
from sigmar.runners.race import Race, count_board

ELEMENT_LIST = sorted(ELEMENTS)
CENTRE = (0, 0)


def deal(seed: int, index: int) -> Board:
    """Board ``index``: 12 to 20 tiles that pair up (metals with their quicksilver, element, salt and vitae-mors
    pairs; a quintessence with its four elements in one board of four), on the cells nearest the centre."""
    rng = random.Random(f"sigmar-bench-counts:{seed}:{index}")
    size = rng.randint(12, 20)
    tiles: list[str] = []
    if index % 4 == 3:
        tiles += ["x", *ELEMENT_LIST]
    metals = [str(d) for d in range(1, rng.randint(1, 4) + 1)] if rng.random() < 0.8 else []
    tiles += metals + ["q"] * max(len(metals) - 1, 0)
    while len(tiles) + 2 <= size or len(tiles) < 12:
        tiles += rng.choice([[rng.choice(ELEMENT_LIST)] * 2, ["s", rng.choice(ELEMENT_LIST)], ["v", "m"]])
    dim = 3 if len(tiles) <= 19 else 4
    spots = sorted(cells(dim), key=lambda c: (distance(c, CENTRE), rng.random()))[: len(tiles)]
    rng.shuffle(tiles)
    placed = dict(zip(spots, tiles, strict=True))
    return Board(dim, tuple(Tile(c, placed[c]) for c in cells(dim) if c in placed), f"count-s{seed}-{index}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--backends", default="search,cnf,cpsat,minizinc")
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "counts.md"))
    args = parser.parse_args()
    boards = [deal(args.seed, k) for k in range(args.boards)]
    load = os.getloadavg()[0]
    began = time.perf_counter()
    rows, record, wrong = [], {"counts": []}, 0
    truths = {(b.name, n): reference_count(b, n) for b in boards for n in Notion}
    solvable = sum(truths[(b.name, Notion.SEQUENCES)].value > 0 for b in boards)
    for name in args.backends.split(","):
        seconds: dict[Notion, list[float]] = {n: [] for n in Notion}
        bounds = {n: 0 for n in Notion}
        bad = {n: 0 for n in Notion}
        with Race([name], stagger=0) as race:
            for board in boards:
                for notion in Notion:
                    verdict = count_board(race, board, notion, args.time_limit)
                    answer, grade = verdict.answers[name], verdict.grades[name]
                    if grade is CountGrade.REFUSED:
                        continue
                    seconds[notion].append(answer.seconds)
                    bounds[notion] += grade in (CountGrade.BOUND, CountGrade.UNKNOWN, CountGrade.ERROR)
                    bad[notion] += grade is CountGrade.WRONG
                    count = count_in(answer)
                    record["counts"].append(
                        {
                            "board": board.name,
                            "tiles": len(board),
                            "backend": name,
                            "notion": str(notion),
                            "count": None if count is None else str(count.value),
                            "exact": bool(count and count.exact),
                            "reference": str(verdict.reference.value),
                            "seconds": round(answer.seconds, 4),
                            "grade": str(grade),
                        }
                    )
        for notion in Notion:
            times = seconds[notion]
            rows.append(
                (
                    name,
                    notion,
                    len(times),
                    f"{median(times):.3f}" if times else "-",
                    f"{max(times):.2f}" if times else "-",
                    bounds[notion],
                    bad[notion],
                )
            )
            wrong += bad[notion]
        print(f"{name}: done after {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    header = ("backend", "notion", "counts", "median s", "max s", "only a bound (or none)", "wrong")
    command = "python scripts/bench_counts.py " + " ".join(sys.argv[1:])
    sizes = [len(b) for b in boards]
    text = "\n".join(
        [
            "# Counts: each backend against the rule engine",
            "",
            f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
            f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
            f"- command: `{command.strip()}`",
            f"- boards: {len(boards)} random boards of {min(sizes)} to {max(sizes)} tiles (seed {args.seed}; "
            f"{sum('x' in b.counts for b in boards)} of the quintessence variant; {solvable} solvable), "
            f"time limit {args.time_limit:g} s a count, one backend at a time",
            "- a bound: the count stopped at the time limit or a cap ('at least N'), or the worker was killed "
            "with none; wrong: an exact count that is not the rule engine's (or a bound above it)",
            "",
            markdown_table(header, rows),
            "",
            f"Wall time of the whole run: {time.perf_counter() - began:.0f} s.",
        ]
    )
    publish(Path(args.out), text, {"args": vars(args), "rows": rows, **record})
    (RESULTS / "bench_counts.json").parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).with_suffix(".json").replace(RESULTS / "bench_counts.json")
    return 3 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
