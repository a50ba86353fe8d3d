"""The order model on every CP solver here: pumpkin (native, with and without proofs) and each ``cpmpy:SOLVER``.

Each configuration answers the same dense side-6 deals (``sigmar generate --deal dense --seed S``)
alone, one board after the other (never two solvers at once), with the same time limit.  Every
solution is replayed by the rule engine and every ``pumpkin`` certificate checked, as in a race.
Per configuration: solved, refuted, unknown and errors, and median / p90 / max seconds of each kind of
answer.  The ``cpmpy`` family's default is the configuration with the fewest unknown (then the
least wall time); docs/cpmpy.md quotes the table.

    python scripts/bench/cp_solvers.py [--count 100] [--seed 1] [--time-limit 10] [--backends NAME,...]
        [--out results/bench_cpmpy] [--record docs/measured/cpmpy.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import dense_deals, load_average, markdown_table, median, percentile, publish

from sigmar.encoders import registry
from sigmar.encoders.cpmpy import installed
from sigmar.models.board import Board
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import replayed

ROOT = Path(__file__).resolve().parents[2]
# (label, backend name, options)
PUMPKIN = (
    ("pumpkin (proof after)", "pumpkin", {}),
    ("pumpkin (proof always)", "pumpkin", {"proof": "always"}),
    ("pumpkin (no proof)", "pumpkin", {"proof": "never"}),
)


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return " / ".join(f"{v:.2f}" for v in (median(values), percentile(values, 90), max(values)))


def run(label: str, name: str, options: dict[str, Any], boards: list[Board], limit: float) -> dict[str, Any]:
    backend = registry.make(name, **options)
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, ProofStore(Path(folder)) as store:
        for board in boards:
            answer = certify(board, replayed(board, backend.solve(board, limit)), store)
            rows.append((str(answer.status), answer.seconds, answer.verified, answer.checked, answer.wrong))
            for path in Path(folder).iterdir():
                path.unlink()
    wall = time.perf_counter() - started
    solved = [s for st, s, *_ in rows if st == "solved"]
    refuted = [s for st, s, *_ in rows if st == "unsolvable"]
    return {
        "label": label,
        "name": name,
        "solved": len(solved),
        "verified": sum(r[2] for r in rows),
        "refuted": len(refuted),
        "certified": sum(r[3] for r in rows if r[0] == "unsolvable"),
        "unknown": sum(r[0] == "unknown" for r in rows),
        "error": sum(r[0] == "error" for r in rows),
        "wrong": sum(r[4] for r in rows),
        "solved_seconds": spread(solved),
        "refuted_seconds": spread(refuted),
        "wall": round(wall, 1),
        "load_after": load_average(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--backends", default="", help="a comma list of labels' names to run (default: all)")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_cpmpy"))
    parser.add_argument("--record", default=str(ROOT / "docs" / "measured" / "cpmpy.md"))
    args = parser.parse_args(argv)
    boards = dense_deals(args.count, args.seed)
    configs = [*PUMPKIN, *((f"cpmpy:{s}", f"cpmpy:{s}", {}) for s in installed())]
    if args.backends:
        wanted = set(args.backends.split(","))
        configs = [c for c in configs if c[1] in wanted or c[0] in wanted]
    before = load_average()
    results = []
    for label, name, options in configs:
        print(f"{label}: {len(boards)} boards (load {load_average()})", file=sys.stderr, flush=True)
        results.append(run(label, name, options, boards, args.time_limit))
    cpmpy_rows = [r for r in results if r["name"].startswith("cpmpy:")]
    best = min(cpmpy_rows, key=lambda r: (r["unknown"], r["wall"]), default=None)
    header = [
        "configuration",
        "solved",
        "refuted (certified)",
        "unknown",
        "errors",
        "wrong",
        "solved s (median / p90 / max)",
        "refuted s (median / p90 / max)",
        "wall s",
        "load after",
    ]
    table = markdown_table(
        header,
        [
            [
                r["label"],
                r["solved"],
                f"{r['refuted']} ({r['certified']})",
                r["unknown"],
                r["error"],
                r["wrong"],
                r["solved_seconds"],
                r["refuted_seconds"],
                r["wall"],
                r["load_after"],
            ]
            for r in results
        ],
    )
    text = "\n".join(
        [
            f"# The order model on each CP solver ({time.strftime('%Y-%m-%d')})",
            "",
            f"{len(boards)} dense side-6 deals (seed {args.seed}), {args.time_limit:g} s a board, each configuration "
            f"alone, one board at a time. Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores; "
            f"load average {before} at the start (a shared machine). "
            f"Command: `python scripts/bench/cp_solvers.py {' '.join(sys.argv[1:])}`.",
            "",
            table,
            "",
            f"Fewest unknown among cpmpy:*: {best['label'] if best else '-'}.",
        ]
    )
    publish(
        args.out, text, {"boards": len(boards), "time_limit": args.time_limit, "results": results}, also=args.record
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
