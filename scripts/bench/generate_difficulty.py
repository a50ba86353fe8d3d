"""Boards made to a difficulty: how fast ``generate --difficulty LO-HI`` makes them, and whether each is in the band.

    python scripts/bench/generate_difficulty.py [--band 10-15] [--count 100] [--seed 1] [--time-limit 60]
        [--out docs/measured/generate-difficulty.md]

1. The band's share of plain generated boards: the exact win probability of random play
   (``encoders/search/playgraph.py``) of ``sigmar generate --seed S --count N``, how many fall in
   the band (it should hold about a fifth of them).
2. ``sigmar generate --difficulty BAND --seed S --count N --witness W``, timed: boards a second,
   wall and CPU, with the load (target: at least 10 boards a second).
3. Every board it made checked again: its witness replayed by ``sigmar verify``, and its win
   probability computed exactly over its play graph within ``--time-limit`` (or, past the graph's
   limit, by 200,000 random plays with the 99.9% interval): how many are inside the band.

Prints and writes OUT (default docs/measured/generate-difficulty.md) and results/bench_generate_difficulty.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, median

from sigmar.encoders.search.playgraph import _playgraph, play_graph, random_plays
from sigmar.models.boardfile import read_boards
from sigmar.models.difficulty import wilson
from sigmar.runners.cli import main as sigmar
from sigmar.runners.design.difficulty import Z_SCREEN, band_of

CHECK_PLAYS = 200_000


def exact_or_sampled(board: Any, time_limit: float, seed: int) -> dict[str, Any]:
    graph = play_graph(board, time_limit)
    if graph.win is not None:
        return {
            "exact": True,
            "win": float(graph.win),
            "low": float(graph.win),
            "high": float(graph.win),
            "states": graph.states,
            "seconds": round(graph.seconds, 3),
        }
    wins = random_plays(board, CHECK_PLAYS, seed)
    low, high = wilson(wins, CHECK_PLAYS, Z_SCREEN)
    return {
        "exact": False,
        "win": wins / CHECK_PLAYS,
        "low": low,
        "high": high,
        "states": graph.states,
        "seconds": round(graph.seconds, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--band", default="10-15")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "generate-difficulty.md"))
    args = parser.parse_args()
    band = band_of(args.band)
    RESULTS.mkdir(parents=True, exist_ok=True)
    load_start = os.getloadavg()[0]

    plain_path = RESULTS / f"generate_difficulty_plain_s{args.seed}.txt"
    assert sigmar(["generate", "--seed", str(args.seed), "--count", str(args.count), "-o", str(plain_path)]) == 0
    plain = [exact_or_sampled(b, args.time_limit, i) for i, b in enumerate(read_boards(plain_path))]
    share = sum(1 for p in plain if band.holds(p["win"]))

    made_path = RESULTS / f"generate_difficulty_s{args.seed}.txt"
    witness = RESULTS / f"generate_difficulty_s{args.seed}.witness.jsonl"
    load_before = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    status = sigmar(
        [
            "generate",
            "--difficulty",
            args.band,
            "--seed",
            str(args.seed),
            "--count",
            str(args.count),
            "-o",
            str(made_path),
            "--witness",
            str(witness),
        ]
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load_after = os.getloadavg()[0]
    made = read_boards(made_path)
    replayed = sigmar(["verify", str(made_path), str(witness), "--quiet"]) == 0
    checked = [exact_or_sampled(b, args.time_limit, 10**6 + i) for i, b in enumerate(made)]
    exact = [c for c in checked if c["exact"]]
    inside = [c for c in checked if band.low <= c["low"] and c["high"] <= band.high]
    outside = [c for c in checked if c["high"] < band.low or c["low"] > band.high]

    rate = len(made) / wall
    table = [
        (
            f"plain generated boards in {band} (exact, or sampled past the limit)",
            f"{share} of {len(plain)} ({100 * share / len(plain):.0f}%)",
            "about 20%",
        ),
        (
            f"generate --difficulty {args.band} --count {args.count}: exit status, boards made",
            f"{status}, {len(made)}",
            "",
        ),
        ("boards a second, wall (CPU: boards per CPU second)", f"{rate:.1f} ({len(made) / cpu:.1f})", ">= 10"),
        ("wall / CPU seconds", f"{wall:.2f} / {cpu:.2f}", ""),
        ("witnesses replayed by sigmar verify", "all" if replayed else "NOT ALL", "all"),
        ("win probability recomputed exactly", f"{len(exact)} of {len(made)}", ""),
        ("inside the band (exact, or the 99.9% interval of 200,000 plays)", f"{len(inside)} of {len(made)}", "all"),
        ("outside the band", f"{len(outside)} of {len(made)}", "0"),
        (
            "exact win probability of the boards made: median / min / max",
            f"{median([c['win'] for c in exact]):.4f} / {min(c['win'] for c in exact):.4f} / "
            f"{max(c['win'] for c in exact):.4f}"
            if exact
            else "-",
            "",
        ),
    ]
    core = "the compiled core" if _playgraph is not None else "the Python walk and plays (the C core is not built)"
    head = (
        f"# Boards made to a difficulty\n\n`python scripts/bench/generate_difficulty.py --band {args.band} --count "
        f"{args.count} --seed {args.seed} --time-limit {args.time_limit:g}` on {date.today()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} cores, {core}; load average {load_start:.1f} at the start, "
        f"{load_before:.1f} before and {load_after:.1f} after the timed run (the machine is shared: wall times are "
        "inflated under load).\n\n"
    )
    text = head + markdown_table(("what", "value", "target"), table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n")
    (RESULTS / "bench_generate_difficulty.json").write_text(
        json.dumps({"plain": plain, "made": checked, "wall": wall, "cpu": cpu, "status": status}, indent=1)
    )
    print(text)


if __name__ == "__main__":
    main()
