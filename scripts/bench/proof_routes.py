"""Proof routes for a refutation, measured before one is adopted (issue 30): DRUP from Glucose, LRAT from CP-SAT.

For each dense deal named, the board's default CNF encoding is refuted:

- by Glucose 4 and Glucose 4.2 through python-sat with a DRUP proof, then the
  proof checked by the suite's checker (runners/checking/rup_check.py);
- by CP-SAT on the same clauses (pure SAT: one worker, presolve off, as its
  ``output_lrat_proof`` needs), without and with the LRAT proof written.

Columns: the encoding, each solve, the proof's hand-over as text, the check;
for CP-SAT the solve alone and the size of the proof files it wrote.  CP-SAT
writes them under a fixed name prefix (``/tmp/lrat``, a C++ flag that Python
cannot set), so two runs at once would write the same files; this script
removes them after each board.

    python scripts/bench/proof_routes.py --deals 6:1:286 6:1:185 8:1:212 8:1:455

Prints a table and writes results/bench_proof_routes.json and .md.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from typing import Any

from benchlib import markdown_table, publish

from sigmar.encoders.cnf import build_formula, proof_text
from sigmar.models.deal import deal
from sigmar.runners.checking.rup_check import check_proof

LRAT_FILES = "/tmp/lrat*.bin"


def glucose(name: str, clauses: list[list[int]], nv: int) -> dict[str, Any]:
    from pysat.solvers import Solver

    start = time.perf_counter()
    with Solver(name=name, bootstrap_with=clauses, with_proof=True) as sat:
        answer = sat.solve()
        solved = time.perf_counter()
        proof = proof_text(sat.get_proof() or []).encode()
        handed = time.perf_counter()
        conflicts = sat.accum_stats().get("conflicts")
    report = check_proof(clauses, proof, nv)
    return {
        "answer": answer,
        "solve_s": solved - start,
        "proof_s": handed - solved,
        "check_s": report.seconds,
        "valid": report.valid,
        "conflicts": conflicts,
        "lemmas": report.lemmas,
        "proof_mb": len(proof) / 2**20,
    }


def cpsat(clauses: list[list[int]], nv: int, lrat: bool, time_limit: float) -> dict[str, Any]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    variables = [model.new_bool_var(f"v{i}") for i in range(nv + 1)]
    for clause in clauses:
        model.add_bool_or([variables[lit] if lit > 0 else variables[-lit].Not() for lit in clause])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.cp_model_presolve = False
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.output_lrat_proof = lrat
    for path in glob.glob(LRAT_FILES):  # an earlier run's
        os.unlink(path)
    start = time.perf_counter()
    status = solver.solve(model)
    seconds = time.perf_counter() - start
    files = {path: os.path.getsize(path) for path in glob.glob(LRAT_FILES)}
    for path in files:
        os.unlink(path)
    return {
        "answer": solver.status_name(status),
        "solve_s": seconds,
        "conflicts": solver.num_conflicts,
        "proof_mb": sum(files.values()) / 2**20,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--deals", nargs="+", default=["6:1:286", "6:1:185", "8:1:212", "8:1:455"], help="DIM:SEED:INDEX"
    )
    parser.add_argument("--time-limit", type=float, default=120.0, help="CP-SAT's limit per solve (s)")
    parser.add_argument("--out", default="results/bench_proof_routes")
    args = parser.parse_args(argv)
    records = []
    for spec in args.deals:
        dim, seed, index = map(int, spec.split(":"))
        board = deal("dense", dim, seed, index)
        start = time.perf_counter()
        formula = build_formula(board)
        record: dict[str, Any] = {"deal": spec, "encode_s": time.perf_counter() - start}
        for name in ("glucose4", "glucose42"):
            record[name] = glucose(name, formula.clauses, formula.nv)
        for lrat in (False, True):
            record["cpsat+lrat" if lrat else "cpsat"] = cpsat(formula.clauses, formula.nv, lrat, args.time_limit)
        print(record, flush=True)
        records.append(record)
    rows = []
    for r in records:
        cells = [r["deal"], f"{r['encode_s']:.2f}"]
        for name in ("glucose4", "glucose42"):
            g = r[name]
            cells.append(f"{g['solve_s']:.2f} + {g['proof_s']:.2f} + {g['check_s']:.2f} ({g['conflicts']:,} conflicts)")
        for name in ("cpsat", "cpsat+lrat"):
            c = r[name]
            cells.append(f"{c['solve_s']:.2f} {c['answer']} ({c['conflicts']:,} conflicts, {c['proof_mb']:.1f} MB)")
        rows.append(cells)
    header = (
        "deal dim:seed:index",
        "encode s",
        "glucose4 solve + proof + check s",
        "glucose42 s",
        "CP-SAT s",
        "CP-SAT writing LRAT s",
    )
    heading = f"# python {' '.join(sys.argv)}\n\nload average {os.getloadavg()[0]:.1f} at the end"
    publish(args.out, f"{heading}\n\n{markdown_table(header, rows)}", {"records": records})
    return 0


if __name__ == "__main__":
    sys.exit(main())
