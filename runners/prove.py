"""The prove engine: an unsolvability answer a user can check, or a verified solution.

The cheapest sound argument wins.  First the counts
(:func:`sigmar.models.rules.count_problem`), then the static stuck-set
argument (:mod:`sigmar.models.static`, whose witness is re-checked
directly); both are sentences a person can follow.  Otherwise the board's
CNF (``sigmar.encoders.cnf.build_formula``) goes to a SAT solver that
writes a DRUP proof; the proof and the DIMACS text are checked by
:mod:`sigmar.runners.rup_check`, which parses the texts exactly as written
to disk and replays every lemma on a different solver's unit propagation.
A satisfiable formula is decoded and replayed by the rule engine instead.

CP-SAT and MiniZinc, when installed, are asked too with a short time limit.
Their answers are reported as corroboration; they never stand in for the
certificate.  A verified solution from one of them against a checked proof
means the CNF encoding is wrong, and is reported as such (exit status 3).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.static import explain_stuck, is_stuck_set, stuck_set

from . import rup_check
from .check import checked, run_checked

# python-sat solvers that can write a DRUP proof (``with_proof=True``).
PROVERS = ("glucose4", "glucose3", "glucose42", "cadical153", "cadical195")
DEFAULT_PROVER = "glucose4"
CORROBORATORS = ("cpsat", "minizinc")
PROVER_NAMES = {
    "glucose3": "Glucose 3",
    "glucose4": "Glucose 4",
    "glucose42": "Glucose 4.2",
    "cadical153": "CaDiCaL 1.5.3",
    "cadical195": "CaDiCaL 1.9.5",
}


@dataclass(frozen=True)
class Proved:
    """One board's answer from ``prove`` with what backs it.

    ``certificate`` is the DRUP proof file (None when no proof was written,
    or the answer needs none); ``checked`` says whether the argument was
    confirmed independently: the counts and a re-checked stuck set are, a
    proof is when the RUP checker accepted it.
    """

    result: Result
    certificate: str | None = None
    checked: bool = False
    corroboration: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def json_extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.result.status is Status.UNSOLVABLE:
            extra["certificate"] = self.certificate
            extra["checked"] = self.checked
        if self.corroboration:
            extra["corroboration"] = self.corroboration
        extra.update(self.details)
        return extra


def safe_name(name: str, fallback: str) -> str:
    """A board name turned into a file name: letters, digits, ``. _ -``; never empty or hidden."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")
    return cleaned[:100] if cleaned else fallback


class NameAllocator:
    """Distinct file stems for the boards of one run (two boards may share a name)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def stem(self, name: str, index: int) -> str:
        base = safe_name(name, f"board-{index}")
        stem, n = base, 1
        while stem.lower() in self.used:
            n += 1
            stem = f"{base}-{n}"
        self.used.add(stem.lower())
        return stem


def _cells(board: Board, tiles: frozenset[int]) -> list[list[int]]:
    return [list(board.rowcol(board.tiles[t].cell)) for t in sorted(tiles)]


def static_answer(board: Board, start: float) -> Proved | None:
    """The counts or the stuck-set argument, or None when neither fires."""
    problem = count_problem(board)
    if problem is not None:
        result = Result(
            Status.UNSOLVABLE, "counts", time.perf_counter() - start, reason=Reason.COUNTS, explanation=problem
        )
        return Proved(result, None, True)
    stuck = stuck_set(board)
    if not stuck:
        return None
    confirmed = is_stuck_set(board, stuck)
    result = Result(
        Status.UNSOLVABLE,
        "static",
        time.perf_counter() - start,
        reason=Reason.STATIC,
        explanation=explain_stuck(board, stuck),
    )
    return Proved(result, None, confirmed, details={"stuck_cells": _cells(board, stuck)})


def _solve_with_limit(solver: Any, time_limit: float | None) -> bool | None:
    """The solver's answer, or None when ``time_limit`` seconds pass first."""
    if time_limit is None:
        answer: bool | None = solver.solve()
        return answer
    timer = threading.Timer(time_limit, solver.interrupt)
    timer.start()
    try:
        answer = solver.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
    return answer


def _proof_text(lines: list[str]) -> str:
    """The solver's DRUP lines, ending in the empty clause (some solvers leave it implicit)."""
    body = [line.strip() for line in lines if line.strip()]
    if not body or body[-1] != "0":
        body.append("0")
    return "\n".join(body) + "\n"


