"""How big and how fast the drawings of ``show --svg`` and ``show --html`` are.

Targets (issue 16):

- the SVG of a side-6 board is at most 30 KB;
- a page with a 28-move replay is at most 200 KB;
- drawing 1,000 boards to SVG takes at most 10 s.

Sizes are of the real-game board (with cell coordinates, the larger form) and
the largest over the 1,000 boards; the time is the median of ``--repeats``
runs over the same 1,000 boards (the first 1,000 of instances/hexmatch-easy.txt.xz).

    nice python scripts/bench/drawing_size.py --repeats 5

Prints the numbers and writes docs/bench-drawing.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from benchlib import boards as public_boards

from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.solution import parse_solutions, to_moves
from sigmar.runners.render.board_pages import replay_page
from sigmar.runners.render.svg import board_svg

ROOT = Path(__file__).resolve().parents[2]


def thousand_boards(count: int) -> tuple[list[Board], str]:
    return public_boards("hexmatch-easy", count), "instances/hexmatch-easy.txt.xz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-drawing.json")
    args = parser.parse_args()

    real = read_boards(ROOT / "instances" / "real-game.txt")[0]
    solution = parse_solutions((ROOT / "tests" / "data" / "real-game-0.solution.txt").read_text())[0]
    moves = to_moves(real, solution)
    svg_bytes = len(board_svg(real, coords=True).encode())
    page_bytes = len(replay_page(real, moves).encode())

    boards, source = thousand_boards(args.count)
    largest = max(len(board_svg(b, coords=True).encode()) for b in boards if b.dim == 6)
    runs = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for board in boards:
            board_svg(board)
        runs.append(time.perf_counter() - start)
    median = statistics.median(runs)

    summary = {
        "svg_bytes_real_game_side6": svg_bytes,
        "svg_bytes_largest_side6": largest,
        "replay_page_bytes_28_moves": page_bytes,
        "boards": len(boards),
        "boards_from": source,
        "svg_seconds_median": round(median, 4),
        "svg_seconds_runs": [round(r, 4) for r in runs],
        "targets": {"svg_bytes": 30_000, "page_bytes": 200_000, "svg_seconds": 10.0},
    }
    print(f"SVG, real-game board (side 6, with coordinates): {svg_bytes:,} bytes (target <= 30,000)")
    print(f"SVG, largest side-6 board of the {len(boards):,}: {largest:,} bytes")
    print(f"replay page, {len(moves)} moves: {page_bytes:,} bytes (target <= 200,000)")
    print(f"{len(boards):,} boards to SVG: median {median:.3f} s over {args.repeats} runs (target <= 10 s)")
    args.out.write_text(json.dumps({"command": "python scripts/bench/drawing_size.py", **summary}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
