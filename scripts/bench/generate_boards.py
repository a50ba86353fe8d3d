"""Benchmark of ``sigmar generate``: generation time, solvability of shuffles, big boards.

Run from the project root:

    python scripts/bench/generate_boards.py            # the numbers in docs/generate.md
    python scripts/bench/generate_boards.py --quick    # a smaller sample

Prints a report and writes it to results/bench_generate.md.  Times are wall
clock on whatever machine runs it; on a shared machine they are noisy, so
medians are reported.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from benchlib import table_header, table_row

from sigmar.encoders.registry import UnknownBackend, make
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.difficulty import clear_rate
from sigmar.models.generator import (
    PAIRED_TILES,
    deadlocked,
    generate,
    shuffled,
    standard_template_for,
    swapped,
    tiles_for_dim,
)
from sigmar.models.result import Result, Status
from sigmar.models.rules import verify
from sigmar.models.stuck_sets import unsolvable_reason
from sigmar.models.templates import ondrovo_templates
from sigmar.runners.checking.replay import run_replayed
from sigmar.runners.cli.generate import refute

ROOT = Path(__file__).resolve().parents[2]


def ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.3f}"


def section_standard(boards: int, out: list[str]) -> None:
    templates = ondrovo_templates()
    rng = random.Random(1)
    gen_times, verify_times, attempts = [], [], []
    valid = 0
    cpu = 0.0
    for i in range(boards):
        template = templates[i % len(templates)]
        start, start_cpu = time.perf_counter(), time.process_time()
        made = generate(template, rng)
        gen_times.append(time.perf_counter() - start)
        cpu += time.process_time() - start_cpu
        attempts.append(made.attempts)
        start = time.perf_counter()
        valid += verify(made.board, made.witness).valid
        verify_times.append(time.perf_counter() - start)
    out.append("## Standard boards (43 ondrovo templates, round robin)\n")
    header = ["boards", "median ms to generate", "mean ms (wall)", "mean ms (CPU)", "p95 ms"]
    out.append(table_header([*header, "median ms to verify the witness", "verified", "mean attempts"]))
    p95 = sorted(gen_times)[int(0.95 * len(gen_times))]
    cells = [boards, ms(gen_times), f"{1000 * statistics.mean(gen_times):.3f}", f"{1000 * cpu / boards:.3f}"]
    cells += [f"{1000 * p95:.3f}", ms(verify_times), f"{valid}/{boards}", f"{statistics.mean(attempts):.3f}"]
    out.append(table_row(cells) + "\n")


def section_dims(boards: int, out: list[str]) -> None:
    out.append("## Bigger boards (random shapes, 2-, 3- and 6-fold)\n")
    out.append(
        table_header(["side", "tiles", "metals", "median ms to generate", "verified", "search median s (solved)"])
    )
    for dim in sorted(PAIRED_TILES):
        rng = random.Random(dim)
        times, valid, solve_times, solved = [], 0, [], 0
        for i in range(boards):
            template = standard_template_for(dim, rng)
            start = time.perf_counter()
            made = generate(template, rng)
            times.append(time.perf_counter() - start)
            valid += verify(made.board, made.witness).valid
            if i < 10:
                result = _search(made.board, 10.0)
                if result is not None and result.status is Status.SOLVED:
                    solved += 1
                    solve_times.append(result.seconds)
        metals = len(made.board.metals)
        search = f"{statistics.median(solve_times):.3f} ({solved}/10)" if solve_times else "-"
        out.append(table_row([dim, tiles_for_dim(dim), metals, ms(times), f"{valid}/{boards}", search]))
    out.append("")


def _search(board: Board, time_limit: float) -> Result | None:
    try:
        return run_replayed(make("search"), board, time_limit)
    except UnknownBackend:
        return None


def section_shuffles(per_template: int, time_limit: float, out: list[str]) -> None:
    """Random shuffles of the standard tiles over each template: how many are solvable?"""
    out.append(f"## Random shuffles per template ({per_template} each, `search` with {time_limit:g} s)\n")
    out.append(table_header(["template", "solvable", "unsolvable (static)", "unsolvable (exhausted)", "unknown"]))
    total: Counter[str] = Counter()
    for index, template in enumerate(ondrovo_templates()):
        rng = random.Random(1000 + index)
        tally: Counter[str] = Counter()
        for _ in range(per_template):
            board = shuffled(generate(template, rng).board, rng)
            found = unsolvable_reason(board)
            if found is not None:
                tally[f"unsolvable {found[0]}"] += 1
                continue
            result = _search(board, time_limit)
            if result is None:
                tally["unknown"] += 1
            elif result.status is Status.SOLVED:
                tally["solvable"] += 1
            elif result.status is Status.UNSOLVABLE:
                tally[f"unsolvable {result.reason}"] += 1
            else:
                tally["unknown"] += 1
        total += tally
        label = template.name.split(":")[0]
        kinds = ("solvable", "unsolvable static", "unsolvable exhausted", "unknown")
        out.append(table_row([label, *(tally[kind] for kind in kinds)]))
    n = sum(total.values())
    share = f"{total['solvable']} ({100 * total['solvable'] / n:.0f}%)"
    kept = [total["unsolvable static"], total["unsolvable exhausted"], total["unknown"]]
    out.append(table_row(["**all**", share, *kept]) + "\n")


def section_interest(boards: int, runs: int, out: list[str]) -> None:
    """Random-play clear rate of generated boards against the public ones."""
    out.append(f"## Random-play clear rate ({boards} boards, {runs} random plays each)\n")
    out.append(table_header(["boards", "median clear rate", "mean", "boards never cleared"]))
    rng = random.Random(5)
    sets: dict[str, list[Board]] = {
        "generated (ondrovo templates)": [generate(ondrovo_templates()[i % 43], rng).board for i in range(boards)],
    }
    for name in ("ondrovo-100.txt", "hexmatch-easy-100.txt", "hexmatch-hard-100.txt"):
        path = ROOT / "instances" / name
        if path.exists():
            sets[name] = read_boards(path)[:boards]
    for name, group in sets.items():
        rates = [clear_rate(b, runs, random.Random(i)) for i, b in enumerate(group)]
        never = sum(1 for r in rates if r == 0)
        out.append(
            table_row(
                [name, f"{statistics.median(rates):.3f}", f"{statistics.mean(rates):.3f}", f"{never}/{len(rates)}"]
            )
        )
    out.append("")


def section_dim9(time_limit: float, out: list[str]) -> None:
    out.append("## Side 9 (163 tiles: 3 x the standard 54 paired tiles, plus gold)\n")
    rng = random.Random(9)
    start = time.perf_counter()
    made = generate(standard_template_for(9, rng), rng)
    generated = time.perf_counter() - start
    out.append(f"- generated in {1000 * generated:.2f} ms; witness valid: {verify(made.board, made.witness).valid}")
    for name in ("search", "cpsat"):
        try:
            backend = make(name)
        except UnknownBackend:
            continue
        result = run_replayed(backend, made.board, time_limit)
        out.append(f"- solved by {result.backend}: {result.status}, verified {result.verified}, {result.seconds:.2f} s")
    # Unsolvable of that size: a deadlock (static), and shuffles/swaps until one is refuted.
    board = deadlocked(made.board, rng)
    if board is not None:
        start = time.perf_counter()
        found = refute(board, 60.0)
        out.append(
            f"- deadlock by construction refuted ({found[0] if found else 'no'}) in {time.perf_counter() - start:.3f} s"
        )
    tally: Counter[str] = Counter()
    first: dict[str, float] = {}
    for i in range(30):
        base = generate(standard_template_for(9, rng), rng).board
        candidate = shuffled(base, rng) if i % 2 == 0 else swapped(base, rng)
        start = time.perf_counter()
        found = unsolvable_reason(candidate)
        if found is not None:
            key = f"unsolvable ({found[0]})"
        else:
            result = _search(candidate, 10.0)
            status = "unknown" if result is None else str(result.status)
            key = f"{status} by search" if result is None or result.reason is None else f"{status} ({result.reason})"
        seconds = time.perf_counter() - start
        tally[key] += 1
        first.setdefault(key, seconds)
    for key, n in sorted(tally.items()):
        out.append(f"- 30 shuffles/swaps of side-9 boards: {n} {key} (the first in {first[key]:.2f} s)")
    out.append("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small samples")
    args = parser.parse_args()
    quick = args.quick
    out = ["# bench_generate", ""]
    section_standard(200 if quick else 2000, out)
    print("\n".join(out))
    section_dims(20 if quick else 100, out)
    section_interest(10 if quick else 50, 20 if quick else 100, out)
    section_dim9(10.0, out)
    section_shuffles(1 if quick else 5, 2.0, out)
    text = "\n".join(out) + "\n"
    print(text)
    results = ROOT / "results"
    results.mkdir(exist_ok=True)
    (results / "bench_generate.md").write_text(text)


if __name__ == "__main__":
    main()
