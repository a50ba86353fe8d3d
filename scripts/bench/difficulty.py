"""Exact difficulty on side-6 boards: how many play graphs are walked whole, how fast, and the sampled rate beside it.

    python scripts/bench/difficulty.py [--count 100] [--seed 1] [--time-limit 60] [--out docs/measured/difficulty.md]

Walks the play graph (``encoders/search/playgraph.py``, the compiled core when it is built) of each
board of ``sigmar generate --seed S --count N`` and of the two real-game boards of
instances/real-game.txt, each within ``--time-limit`` seconds, and prints and writes OUT (default
docs/measured/difficulty.md; every board's row goes to results/bench_difficulty.json):

- how many of the generated boards are computed exactly (target: at least 80 of 100 within 60 s
  each), and the median time of a board (target: at most 1 s), wall and CPU, with the load;
- the graph sizes: positions, clearable ones, moves followed, positions cut as dead;
- the exact win probability against the rate ``generate --stats`` samples (its 100 random plays,
  seeded as it seeds them): how far apart, and how often the exact value lies outside the sample's
  95% Wilson interval (about one board in twenty if the sample is honest).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import INSTANCES, RESULTS, ROOT, markdown_table, median, percentile

from sigmar.encoders.search.playgraph import _playgraph, play_graph
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.difficulty import clear_rate, wilson
from sigmar.runners.cli import main as sigmar

STATS_RUNS = 100  # generate --stats' default --runs


def generated(count: int, seed: int) -> list[Board]:
    """The boards of ``sigmar generate --seed SEED --count COUNT``."""
    path = RESULTS / f"difficulty_boards_s{seed}_n{count}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    if sigmar(["generate", "--seed", str(seed), "--count", str(count), "-o", str(path), "--quiet"]) != 0:
        raise SystemExit("generate failed")
    return read_boards(path)


def measure(board: Board, time_limit: float, stats_seed: str) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    graph = play_graph(board, time_limit)
    row: dict[str, Any] = {
        "board": board.name,
        "exact": graph.complete,
        "stopped_by": graph.stopped_by,
        "compiled": graph.compiled,
        "seconds": round(time.perf_counter() - wall, 4),
        "cpu_seconds": round(time.process_time() - cpu, 4),
        "states": graph.states,
        "alive": graph.alive,
        "edges": graph.edges,
        "cut": graph.cut,
        "win": float(graph.win) if graph.win is not None else None,
        "win_fraction_digits": len(str(graph.win.denominator)) if graph.win is not None else None,
        "safe_first": graph.safe_first,
        "first_moves": graph.first_moves,
        "mean_safe": graph.mean_safe,
        "trap_move": graph.trap.depth if graph.trap is not None else None,
    }
    rate = clear_rate(board, STATS_RUNS, random.Random(stats_seed))
    low, high = wilson(round(rate * STATS_RUNS), STATS_RUNS)
    row.update(sampled=rate, sampled_low=low, sampled_high=high)
    return row


def summary(rows: list[dict[str, Any]], real: list[dict[str, Any]], args: argparse.Namespace, load: str) -> str:
    exact = [r for r in rows if r["exact"]]
    times = [r["seconds"] for r in rows]
    cpu = [r["cpu_seconds"] for r in rows]
    sizes = [r["states"] for r in exact]
    apart = [abs(r["win"] - r["sampled"]) for r in exact]
    outside = [r for r in exact if not r["sampled_low"] <= r["win"] <= r["sampled_high"]]
    table = [
        ("generated side-6 boards", len(rows), ""),
        ("walked whole (exact) within the limit", f"{len(exact)} of {len(rows)}", ">= 80 of 100"),
        (
            "time a board: median / p90 / max, wall (s)",
            f"{median(times):.3f} / {percentile(times, 90):.3f} / {max(times):.3f}",
            "median <= 1",
        ),
        (
            "time a board: median / p90 / max, CPU (s)",
            f"{median(cpu):.3f} / {percentile(cpu, 90):.3f} / {max(cpu):.3f}",
            "",
        ),
        ("positions of an exact graph: median / max", f"{median(sizes):,.0f} / {max(sizes):,}" if sizes else "-", ""),
        (
            "clearable positions, moves followed (sums over the exact)",
            f"{sum(r['alive'] for r in exact):,}, {sum(r['edges'] for r in exact):,}",
            "",
        ),
        (
            "exact win probability: median / min / max",
            f"{median([r['win'] for r in exact]):.4f} / {min(r['win'] for r in exact):.4f} / "
            f"{max(r['win'] for r in exact):.4f}"
            if exact
            else "-",
            "",
        ),
        (
            f"--stats' sampled rate ({STATS_RUNS} runs) vs exact: mean / max distance",
            f"{sum(apart) / len(apart):.4f} / {max(apart):.4f}" if apart else "-",
            "",
        ),
        ("exact outside the sample's 95% interval", f"{len(outside)} of {len(exact)}", "about 5%"),
    ]
    for r in real:
        state = "exact" if r["exact"] else f"not exact ({r['stopped_by']})"
        win = f", win {r['win']:.4f}" if r["win"] is not None else ""
        table.append((f"real game: {r['board']}", f"{state}, {r['seconds']:.3f} s, {r['states']:,} positions{win}", ""))
    core = "the compiled core" if _playgraph is not None else "the Python walk (the C core is not built)"
    head = (
        f"# Exact difficulty on side-6 boards\n\n`python scripts/bench/difficulty.py --count {args.count} --seed "
        f"{args.seed} --time-limit {args.time_limit:g}` on {date.today()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} cores, {core}; load average {load} (the machine is shared: "
        "wall times are inflated under load, CPU times less so).\n\n"
    )
    return head + markdown_table(("what", "value", "target"), table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "difficulty.md"))
    args = parser.parse_args()
    before = os.getloadavg()[0]
    rows = []
    for index, board in enumerate(generated(args.count, args.seed)):
        rows.append(measure(board, args.time_limit, f"sigmar-stats:{args.seed}:{index}"))
        r = rows[-1]
        print(
            f"{index:3d} {'exact' if r['exact'] else 'LIMIT'} {r['seconds']:8.3f} s {r['states']:>11,} positions "
            f"win {r['win'] if r['win'] is not None else '-'} sampled {r['sampled']}",
            file=sys.stderr,
            flush=True,
        )
    real = [
        measure(b, args.time_limit, f"sigmar-stats:real:{i}")
        for i, b in enumerate(read_boards(INSTANCES / "real-game.txt"))
    ]
    after = os.getloadavg()[0]
    text = summary(rows, real, args, f"{before:.1f} at the start, {after:.1f} at the end")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n")
    (RESULTS / "bench_difficulty.json").write_text(json.dumps({"rows": rows, "real": real}, indent=1))
    print(text)


if __name__ == "__main__":
    main()
