"""An independent DRUP proof checker: forward RUP check on another solver's unit propagation.

The prover (Glucose, CaDiCaL) says "unsatisfiable" and writes a DRUP proof:
a list of lemmas (clauses it learnt) and deletions.  This checker trusts
none of that.  It reads the DIMACS text and the proof text as written to
disk, loads the formula into a *different* SAT solver (python-sat's
Minisat 2.2) and, for each lemma in order, asks that solver's unit
propagation whether assuming the negation of every literal of the lemma
leads to a conflict (reverse unit propagation, RUP).  A lemma that passes
is implied by the clauses so far and is added to them; deletions are
skipped, which only keeps more implied clauses and so stays sound.  The
proof is accepted only when the empty clause is reached: a lemma ``0`` that
passes, or a conflict by propagation alone once every lemma is in.

For a second opinion on small proofs, :func:`second_opinion` hands the same
clauses to the formally verified ``drup`` checker from PyPI when it is
installed (it is an optional dependency).

Run it by hand as ``python -m sigmar.runners.rup_check FORMULA.cnf PROOF.drup``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

Clause = list[int]
# (is_deletion, literals)
Step = tuple[bool, Clause]

CHECKER_SOLVER = "minisat22"
# The verified checker is slow (not optimised: about 17 s for 38 lemmas on an
# 18,665-clause board formula, measured), roughly linear in lemmas x clauses.
# Beyond this much work the second opinion is skipped rather than stalling a run.
SECOND_OPINION_MAX_WORK = 100_000


class ProofFormatError(ValueError):
    """A DIMACS or DRUP text that does not parse."""


@dataclass(frozen=True)
class CheckReport:
    """What the checker found; ``failed_at`` is the 1-based proof line of the first bad lemma."""

    valid: bool
    lemmas: int
    deletions: int
    checked: int
    seconds: float
    message: str
    failed_at: int | None = None


def parse_dimacs(text: str) -> tuple[int, list[Clause]]:
    """The variable count and clauses of a DIMACS CNF text; strict about the header.

    Comment and header lines are read one by one; the clause body is split
    in one go (the formula is tens of thousands of clauses, and this parse
    is part of the check time that is reported).
    """
    header: tuple[int, int] | None = None
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "c%":
            continue
        if line[0] == "p":
            parts = line.split()
            if header is not None or len(parts) != 4 or parts[1] != "cnf":
                raise ProofFormatError(f"line {number}: bad DIMACS header '{line}'")
            try:
                header = (int(parts[2]), int(parts[3]))
            except ValueError:
                raise ProofFormatError(f"line {number}: bad DIMACS header '{line}'") from None
            continue
        if header is None:
            raise ProofFormatError(f"line {number}: a clause before the 'p cnf' header")
        body.append(line)
    if header is None:
        raise ProofFormatError("no 'p cnf' header")
    try:
        literals = list(map(int, " ".join(body).split()))
    except ValueError as exc:
        raise ProofFormatError(f"a token is not a literal ({exc})") from None
    if literals and max(max(literals), -min(literals)) > header[0]:
        raise ProofFormatError(f"a literal is beyond the {header[0]} variables of the header")
    if literals and literals[-1] != 0:
        raise ProofFormatError("the last clause is not terminated by 0")
    clauses: list[Clause] = []
    start = 0
    for index, literal in enumerate(literals):
        if literal == 0:
            clauses.append(literals[start:index])
            start = index + 1
    if len(clauses) != header[1]:
        raise ProofFormatError(f"the header promises {header[1]} clauses, the file has {len(clauses)}")
    return header[0], clauses


def parse_drup(text: str, max_variable: int | None = None) -> list[tuple[int, Step]]:
    """``(line number, (is_deletion, literals))`` per proof line; text DRUP only (one clause a line).

    With ``max_variable``, a literal beyond the formula's variables is refused as it is read.
    """
    steps: list[tuple[int, Step]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        deletion = line[0] == "d"
        if deletion:
            # Deletions are skipped by the check, so their literals are not even read.
            if not line.endswith(" 0"):
                raise ProofFormatError(f"proof line {number}: a deletion must end with 0: '{line}'")
            steps.append((number, (True, [])))
            continue
        body = line
        try:
            literals = list(map(int, body.split()))
        except ValueError:
            raise ProofFormatError(f"proof line {number}: not a clause: '{line}'") from None
        if not literals or literals[-1] != 0 or 0 in literals[:-1]:
            raise ProofFormatError(f"proof line {number}: a clause must end with a single 0: '{line}'")
        if max_variable is not None and any(abs(lit) > max_variable for lit in literals):
            raise ProofFormatError(f"proof line {number}: a literal is beyond the formula's {max_variable} variables")
        steps.append((number, (False, literals[:-1])))
    return steps


def proof_lines(proof: list[str]) -> list[Step]:
    """python-sat's ``get_proof()`` lines as steps (for checking in memory)."""
    return [step for _, step in parse_drup("\n".join(proof))]


