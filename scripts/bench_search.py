"""Benchmark the ``search`` backend on the public boards (a script, not a timed test).

Every answer goes through the runner's check (the rule engine replays each
solution), so a board counts as solved only when verified.  Writes one CSV
row per board (board, status, seconds, nodes) and prints a summary per set,
plus the first 500 boards of each hexmatch set for the side-by-side with the
public solvers.

    python scripts/bench_search.py                      # all 22,048 boards
    python scripts/bench_search.py --limit 500 --sub sleep --order centre
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

from sigmar.encoders.search import SearchBackend
from sigmar.encoders.search_engine import ORDERS
from sigmar.models.boardfile import read_boards
from sigmar.runners.check import checked

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SETS = ("hexmatch-easy", "hexmatch-hard", "ondrovo-2048", "real-game")


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by the nearest-rank rule (p99 of 10,000 is the 9,900th smallest)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), -(-int(q * len(ordered) * 1000) // 1000)))
    return ordered[rank - 1]


def summary(label: str, rows: list[tuple[str, str, float, int]]) -> str:
    secs = [r[2] for r in rows]
    solved = sum(1 for r in rows if r[1] == "solved")
    other = {s: sum(1 for r in rows if r[1] == s) for s in ("unsolvable", "unknown", "error")}
    extra = " ".join(f"{k}={v}" for k, v in other.items() if v)
    return (
        f"| {label} | {len(rows)} | {solved} {extra}| {1000 * statistics.median(secs):.2f} | "
        f"{1000 * quantile(secs, 0.90):.2f} | {1000 * quantile(secs, 0.99):.2f} | {1000 * max(secs):.1f} | "
        f"{statistics.median([r[3] for r in rows]):.0f} | {max(r[3] for r in rows)} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the public board files")
    parser.add_argument("--sets", default=",".join(SETS), help="comma list of board files (without .txt)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N boards of each set")
    parser.add_argument("--sample", type=int, default=None, help="a random sample of N boards of each set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per board")
    parser.add_argument("--sub", choices=("dfs", "sleep"), default="dfs")
    parser.add_argument("--order", choices=ORDERS, default="restarts")
    parser.add_argument("--no-safe", action="store_true", help="switch the safe moves off")
    parser.add_argument("--no-locks", action="store_true", help="switch the locked-metal pruning off")
    parser.add_argument("--out", type=Path, default=None, help="CSV path (default results/search-<sub>-<order>.csv)")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no board folder at {args.data}", file=sys.stderr)
        return 2
    backend = SearchBackend(args.sub, order=args.order, safe=not args.no_safe, locks=not args.no_locks)
    out = args.out or ROOT / "results" / f"search-{args.sub}-{args.order}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    per_set: dict[str, list[tuple[str, str, float, int]]] = {}
    first500: dict[str, list[tuple[str, str, float, int]]] = {}
    with out.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["board", "status", "seconds", "nodes"])
        for name in args.sets.split(","):
            boards = read_boards(args.data / f"{name}.txt")
            if args.sample is not None and args.sample < len(boards):
                boards = rng.sample(boards, args.sample)
            elif args.limit is not None:
                boards = boards[: args.limit]
            rows = per_set.setdefault(name, [])
            for index, board in enumerate(boards):
                start = time.perf_counter()
                result = backend.solve(board, args.time_limit)
                seconds = time.perf_counter() - start
                result = checked(board, result)  # replay outside the timed part
                nodes = int(result.statistics.get("nodes", 0))
                row = (board.name, str(result.status), seconds, nodes)
                rows.append(row)
                if name.startswith("hexmatch") and index < 500 and args.sample is None:
                    first500.setdefault(name, []).append(row)
                writer.writerow([board.name, row[1], f"{seconds:.6f}", nodes])
                if result.status.value != "solved":
                    print(f"  {board.name}: {result.status} {result.message or result.explanation}", flush=True)
            print(f"{name}: {len(rows)} boards done", file=sys.stderr, flush=True)
    header = "| set | boards | solved | median ms | p90 ms | p99 ms | max ms | median nodes | max nodes |"
    lines = [header, "|" + " --- |" * 9]
    for name, rows in per_set.items():
        lines.append(summary(name, rows))
    everything = [r for rows in per_set.values() for r in rows]
    lines.append(summary("all", everything))
    for name, rows in first500.items():
        lines.append(summary(f"{name} first {len(rows)}", rows))
    text = "\n".join(lines)
    print(text)
    print(f"CSV: {out}")
    (out.with_suffix(".md")).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
