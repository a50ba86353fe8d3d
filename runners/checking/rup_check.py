"""An independent DRUP proof checker: reverse unit propagation (RUP) on another solver's proof.

The prover (Glucose, CaDiCaL) says "unsatisfiable" and writes a DRUP proof:
a list of lemmas (clauses it learnt) and deletions.  This checker trusts
none of that.  It reads the DIMACS text and the proof text as written to
disk and asks, of the lemmas, whether assuming the negation of every
literal of a lemma leads to a conflict by unit propagation on the clauses
before it (each engine below says which lemmas it asks of).  The proof is
accepted only when the empty clause follows: a conflict by propagation
alone, with every lemma it rests on checked.

Two engines do the propagation, neither of them the prover's:

- ``c`` (runners/checking/_drup.c, built at install): its own two-watched-literal
  propagation, which honours deletions, so the clause database stays the
  size the prover had; and it checks backward, as drat-trim does: the
  proof is applied up to its first conflict, then only the lemmas that
  conflict depends on are checked, from the last back.  A lemma the
  refutation does not use is not checked (even a wrong one: the empty
  clause follows without it).
- ``pysat``: python-sat's Minisat 2.2 (``propagate`` with assumptions).
  Minisat cannot delete a clause, so deletions are skipped, which only keeps
  more implied clauses and stays sound.  It is the fallback where the C
  engine could not be built, and the tests' second engine.

A proof may also *derive* rather than refute: given ``goals`` (clauses), the
proof need not reach a conflict, and each goal must follow by RUP from the
clauses at the end of it (a cube-and-conquer split passes such clauses on to
the cubes below it: docs/formats.md#cubes).  The goals are then checked as
lemmas read after the proof, and the ``c`` engine checks only the lemmas they
rest on.

For a second opinion on small proofs, :func:`second_opinion` hands the same
clauses to the formally verified ``drup`` checker from PyPI when it is
installed (it is an optional dependency).

Run it by hand as ``python -m sigmar.runners.checking.rup_check FORMULA.cnf PROOF.drup``.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
import sys
import time
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

_drup: ModuleType | None
try:
    from sigmar.runners.checking import _drup
except ImportError as _exc:  # no C compiler at install time: the pysat engine checks alone
    _drup = None
    _DRUP_MISSING = f"the C checker (runners/checking/_drup.c) is not built: {_exc}"
else:
    _DRUP_MISSING = ""

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
    malformed: bool = False  # the text does not parse (then ``message`` says where)
    lrat: bytes | None = None  # with ``lrat=True`` and a valid proof: the lemmas checked, with their hints
    used: array | None = None  # with ``used=True`` and a valid proof: the clauses given (from 0) it rests on
    core: bytes | None = None  # with ``used=True`` and a valid proof: its checked lemmas alone, as DRUP text


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
        body = line[1:] if deletion else line
        if deletion and not body[:1].isspace():
            raise ProofFormatError(f"proof line {number}: not a clause: '{line[:80]}'")
        try:
            literals = list(map(int, body.split()))
        except ValueError:
            raise ProofFormatError(f"proof line {number}: not a clause: '{line[:80]}'") from None
        if not literals or literals[-1] != 0 or 0 in literals[:-1]:
            raise ProofFormatError(f"proof line {number}: a clause must end with a single 0: '{line[:80]}'")
        if variables is not None and max(max(literals), -min(literals)) > variables:
            raise ProofFormatError(f"proof line {number}: a literal names a variable beyond the formula's {variables}")
        yield number, (deletion, literals[:-1])


def proof_lines(proof: list[str]) -> list[Step]:
    """python-sat's ``get_proof()`` lines as steps (for checking in memory)."""
    return [step for _, step in parse_drup("\n".join(proof))]


ENGINES = ("c", "pysat")


