"""Benchmark ``sigmar prove`` on unsolvable standard boards: time to a checked answer, check/solve ratio.

Unsolvable boards are made from solvable public boards (the bundled samples
in instances/) by swapping tiles of different kinds and keeping the boards
that ``prove`` shows unsolvable: ``swap1`` swaps one pair of tiles, ``swap3``
three pairs.  The deadlocks built by the generator
(instances/generated-unsolvable.txt) are measured as a third group.  The
verified second opinion and the corroboration are off (they are reported
separately in docs/prove.md); every counted answer is checked.

    python scripts/bench/prove_swapped_boards.py [--tries 200] [--seed 1] [--prover glucose4]
        [--out results/bench_prove.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Status
from sigmar.runners.prove import DEFAULT_PROVER, PROVERS, prove

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt")


def swapped(board: Board, swaps: int, rng: random.Random) -> Board:
    tiles = list(board.tiles)
    done = []
    for _ in range(swaps):
        while True:
            i, j = rng.sample(range(len(tiles)), 2)
            if tiles[i].symbol != tiles[j].symbol:
                break
        tiles[i], tiles[j] = Tile(tiles[i].cell, tiles[j].symbol), Tile(tiles[j].cell, tiles[i].symbol)
        done.append(f"{i}<->{j}")
    return Board(board.dim, tuple(tiles), f"{board.name} swap {' '.join(done)}")


def measure(board: Board, group: str, time_limit: float, prover: str) -> dict[str, Any]:
    start = time.perf_counter()
    proved = prove(board, time_limit, prover=prover, corroborate_limit=None, second_opinion=False)
    wall = time.perf_counter() - start
    result = proved.result
    certificate = result.certificate
    size = 0
    if certificate is not None and certificate.file and Path(certificate.file).exists():
        size = Path(certificate.file).stat().st_size
    check = result.check_seconds or 0.0
    return {
        "group": group,
        "board": board.name,
        "status": result.status.value,
        "reason": result.reason.value if result.reason else None,
        "kind": certificate.kind.value if certificate else None,
        "checked": proved.checked,
        "seconds": wall,
        "check_seconds": check,
        "solve_seconds": max(wall - check, 1e-6),
        "bytes": size,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    unsolvable = [r for r in rows if r["status"] == "unsolvable"]
    out: dict[str, Any] = {
        "unsolvable": len(unsolvable),
        "checked": sum(r["checked"] for r in unsolvable),
        "by_kind": {k: sum(r["kind"] == k for r in unsolvable) for k in ("counts", "stuck", "dead-states", "drup")},
    }
    if unsolvable:
        times = [r["seconds"] for r in unsolvable]
        ratios = [r["check_seconds"] / r["solve_seconds"] for r in unsolvable]
        out["median_seconds"] = statistics.median(times)
        out["max_seconds"] = max(times)
        out["within_1s"] = sum(t <= 1.0 for t in times)
        out["median_check_seconds"] = statistics.median(r["check_seconds"] for r in unsolvable)
        out["median_check_over_solve"] = statistics.median(ratios)
        out["max_check_over_solve"] = max(ratios)
        out["max_bytes"] = max(r["bytes"] for r in unsolvable)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=200, help="swapped boards tried per swap group")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--prover", default=DEFAULT_PROVER, choices=PROVERS)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench_prove.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sources = [b for name in SOURCES for b in read_boards(ROOT / "instances" / name)]
    rows: list[dict[str, Any]] = []
    tried: dict[str, int] = {}
    for swaps in (1, 3):
        group = f"swap{swaps}"
        tried[group] = args.tries
        for n in range(args.tries):
            row = measure(swapped(rng.choice(sources), swaps, rng), group, args.time_limit, args.prover)
            if row["status"] != Status.SOLVED.value:
                rows.append(row)
            print(f"\r{group}: {n + 1}/{args.tries} tried, {len(rows)} kept", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    deadlocks = ROOT / "instances" / "generated-unsolvable.txt"
    if deadlocks.exists():
        boards = read_boards(deadlocks)
        tried["deadlock"] = len(boards)
        rows.extend(measure(b, "deadlock", args.time_limit, args.prover) for b in boards)
    summary = {group: summarise([r for r in rows if r["group"] == group]) for group in tried}
    summary["all"] = summarise(rows)
    for group, numbers in summary.items():
        print(f"{group:9} tried {tried.get(group, sum(tried.values())):4}  " + json.dumps(numbers, default=str))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"tried": tried, "summary": summary, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
