"""The proved hint on positions from play: every mark shown, none unknown, how long a position takes.

    python scripts/bench/hint_positions.py [--positions 50] [--seed 1] [--time-limit 10]
        [--out docs/measured/hint.md]

Takes half the positions from play on solvable side-6 boards (``sigmar generate --seed S``) and
half from play on unsolvable ones (instances/generated-unsolvable.txt): each is a board and a
random legal play of 0 to 24 moves on it, cut back to the last position with a legal move (a
position with none has nothing to mark).  Gives each position
``sigmar hint``'s answer (runners/design/hint.py) within ``--time-limit`` seconds, then checks it
again here, apart from the hint's own checks:

- every *safe* move: the moves played, the move and its solution replayed by the rule engine
  from the start of the board (it must clear it);
- every *losing* move: its certificate read again by ``check_certificate`` on the board of the
  position after the move (the counts, a stuck set, a dead-states file or a DRUP proof);
- the targets: no move *unknown* at 10 s a position, and the time of a position (median, p95,
  max), with the load.

Prints and writes OUT (default docs/measured/hint.md) and results/bench_hint.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import INSTANCES, RESULTS, ROOT, markdown_table, median, percentile

from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Move
from sigmar.models.rules import Position, verify
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli import main as sigmar
from sigmar.runners.design.hint import hint, position_board

MOST_PLAYED = 24


def positions(count: int, seed: int) -> list[tuple[Board, list[Move], str]]:
    """``count`` positions: half from play on solvable boards, half on unsolvable ones (module docstring)."""
    solvable_path = RESULTS / f"hint_boards_s{seed}.txt"
    RESULTS.mkdir(parents=True, exist_ok=True)
    assert sigmar(["generate", "--seed", str(seed), "--count", str(count), "-o", str(solvable_path), "--quiet"]) == 0
    solvable = read_boards(solvable_path)
    unsolvable = read_boards(INSTANCES / "generated-unsolvable.txt")
    rng = random.Random(f"sigmar-hint-bench:{seed}")
    found = []
    for index in range(count):
        kind = "solvable" if index % 2 == 0 else "unsolvable"
        board = solvable[index // 2] if kind == "solvable" else unsolvable[(index // 2) % len(unsolvable)]
        line, position = [Position.start(board)], Position.start(board)
        played: list[Move] = []
        for _ in range(rng.randint(0, MOST_PLAYED)):
            moves = position.legal_moves()
            if not moves:
                break
            played.append(rng.choice(moves))
            position = position.play(played[-1])
            line.append(position)
        while played and not line[len(played)].legal_moves():  # a position with a move to mark
            played.pop()
        found.append((board, played, kind))
    return found


def recheck(board: Board, played: list[Move], found: Any) -> tuple[int, int, list[str]]:
    """(safe moves replayed, losing moves whose certificate checks again, what failed)."""
    replayed = certified = 0
    failures = []
    left = found.left
    for item in found.moves:
        if item.mark == "safe":
            if verify(board, [*played, item.move, *item.answer.moves]).valid:
                replayed += 1
            else:
                failures.append(f"safe move {item.move} does not replay")
        elif item.mark == "losing":
            after = position_board(board, left - set(item.move.cells))
            certificate = item.answer.certificate
            if certificate is None:
                failures.append(f"losing move {item.move} has no certificate")
                continue
            record = {**certificate.json(), "file": certificate.file}
            if check_certificate(after, record).valid:
                certified += 1
            else:
                failures.append(f"losing move {item.move}: certificate rejected")
    return replayed, certified, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "hint.md"))
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    rows = []
    kinds: Counter[str] = Counter()
    with ProofStore() as proofs:
        for board, played, kind in positions(args.positions, args.seed):
            wall, cpu = time.perf_counter(), time.process_time()
            found = hint(board, played, args.time_limit, proofs)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            replayed, certified, failures = recheck(board, played, found)
            for item in found.moves:
                if item.mark == "losing" and item.answer.certificate is not None:
                    kinds[str(item.answer.certificate.kind)] += 1
            rows.append(
                {
                    "board": board.name,
                    "kind": kind,
                    "played": len(played),
                    "tiles_left": len(found.left),
                    "status": found.status,
                    "moves": len(found.moves),
                    "safe": found.count("safe"),
                    "losing": found.count("losing"),
                    "unknown": found.count("unknown"),
                    "replayed": replayed,
                    "certified": certified,
                    "failures": failures,
                    "seconds": round(wall, 4),
                    "cpu_seconds": round(cpu, 4),
                }
            )
            r = rows[-1]
            print(
                f"{len(rows):3d} {kind:10s} played {r['played']:2d} {r['status']:9s} safe {r['safe']:2d} losing "
                f"{r['losing']:2d} unknown {r['unknown']} {wall:.3f} s",
                flush=True,
            )
    load_end = os.getloadavg()[0]
    times = [r["seconds"] for r in rows]
    cpu = [r["cpu_seconds"] for r in rows]
    moves = sum(r["moves"] for r in rows)
    table = [
        (
            "positions (from play on solvable / unsolvable side-6 boards)",
            f"{len(rows)} ({sum(r['kind'] == 'solvable' for r in rows)} / "
            f"{sum(r['kind'] == 'unsolvable' for r in rows)})",
            "50",
        ),
        (
            "their status: clearable / lost / cleared / unknown",
            " / ".join(str(sum(r["status"] == s for r in rows)) for s in ("clearable", "lost", "cleared", "unknown")),
            "",
        ),
        (
            "legal moves marked: safe / losing / unknown",
            f"{sum(r['safe'] for r in rows)} / {sum(r['losing'] for r in rows)} / {sum(r['unknown'] for r in rows)} "
            f"of {moves}",
            "unknown 0",
        ),
        (
            "safe moves replayed again from the start",
            f"{sum(r['replayed'] for r in rows)} of {sum(r['safe'] for r in rows)}",
            "all",
        ),
        (
            "losing moves whose certificate checks again",
            f"{sum(r['certified'] for r in rows)} of {sum(r['losing'] for r in rows)}",
            "all",
        ),
        ("losing moves by certificate", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-", ""),
        (
            "time a position: median / p95 / max, wall (s)",
            f"{median(times):.3f} / {percentile(times, 95):.3f} / {max(times):.3f}",
            "p95 <= 0.2 (quiet)",
        ),
        (
            "time a position: median / p95 / max, CPU (s)",
            f"{median(cpu):.3f} / {percentile(cpu, 95):.3f} / {max(cpu):.3f}",
            "",
        ),
        ("failures of the second check", str(sum(len(r["failures"]) for r in rows)), "0"),
    ]
    head = (
        f"# The proved hint on positions from play\n\n`python scripts/bench/hint_positions.py --positions "
        f"{args.positions} --seed {args.seed} --time-limit {args.time_limit:g}` on {date.today()}, "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores; load average {load_start:.1f} at the "
        f"start, {load_end:.1f} at the end (the machine is shared: wall times are inflated under load, CPU times "
        "less so).\n\n"
    )
    text = head + markdown_table(("what", "value", "target"), table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n")
    (RESULTS / "bench_hint.json").write_text(json.dumps(rows, indent=1))
    print()
    print(text)


if __name__ == "__main__":
    main()