def engine_available(engine: str) -> tuple[bool, str]:
    """Whether an engine can check here, else why not."""
    if engine not in ENGINES:
        return False, f"no engine {engine!r} (one of {', '.join(ENGINES)})"
    if engine == "c" and _drup is None:
        return False, _DRUP_MISSING
    return True, ""


def default_engine() -> str:
    """``c`` where it is built, else ``pysat``."""
    return "c" if _drup is not None else "pysat"


def check_proof(
    clauses: list[Clause] | array,
    proof: bytes | mmap.mmap | memoryview,
    variables: int | None = None,
    engine: str | None = None,
    goals: list[Clause] | None = None,
    lrat: bool = False,
    used: bool = False,
    base: Any = None,
) -> CheckReport:
    """Check a DRUP proof text (bytes) against ``clauses``; literals may name variables 1..``variables``.

    ``clauses`` may also come flat, as an ``array('i')`` of literals with each clause ended by 0.
    ``variables`` defaults to the highest the clauses name (not a header's count: the engines
    allocate per variable, and a lemma gains nothing from a variable no clause names).
    ``engine`` is ``c`` or ``pysat`` (default: :func:`default_engine`).  A proof that does not
    parse is an invalid proof.  With ``goals`` the proof need not refute: it is valid when each
    goal follows by RUP from the clauses at its end (or when it refutes after all).  With ``lrat``
    (the ``c`` engine only), a valid proof's report carries it as LRAT: the lemmas checked, each with
    the clauses its reverse unit propagation used (:mod:`.lrat_check` reads it; the clauses are IDs
    1..m in the order given).  With ``used`` (the ``c`` engine only), a valid proof's report names the
    clauses given that its checked lemmas and its conflict (or goals) rest on: their indexes from 0 (a
    clause given twice as its first), so a cube-and-conquer split's node need derive only those of the
    clauses it passes on that the cubes below it used; and ``core``, the lemmas it checked as a DRUP
    proof of their own (in order, no deletion; the empty clause after them for a refutation), which
    proves the same from those clauses alone.  ``base`` (with ``used``; from :func:`loaded_base` with the
    same ``variables``): a formula loaded once, and ``clauses`` those given after its own (the indexes
    count its clauses first).
    """
    start = time.perf_counter()
    flat = clauses if isinstance(clauses, array) else flatten(clauses)
    bound = variables if variables is not None else max((abs(lit) for lit in flat), default=0)
    engine = engine or default_engine()
    ok, why = engine_available(engine)
    if not ok:
        raise ValueError(why)
    if (lrat or used) and engine != "c":
        what = "LRAT is written" if lrat else "the clauses used are named"
        raise ValueError(f"{what} by the c engine only: {_DRUP_MISSING or 'ask for engine c'}")
    proof_lines = 0
    if goals is not None:  # the goals are read after the proof, as lemmas; their lines are counted past its end
        text = bytes(proof)
        if text and not text.endswith(b"\n"):
            text += b"\n"
        proof_lines = text.count(b"\n")
        proof = text + render_goals(goals)
    if engine == "pysat":
        counted = [0, 0]

        def steps() -> Iterator[tuple[int, Step]]:
            for number, step in iter_drup(_text_lines(proof), bound):
                counted[step[0]] += 1
                yield number, step

        try:
            report = check_stream(unflatten(flat), steps(), derive=goals is not None)
        except ProofFormatError as exc:
            report = CheckReport(False, counted[0], counted[1], 0, 0.0, str(exc), malformed=True)
        return replace(_about_goals(report, proof_lines, goals), seconds=time.perf_counter() - start)
    assert _drup is not None
    written = rested = core = None
    if used:
        flat_goals = None if goals is None else flatten(goals)
        answer = _drup.check(flat, bound, proof, MAX_LINE, flat_goals, lrat, True, base)
        code, line, lemmas, deletions, checked, detail, written, ids, core = answer
        if ids is not None:  # from 0 already (a side-8 check names some 150,000)
            rested = array("i")
            rested.frombytes(ids)
    elif lrat:
        answer = _drup.check(flat, bound, proof, MAX_LINE, None if goals is None else flatten(goals), True)
        code, line, lemmas, deletions, checked, detail, written = answer
    elif goals is None:
        code, line, lemmas, deletions, checked, detail = _drup.check(flat, bound, proof, MAX_LINE)
    else:
        code, line, lemmas, deletions, checked, detail = _drup.check(flat, bound, proof, MAX_LINE, flatten(goals))
    valid = code in (1, 6)
    message = _c_message(code, line, checked, detail, len(goals or []), bound)
    failed_at = line if code == 2 else None
    seconds = time.perf_counter() - start
    report = CheckReport(
        valid, lemmas, deletions, checked, seconds, message, failed_at, code == 4, written, rested, core
    )
    return _about_goals(report, proof_lines, goals)


