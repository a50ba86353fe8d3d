"""Benchmark the ``minizinc`` backend on the public boards (a script, not a timed test).

Boards: every real-game board and the first N of each public set, read from
instances/, plus boards deadlocked by construction from them
(``models.generator.deadlocked``: the lowest metal between two opposite
blockers).  Every answer goes through the runner's check, so a board counts
as solved only when the rule engine replayed the moves.  Prints a Markdown
table and writes results/bench_minizinc.csv and .md.

    python scripts/bench/minizinc_backend.py                           # default: N=20, 10 s
    python scripts/bench/minizinc_backend.py --n 8 --time-limit 5 --sweep   # the search annotations, one at a time
    python scripts/bench/minizinc_backend.py --sub gecode:steps --n 8 --time-limit 5
    python scripts/bench/minizinc_backend.py --dense 100 --time-limit 20           # seeded dense side-6 deals
    # the default:
    python scripts/bench/minizinc_backend.py --dense 100 --seed 1 --time-limit 20 --subs gecode,gecode+chuffed
    python scripts/bench/minizinc_backend.py --dense 100 --time-limit 5 --ablation # each implied constraint off in turn
    # tin ringed by quicksilver and later metals:
    python scripts/bench/minizinc_backend.py --tin 20 --ablation

Several backends (--sweep, --ablation) run interleaved, board by board, so
that the machine's load falls on all of them alike.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
from pathlib import Path

from benchlib import boards as public_boards
from benchlib import markdown_table

from sigmar.encoders.minizinc import IMPLIED, MODELS, STRATEGY_NAMES, MinizincBackend
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.deal import deal
from sigmar.models.generator import deadlocked, tin_ringed
from sigmar.runners.checking.replay import run_replayed

ROOT = Path(__file__).resolve().parents[2]
SETS = ("real-game", "hexmatch-easy", "hexmatch-hard", "ondrovo-2048")


def load(n: int) -> dict[str, list[Board]]:
    sets: dict[str, list[Board]] = {}
    for name in SETS:
        sets[name] = public_boards(name, None if name == "real-game" else n)
    rng = random.Random(2026)
    locked = []
    for boards in sets.values():
        for board in boards[: max(2, n // 4)]:
            made = deadlocked(board, rng, f"deadlocked {board.name}")
            if made is not None:
                locked.append(made)
    sets["deadlocked"] = locked
    return sets


# The model section cut out for --ablation's "no-dominance": from the first marker up to the second.
DOMINANCE = ("% Dominance (exact)", "% -------------------------------------------------------------- search")


def tin_boards(n: int) -> dict[str, list[Board]]:
    """Tin ringed by iron, four quicksilver and silver, on the first ``n`` boards of each public set."""
    out = []
    for name in SETS:
        out += [b for b in (tin_ringed(board) for board in public_boards(name, n)) if b is not None]
    return {"tin-ringed": out[:n]}


def ablation_backends(sub: str, out_stem: str) -> list[MinizincBackend]:
    """The shipped backend, then each implied constraint off, all off, and (strategy 1) no dominance."""
    backends = [MinizincBackend(sub)]
    backends += [MinizincBackend(sub, off=name) for name in IMPLIED]
    backends.append(MinizincBackend(sub, off=",".join(IMPLIED)))
    path = Path(out_stem).parent / "sigmar_order_no-dominance.mzn"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(without_section(MODELS["order"].read_text(), *DOMINANCE))
    backends.append(MinizincBackend(sub, model=str(path)))
    return backends


def without_section(text: str, start: str, end: str) -> str:
    a, b = text.index(start), text.index(end)
    return text[:a] + text[b:]


def run(backends: list[MinizincBackend], sets: dict[str, list[Board]], time_limit: float) -> list[dict]:
    rows = []
    for set_name, boards in sets.items():
        for board, backend in ((b, x) for b in boards for x in backends):
            result = run_replayed(backend, board, time_limit)
            status = result.status.value + ("" if result.status.value != "solved" or result.verified else "?")
            rows.append(
                {
                    "backend": label(backend),
                    "set": set_name,
                    "board": board.name,
                    "status": status,
                    "seconds": round(result.seconds, 4),
                    "nodes": result.statistics.get("nodes", ""),
                    "flatTime": result.statistics.get("flatTime", ""),
                    "solveTime": result.statistics.get("solveTime", ""),
                }
            )
            line = f"  {label(backend)[:40]:40} {board.name[:30]:30} {status:10} {result.seconds:7.3f}s"
            print(line, file=sys.stderr)
    return rows


def label(backend: MinizincBackend) -> str:
    parts = [backend.name]
    if backend.options.strategy is not None:
        parts.append(f"strategy={backend.options.strategy}")
    if backend.options.model is not None:
        parts.append(Path(backend.options.model).stem.removeprefix("sigmar_order_"))
    if backend.options.off:
        parts.append("off=" + ("all" if backend.options.off == ",".join(IMPLIED) else backend.options.off))
    return " ".join(parts)


def table(rows: list[dict]) -> str:
    header = ["backend", "set", "boards", "solved", "unsolvable", "unknown", "share answered"]
    header += ["median s (answered)", "median s", "max s"]
    table = []
    keys = list(dict.fromkeys((r["backend"], r["set"]) for r in rows))
    for backend, set_name in keys:
        mine = [r for r in rows if r["backend"] == backend and r["set"] == set_name]
        answered = [r["seconds"] for r in mine if r["status"] in ("solved", "unsolvable")]
        count = {s: sum(1 for r in mine if r["status"] == s) for s in ("solved", "unsolvable", "unknown")}
        median = f"{statistics.median(answered):.2f}" if answered else "-"
        cells = [backend, set_name, len(mine), count["solved"], count["unsolvable"], count["unknown"]]
        cells += [f"{len(answered) / len(mine):.0%}", median, f"{statistics.median(r['seconds'] for r in mine):.2f}"]
        table.append([*cells, f"{max(r['seconds'] for r in mine):.2f}"])
    return markdown_table(header, table, align="ll" + "r" * 8)


def fewest_unknown(rows: list[dict]) -> str:
    """The backend that left the fewest boards unknown (ties: the smaller summed time), as one line."""
    totals: dict[str, tuple[int, float]] = {}
    for row in rows:
        unknown, seconds = totals.get(row["backend"], (0, 0.0))
        totals[row["backend"]] = (unknown + (row["status"] == "unknown"), seconds + row["seconds"])
    best = min(totals, key=lambda name: totals[name])
    return f"fewest unknown: {best} ({totals[best][0]} unknown, {totals[best][1]:.0f} s in all)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="boards from the start of each public set")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--sub", default="gecode", help="minizinc:SUB to run (gecode, gecode:steps, ...)")
    parser.add_argument(
        "--subs", default="", help="several minizinc:SUB to compare, interleaved board by board (e.g. gecode,chuffed)"
    )
    parser.add_argument("--sweep", action="store_true", help="run each search annotation of the order model alone")
    parser.add_argument("--strategies", default="", help="with --sweep: which ones, e.g. 1,3,7 (default all)")
    parser.add_argument("--no-deadlocks", action="store_true")
    parser.add_argument("--files", nargs="*", default=[], help="board files to run instead of the public sets")
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="the order model with each implied constraint off in turn, all off, and without the dominance",
    )
    parser.add_argument("--dense", type=int, default=0, help="run N dense side-6 deals (seed --seed) instead")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--indices", default="", help="with --dense: only these deals, e.g. 8,16,17 (of the first N)")
    parser.add_argument("--tin", type=int, default=0, help="run N boards with tin ringed instead")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_minizinc"), help="output stem")
    args = parser.parse_args()

    if args.dense:
        chosen = [int(k) for k in args.indices.split(",") if k.strip()] if args.indices else range(args.dense)
        sets = {f"dense-6-seed{args.seed}": [deal("dense", 6, args.seed, k) for k in chosen if k < args.dense]}
    elif args.tin:
        sets = tin_boards(args.tin)
    else:
        sets = {Path(f).stem: read_boards(f) for f in args.files} if args.files else load(args.n)
    if args.no_deadlocks:
        sets.pop("deadlocked", None)
    for name in [name for name, boards in sets.items() if not boards]:
        print(f"no boards in set '{name}'", file=sys.stderr)
        del sets[name]
    if not sets:
        print("nothing to measure: no boards were read or made", file=sys.stderr)
        return 1
    if args.ablation:
        backends = ablation_backends(args.sub, args.out)
    elif args.sweep:
        chosen = [int(x) for x in args.strategies.split(",")] if args.strategies else list(STRATEGY_NAMES)
        backends = [MinizincBackend(args.sub, strategy=s) for s in chosen]
    elif args.subs:
        backends = [MinizincBackend(sub) for sub in args.subs.split(",")]
    else:
        backends = [MinizincBackend(args.sub)]
    rows = run(backends, sets, args.time_limit)
    text = table(rows)
    if len(backends) > 1:
        text += "\n\n" + fewest_unknown(rows)
    if args.sweep:
        text += "\n\nstrategies: " + "; ".join(f"{k} = {v}" for k, v in STRATEGY_NAMES.items())
    header = "python scripts/bench/minizinc_backend.py " + " ".join(sys.argv[1:])
    print(header)
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.with_suffix(".csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out.with_suffix(".md").write_text(header + "\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
