"""The DRUP checker's two engines on Glucose refutations of hard dense deals.

For each deal: the board's default CNF, Glucose 4 with a DRUP proof, then the proof
checked by each engine of runners/checking/rup_check.py, the engines taking turns (``--rounds``
times each, the order alternating), and the whole certificate check
(``drup_check.check_drup``: the board re-encoded beside the check).  Prints a table of
medians and writes results/bench_rup_engines.json and .md.

    python scripts/bench/drup_engines.py                       # the slowest side-7/8 refutations of survey seed 1
    python scripts/bench/drup_engines.py --deals 8:455 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchlib import markdown_table, publish
from pysat.solvers import Solver

from sigmar.encoders.cnf import build_formula, proof_text
from sigmar.models.deal import deal
from sigmar.runners.checking import rup_check
from sigmar.runners.checking.drup_check import check_drup

# The slowest DRUP refutations of `sigmar survey --deal dense --seed 1` on sides 7 and 8.
DEFAULT_DEALS = "7:228,7:355,8:212,8:338,8:455,8:890"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", default=DEFAULT_DEALS, help="SIDE:INDEX,... of dense deals, seed --seed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="checks per engine and deal (default 3)")
    parser.add_argument("--out", default="results/bench_rup_engines")
    args = parser.parse_args(argv)
    engines = [e for e in rup_check.ENGINES if rup_check.engine_available(e)[0]]
    heading = f"engines {', '.join(engines)}; {args.rounds} rounds; load {os.getloadavg()[0]:.1f}"
    print(heading, flush=True)
    rows = []
    for spec in args.deals.split(","):
        side, index = (int(x) for x in spec.split(":"))
        board = deal("dense", side, args.seed, index)
        formula = build_formula(board)
        with Solver(name="glucose4", bootstrap_with=formula.clauses, with_proof=True) as solver:
            start = time.perf_counter()
            if solver.solve():
                print(f"  {spec}: solvable, skipped", flush=True)
                continue
            solve = time.perf_counter() - start
            proof = proof_text(solver.get_proof()).encode()
        seconds: dict[str, list[float]] = {engine: [] for engine in engines}
        report = {}
        for round_ in range(args.rounds):
            for engine in engines if round_ % 2 == 0 else reversed(engines):
                report[engine] = rup_check.check_proof(formula.clauses, proof, formula.nv, engine)
                assert report[engine].valid, (spec, engine, report[engine].message)
                seconds[engine].append(report[engine].seconds)
        with tempfile.TemporaryDirectory() as folder:
            stem = Path(folder) / "board"
            for suffix, text in ((".cnf", formula.to_dimacs()), (".vars.json", formula.sidecar())):
                stem.with_suffix(suffix).write_text(text)
            stem.with_suffix(".drup").write_bytes(proof)
            start = time.perf_counter()
            verdict = check_drup(board, stem.with_suffix(".drup"))
            whole = time.perf_counter() - start
            assert verdict.valid, verdict.reason
        row = {
            "deal": spec,
            "glucose_s": round(solve, 3),
            "lemmas": report[engines[0]].lemmas,
            "deletions": report[engines[0]].deletions,
            "proof_mb": round(len(proof) / 1e6, 1),
            "checked": {engine: report[engine].checked for engine in engines},
            "median_s": {engine: round(statistics.median(seconds[engine]), 3) for engine in engines},
            "seconds": seconds,
            "certificate_check_s": round(whole, 3),
        }
        rows.append(row)
        print(
            f"  {spec}: glucose {solve:.2f} s, "
            + ", ".join(f"{e} {row['median_s'][e]:.2f} s" for e in engines)
            + f", certificate check {whole:.2f} s",
            flush=True,
        )
    header = ["deal", "Glucose s", "lemmas", "deletions", "proof MB"]
    header += [column for e in engines for column in (f"{e} checked", f"{e} s")] + ["certificate check s"]
    table = []
    for row in rows:
        cells = [row["deal"], f"{row['glucose_s']:.2f}", f"{row['lemmas']:,}", f"{row['deletions']:,}", row["proof_mb"]]
        cells += [cell for e in engines for cell in (f"{row['checked'][e]:,}", f"{row['median_s'][e]:.2f}")]
        table.append([*cells, f"{row['certificate_check_s']:.2f}"])
    lines = [heading, "", markdown_table(header, table, align="l" + "r" * (len(header) - 1))]
    if "c" in engines and "pysat" in engines and rows:
        ratios = [row["median_s"]["pysat"] / row["median_s"]["c"] for row in rows]
        lines += [
            "",
            f"pysat / c per deal: median {statistics.median(ratios):.1f}x "
            f"(min {min(ratios):.1f}, max {max(ratios):.1f})",
        ]
    publish(args.out, "\n".join(lines), {"heading": heading, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
