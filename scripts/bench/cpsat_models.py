"""Benchmark both CP-SAT formulations on public boards, made-unsolvable boards and deadlock boards.

Run from the repository root, e.g.::

    python scripts/bench/cpsat_models.py --n 20 --workers 1,2

Reads instances/ (the first N boards of each public set plus the
real-game boards).  Unsolvable boards are made by swapping two tiles of
different kinds in solvable boards, keeping the swaps that the order model
refutes; deadlock boards put a metal in the middle of a ring of quicksilver
and later metals.  Every solved answer is replayed by the rule engine.
Prints a Markdown table and writes it, with one JSON line per run, under
results/.  Timings are wall seconds per board, model building included.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from benchlib import boards as public_boards
from benchlib import table_header, table_row

from sigmar.encoders.cpsat import CpsatBackend
from sigmar.models.board import Board, Tile
from sigmar.models.generator import deadlocked
from sigmar.models.result import Status
from sigmar.models.rules import count_problem
from sigmar.runners.checking.replay import replayed

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ("real-game", "hexmatch-easy", "hexmatch-hard", "ondrovo-2048")


def swapped(board: Board, a: int, b: int, name: str) -> Board:
    """The board with the symbols of tiles a and b exchanged (counts unchanged)."""
    tiles = list(board.tiles)
    tiles[a], tiles[b] = Tile(tiles[a].cell, board.tiles[b].symbol), Tile(tiles[b].cell, board.tiles[a].symbol)
    return replace(board, tiles=tuple(tiles), name=name)


def with_symbols(board: Board, symbols: dict[int, str], name: str) -> Board:
    tiles = tuple(Tile(t.cell, symbols.get(i, t.symbol)) for i, t in enumerate(board.tiles))
    return Board(board.dim, tiles, name)


def run_one(sub: str, workers: int, board: Board, time_limit: float) -> dict[str, object]:
    backend = CpsatBackend(sub, num_workers=workers)
    start, cpu = time.perf_counter(), time.process_time()
    result = replayed(board, backend.solve(board, time_limit))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "board": board.name,
        "backend": f"cpsat:{sub}",
        "workers": workers,
        "status": str(result.status),
        "verified": result.verified,
        "seconds": round(seconds, 4),
        "cpu": round(cpu, 4),  # all solver threads: less sensitive than wall time to a busy machine
        "conflicts": result.statistics.get("conflicts"),
        "message": result.message,
    }


def swapped_unsolvable(solvable: list[Board], args: argparse.Namespace, rng: random.Random) -> tuple[list[Board], int]:
    """Boards with two tiles of different kinds swapped, kept when the order model refutes them; and the tries."""
    made: list[Board] = []
    attempts = 0
    while len(made) < args.unsolvable and attempts < 50 * max(args.unsolvable, 1):
        attempts += 1
        base = rng.choice(solvable)
        a, b = rng.sample(range(len(base.tiles)), 2)
        if base.tiles[a].symbol == base.tiles[b].symbol:
            continue
        board = swapped(base, a, b, f"{base.name} swap {a},{b}")
        if count_problem(board) is not None:
            continue
        answer = CpsatBackend("order", num_workers=2).solve(board, args.time_limit)
        if answer.status is Status.UNSOLVABLE:
            made.append(board)
    return made, attempts


def deadlock_boards(solvable: list[Board], count: int, rng: random.Random) -> list[Board]:
    """Up to ``count`` boards deadlocked around their lowest metal."""
    deadlocks: list[Board] = []
    for k in range(count * 5):
        if len(deadlocks) >= count:
            break
        board = deadlocked(rng.choice(solvable), rng, f"deadlock {k}")
        if board is not None:
            deadlocks.append(board)
    return deadlocks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="first N boards of each public set")
    parser.add_argument("--unsolvable", type=int, default=20, help="how many swapped unsolvable boards to make")
    parser.add_argument("--deadlocks", type=int, default=10, help="how many deadlock boards to make")
    parser.add_argument("--subs", default="order,steps", help="formulations to run")
    parser.add_argument("--workers", default="1,2", help="num_workers values to try")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--steps-unsolvable", type=int, default=5, help="swapped boards given to cpsat:steps")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_cpsat"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    subs = args.subs.split(",")
    workers = [int(w) for w in args.workers.split(",")]

    # Data: solvable public boards.
    groups: dict[str, list[Board]] = {}
    solvable: list[Board] = []
    for name in PUBLIC:
        boards = public_boards(name, args.n)
        groups[name] = boards
        solvable.extend(boards)
    CpsatBackend("order").solve(solvable[0])  # warm up the solver library once

    # Data: unsolvable boards, two tiles of different kinds swapped, kept when the order model refutes.
    made, attempts = swapped_unsolvable(solvable, args, rng)
    groups["unsolvable (swap)"] = made
    deadlocks = deadlock_boards(solvable, args.deadlocks, rng)
    groups["deadlock"] = deadlocks
    print(f"made {len(made)} unsolvable boards in {attempts} swaps, {len(deadlocks)} deadlock boards", flush=True)

    # Solve.
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []
    with open(out.with_suffix(".jsonl"), "w") as log:
        for sub in subs:
            for w in workers:
                for group, boards in groups.items():
                    if sub == "steps" and group == "unsolvable (swap)":
                        boards = boards[: args.steps_unsolvable]
                    for board in boards:
                        row = run_one(sub, w, board, args.time_limit) | {"group": group}
                        rows.append(row)
                        log.write(json.dumps(row) + "\n")
                        log.flush()
                        if row["status"] == "error":
                            print(f"ERROR {row}", flush=True)
                    print(f"done cpsat:{sub} workers={w} {group}", flush=True)

    # Summarise.
    header = ["backend", "workers", "boards", "n", "solved", "unsolvable", "unknown", "median s", "max s"]
    lines = [table_header([*header, "med cpu s", "max cpu s"], align="lrlrrrrrrrr")]
    for sub in subs:
        for w in workers:
            for group in groups:
                sel = [r for r in rows if r["backend"] == f"cpsat:{sub}" and r["workers"] == w and r["group"] == group]
                if not sel:
                    continue
                times = [float(r["seconds"]) for r in sel]  # type: ignore[arg-type]
                cpus = [float(r["cpu"]) for r in sel]  # type: ignore[arg-type]
                count = {s: sum(1 for r in sel if r["status"] == s) for s in ("solved", "unsolvable", "unknown")}
                cells = [f"cpsat:{sub}", w, group, len(sel), count["solved"], count["unsolvable"], count["unknown"]]
                cells += [f"{statistics.median(times):.3f}", f"{max(times):.3f}"]
                lines.append(table_row([*cells, f"{statistics.median(cpus):.3f}", f"{max(cpus):.3f}"]))
    errors = sum(1 for r in rows if r["status"] == "error")
    lines.append("")
    lines.append(f"errors (wrong or crashed answers): {errors}")
    text = "\n".join(lines)
    print(text)
    out.with_suffix(".md").write_text(text + "\n")
    return 0 if errors == 0 else 3


if __name__ == "__main__":
    sys.exit(main())