def certificate_answer(
    board: Board,
    start: float,
    time_limit: float | None,
    *,
    prover: str = DEFAULT_PROVER,
    proof_dir: Path | None = None,
    stem: str = "board",
    second_opinion: bool = True,
) -> Proved:
    """Refute the board's CNF with a DRUP proof and check it, or decode and verify the model."""
    from pysat.solvers import Solver

    try:
        from sigmar.encoders.cnf import build_formula
    except ImportError as exc:
        message = f"the CNF encoding is not available here: {exc}"
        return Proved(Result(Status.UNKNOWN, f"prove:{prover}", time.perf_counter() - start, message=message))

    backend = f"prove:{prover}"
    formula = build_formula(board)
    dimacs = formula.to_dimacs()
    details: dict[str, Any] = {}
    files: dict[str, str] = {}
    if proof_dir is not None:
        proof_dir.mkdir(parents=True, exist_ok=True)
        cnf_path, vars_path = proof_dir / f"{stem}.cnf", proof_dir / f"{stem}.vars.json"
        cnf_path.write_text(dimacs)
        vars_path.write_text(formula.sidecar())
        files = {"cnf": str(cnf_path), "vars": str(vars_path)}
    encode_seconds = time.perf_counter() - start
    remaining = None if time_limit is None else max(time_limit - encode_seconds, 0.001)

    solve_start = time.perf_counter()
    with Solver(name=prover, with_proof=True, bootstrap_with=formula.clauses) as solver:
        answer = _solve_with_limit(solver, remaining)
        solve_seconds = time.perf_counter() - solve_start
        model = solver.get_model() if answer else None
        proof = solver.get_proof() if answer is False else None
    stats: dict[str, Any] = {
        "prover": prover,
        "variables": formula.nv,
        "clauses": len(formula.clauses),
        "encode_seconds": round(encode_seconds, 6),
        "solve_seconds": round(solve_seconds, 6),
    }
    if answer is None:
        result = Result(Status.UNKNOWN, backend, time.perf_counter() - start, message="no answer in time")
        return Proved(result, details={"proof": stats, **({"files": files} if files else {})})
    if answer:
        moves = tuple(formula.decode(model or []))
        result = checked(board, Result(Status.SOLVED, backend, time.perf_counter() - start, moves=moves))
        return Proved(result, details={"proof": stats})

    drup_text = _proof_text(proof or [])
    certificate = None
    if proof_dir is not None:
        drup_path = proof_dir / f"{stem}.drup"
        drup_path.write_text(drup_text)
        files["drup"] = certificate = str(drup_path)
    report = rup_check.check_text(dimacs, drup_text)
    stats.update(
        lemmas=report.lemmas,
        deletions=report.deletions,
        bytes=len(drup_text.encode()),
        check_seconds=round(report.seconds, 6),
        checker=f"forward RUP on {rup_check.CHECKER_SOLVER} propagation",
        check=report.message,
    )
    valid = report.valid
    if second_opinion and valid:
        _, clauses = rup_check.parse_dimacs(dimacs)
        steps = [step for _, step in rup_check.parse_drup(drup_text)]
        opinion = rup_check.second_opinion(clauses, steps)
        stats["second_opinion"] = opinion
        valid = opinion != "invalid"
    details["proof"] = stats
    if files:
        details["files"] = files
    seconds = time.perf_counter() - start
    name = PROVER_NAMES.get(prover, prover)
    if not valid:
        result = Result(
            Status.UNSOLVABLE,
            backend,
            seconds,
            reason=Reason.PROOF,
            explanation=f"{name} says the board's CNF is unsatisfiable, but its proof does not check",
            message=f"proof rejected: {report.message}; second opinion: {stats.get('second_opinion', 'not asked')}",
            wrong=True,
        )
        return Proved(result, certificate, False, details=details)
    explanation = (
        f"no move sequence clears the board: {name} refuted its CNF encoding ({formula.nv} variables, "
        f"{len(formula.clauses)} clauses) with a proof of {report.lemmas} lemmas, each checked by "
        f"reverse unit propagation on a different solver"
    )
    result = Result(Status.UNSOLVABLE, backend, seconds, reason=Reason.PROOF, explanation=explanation)
    return Proved(result, certificate, True, details=details)


def corroborate(board: Board, time_limit: float) -> tuple[dict[str, str], Result | None]:
    """Each available corroborator's status, and a verified solution if one of them found it."""
    from sigmar.encoders.registry import info, make

    answers: dict[str, str] = {}
    solution: Result | None = None
    for family in CORROBORATORS:
        if not info(family).available:
            continue
        try:
            backend = make(family)
        except Exception as exc:  # a corroborator that cannot start is reported, never fatal
            answers[family] = f"error: {exc}"
            continue
        result = run_checked(backend, board, time_limit)
        answers[result.backend or family] = result.status.value
        if result.status is Status.SOLVED and result.verified and solution is None:
            solution = result
    return answers, solution


def prove(
    board: Board,
    time_limit: float | None = 60.0,
    *,
    prover: str = DEFAULT_PROVER,
    proof_dir: Path | None = None,
    stem: str | None = None,
    corroborate_limit: float | None = 5.0,
    second_opinion: bool = True,
) -> Proved:
    """The answer ``sigmar prove`` gives for one board (see the module docstring for the order)."""
    start = time.perf_counter()
    early = static_answer(board, start)
    if early is not None:
        return early
    try:
        proved = certificate_answer(
            board,
            start,
            time_limit,
            prover=prover,
            proof_dir=proof_dir,
            stem=stem or safe_name(board.name, "board"),
            second_opinion=second_opinion,
        )
    except Exception as exc:  # an encoder or solver crash is an answer, not a crash of the suite
        message = f"{type(exc).__name__}: {exc}"
        return Proved(Result(Status.ERROR, f"prove:{prover}", time.perf_counter() - start, message=message))
    if proved.result.status is not Status.UNSOLVABLE or not corroborate_limit:
        return proved
    answers, solution = corroborate(board, corroborate_limit)
    if solution is not None:
        message = (
            f"{solution.backend} found a verified solution although the CNF was refuted: the CNF encoding is wrong"
        )
        wrong = solution.with_(wrong=True, message=message)
        return Proved(wrong, proved.certificate, False, answers, proved.details)
    return Proved(proved.result, proved.certificate, proved.checked, answers, proved.details)
