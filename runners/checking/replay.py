"""The gate every answer passes: no unverified "solved" ever leaves a runner.

First the answer is taken in (:mod:`.intake`): rebuilt as a plain Result with the
fields that record trust reset, or an ``error`` naming a malformed field.  A
``solved`` answer is then replayed by the rule engine; if it does not clear the
board it becomes an ``error`` naming the bad move.  An ``unsolvable`` answer
must carry a reason.  A backend that raises becomes an ``error`` result.
"""

from __future__ import annotations

import time

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.models.rules import count_problem, verify
from sigmar.runners.checking.intake import crashed, taken_in


def replayed(board: Board, raw: object, name: str | None = None, seconds: float | None = None) -> Result:
    """The answer taken in and, when ``solved``, replayed: ``verified`` says the rule engine cleared the board.

    ``name`` is the backend that was asked (see :func:`.intake.taken_in`); ``seconds`` (measured by the
    runner) replaces the backend's own.  A certificate is *checked* later, by :func:`.certify.certify`;
    this gate only *verifies* solutions.
    """
    result = taken_in(raw, name)
    timed = {} if seconds is None else {"seconds": seconds}
    if result.status is Status.SOLVED:
        verdict = verify(board, result.moves)
        if verdict.valid:
            # taken_in's Result is made there and shared with no one: set, not copied (it runs for every
            # solved board; a copy of fifteen fields cost some 4 us right after a search, issue 48)
            _SET_VERIFIED(result, True)
            if seconds is not None:
                _SET_SECONDS(result, seconds)
            return result
        return result.with_(
            status=Status.ERROR,
            verified=False,
            wrong=True,
            message=f"{result.backend} returned a solution the rule engine rejects: {verdict}",
            **timed,
        )
    if result.status is Status.UNSOLVABLE and result.reason is None:
        message = f"{result.backend} said unsolvable without a reason"
        return result.with_(status=Status.ERROR, message=message, **timed)
    return result.with_(verified=False, **timed)


# The slots' own setters (a Result is frozen to everyone else)
_SET_VERIFIED = Result.verified.__set__  # type: ignore[attr-defined,misc]
_SET_SECONDS = Result.seconds.__set__  # type: ignore[attr-defined,misc]


def counts_answer(board: Board) -> Result | None:
    """An ``unsolvable`` answer from the counts alone, checked by the certificate checker, or None."""
    problem = count_problem(board)
    if problem is None:
        return None
    from sigmar.runners.checking.certificates import check_counts  # the checkers: only for an "unsolvable"

    start = time.perf_counter()
    verdict = check_counts(board)  # the independent reading of the counts (docs/formats.md#the-rules)
    certificate = Certificate(CertificateKind.COUNTS)
    return Result(
        Status.UNSOLVABLE if verdict.valid else Status.ERROR,
        "counts",
        0.0,
        reason=Reason.COUNTS,
        explanation=problem,
        message="" if verdict.valid else f"the counts check disagrees with the rule engine: {verdict.reason}",
        certificate=certificate,
        checked=verdict.valid,
        check_seconds=time.perf_counter() - start,
    )


def run_replayed(backend: Backend, board: Board, time_limit: float | None) -> Result:
    """Run one backend on one board; exceptions become ``error``, answers are taken in and replayed."""
    start = time.perf_counter()
    try:
        result = backend.solve(board, time_limit)
    except Exception as exc:  # a crashing backend is an answer, not a crash of the suite
        return crashed(backend.name, exc, time.perf_counter() - start)
    return replayed(board, result, backend.name)
