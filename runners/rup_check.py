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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

Clause = list[int]
# (is_deletion, literals)
Step = tuple[bool, Clause]

CHECKER_SOLVER = "minisat22"
# The verified checker is slow (not optimised: about 17 s for 38 lemmas on an
# 18,665-clause board formula, measured), roughly linear in lemmas x clauses.
# Beyond this much work the second opinion is skipped rather than stalling a run.
SECOND_OPINION_MAX_WORK = 100_000
# Sizes refused before anything is allocated: the checking solver allocates per variable,
# so a header (or a proof literal) naming billions of variables would exhaust memory.
MAX_VARIABLES = 50_000_000
MAX_LINE = 10_000_000


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

    This is the suite's one DIMACS reader, and it is its own on purpose:
    python-sat's ``CNF(from_string=...)`` (1.9) takes a file with no header,
    a header promising more clauses than follow, and a literal beyond the
    header's variables without a word.  A certificate's formula that is cut
    short or padded must be refused here, not checked as some other formula.

    Comment and header lines are read one by one; the clause body is split
    in one go (the formula is tens of thousands of clauses, and this parse
    is part of the check time that is reported).
    """
    header, body = _header_and_body(text)
    variables, promised = header
    try:
        literals = list(map(int, " ".join(body).split()))
    except ValueError as exc:
        raise ProofFormatError(f"a token is not a literal ({exc})") from None
    if literals and max(max(literals), -min(literals)) > variables:
        raise ProofFormatError(f"a literal is beyond the {variables} variables of the header")
    if literals and literals[-1] != 0:
        raise ProofFormatError("the last clause is not terminated by 0")
    clauses: list[Clause] = []
    start = 0
    for index, literal in enumerate(literals):
        if literal == 0:
            clauses.append(literals[start:index])
            start = index + 1
    if len(clauses) != promised:
        raise ProofFormatError(f"the header promises {promised} clauses, the file has {len(clauses)}")
    return variables, clauses


def _header_and_body(text: str) -> tuple[tuple[int, int], list[str]]:
    """The ``p cnf`` header's (variables, clauses), checked, and the clause lines after it."""
    header: tuple[int, int] | None = None
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "c%":
            continue
        if line[0] == "p":
            if header is not None:
                raise ProofFormatError(f"line {number}: bad DIMACS header '{line}'")
            header = _header(line, number)
            continue
        if header is None:
            raise ProofFormatError(f"line {number}: a clause before the 'p cnf' header")
        body.append(line)
    if header is None:
        raise ProofFormatError("no 'p cnf' header")
    if header[0] < 0 or header[1] < 0:
        raise ProofFormatError(f"the header's counts must not be negative: {header}")
    if header[0] > MAX_VARIABLES:
        raise ProofFormatError(f"the header's {header[0]} variables are more than this checker takes ({MAX_VARIABLES})")
    return header, body


def _header(line: str, number: int) -> tuple[int, int]:
    parts = line.split()
    try:
        if len(parts) == 4 and parts[1] == "cnf":
            return int(parts[2]), int(parts[3])
    except ValueError:
        pass
    raise ProofFormatError(f"line {number}: bad DIMACS header '{line}'")


def parse_drup(text: str, variables: int | None = None) -> list[tuple[int, Step]]:
    """``(line number, (is_deletion, literals))`` per proof line; text DRUP only (one clause a line)."""
    return list(iter_drup(text.splitlines(), variables))


def iter_drup(lines: Iterable[str], variables: int | None = None) -> Iterator[tuple[int, Step]]:
    """The steps of a text DRUP proof as they are read, each literal checked against ``variables``.

    Why the bound: a lemma naming variable 3,000,000,000 would make the checking
    solver allocate for that many variables (about 24 GB) before it could fail.
    """
    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE:
            raise ProofFormatError(f"proof line {number}: longer than {MAX_LINE} characters")
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        deletion = line[0] == "d"
        if deletion:
            # Deletions are skipped by the check, so their literals are not even read.
            if not line.endswith(" 0"):
                raise ProofFormatError(f"proof line {number}: a deletion must end with 0: '{line[:80]}'")
            yield number, (True, [])
            continue
        try:
            literals = list(map(int, line.split()))
        except ValueError:
            raise ProofFormatError(f"proof line {number}: not a clause: '{line[:80]}'") from None
        if not literals or literals[-1] != 0 or 0 in literals[:-1]:
            raise ProofFormatError(f"proof line {number}: a clause must end with a single 0: '{line[:80]}'")
        if variables is not None and literals and max(max(literals), -min(literals)) > variables:
            raise ProofFormatError(f"proof line {number}: a literal names a variable beyond the formula's {variables}")
        yield number, (False, literals[:-1])


