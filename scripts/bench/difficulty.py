"""Exact difficulty on side-6 boards: how many play graphs are walked whole, how fast, and the sampled rate beside it.

    python scripts/bench/difficulty.py [--count 100] [--seed 1] [--time-limit 60] [--out docs/measured/difficulty.md]
                                       [--resume]

Walks the play graph (``encoders/search/playgraph.py``, the compiled core when it is built) of each
board of ``sigmar generate --seed S --count N`` and of the two real-game boards of
instances/real-game.txt, each within ``--time-limit`` seconds, and prints its section and writes it
into OUT (default docs/measured/difficulty.md; every board's row goes to results/bench_difficulty.json).
The section is this script's own: between two marks, it replaces the one an earlier run wrote and
leaves the rest of OUT (the measurements and notes written by hand around it) as it is; in a record
without the marks it goes after the title; a new OUT gets a title and the section. It gives:

- how many of the generated boards are computed exactly (target: at least 80 of 100 within 60 s
  each), and the median time of a board (target: at most 1 s), wall and CPU, with the load;
- the graph sizes: positions, clearable ones, moves followed, positions cut as dead;
- the exact win probability against the rate ``generate --stats`` samples (its 100 random plays,
  seeded as it seeds them): how far apart, and how often the exact value lies outside the sample's
  95% Wilson interval (about one board in twenty if the sample is honest).

A run takes up to an hour and a half (100 boards at 60 s), so it saves as it goes: after every
board, results/bench_difficulty.json holds every row so far and OUT the summary of the boards done,
headed "partial" until the last; ``--resume`` keeps the rows of an interrupted run with the same
``--count``, ``--seed`` and ``--time-limit`` and measures only the boards it lacks.
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

from benchlib import INSTANCES, RESULTS, ROOT, markdown_table, median, percentile, section_marks
from benchlib import with_section as benchlib_section

from sigmar.encoders.search.playgraph import _playgraph, play_graph
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.difficulty import clear_rate, wilson
from sigmar.runners.cli import main as sigmar

STATS_RUNS = 100  # generate --stats' default --runs
TITLE = "# Exact difficulty on side-6 boards"
# The marks around this script's section of OUT: what lies outside them is never touched.
BEGIN, END = section_marks("scripts/bench/difficulty.py")


def generated(count: int, seed: int) -> list[Board]:
    """The boards of ``sigmar generate --seed SEED --count COUNT``."""
    path = RESULTS / f"difficulty_boards_s{seed}_n{count}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    if sigmar(["generate", "--seed", str(seed), "--count", str(count), "-o", str(path), "--quiet"]) != 0:
        raise SystemExit("generate failed")
    return read_boards(path)


def measure(board: Board, time_limit: float, stats_seed: str) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    graph = play_graph(board, time_limit, keep=True)  # as generate --stats walks its boards
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
    stops = sorted({r["stopped_by"] for r in rows if not r["exact"]})
    table = [
        ("generated side-6 boards", len(rows), ""),
        ("walked whole (exact) within the limit", f"{len(exact)} of {len(rows)}", ">= 80 of 100"),
        (
            "time a board: median / p90 / max, wall (s)",
            f"{median(times):.3f} / {percentile(times, 90):.3f} / {max(times):.3f}",
            "median <= 1",
        ),
        ("boards done within 1 s wall", f"{sum(t <= 1 for t in times)} of {len(rows)}", ""),
        (
            "the others stopped by (limit: time or positions; memory; moves)",
            ", ".join(f"{why or '?'} {sum(r['stopped_by'] == why for r in rows)}" for why in stops) or "-",
            "",
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
        "## The latest run of scripts/bench/difficulty.py\n\n"
        f"`python scripts/bench/difficulty.py --count {args.count} --seed "
        f"{args.seed} --time-limit {args.time_limit:g}` on {date.today()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} cores, {core}; load average {load} (the machine is shared: "
        "wall times are inflated under load, CPU times less so).\n\n"
    )
    return head + markdown_table(("what", "value", "target"), table)


Rows = list[dict[str, Any]]


def with_section(old: str | None, section: str) -> str:
    """The record ``old`` (None: there is none yet) with ``section`` in place of this script's earlier one, between
    the marks; a record without them gets it after its title (or first), a new one a title and it."""
    return benchlib_section(old, section, "scripts/bench/difficulty.py", TITLE)


def save(rows: Rows, real: Rows, args: argparse.Namespace, load: str, total: int) -> str:
    """Write the rows so far to results/bench_difficulty.json and their summary into ``args.out`` as this script's
    section (:func:`with_section`; atomically both: an interrupted run leaves the last board's files whole); the
    summary says when boards are missing."""
    done = len(rows) + len(real)
    text = summary(rows, real, args, load)
    if done < total:
        note = f"**Partial:** {done} of {total} boards measured so far (the run saves after each board)."
        text = text.replace("\n\n", f"\n\n{note}\n\n", 1)
    record = {"count": args.count, "seed": args.seed, "time_limit": args.time_limit, "rows": rows, "real": real}
    out = Path(args.out)
    page = with_section(out.read_text() if out.exists() else None, text)
    files = ((out, page), (RESULTS / "bench_difficulty.json", json.dumps(record, indent=1)))
    for path, content in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        part.write_text(content)
        part.replace(path)
    return text


def resumed(args: argparse.Namespace) -> tuple[Rows, Rows]:
    """The rows of an interrupted run of the same boards and limit (``--resume``), else none."""
    path = RESULTS / "bench_difficulty.json"
    if not args.resume or not path.exists():
        return [], []
    record = json.loads(path.read_text())
    if (record.get("count"), record.get("seed"), record.get("time_limit")) != (args.count, args.seed, args.time_limit):
        print(f"{path} holds another run (count, seed or time limit differ): starting afresh", file=sys.stderr)
        return [], []
    return list(record["rows"]), list(record["real"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "difficulty.md"))
    parser.add_argument("--resume", action="store_true", help="keep the rows of an interrupted run of the same boards")
    args = parser.parse_args()
    before = os.getloadavg()[0]
    boards = generated(args.count, args.seed)
    real_boards = read_boards(INSTANCES / "real-game.txt")
    total = len(boards) + len(real_boards)
    rows, real = resumed(args)
    if rows or real:
        print(f"resuming after {len(rows)} generated and {len(real)} real-game boards", file=sys.stderr)
    for index, board in enumerate(boards):
        if index < len(rows):
            continue
        rows.append(measure(board, args.time_limit, f"sigmar-stats:{args.seed}:{index}"))
        r = rows[-1]
        print(
            f"{index:3d} {'exact' if r['exact'] else 'LIMIT'} {r['seconds']:8.3f} s {r['states']:>11,} positions "
            f"win {r['win'] if r['win'] is not None else '-'} sampled {r['sampled']}",
            file=sys.stderr,
            flush=True,
        )
        save(rows, real, args, f"{before:.1f} at the start, {os.getloadavg()[0]:.1f} now", total)
    for index, board in enumerate(real_boards):
        if index < len(real):
            continue
        real.append(measure(board, args.time_limit, f"sigmar-stats:real:{index}"))
        save(rows, real, args, f"{before:.1f} at the start, {os.getloadavg()[0]:.1f} now", total)
    after = os.getloadavg()[0]
    print(save(rows, real, args, f"{before:.1f} at the start, {after:.1f} at the end", total))


if __name__ == "__main__":
    main()
