"""Modest surveys of random deals, timed: the numbers behind the README's solvability table (issue 15).

Each survey runs ``sigmar survey`` as a command (so start-up and the race's
worker processes are paid as a user pays them), under ``nice``, with a
fresh results file; the summary comes from that file, so it counts exactly
the answers written.  The fraction is over answered boards (solved, or
unsolvable with a checked certificate); unknowns are shown apart.

    python scripts/bench/survey_solvability.py                     # 300 dense side 6, 100 side 7, 50 side 8
    python scripts/bench/survey_solvability.py --plan dense:6:10000 --time-limit 60   # the big one

Prints a table and writes results/survey_bench.json (and .md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchlib import markdown_table, percentile

from sigmar.runners.survey import Deals, Tally, read_results

DEFAULT_PLAN = ("dense:6:300", "dense:7:100", "dense:8:50")


def survey(kind: str, dim: int, count: int, seed: int, time_limit: float, backend: str, folder: Path) -> dict[str, Any]:
    results = folder / f"survey-{kind}-{dim}-s{seed}-{count}.jsonl"
    results.unlink(missing_ok=True)
    command = ["nice", sys.executable, "-m", "sigmar.runners.cli", "survey", "--deal", kind, "--dim", str(dim)]
    command += ["--count", str(count), "--seed", str(seed), "--time-limit", f"{time_limit:g}", "-b", backend]
    command += ["--results", str(results), "--json"]
    if shutil.which("nice") is None:
        command = command[1:]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"survey failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    records = read_results(results, Deals(kind, dim, seed, count))
    tally = Tally()
    for record in records.values():
        tally.add(record)
    seconds = sorted(float(r["seconds"]) for r in records.values())
    low, high = tally.interval()
    slowest = max(records.values(), key=lambda r: float(r["seconds"]))
    return {
        "deal": kind,
        "dim": dim,
        "seed": seed,
        "boards": tally.total,
        "solved": tally.solved,
        "unsolvable": tally.unsolvable,
        "unknown": tally.unknown,
        "wrong": tally.wrong,
        "solvable_fraction": tally.fraction(),
        "wilson95": [low, high],
        "wall_seconds": wall,
        "median_s": statistics.median(seconds),
        "p99_s": percentile(seconds, 99),
        "max_s": seconds[-1],
        "slowest": f"{slowest['board']}: {slowest['status']} by {slowest['backend']}",
        "command": " ".join(command),
    }


def markdown(rows: list[dict[str, Any]], time_limit: float) -> str:
    lines = [
        f"Surveys of random deals, race with checked certificates, {time_limit:g} s per board "
        "(fraction over answered boards; unknowns apart).",
        "",
    ]
    header = ["deal", "side", "boards", "solved", "unsolvable (checked)", "unknown", "solvable", "95% Wilson"]
    table = []
    for r in rows:
        fraction = "-" if r["solvable_fraction"] is None else f"{100 * r['solvable_fraction']:.1f}%"
        low, high = r["wilson95"]
        cells = [r["deal"], r["dim"], r["boards"], r["solved"], r["unsolvable"], r["unknown"], fraction]
        cells += [f"{100 * low:.1f}-{100 * high:.1f}%", f"{r['wall_seconds']:.1f}", f"{r['median_s']:.4f}"]
        table.append([*cells, f"{r['p99_s']:.3f}", f"{r['max_s']:.3f}"])
    lines.append(markdown_table([*header, "wall s", "median s", "p99 s", "max s"], table))
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", nargs="+", default=list(DEFAULT_PLAN), metavar="KIND:DIM:COUNT")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--backend", default="all")
    parser.add_argument("--out", type=Path, default=Path("results/survey_bench.json"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for item in args.plan:
        kind, dim, count = item.split(":")
        row = survey(kind, int(dim), int(count), args.seed, args.time_limit, args.backend, args.out.parent)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "command"}), flush=True)
    table = markdown(rows, args.time_limit)
    print(f"# python {' '.join(sys.argv)}")
    print(table)
    args.out.write_text(json.dumps({"command": " ".join(["python", *sys.argv]), "rows": rows}, indent=1))
    args.out.with_suffix(".md").write_text(table)
    return 0 if all(r["wrong"] == 0 for r in rows) else 3


if __name__ == "__main__":
    sys.exit(main())
