"""The quintessence variant on the public boards (../shared/variants): the race, every answer verified.

Target (issue 17): all 20,000 boards solved and verified, p99 <= 50 ms, max <= 2 s.

    python scripts/bench_quintessence.py [--every K]

Writes results/bench_quintessence.json.
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

VARIANTS = Path(__file__).resolve().parents[1].parent / "shared" / "variants"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="take every k-th board of each file")
    parser.add_argument("--backend", default="all")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    files = sorted(VARIANTS.glob("*.txt"))
    if not files:
        print(f"no variant boards in {VARIANTS}", file=sys.stderr)
        return 2
    boards = [b for f in files for b in read_boards(f)[:: args.every]]
    seconds: list[float] = []
    statuses: Counter[str] = Counter()
    unverified = []
    with Race(expand(args.backend)) as race:
        for board in boards:
            start = time.perf_counter()
            result = race.solve(board, args.time_limit).result
            seconds.append(time.perf_counter() - start)
            statuses[f"{result.status} by {result.backend}"] += 1
            if result.status.value == "solved" and not result.verified:
                unverified.append(board.name)
    summary = {
        "boards": len(boards),
        "answers": dict(statuses),
        "unverified": len(unverified),
        "median_ms": 1000 * statistics.median(seconds),
        "p99_ms": 1000 * statistics.quantiles(seconds, n=100)[98],
        "max_s": max(seconds),
        "command": " ".join(["python", *sys.argv]),
    }
    print(json.dumps(summary, indent=1))
    out = Path("results") / "bench_quintessence.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