def check_rup(clauses: list[Clause], steps: list[Step], lines: list[int] | None = None) -> CheckReport:
    """Forward RUP check of every lemma with Minisat 2.2's propagation; valid only if the empty clause follows.

    ``lines`` gives each step's line in the proof file, for the message; by default steps count from 1.
    """
    from pysat.solvers import Solver

    start = time.perf_counter()
    numbers = lines if lines is not None else list(range(1, len(steps) + 1))
    lemmas = sum(1 for deletion, _ in steps if not deletion)
    deletions = len(steps) - lemmas
    checked = 0

    def report(valid: bool, message: str, failed_at: int | None = None) -> CheckReport:
        return CheckReport(valid, lemmas, deletions, checked, time.perf_counter() - start, message, failed_at)

    with Solver(name=CHECKER_SOLVER, bootstrap_with=clauses) as checker:
        for line, (deletion, literals) in zip(numbers, steps, strict=True):
            if deletion:
                continue
            no_conflict, _ = checker.propagate(assumptions=[-lit for lit in literals])
            if no_conflict:
                shown = " ".join(map(str, literals)) or "the empty clause"
                return report(False, f"lemma on proof line {line} ({shown}) does not follow by unit propagation", line)
            checked += 1
            if not literals:
                return report(True, "the empty clause is derived")
            checker.add_clause(literals)
        no_conflict, _ = checker.propagate(assumptions=[])
    if no_conflict:
        return report(False, "every lemma checks but no conflict is reached")
    return report(True, "unit propagation on the lemmas reaches a conflict")


def check_text(cnf_text: str, drup_text: str) -> CheckReport:
    """Check a proof given as DIMACS and DRUP texts; a text that does not parse is an invalid proof."""
    start = time.perf_counter()
    try:
        _, clauses = parse_dimacs(cnf_text)
        steps = parse_drup(drup_text)
    except ProofFormatError as exc:
        return CheckReport(False, 0, 0, 0, time.perf_counter() - start, str(exc))
    report = check_rup(clauses, [step for _, step in steps], [line for line, _ in steps])
    return CheckReport(
        report.valid,
        report.lemmas,
        report.deletions,
        report.checked,
        time.perf_counter() - start,
        report.message,
        report.failed_at,
    )


def check_files(cnf_path: str | Path, drup_path: str | Path) -> CheckReport:
    return check_text(Path(cnf_path).read_text(), Path(drup_path).read_text())


def drup_available() -> tuple[bool, str]:
    """Whether the verified ``drup`` checker can be imported, else why not."""
    try:
        import drup  # noqa: F401
    except ImportError as exc:
        return False, f"the verified checker 'drup' is not installed ({exc})"
    except OSError as exc:  # its shared library failed to load
        return False, f"the verified checker 'drup' cannot load: {exc}"
    return True, ""


def second_opinion(clauses: list[Clause], steps: list[Step], max_work: int = SECOND_OPINION_MAX_WORK) -> str:
    """``"valid"``/``"invalid"`` from the verified ``drup`` checker, or ``"skipped: why"``."""
    ok, why = drup_available()
    if not ok:
        return f"skipped: {why}"
    lemmas = sum(1 for deletion, _ in steps if not deletion)
    if lemmas * len(clauses) > max_work:
        return (
            f"skipped: {lemmas} lemmas on {len(clauses)} clauses is more work than the verified checker "
            f"is given ({max_work} lemma-clauses)"
        )
    import drup

    # Deletions are left out, as the verified checker's own file reader does.
    proof = [literals for deletion, literals in steps if not deletion]
    if not proof or proof[-1]:
        proof.append([])  # it accepts only a proof that ends in the empty clause
    result = drup.check_proof(clauses, proof)
    return "valid" if result.outcome == drup.Outcome.VALID else "invalid"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m sigmar.runners.rup_check FORMULA.cnf PROOF.drup", file=sys.stderr)
        return 2
    report = check_files(args[0], args[1])
    verdict = "VALID" if report.valid else "INVALID"
    print(
        f"{verdict}: {report.message} ({report.lemmas} lemmas, {report.deletions} deletions, "
        f"{report.checked} checked, {report.seconds:.3f} s)"
    )
    return 0 if report.valid else 1


if __name__ == "__main__":
    sys.exit(main())
