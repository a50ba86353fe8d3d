"""Measure the cnf encodings: size, encode time, solve time, refutation time.

Prints tables and writes them (with every per-board row) to results/bench_cnf.json.

    python scripts/bench/cnf_encodings.py --boards 20 --unsolvable 10

Solve times are the SAT call alone on the python-sat solver in this process
(CaDiCaL included: the backend runs CaDiCaL in a child process, which adds a
fork to each call); encode times are building the clause list in Python.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchlib import boards as public_boards
from benchlib import table_header, table_row
from pysat.solvers import Solver

from sigmar.encoders.cnf import build_formula
from sigmar.encoders.cnf.default import build as build_default
from sigmar.encoders.cnf.leave_steps import leave_step_bounds
from sigmar.encoders.registry import info, make
from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import read_boards
from sigmar.models.facts import facts_of
from sigmar.models.rules import count_problem, verify

ROOT = Path(__file__).resolve().parents[2]
# The sections that solve boards (each must measure at least one), and every section --sections takes.
SOLVING = frozenset({"solvable", "ablation", "unsolvable"})
SECTIONS = SOLVING | {"sizes", "backend"}


def sample_sets(n: int) -> dict[str, list[Board]]:
    """instances/ samples when present, else the first boards of the public sets."""
    out: dict[str, list[Board]] = {}
    for name, instance, public in (
        ("hexmatch-easy", "hexmatch-easy-100.txt", "hexmatch-easy"),
        ("hexmatch-hard", "hexmatch-hard-100.txt", "hexmatch-hard"),
        ("ondrovo", "ondrovo-100.txt", "ondrovo-2048"),
        ("real-game", "real-game.txt", "real-game"),
    ):
        path = ROOT / "instances" / instance
        found = read_boards(str(path)) if path.exists() else public_boards(public)
        out[name] = [b for b in found if count_problem(b) is None][:n]
    return out


def timed_solve(clauses: list[list[int]], solver: str, limit: float) -> tuple[bool | None, float, list[int] | None]:
    import threading

    with Solver(name=solver, bootstrap_with=clauses) as sat:
        interruptible = not solver.startswith("cadical")  # CaDiCaL ignores interrupt(): no limit here
        timer = threading.Timer(limit, sat.interrupt)
        if interruptible:
            timer.start()
        start = time.perf_counter()
        try:
            answer = sat.solve_limited(expect_interrupt=True) if interruptible else sat.solve()
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        return answer, seconds, (sat.get_model() if answer else None)


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def swapped_unsolvable(boards: list[Board], want: int, seed: int) -> list[Board]:
    """Unsolvable standard boards: two tiles of different kinds swapped, kept when the default refutes it.

    Each is then confirmed by the thesis encoding in the refutation section.
    """
    rng = random.Random(seed)
    out: list[Board] = []
    for board in boards:
        tiles = list(board.tiles)
        for _ in range(30):
            i, j = rng.sample(range(len(tiles)), 2)
            if tiles[i].symbol == tiles[j].symbol:
                continue
            swapped = list(tiles)
            swapped[i], swapped[j] = Tile(tiles[i].cell, tiles[j].symbol), Tile(tiles[j].cell, tiles[i].symbol)
            candidate = Board(board.dim, tuple(swapped), f"{board.name} swap {i},{j}")
            K = facts_of(candidate).horizon
            early, late = leave_step_bounds(candidate, K)
            if any(first > last for first, last in zip(early, late, strict=True)):
                continue  # refuted by reachability alone: too easy to time a solver on
            answer, _, _ = timed_solve(build_formula(candidate).clauses, "glucose4", 60)
            if answer is False:
                out.append(candidate)
                break
        if len(out) >= want:
            break
    return out


def run_one(
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    section: str,
    set_name: str,
    board: Board,
    variant: str,
    solver: str,
    **options: Any,
) -> dict[str, Any]:
    """Encode and solve one board, check an assignment with the rule engine, and keep the row."""
    start = time.perf_counter()
    formula = build_formula(board, variant, **options) if variant != "ablation" else build_default(board, **options)
    encode = time.perf_counter() - start
    limit = args.thesis_limit if variant == "thesis" else args.limit
    answer, seconds, assignment = timed_solve(formula.clauses, solver, limit)
    valid = verify(board, formula.decode(assignment)).valid if assignment is not None else None
    row = {
        "section": section,
        "set": set_name,
        "board": board.name,
        "variant": variant + (f" {options}" if options else ""),
        "solver": solver,
        "clauses": len(formula.clauses),
        "variables": formula.nv,
        "encode_s": round(encode, 4),
        "solve_s": round(seconds, 4),
        "answer": {True: "sat", False: "unsat", None: "unknown"}[answer],
        "verified": valid,
    }
    if answer is True and not valid:
        print(f"WRONG: {variant} {solver} on {board.name}", file=sys.stderr)
    rows.append(row)
    return row


def print_table(report: dict[str, Any], title: str, selected: list[dict[str, Any]], key: tuple[str, ...]) -> None:
    """One markdown table of ``selected`` rows grouped by ``key`` (kept in the report too)."""
    if not selected:
        return
    print(f"\n## {title}\n")
    columns = ["boards", "clauses (median)", "clauses (max)", "variables (median)", "encode s (median)"]
    print(table_header([*key, *columns, "solve s (median)", "solve s (max)", "answers"]))
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in selected:
        groups.setdefault(tuple(row[k] for k in key), []).append(row)
    for group, members in groups.items():
        answers: dict[str, int] = {}
        for row in members:
            answers[row["answer"]] = answers.get(row["answer"], 0) + 1
        cells = [
            *group,
            len(members),
            f"{med([r['clauses'] for r in members]):,.0f}",
            f"{max(r['clauses'] for r in members):,}",
            f"{med([r['variables'] for r in members]):,.0f}",
            f"{med([r['encode_s'] for r in members]):.3f}",
            f"{med([r['solve_s'] for r in members]):.3f}",
            f"{max(r['solve_s'] for r in members):.3f}",
            ", ".join(f"{k} {v}" for k, v in sorted(answers.items())),
        ]
        print(table_row(cells))
    report.setdefault("tables", {})[title] = groups and {" ".join(map(str, g)): len(m) for g, m in groups.items()}


def size_section(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """The default encoding's size on many boards of the public sets (no solving)."""
    print("\n## Default encoding size on the public sets\n")
    print(table_header(["set", "boards", "clauses (median)", "clauses (max)", "over 24,500"]))
    for public in ("hexmatch-easy", "hexmatch-hard", "ondrovo-2048", "real-game"):
        chosen = [b for b in public_boards(public, args.size_boards) if count_problem(b) is None]
        sizes = [len(build_formula(b).clauses) for b in chosen]
        if not sizes:
            raise SystemExit(f"no boards of '{public}' in instances/ to measure")
        report.setdefault("sizes", {})[public] = sizes
        over = sum(size > 24_500 for size in sizes)
        print(table_row([public, len(sizes), f"{med(sizes):,.0f}", f"{max(sizes):,}", over]))