def loaded_base(clauses: array, variables: int) -> Any:
    """``clauses`` (flat) loaded once by the C checker, for many :func:`check_proof` calls' ``base``; None
    where the C checker (or its ``base``, in an older build) is not there.

    Why: a cube-and-conquer node's check is the formula (150,000 clauses on side 8, some 15 ms to load)
    with a few clauses more; each check starts from a copy of the formula loaded instead.
    """
    make = getattr(_drup, "base", None)
    return None if make is None else make(clauses, variables)


def _c_message(code: int, line: int, checked: int, detail: Any, goals: int, bound: int) -> str:
    """What the C engine's answer means, in a sentence."""
    if code == 1:
        return f"unit propagation reaches a conflict, and the {checked:,} lemmas it uses follow"
    if code == 6:
        return f"each clause to derive follows ({goals:,}), with the {checked:,} lemmas checked"
    if code == 2:
        shown = " ".join(map(str, detail or [])) or "the empty clause"
        return f"lemma on proof line {line} ({shown}) does not follow by unit propagation"
    if code == 3:
        return "every lemma checks but no conflict is reached"
    if code == 7:  # cannot happen: each goal was read as a lemma, so it is alive at the end
        return f"derived clause {line} is not among the clauses at the end of the proof"
    return f"proof line {line}: {detail} ({bound} variables)"


def flatten(clauses: Iterable[Clause]) -> array:
    """The clauses as the C checker reads them: one flat array of literals, each clause ended by a 0."""
    flat = array("i")
    for clause in clauses:
        flat.extend(clause)
        flat.append(0)
    return flat


def unflatten(flat: array) -> list[Clause]:
    """Clauses from one flat array of literals, each clause ended by a 0 (as DIMACS writes them).

    By the C core when it is built (a cube node loads tens of thousands of clauses passed on to it).
    """
    compiled = getattr(_drup, "clauses", None)
    if compiled is not None and flat.itemsize == 4:
        return compiled(flat)
    out: list[Clause] = []
    start = 0
    for index, literal in enumerate(flat):
        if literal == 0:
            out.append(list(flat[start:index]))
            start = index + 1
    return out


def render_goals(goals: Iterable[Clause]) -> bytes:
    """Clauses as DRUP lemma lines (also the text of a ``.lemmas`` file)."""
    return "".join(" ".join(map(str, [*goal, 0])) + "\n" for goal in goals).encode()


def _about_goals(report: CheckReport, proof_lines: int, goals: list[Clause] | None) -> CheckReport:
    """A report whose failure is at a goal (read after the proof's last line) says so, by the goal's number."""
    if goals is None or report.failed_at is None or report.failed_at <= proof_lines:
        return report
    number = report.failed_at - proof_lines
    shown = " ".join(map(str, goals[number - 1])) if number <= len(goals) else "?"
    message = f"derived clause {number} ({shown or 'the empty clause'}) does not follow by unit propagation"
    return replace(report, message=message)


