"""Benchmark the ``search`` backend on the public boards (a script, not a timed test).

Every answer goes through the runner's check (the rule engine replays each
solution), so a board counts as solved only when verified.  Writes one CSV
row per board (board, status, seconds, nodes) and prints a summary per set,
plus the first 500 boards of each hexmatch set for the side-by-side with the
public solvers.

    python scripts/bench/search_public_boards.py                      # all 22,048 boards
    python scripts/bench/search_public_boards.py --limit 500 --sub sleep --order centre

A before/after comparison runs this script in each revision's own worktree and virtual
environment (``git worktree add``, ``pip install -e``) and compares the CSVs: the script no
longer loads an old revision beside this one, which meant rewriting its source text.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

from benchlib import RESULTS, boards, percentile, table_header, table_row

from sigmar.encoders.search import SearchBackend
from sigmar.encoders.search.engine import ORDERS
from sigmar.models.board import Board, Tile
from sigmar.models.hexgrid import cells, ring_neighbours
from sigmar.models.result import Result
from sigmar.models.templates import ondrovo_templates
from sigmar.runners.checking.replay import replayed

Row = tuple[str, str, float, int, float]  # board, status, seconds, nodes, CPU seconds
SETS = ("hexmatch-easy", "hexmatch-hard", "ondrovo-2048", "real-game")


def summary(label: str, rows: list[Row]) -> str:
    secs = [r[2] for r in rows]
    cpus = [r[4] for r in rows]
    solved = sum(1 for r in rows if r[1] == "solved")
    other = {s: sum(1 for r in rows if r[1].startswith(s)) for s in ("unsolvable", "unknown", "error")}
    extra = " ".join(f"{k}={v}" for k, v in other.items() if v)
    cells = [label, len(rows), f"{solved} {extra}".strip(), f"{1000 * statistics.median(secs):.2f}"]
    cells += [f"{1000 * percentile(secs, p):.2f}" for p in (90, 99)] + [f"{1000 * max(secs):.1f}"]
    cells += [f"{statistics.median([r[3] for r in rows]):.0f}", max(r[3] for r in rows)]
    return table_row([*cells, f"{1000 * percentile(cpus, 99):.2f}", f"{1000 * max(cpus):.1f}"])


STANDARD = "aaaaaaaaeeeeeeeeffffffffwwwwwwwwssssvvvvmmmmqqqqq12345"  # and gold on the template's gold cell


def shuffled_boards(count: int, seed: int) -> list[Board]:
    """The 55 standard tiles shuffled over the ondrovo templates: mostly unsolvable, found only by searching."""
    rng = random.Random(seed)
    templates = ondrovo_templates()
    out = []
    for k in range(count):
        template = rng.choice(templates)
        free_cells = [c for c in cells(template.dim) if c in template.cells and c != template.gold]
        symbols = list(STANDARD)
        rng.shuffle(symbols)
        placed = dict(zip(free_cells, symbols, strict=True))
        placed[template.gold] = "6"
        tiles = tuple(Tile(c, placed[c]) for c in cells(template.dim) if c in placed)
        out.append(Board(template.dim, tiles, f"shuffled {seed}:{k}"))
    return out


def deadlocked(board: Board) -> Board | None:
    """The board with lead moved and three alternate ring cells given quicksilver or later metals.

    Every triple of lead's ring then holds a tile that cannot leave before lead (quicksilver
    pairs only with the current metal, lead itself; later metals wait for lead): the classic
    deadlock by construction, which the thesis's solver needed minutes to exhaust.
    """
    symbol = dict(board.symbol_at)
    lead = min(board.metals)
    blockers = [c for c, s in symbol.items() if s == "q" or (s in "123456789" and s != lead and s != board.gold)]
    for cell in symbol:
        ring = ring_neighbours(cell)
        for start in (0, 1):
            chosen = [ring[k] for k in range(start, 6, 2)]
            if symbol[cell] == board.gold or not all(c in symbol and symbol[c] != board.gold for c in chosen):
                continue
            spare = [c for c in blockers if c not in chosen and c != cell]
            if len(spare) < 3:
                continue
            out = dict(symbol)
            lead_cell = next(c for c, s in symbol.items() if s == lead)
            out[lead_cell], out[cell] = out[cell], out[lead_cell]
            for target in chosen:
                if out[target] == "q" or (out[target] in "12345" and out[target] != lead):
                    continue
                source = next(c for c in spare if out[c] == "q" or (out[c] in "12345" and out[c] != lead))
                spare.remove(source)
                out[target], out[source] = out[source], out[target]
            tiles = tuple(Tile(c, out[c]) for c in cells(board.dim) if c in out)
            return Board(board.dim, tiles, f"{board.name} deadlocked")
    return None


def timed(backend: SearchBackend, board: Board, time_limit: float) -> tuple[Row, Result]:
    """One solve, timed (wall and CPU), then checked by the rule engine outside the timed part."""
    start, cpu_start = time.perf_counter(), time.process_time()
    result = backend.solve(board, time_limit)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    result = replayed(board, result)
    return (board.name, str(result.status), seconds, int(result.statistics.get("nodes", 0)), cpu), result


def boards_of(name: str, args: argparse.Namespace, rng: random.Random) -> list[Board]:
    """The boards of one set: a public file (sampled or cut to ``--limit``), or made ones."""
    if name == "shuffled":
        return shuffled_boards(args.shuffled, args.seed)
    if name == "deadlocked":
        source = boards("hexmatch-easy", args.deadlocks)
        return [b for b in (deadlocked(b) for b in source) if b is not None]
    found = boards(name)
    if args.sample is not None and args.sample < len(found):
        return rng.sample(found, args.sample)
    return found if args.limit is None else found[: args.limit]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma list of board files (without .txt)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N boards of each set")
    parser.add_argument("--sample", type=int, default=None, help="a random sample of N boards of each set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per board")
    parser.add_argument("--sub", choices=("dfs", "sleep"), default="dfs")
    parser.add_argument("--order", choices=ORDERS, default="restarts")
    parser.add_argument("--no-safe", action="store_true", help="switch the safe moves off")
    parser.add_argument("--no-locks", action="store_true", help="switch the locked-metal pruning off")
    parser.add_argument("--no-stuck", action="store_true", help="switch the stuck-set check at the start off")
    parser.add_argument("--shuffled", type=int, default=0, help="also N boards of shuffled standard tiles")
    parser.add_argument("--deadlocks", type=int, default=0, help="also N boards made deadlocked (lead locked in)")
    parser.add_argument("--out", type=Path, default=None, help="CSV path (default results/search-<sub>-<order>.csv)")
    args = parser.parse_args(argv)
    backend = SearchBackend(
        args.sub, order=args.order, safe=not args.no_safe, locks=not args.no_locks, stuck=not args.no_stuck
    )
    out = args.out or RESULTS / f"search-{args.sub}-{args.order}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    per_set: dict[str, list[Row]] = {}
    first500: dict[str, list[Row]] = {}
    with out.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["board", "status", "seconds", "nodes", "reason", "cpu_seconds", "set"])
        names = [n for n in args.sets.split(",") if n]
        if args.shuffled:
            names.append("shuffled")
        if args.deadlocks:
            names.append("deadlocked")
        for name in names:
            rows = per_set.setdefault(name, [])
            for index, board in enumerate(boards_of(name, args, rng)):
                row, result = timed(backend, board, args.time_limit)
                rows.append(row)
                if name.startswith("hexmatch") and index < 500 and args.sample is None:
                    first500.setdefault(name, []).append(row)
                writer.writerow([*row[:2], f"{row[2]:.6f}", row[3], result.reason or "", f"{row[4]:.6f}", name])
                if result.status.value != "solved" and name not in ("shuffled", "deadlocked"):
                    print(f"  {board.name}: {result.status} {result.message or result.explanation}", flush=True)
            print(f"{name}: {len(rows)} boards done", file=sys.stderr, flush=True)
    header = ["set", "boards", "solved", "median ms", "p90 ms", "p99 ms", "max ms", "median nodes", "max nodes"]
    lines = [table_header([*header, "p99 CPU ms", "max CPU ms"])]
    for name, rows in per_set.items():
        lines.append(summary(name, rows))
    lines.append(summary("all", [r for rows in per_set.values() for r in rows]))
    for name, rows in first500.items():
        lines.append(summary(f"{name} first {len(rows)}", rows))
    text = "\n".join(lines)
    print(text)
    print(f"CSV: {out}")
    (out.with_suffix(".md")).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
