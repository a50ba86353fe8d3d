"""What the hardening of issue 18 costs and bounds: the guard's start-up, and rup_check's peak memory.

1. The guard (encoders/processes/guard.py) runs in front of every ``minizinc`` and
   ``--sat-cmd`` process.  Measured: wall time of ``true`` started directly
   and under the guard, median of ``--repeats`` runs each; and the MiniZinc
   backend's seconds per board with and without it (``--minizinc-boards``).
2. rup_check's peak memory (VmHWM of a fresh interpreter) on the CNF of the
   first unsolvable board of instances/generated-unsolvable.txt that Glucose
   refutes, against the baseline of loading that formula into the checking
   solver and stopping: with Glucose's real proof, with a crafted one-line proof
   naming variable 3,000,000,000 (which used to allocate about 24 GB), and with
   a proof of one million deletion lines (read a line at a time).

    python scripts/bench/guard_and_checker_memory.py [--repeats 15] [--minizinc-boards 10]
        [--out results/bench_hardening.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sigmar.encoders.cnf import build_formula
from sigmar.encoders.processes.guard import guarded
from sigmar.models.boardfile import read_boards

ROOT = Path(__file__).resolve().parents[2]

# VmHWM, not ru_maxrss: ru_maxrss keeps the forked parent's size from before exec.
HWM = """
def HWM():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""
BASELINE = (
    HWM
    + """
import sys
from sigmar.runners.checking.rup_check import parse_dimacs, CHECKER_SOLVER
from pysat.solvers import Solver
_, clauses = parse_dimacs(open(sys.argv[1]).read())
with Solver(name=CHECKER_SOLVER, bootstrap_with=clauses) as s:
    s.propagate(assumptions=[])
print(HWM())
"""
)
CHECK = (
    HWM
    + """
import sys
from sigmar.runners.checking.rup_check import check_files
report = check_files(sys.argv[1], sys.argv[2])
print(HWM(), report.valid, report.message.replace(" ", "_")[:60])
"""
)


def wall(argv: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def refuted_formula(folder: Path) -> tuple[Path, Path, int]:
    from pysat.solvers import Solver

    for board in read_boards(ROOT / "instances" / "generated-unsolvable.txt"):
        formula = build_formula(board)
        with Solver(name="glucose4", bootstrap_with=formula.clauses, with_proof=True) as sat:
            if sat.solve() is False:
                cnf, drup = folder / "board.cnf", folder / "board.drup"
                cnf.write_text(formula.to_dimacs())
                drup.write_text("\n".join(sat.get_proof()) + "\n")
                return cnf, drup, len(formula.clauses)
    raise SystemExit("no board of instances/generated-unsolvable.txt was refuted by glucose4")


def minizinc_overhead(count: int) -> dict[str, float]:
    """Median seconds per board of the MiniZinc backend with ``minizinc`` under the guard and started directly.

    Both in this process, alternating board by board (so drift in machine load hits both alike).
    """
    import sigmar.encoders.minizinc.driver as driver
    from sigmar.encoders.registry import make

    boards = read_boards(ROOT / "instances" / "hexmatch-easy-100.txt")[:count]
    timed: dict[str, list[float]] = {"guarded": [], "direct": []}
    real = driver.guarded
    backend = make("minizinc")
    backend.solve(boards[0], 30)  # the model's one-off analysis, outside the timings
    for board in boards:
        for label in ("guarded", "direct"):
            driver.guarded = real if label == "guarded" else (lambda argv, cleanup=None: argv)  # type: ignore[assignment]
            start = time.perf_counter()
            backend.solve(board, 30)
            timed[label].append(time.perf_counter() - start)
    driver.guarded = real
    medians = {label: round(statistics.median(values), 4) for label, values in timed.items()}
    print(
        f"minizinc per board (median of {len(boards)} hexmatch-easy boards): guarded {medians['guarded']:.3f} s, "
        f"direct {medians['direct']:.3f} s"
    )
    return medians


def peak(code: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", default="results/bench_hardening.json")
    parser.add_argument("--minizinc-boards", type=int, default=10, help="boards for the MiniZinc overhead (0: skip)")
    args = parser.parse_args()
    out: dict[str, object] = {}
    direct = wall(["true"], args.repeats)
    under = wall(guarded(["true"]), args.repeats)
    out["guard"] = {"direct_ms": round(direct * 1e3, 2), "guarded_ms": round(under * 1e3, 2)}
    print(
        f"start 'true': direct {direct * 1e3:.1f} ms, under the guard {under * 1e3:.1f} ms (median of {args.repeats})"
    )
    if args.minizinc_boards:
        with tempfile.TemporaryDirectory() as scratch:  # unguarded runs leave their folders: here, removed
            tempfile.tempdir = scratch
            try:
                out["minizinc"] = minizinc_overhead(args.minizinc_boards)
            finally:
                tempfile.tempdir = None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cnf, drup, clauses = refuted_formula(folder)
        crafted = folder / "crafted.drup"
        crafted.write_text("3000000000 0\n0\n")
        deletions = folder / "deletions.drup"
        deletions.write_text("d 1 2 0\n" * 1_000_000 + "0\n")
        base = int(peak(BASELINE, str(cnf))[0])
        rows = {"formula only": (base, "-", "-")}
        for label, proof in (("glucose proof", drup), ("crafted literal", crafted), ("1M deletions", deletions)):
            kb, valid, message = peak(CHECK, str(cnf), str(proof))
            rows[label] = (int(kb), valid, message)
    out["rup_check"] = {"clauses": clauses, **{k: {"peak_kb": v[0], "valid": v[1]} for k, v in rows.items()}}
    print(f"rup_check peak memory on a {clauses}-clause formula (VmHWM, kB):")
    for label, (kb, valid, message) in rows.items():
        print(f"  {label:16s} {kb:8d} kB  {kb / base:4.2f}x  valid={valid} {message}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