def _text_lines(proof: bytes | mmap.mmap | memoryview) -> Iterator[str]:
    """The lines of a proof one at a time, so a mapped proof file is never copied whole."""
    if isinstance(proof, memoryview):  # a window on a mapped file: a copy only on this fallback path
        proof = proof.tobytes()
    start = 0
    while start < len(proof):
        end = proof.find(b"\n", start)
        end = len(proof) if end < 0 else end
        yield proof[start:end].decode("utf-8", "replace")
        start = end + 1


def render_drup(steps: Iterable[Step]) -> bytes:
    """Steps as DRUP text, one per line (for checking in memory)."""
    lines = (("d " if deletion else "") + " ".join(map(str, [*lits, 0])) + "\n" for deletion, lits in steps)
    return "".join(lines).encode()


def check_rup(clauses: list[Clause], steps: list[Step], engine: str | None = None) -> CheckReport:
    """:func:`check_proof` on steps in memory; a report's line numbers count the steps from 1."""
    return check_proof(clauses, render_drup(steps), engine=engine)


def check_stream(clauses: list[Clause], steps: Iterable[tuple[int, Step]], derive: bool = False) -> CheckReport:
    """The ``pysat`` engine: Minisat 2.2's propagation on steps as they come; deletions are skipped.

    ``lemmas`` and ``deletions`` count the steps read up to the verdict.  With ``derive``, every
    lemma following is enough: no conflict is needed (:func:`check_proof`'s goals).
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
    if no_conflict and derive:
        return report(True, f"every one of the {counts['lemmas']:,} lemmas follows")
    if no_conflict:
        return report(False, "every lemma checks but no conflict is reached")
    return report(True, "unit propagation on the lemmas reaches a conflict")


def check_text(cnf_text: str, drup_text: str, engine: str | None = None) -> CheckReport:
    """Check a proof given as DIMACS and DRUP texts; a text that does not parse is an invalid proof."""
    return _check(cnf_text, drup_text.encode(), engine)


def check_files(cnf_path: str | Path, drup_path: str | Path, engine: str | None = None) -> CheckReport:
    """Check a proof on disk; the proof is mapped, not read, so only the formula is held in memory."""
    for path in (cnf_path, drup_path):  # a FIFO would block the read below: refused, as main's OSError
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
    cnf_text = Path(cnf_path).read_text()
    with Path(drup_path).open("rb") as proof:
        if proof.seek(0, 2) == 0:
            return _check(cnf_text, b"", engine)
        with mmap.mmap(proof.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return _check(cnf_text, mapped, engine)


def _check(cnf_text: str, proof: bytes | mmap.mmap, engine: str | None) -> CheckReport:
    start = time.perf_counter()
    try:
        _, clauses = parse_dimacs(cnf_text)
    except ProofFormatError as exc:
        return CheckReport(False, 0, 0, 0, time.perf_counter() - start, str(exc), malformed=True)
    report = check_proof(clauses, proof, engine=engine)
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
    args = sys.argv[1:] if argv is None else list(argv)
    engine = default_engine()
    if len(args) == 4 and args[0] == "--engine":
        engine, args = args[1], args[2:]
    ok, why = engine_available(engine)
    if not ok:
        print(f"rup_check: {why}", file=sys.stderr)
    if len(args) != 2 or not ok:
        print(
            "usage: python -m sigmar.runners.checking.rup_check [--engine c|pysat] FORMULA.cnf PROOF.drup",
            file=sys.stderr,
        )
        return 2
    try:
        report = check_files(args[0], args[1], engine)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        name = exc.filename if isinstance(exc, OSError) and exc.filename else f"{args[0]} or {args[1]}"
        print(f"rup_check: cannot read {name}: {why}", file=sys.stderr)
        return 2
    verdict = "VALID" if report.valid else "INVALID"
    print(
        f"{verdict}: {report.message} ({report.lemmas} lemmas, {report.deletions} deletions, "
        f"{report.checked} checked, {report.seconds:.3f} s, engine {engine})"
    )
    return 0 if report.valid else 1


if __name__ == "__main__":
    sys.exit(main())
