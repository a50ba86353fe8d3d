"""The race on hard random deals: the leader held back past its head start, or not.

Target (issue 15): on dense deals of sides 7 and 8 every board within 10 s,
checked.  The slow boards are the ones the leader (search) does not answer
in its head start and cnf wins; this compares, on the same boards in ONE run
interleaved board by board (the order alternates), two races of every
backend:

- ``leader not held back``: past its head start the leader keeps its priority;
- ``race``: as ``sigmar solve`` runs it now (the leader runs at
  ``LATE_NICENESS`` more once another backend has won more of the boards that
  outlived the head start).

The boards are the slowest of a survey's results file (``--from``), or the
given indices, in a survey's order (``--indices 280-329``: then the leader is
search, as in a survey, and the hard boards come among easy ones).  A board's
time is the race's ``seconds`` (to the checked answer).

    python scripts/bench/race_hard_deals.py --indices 280-329 --dim 8

Prints a table and writes results/bench_race_hard.json (per-board times too) and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from benchlib import markdown_table, publish

from sigmar.encoders import registry
from sigmar.models.deal import deal
from sigmar.models.result import Status
from sigmar.runners.race import Race


class NotHeldBack(Race):
    """The race without holding the leader back on hard boards."""

    def late_leader(self, leader: str) -> str | None:
        return None


def slowest(path: Path, count: int, skip_over: float) -> tuple[int, int, list[int]]:
    """Side, seed and the indices of the ``count`` slowest boards of a survey results file."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    records = [r for r in records if float(r["seconds"]) <= skip_over]
    records.sort(key=lambda r: -float(r["seconds"]))
    first = records[0]
    return int(first["dim"]), int(first["seed"]), sorted(int(r["index"]) for r in records[:count])


def parse_indices(text: str) -> list[int]:
    """``3,7,10-19``: single indices and inclusive ranges."""
    out: list[int] = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", type=Path, help="a survey results file (dense deals)")
    parser.add_argument("--boards", type=int, default=24, help="how many of its slowest boards (default 24)")
    parser.add_argument("--skip-over", type=float, default=30.0, help="leave out boards slower than this (s)")
    parser.add_argument("--dim", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--indices", default="", help="deal indices instead of --from, e.g. 3,7,280-329")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default="results/bench_race_hard")
    args = parser.parse_args(argv)
    if args.source is not None:
        dim, seed, indices = slowest(args.source, args.boards, args.skip_over)
    else:
        dim, seed, indices = args.dim, args.seed, parse_indices(args.indices)
    if not indices:
        print("no boards: give --from FILE or --indices", file=sys.stderr)
        return 2
    names = registry.expand("all")
    heading = f"{len(indices)} dense deals of side {dim}, seed {seed}; race of {', '.join(names)}"
    heading += f"; load {os.getloadavg()[0]:.1f}"
    print(heading, flush=True)
    seconds: dict[str, list[float]] = {"leader not held back": [], "race": []}
    answered = dict.fromkeys(seconds, 0)
    with NotHeldBack(names) as before, Race(names) as now:
        races = {"leader not held back": before, "race": now}
        for step, index in enumerate(indices):
            board = deal("dense", dim, seed, index)
            order = list(races) if step % 2 == 0 else list(reversed(races))
            for label in order:
                result = races[label].solve(board, args.time_limit).result
                seconds[label].append(result.seconds)
                answered[label] += result.status in (Status.SOLVED, Status.UNSOLVABLE)
                print(
                    f"  {index:5d} {label:22s} {result.seconds:7.2f} s {result.status} by {result.backend}", flush=True
                )
        late = dict(now.late_wins)
    lines = [
        heading + f"; late wins (race): {late}",
        "",
        markdown_table(
            ("run", "answered", "median s", "mean s", "max s"),
            [
                (
                    label,
                    f"{answered[label]}/{len(values)}",
                    f"{statistics.median(values):.2f}",
                    f"{statistics.fmean(values):.2f}",
                    f"{max(values):.2f}",
                )
                for label, values in seconds.items()
            ],
        ),
    ]
    record = {"heading": heading, "dim": dim, "seed": seed, "indices": indices, "seconds": seconds, "late_wins": late}
    publish(args.out, "\n".join(lines), record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
