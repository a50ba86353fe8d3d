"""The quintessence variant on the public boards (instances/*-quintessence.txt.xz): the race, every answer verified.

Target (issue 17): all 20,000 boards solved and verified by the race, p99 <= 50 ms, max <= 2 s;
and each backend on a 200-board variant sample, its median and max next to its median on
standard boards (instances/).

    python scripts/bench/quintessence_boards.py race [--every K]          # the race on every K-th board
    python scripts/bench/quintessence_boards.py backends [--sample 200]   # each backend alone

``race`` writes results/bench_quintessence.json (summary and every board's seconds) and
results/bench_quintessence.csv (board, status, backend, seconds, verified, search nodes); the
summary names the slowest boards and which backend answered them.  ``backends`` runs each
backend alone (a one-backend race, so answers are checked and a hung solver is killed) on the
same random variant and standard samples, and writes results/bench_quintessence_backends.json
(or ``--out``) and a Markdown table beside it.  A backend that refuses the variant is listed as
refusing (and not run on the standard sample).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from benchlib import PUBLIC, QUINTESSENCE, RESULTS, boards, markdown_table, percentile

from sigmar.encoders.registry import expand, info, make
from sigmar.models.board import Board
from sigmar.models.result import Result, Status
from sigmar.runners.race import Race

VARIANTS = QUINTESSENCE
STANDARD = (*PUBLIC, "real-game")
# Each family's models (not every SAT or MiniZinc solver: those share one encoding).
MODELS = (
    "search",
    "search:sleep",
    "cnf",
    "cnf:steps",
    "cnf:thesis",
    "cpsat:order",
    "cpsat:steps",
    "minizinc",
    "minizinc:gecode:steps",
)


def load(names: tuple[str, ...], every: int = 1) -> list[Board]:
    """Every ``every``-th board of each named set in instances/."""
    return [b for name in names for b in boards(name)[::every]]


def race_pass(args: argparse.Namespace) -> int:
    boards = load(VARIANTS, args.every)
    rows: list[dict[str, object]] = []
    with Race(expand(args.backend)) as race:
        for board in boards:
            start = time.perf_counter()
            outcome = race.solve(board, args.time_limit)
            seconds = time.perf_counter() - start
            result = outcome.result
            search = outcome.answers.get("search")
            nodes = search.statistics.get("nodes", "") if search is not None else ""
            rows.append(
                {
                    "board": board.name,
                    "status": str(result.status),
                    "backend": result.backend,
                    "seconds": round(seconds, 6),
                    "verified": result.verified,
                    "search_nodes": nodes,
                }
            )
    seconds = [float(str(r["seconds"])) for r in rows]
    slowest = sorted(rows, key=lambda r: -float(str(r["seconds"])))[:10]
    summary = {
        "boards": len(rows),
        "answers": dict(Counter(f"{r['status']} by {r['backend']}" for r in rows)),
        "unverified solutions": sum(1 for r in rows if r["status"] == "solved" and not r["verified"]),
        "median_ms": round(1000 * statistics.median(seconds), 3),
        "p99_ms": round(1000 * percentile(seconds, 99), 3),
        "max_s": round(max(seconds), 4),
        "slowest": [
            f"{r['board']}: {r['seconds']} s, {r['status']} by {r['backend']}, {r['search_nodes']} nodes"
            for r in slowest
        ],
        "command": " ".join(["python", *sys.argv]),
    }
    print(json.dumps(summary, indent=1))
    out = args.out or RESULTS / "bench_quintessence.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "seconds": seconds}))
    with out.with_suffix(".csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0


def available_models(spec: str | None) -> list[str]:
    names = spec.split(",") if spec else list(MODELS)
    return [n for n in names if info(n.split(":")[0]).available]


def one_backend(name: str, boards: list[Board], time_limit: float) -> dict[str, object]:
    """``name`` alone on ``boards``: answers counted, seconds of the solved and certified ones."""
    if make(name).refusal(boards[0]) is not None:
        return {"refuses": True}
    answers: Counter[str] = Counter()
    seconds: list[float] = []
    with Race([name]) as race:
        for board in boards:
            start = time.perf_counter()
            result: Result = race.solve(board, time_limit).result
            elapsed = time.perf_counter() - start
            answers[str(result.status)] += 1
            if result.status in (Status.SOLVED, Status.UNSOLVABLE):
                seconds.append(elapsed)
    out: dict[str, object] = {"answers": dict(answers)}
    if seconds:
        out.update(median_s=round(statistics.median(seconds), 4), max_s=round(max(seconds), 4))
    return out


def cell(entry: dict[str, object], key: str) -> str:
    if entry.get("refuses"):
        return "refuses"
    value = entry.get(key)
    return "-" if value is None else f"{value}"


def backends_pass(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    variant = rng.sample(load(VARIANTS), args.sample)
    standard = rng.sample(load(STANDARD), args.sample)
    table: dict[str, dict[str, dict[str, object]]] = {}
    for name in available_models(args.backends):
        table[name] = {"variant": one_backend(name, variant, args.time_limit)}
        if not table[name]["variant"].get("refuses"):
            table[name]["standard"] = one_backend(name, standard, args.time_limit)
        print(name, json.dumps(table[name]), flush=True)
    header = ["backend", f"variant: answered of {args.sample}", "variant median s", "variant max s"]
    header += [f"standard: answered of {args.sample}", "standard median s"]
    rows = []
    for name, entry in table.items():
        v, s = entry["variant"], entry.get("standard", {})
        answered = [sum(int(n) for k, n in dict(e.get("answers", {})).items() if k != "unknown") for e in (v, s)]
        cells = [name, "refuses" if v.get("refuses") else answered[0], cell(v, "median_s"), cell(v, "max_s")]
        rows.append([*cells, answered[1] if s else "-", cell(s, "median_s") if s else "-"])
    text = markdown_table(header, rows)
    print(text)
    command = " ".join(["python", *sys.argv])
    out = args.out or RESULTS / "bench_quintessence_backends.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"command": command, "table": table}))
    out.with_suffix(".md").write_text(text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("race", "backends"), nargs="?", default="race")
    parser.add_argument("--every", type=int, default=1, help="race: take every k-th board of each file")
    parser.add_argument("--backend", default="all", help="race: the backends raced")
    parser.add_argument("--sample", type=int, default=200, help="backends: boards of each kind")
    parser.add_argument("--backends", default=None, help=f"backends: comma list (default: {','.join(MODELS)})")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file (a .csv or .md table beside it)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args(argv)
    return race_pass(args) if args.mode == "race" else backends_pass(args)


if __name__ == "__main__":
    sys.exit(main())
