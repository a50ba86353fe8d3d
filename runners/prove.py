"""The prove engine: an unsolvability answer anyone can check, or a verified solution.

The counts come first (a sentence, checked by the certificate checker's own
reading of docs/formats.md#the-rules).  Then the routes to a certificate race, and the first
one checked wins (docs/formats.md#certificates):

- ``search`` finds the largest stuck set of the board (a ``stuck``
  certificate), or exhausts the board and lists its dead states, closed
  under every legal move (``dead-states``);
- ``cnf`` refutes the board's CNF with a SAT solver that logs a DRUP proof
  (``drup``).

Either way the runner writes the files and checks them with code that shares
nothing with the backend that found them (:mod:`sigmar.runners.checking.certify`);
a DRUP proof also goes to the verified ``drup`` checker when it is small.

A person can read a stuck set, and follow a dead-states file; a DRUP proof
only a checker can.  So when the DRUP proof wins, the search gets about as
long again as the proof took (:data:`READABLE_WAIT` at most) to find the
board's dead states, and a checked dead-states certificate found then is
kept instead (the answer's ``preferred`` says so).  A stuck set needs no
such wait: the search finds one at once, in its head start.
A certificate that fails its check makes the answer wrong (exit status 3):
a backend or the checker has a bug, and a person must look.

CP-SAT and MiniZinc, when installed, are then asked with a short limit.
Their answers are reported as corroboration, never as the certificate, and
their time apart from the proof's (``corroboration_seconds``); a verified
solution from one of them against a checked certificate is reported as wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigmar.encoders.cnf import DEFAULT_SOLVER
from sigmar.models.board import Board
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners.checking import rup_check
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import run_replayed
from sigmar.runners.race import Race

# python-sat solvers that log a DRUP proof in process (the cnf backend's ``cnf:NAME``).
PROVERS = ("glucose4", "glucose3", "glucose42")
DEFAULT_PROVER = DEFAULT_SOLVER  # the cnf backend's measured default
ROUTES = ("search", "cnf")
CORROBORATORS = ("cpsat", "minizinc")
# The certificate kinds by how well a person can read them, best first.
READABLE = (
    CertificateKind.COUNTS,
    CertificateKind.STUCK,
    CertificateKind.DEAD_STATES,
    CertificateKind.DRUP,
    CertificateKind.CUBES,
)
READABLE_WAIT = 2.0  # seconds the search gets at most, after a DRUP proof, to find the dead states
READABLE_MIN = 0.05  # ... and at least


@dataclass(frozen=True)
class Proved:
    """One board's answer from ``prove`` and what else was learnt on the way.

    The certificate, and whether it checked, live on ``result`` (docs/formats.md#the-json-of-an-answer).
    """

    result: Result
    corroboration: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    corroboration_seconds: float | None = None  # the corroborators' time, apart from the proof's

    @property
    def checked(self) -> bool:
        return self.result.checked

    def json_extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.corroboration:
            extra["corroboration"] = self.corroboration
        if self.corroboration_seconds is not None:
            extra["corroboration_seconds"] = round(self.corroboration_seconds, 6)
        extra.update(self.details)
        return extra


class Prover:
    """The routes to a certificate, in worker processes kept for every board of a run."""

    def __init__(
        self,
        proofs: ProofStore,
        *,
        prover: str = DEFAULT_PROVER,
        routes: tuple[str, ...] = ROUTES,
        corroborate_limit: float | None = 5.0,
        second_opinion: bool = True,
    ) -> None:
        names = [f"cnf:{prover}" if route == "cnf" else route for route in routes]
        # The search first, in this process, for the race's usual head start: it settles a small
        # board in milliseconds, so such a board's certificate does not depend on which worker
        # process the machine happens to schedule first.
        self.race = Race(names, proofs=proofs)
        self.proofs = proofs
        self.readable = "search" in routes
        self.corroborate_limit = corroborate_limit
        self.second_opinion = second_opinion

    def __enter__(self) -> Prover:
        return self

    def __exit__(self, *exc: object) -> None:
        self.race.close()

    def prove(self, board: Board, time_limit: float | None) -> Proved:
        outcome = self.race.solve(board, time_limit)
        result = outcome.result
        details: dict[str, Any] = {}
        rejected = [a for a in outcome.answers.values() if a.certificate is not None and not a.checked]
        if rejected and result.status is not Status.SOLVED:
            return Proved(result.with_(wrong=True, message=rejected[0].message), details=details)
        result = self._more_readable(board, result, time_limit, details)
        certificate = result.certificate if result.checked else None
        if certificate is not None and certificate.kind is CertificateKind.DRUP and self.second_opinion:
            opinion = drup_second_opinion(Path(certificate.file or ""))
            details["second_opinion"] = opinion
            if opinion == "invalid":
                message = "the verified drup checker rejects the proof that the RUP checker accepted"
                return Proved(result.with_(checked=False, wrong=True, message=message), details=details)
        return corroborated(board, result, self.corroborate_limit, details)

    def _more_readable(self, board: Board, result: Result, time_limit: float | None, details: dict[str, Any]) -> Result:
        """A checked DRUP answer, or the dead states the search finds in about as long (see the module)."""
        certificate = result.certificate
        drup = result.checked and certificate is not None and certificate.kind is CertificateKind.DRUP
        if not (self.readable and drup):
            return result
        budget = min(max(result.seconds, READABLE_MIN), READABLE_WAIT)
        if time_limit is not None:
            budget = min(budget, max(time_limit - result.seconds, 0.0))
        if budget <= 0:
            return result
        from sigmar.encoders.registry import make

        started = time.perf_counter()
        found = certify(board, run_replayed(make("search"), board, budget), self.proofs)
        spent = time.perf_counter() - started
        better = found.certificate
        if not (found.status is Status.UNSOLVABLE and found.checked and better is not None):
            details["readable"] = f"the search found no dead states in {budget:.2f} s; the DRUP proof is kept"
            return result
        details["preferred"] = f"{better.kind} over drup (found {spent:.3f} s after the DRUP proof)"
        return found.with_(seconds=result.seconds + spent)


def corroborated(board: Board, result: Result, limit: float | None, details: dict[str, Any] | None = None) -> Proved:
    """A refutation with what CP-SAT and MiniZinc say in ``limit`` seconds, timed apart from the proof; wrong if
    one of them solves the board."""
    details = details if details is not None else {}
    if result.status is not Status.UNSOLVABLE or result.reason is None or not limit:
        return Proved(result, details=details)
    if result.certificate is not None and result.certificate.kind is CertificateKind.COUNTS:
        return Proved(result, details=details)
    started = time.perf_counter()
    answers, solution = ask_corroborators(board, limit)
    spent = time.perf_counter() - started
    if solution is not None:
        kind = result.certificate.kind if result.certificate else "no"
        message = (
            f"{solution.backend} found a verified solution although a {kind} certificate refuted the board: "
            "the certificate's encoding or checker is wrong"
        )
        return Proved(solution.with_(wrong=True, message=message), answers, details, spent)
    return Proved(result, answers, details, spent)


def drup_second_opinion(drup_path: Path) -> str:
    """The verified ``drup`` checker's word on a proof and its formula beside it (small proofs only)."""
    cnf_path = drup_path.with_suffix(".cnf")
    if not drup_path.is_file() or not cnf_path.is_file():
        return "skipped: the proof files were not kept"
    try:
        variables, clauses = rup_check.parse_dimacs(cnf_path.read_text())
        steps = [step for _, step in rup_check.parse_drup(drup_path.read_text(), variables)]
    except rup_check.ProofFormatError:
        return "invalid"
    return rup_check.second_opinion(clauses, steps)


def ask_corroborators(board: Board, time_limit: float) -> tuple[dict[str, str], Result | None]:
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
        result = run_replayed(backend, board, time_limit)
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
    routes: tuple[str, ...] = ROUTES,
    corroborate_limit: float | None = 5.0,
    second_opinion: bool = True,
) -> Proved:
    """The answer ``sigmar prove`` gives for one board (see the module docstring for the order)."""
    with (
        ProofStore(proof_dir) as proofs,
        Prover(
            proofs,
            prover=prover,
            routes=routes,
            corroborate_limit=corroborate_limit,
            second_opinion=second_opinion,
        ) as engine,
    ):
        return engine.prove(board, time_limit)