def backend_section(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """The backend end to end (encode, solve, replay) on boards 1000.. of the public sets."""
    from sigmar.encoders.cnf import CnfBackend
    from sigmar.runners.checking.replay import run_replayed

    print("\n## cnf backend end to end (encode, solve, replay)\n")
    print(table_header(["set", "boards", "solved and verified", "seconds (median)", "seconds (max)"]))
    for public in ("hexmatch-easy", "hexmatch-hard", "ondrovo-2048"):
        chosen = public_boards(public, args.size_boards, start=1000)
        if not chosen:
            raise SystemExit(f"no boards 1000.. of '{public}' in instances/ to run")
        results = [run_replayed(CnfBackend(), board, args.limit) for board in chosen]
        good = sum(r.verified for r in results)
        times = [r.seconds for r in results]
        report.setdefault("backend", {})[public] = times
        print(table_row([public, len(chosen), good, f"{med(times):.3f}", f"{max(times):.3f}"]))


def confirm_with_other_backends(args: argparse.Namespace, report: dict[str, Any], unsolvable: list[Board]) -> None:
    """What search and CP-SAT say of the swapped boards, as a check on the CNF's refutations."""
    for family in ("search", "cpsat"):
        if unsolvable and info(family).available:
            backend = make(family)
            answers = [backend.solve(board, args.limit).status.value for board in unsolvable]
            report.setdefault("confirmed", {})[family] = answers
            print(f"{family} says: " + ", ".join(f"{a} {answers.count(a)}" for a in sorted(set(answers))))


def parse_args() -> argparse.Namespace:
    """The command line; ``sections`` becomes a set of known section names (exit 2 on another)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=20, help="boards per set (default 20)")
    parser.add_argument("--thesis-boards", type=int, default=5, help="boards per set for the thesis (default 5)")
    parser.add_argument("--unsolvable", type=int, default=10, help="unsolvable boards to make (default 10)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per SAT call (default 60)")
    parser.add_argument("--thesis-limit", type=float, default=60.0, help="seconds per thesis SAT call (default 60)")
    parser.add_argument(
        "--sections", default="solvable,ablation,unsolvable", help="which parts to run (also: sizes, backend)"
    )
    parser.add_argument("--size-boards", type=int, default=200, help="boards per public set for 'sizes'")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_cnf.json"))
    args = parser.parse_args()
    args.sections = set(args.sections.split(","))
    unknown = sorted(args.sections - SECTIONS)
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)} (choose from {', '.join(sorted(SECTIONS))})")
    return args


def unmeasured(sections: set[str], rows: list[dict[str, Any]]) -> list[str]:
    """The solving sections asked for that have no row: they measured nothing, which is no success."""
    return sorted(name for name in sections & SOLVING if not any(r["section"] == name for r in rows))


def main() -> int:
    args = parse_args()
    sections = args.sections
    sets = sample_sets(args.boards)
    if not any(sets.values()):
        print(f"no boards in {ROOT / 'instances'}", file=sys.stderr)
        return 1
    report: dict[str, Any] = {"boards_per_set": args.boards, "rows": []}
    rows: list[dict[str, Any]] = report["rows"]

    run = functools.partial(run_one, args, rows)
    table = functools.partial(print_table, report)

    if "sizes" in sections:
        size_section(args, report)
    if "backend" in sections:
        backend_section(args, report)

    # 1. both variants, three solvers, every set
    for set_name, boards in sets.items() if "solvable" in sections else ():
        for board in boards:
            for solver in ("glucose4", "glucose42", "cadical195"):
                run("solvable", set_name, board, "default", solver)
            run("solvable", set_name, board, "steps", "glucose4")
        for board in boards[: args.thesis_boards]:
            for solver in ("glucose4", "cadical195"):
                run("solvable", set_name, board, "thesis", solver)
    table(
        "Solvable standard boards",
        [r for r in rows if r["section"] == "solvable"],
        ("set", "variant", "solver"),
    )

    # 2. ablations on the hard set: cardinality encodings, pruning
    hard = sets.get("hexmatch-hard") or next(iter(sets.values()))
    for board in hard if "ablation" in sections else ():
        for card in ("seqcounter", "ladder", "pairwise", "totalizer"):
            run("ablation", "hexmatch-hard", board, "ablation", "glucose4", card=card)
        run("ablation", "hexmatch-hard", board, "ablation", "glucose4", prune=False)
        run("ablation", "hexmatch-hard", board, "ablation", "glucose4", free="clear")
        run("ablation", "hexmatch-hard", board, "ablation", "glucose4", sync="bits")
    table(
        "Default encoding: what each idea buys (glucose4)",
        [r for r in rows if r["section"] == "ablation"],
        ("variant",),
    )

    # 3. refutation
    pool = [b for boards in sets.values() for b in boards]
    unsolvable = swapped_unsolvable(pool, args.unsolvable, seed=7) if "unsolvable" in sections else []
    for board in unsolvable:
        for solver in ("glucose4", "glucose42", "cadical195"):
            run("unsolvable", "swapped", board, "default", solver)
        run("unsolvable", "swapped", board, "steps", "glucose4")
        run("unsolvable", "swapped", board, "thesis", "glucose4")
    table(
        "Unsolvable standard boards (two tiles swapped; not refuted by the reachability windows alone)",
        [r for r in rows if r["section"] == "unsolvable"],
        ("variant", "solver"),
    )
    confirmed = [r for r in rows if r["section"] == "unsolvable" and r["variant"] == "thesis"]
    if confirmed:
        print(f"\nthesis confirms unsolvable: {sum(r['answer'] == 'unsat' for r in confirmed)} of {len(confirmed)}")
    confirm_with_other_backends(args, report, unsolvable)
    wrong = [r for r in rows if r["answer"] == "sat" and not r["verified"]]
    print(f"solutions rejected by the rule engine: {len(wrong)}")

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"\nrows written to {out}")
    empty = unmeasured(sections, rows)
    if empty:
        print(f"nothing measured in: {', '.join(empty)} (no boards read or made)", file=sys.stderr)
        return 1
    return 0 if not wrong else 3


if __name__ == "__main__":
    sys.exit(main())
