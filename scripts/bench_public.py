"""The race on the public boards, per board: to compare two versions of the suite on the same machine.

Target (issue 12): with every "unsolvable" checked, the 22,050 public boards
get no more than 10% slower at the median.  Run it with each version's
interpreter (the baseline from a worktree of the older commit), one after
the other, and compare the medians it prints:

    python scripts/bench_public.py --label now
    /path/to/old/venv/bin/python scripts/bench_public.py --label before

Writes results/bench_public-LABEL.json (per-board seconds and statuses).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from sigmar.encoders.registry import expand
from sigmar.models.boardfile import read_boards
from sigmar.runners.race import Race

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--every", type=int, default=1, help="take every k-th board of each file")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    files = sorted(args.data.glob("*.txt"))
    if not files:
        print(f"no board files in {args.data}", file=sys.stderr)
        return 2
    boards = [b for f in files for b in read_boards(f)[:: args.every]]
    seconds: list[float] = []
    statuses: Counter[str] = Counter()
    start_all = time.perf_counter()
    with Race(expand("all")) as race:
        for board in boards:
            start = time.perf_counter()
            result = race.solve(board, args.time_limit).result
            seconds.append(time.perf_counter() - start)
            statuses[str(result.status)] += 1
    total = time.perf_counter() - start_all
    summary = {
        "label": args.label,
        "boards": len(boards),
        "statuses": dict(statuses),
        "median_ms": 1000 * statistics.median(seconds),
        "p90_ms": 1000 * statistics.quantiles(seconds, n=10)[-1],
        "max_s": max(seconds),
        "total_s": total,
    }
    print(json.dumps(summary))
    out = Path("results") / f"bench_public-{args.label}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