def proof_lines(proof: list[str]) -> list[Step]:
    """python-sat's ``get_proof()`` lines as steps (for checking in memory)."""
    return [step for _, step in parse_drup("\n".join(proof))]


def check_rup(clauses: list[Clause], steps: list[Step], lines: list[int] | None = None) -> CheckReport:
    """Forward RUP check of every lemma with Minisat 2.2's propagation; valid only if the empty clause follows.

    ``lines`` gives each step's line in the proof file, for the message; by default steps count from 1.
    """
    numbers = lines if lines is not None else list(range(1, len(steps) + 1))
    report = check_stream(clauses, zip(numbers, steps, strict=True))
    lemmas = sum(1 for deletion, _ in steps if not deletion)
    return replace(report, lemmas=lemmas, deletions=len(steps) - lemmas)


def check_stream(clauses: list[Clause], steps: Iterable[tuple[int, Step]]) -> CheckReport:
    """The check of :func:`check_rup` on steps as they come (a proof read line by line stays on disk).

    ``lemmas`` and ``deletions`` count the steps read up to the verdict.
    """
    from pysat.solvers import Solver

    start = time.perf_counter()
    counts = {"lemmas": 0, "deletions": 0, "checked": 0}

    def report(valid: bool, message: str, failed_at: int | None = None) -> CheckReport:
        return CheckReport(
            valid,
            counts["lemmas"],
            counts["deletions"],
            counts["checked"],
            time.perf_counter() - start,
            message,
            failed_at,
        )

    with Solver(name=CHECKER_SOLVER, bootstrap_with=clauses) as checker:
        for line, (deletion, literals) in steps:
            if deletion:
                counts["deletions"] += 1
                continue
            counts["lemmas"] += 1
            no_conflict, _ = checker.propagate(assumptions=[-lit for lit in literals])
            if no_conflict:
                shown = " ".join(map(str, literals)) or "the empty clause"
                return report(False, f"lemma on proof line {line} ({shown}) does not follow by unit propagation", line)
            counts["checked"] += 1
            if not literals:
                return report(True, "the empty clause is derived")
            checker.add_clause(literals)
        no_conflict, _ = checker.propagate(assumptions=[])
    if no_conflict:
        return report(False, "every lemma checks but no conflict is reached")
    return report(True, "unit propagation on the lemmas reaches a conflict")


def check_text(cnf_text: str, drup_text: str) -> CheckReport:
    """Check a proof given as DIMACS and DRUP texts; a text that does not parse is an invalid proof."""
    return _check(cnf_text, drup_text.splitlines())


def check_files(cnf_path: str | Path, drup_path: str | Path) -> CheckReport:
    """Check a proof on disk; the proof is read a line at a time, so only the formula is held in memory."""
    cnf_text = Path(cnf_path).read_text()
    with Path(drup_path).open() as proof:
        return _check(cnf_text, proof)


def _check(cnf_text: str, proof: Iterable[str]) -> CheckReport:
    start = time.perf_counter()
    lemmas = [0, 0]

    def counted(steps: Iterator[tuple[int, Step]]) -> Iterator[tuple[int, Step]]:
        for number, step in steps:
            lemmas[step[0]] += 1
            yield number, step

    try:
        _, clauses = parse_dimacs(cnf_text)
        # Not the header's count: the checking solver allocates only for variables the formula uses,
        # and a DRUP lemma gains nothing from a variable that no clause names.
        used = max((abs(lit) for clause in clauses for lit in clause), default=0)
        report = check_stream(clauses, counted(iter_drup(proof, used)))
    except ProofFormatError as exc:
        return CheckReport(False, lemmas[0], lemmas[1], 0, time.perf_counter() - start, str(exc))
    return replace(report, seconds=time.perf_counter() - start)


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
    try:
        report = check_files(args[0], args[1])
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        name = exc.filename if isinstance(exc, OSError) and exc.filename else f"{args[0]} or {args[1]}"
        print(f"rup_check: cannot read {name}: {why}", file=sys.stderr)
        return 2
    verdict = "VALID" if report.valid else "INVALID"
    print(
        f"{verdict}: {report.message} ({report.lemmas} lemmas, {report.deletions} deletions, "
        f"{report.checked} checked, {report.seconds:.3f} s)"
    )
    return 0 if report.valid else 1


if __name__ == "__main__":
    sys.exit(main())
