"""The race on the public boards, per board: to compare two versions of the suite on the same machine.

Target (issue 12): with every "unsolvable" checked, the 22,050 public boards (instances/)
get no more than 10% slower at the median.  Run it with each version's
interpreter (the baseline from a worktree of the older commit), one after
the other, and compare the medians it prints:

    python scripts/bench/race_public_boards.py --label now
    /path/to/old/venv/bin/python scripts/bench/race_public_boards.py --label before

Writes results/bench_public-LABEL.json (per-board seconds and statuses).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter

from benchlib import PUBLIC, RESULTS, boards, percentile

from sigmar.encoders.registry import expand
from sigmar.runners.race import Race


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--every", type=int, default=1, help="take every k-th board of each file")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    chosen = [b for name in (*PUBLIC, "real-game") for b in boards(name)[:: args.every]]
    seconds: list[float] = []
    statuses: Counter[str] = Counter()
    start_all = time.perf_counter()
    with Race(expand("all")) as race:
        for board in chosen:
            start = time.perf_counter()
            result = race.solve(board, args.time_limit).result
            seconds.append(time.perf_counter() - start)
            statuses[str(result.status)] += 1
    total = time.perf_counter() - start_all
    summary = {
        "label": args.label,
        "boards": len(chosen),
        "statuses": dict(statuses),
        "median_ms": 1000 * statistics.median(seconds),
        "p90_ms": 1000 * percentile(seconds, 90),
        "max_s": max(seconds),
        "total_s": total,
    }
    print(json.dumps(summary))
    out = RESULTS / f"bench_public-{args.label}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
