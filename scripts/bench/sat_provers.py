"""The proof-logging SAT solvers of python-sat as the cnf backend's prover, on hard refutations.

The race's price of a DRUP certificate is the solve, the proof handed over as text and
its check; the three differ by solver (CaDiCaL's proofs check fastest here, but
python-sat takes seconds to hand over their text).  For each dense deal: the board's
default CNF, each solver with a DRUP proof (``--rounds`` times, the order alternating),
the proof checked by runners/checking/rup_check.py.  Prints a table of medians and writes
results/bench_provers.json and .md.

    python scripts/bench/sat_provers.py                    # the 13 slowest side-7/8 refutations of survey seed 1
    python scripts/bench/sat_provers.py --deals 8:455 --solvers glucose4,glucose42 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from benchlib import publish, table_header, table_row
from pysat.solvers import Solver

from sigmar.encoders.cnf import build_formula, proof_text
from sigmar.encoders.cnf.formula import Formula
from sigmar.models.deal import deal
from sigmar.runners.checking.rup_check import check_proof

# The slowest DRUP refutations of `sigmar survey --deal dense --seed 1` on sides 7 and 8.
DEFAULT_DEALS = "7:228,7:355,7:554,7:619,7:959,8:212,8:338,8:588,8:710,8:844,8:890,8:924,8:455"
DEFAULT_SOLVERS = "glucose4,glucose42,cadical153,cadical195"
PARTS = ("solve", "text", "check")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--deals", default=DEFAULT_DEALS, type=deal_list, help="SIDE:INDEX,... of dense deals, seed --seed"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solvers", default=DEFAULT_SOLVERS, help="python-sat names that log proofs")
    parser.add_argument("--rounds", type=int, default=2, help="runs per solver and deal (default 2)")
    parser.add_argument("--out", default="results/bench_provers")
    args = parser.parse_args(argv)
    solvers = args.solvers.split(",")
    heading = f"provers {', '.join(solvers)}; {args.rounds} rounds; load {os.getloadavg()[0]:.1f}"
    print(heading, flush=True)
    rows = []
    for side, index in args.deals:
        spec = f"{side}:{index}"
        formula = build_formula(deal("dense", side, args.seed, index))
        runs = rounds(formula, solvers, args.rounds)
        if runs is None:
            print(f"  {spec}: solvable, skipped", flush=True)
            continue
        medians = {n: {part: statistics.median(run[part] for run in runs[n]) for part in PARTS} for n in solvers}
        rows.append({"deal": spec, "median_s": medians, "runs": runs})
        print(f"  {spec}: " + ", ".join(f"{name} {sum(medians[name].values()):.2f} s" for name in solvers), flush=True)
    lines = [
        heading,
        "",
        "solve + proof text + check, seconds (medians)",
        "",
        table_header(["deal", *solvers], align="l" + "r" * len(solvers)),
    ]
    for row in rows:
        cells = [" + ".join(f"{row['median_s'][n][p]:.2f}" for p in PARTS) + f" = {total(row, n):.2f}" for n in solvers]
        lines.append(table_row([row["deal"], *cells]))
    if not rows:
        print("no refutation measured: every deal was solvable", file=sys.stderr)
        return 1
    summed = {n: sum(total(row, n) for row in rows) for n in solvers}
    lines.append(table_row(["summed", *(f"{summed[n]:.1f}" for n in solvers)]))
    fastest = [min(solvers, key=lambda n, row=row: total(row, n)) for row in rows]
    lines += ["", "fastest on: " + ", ".join(f"{n} {fastest.count(n)}" for n in solvers)]
    lines.append(f"fastest in sum: {min(solvers, key=summed.__getitem__)}")
    publish(args.out, "\n".join(lines), {"heading": heading, "rows": rows, "summed_s": summed})
    return 0


def deal_list(text: str) -> list[tuple[int, int]]:
    """``7:228,8:455`` as [(7, 228), (8, 455)]; argparse reports anything else (exit 2)."""
    try:
        pairs = [tuple(int(x) for x in spec.split(":")) for spec in text.split(",")]
    except ValueError:
        pairs = []
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of SIDE:INDEX")
    return [(side, index) for side, index in pairs]


def rounds(formula: Formula, solvers: list[str], count: int) -> dict[str, list[dict[str, float]]] | None:
    """Each solver's runs, ``count`` rounds with the order alternating; None once one finds a model."""
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in solvers}
    for round_ in range(count):
        for name in solvers if round_ % 2 == 0 else reversed(solvers):
            run = prove(formula, name)
            if run is None:
                return None
            runs[name].append(run)
    return runs


def prove(formula: Formula, name: str) -> dict[str, float] | None:
    """One solve with a DRUP proof, and the proof's check: seconds of each part (None: satisfiable)."""
    with Solver(name=name, bootstrap_with=formula.clauses, with_proof=True) as solver:
        start = time.perf_counter()
        if solver.solve():
            return None
        solve = time.perf_counter() - start
        start = time.perf_counter()
        proof = proof_text(solver.get_proof()).encode()
        text = time.perf_counter() - start
    report = check_proof(formula.clauses, proof, formula.nv)
    assert report.valid, (name, report.message)
    return {"solve": solve, "text": text, "check": report.seconds}


def total(row: dict, name: str) -> float:
    return sum(row["median_s"][name].values())


if __name__ == "__main__":
    sys.exit(main())
