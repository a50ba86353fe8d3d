"""Grading every backend's answer on one board, as BenchExec grades runs.

Shared by ``crosscheck`` and ``bench``.  No answer key is needed: the board
itself and the answers decide.

- A verified solution is the truth: it beats any ``unsolvable`` claim.
- Otherwise the board is unsolvable when the counts say so or when some
  answer's certificate was checked (:mod:`sigmar.runners.checking.trust`).  Two
  families that say unsolvable without one make ``corroborated``, which
  settles nothing.

Grades: ``correct`` (a verified solution, or an ``unsolvable`` whose own
certificate was checked); ``unconfirmed`` (BenchExec's correct-unconfirmed:
an ``unsolvable`` that nothing contradicts but that its backend did not
certify, whether or not another backend's certificate settled the board: a
claim is never graded as a checked "no"); ``wrong`` (a solution the rule
engine rejects, or ``unsolvable`` against a verified solution); ``unknown``
(no answer in time); ``error`` (a crash or a malformed answer).

Each answer's "no" is also *certified* or *claimed* (:func:`certified`), the
bench CSV's ``certified`` column.
"""

from __future__ import annotations

from sigmar.models.board import Board
from sigmar.models.records import Frozen
from sigmar.models.result import Result, Status
from sigmar.models.word_enums import Words, word_enum
from sigmar.runners.checking.replay import counts_answer
from sigmar.runners.checking.trust import accepted, claims_message, corroborated


@word_enum
class Grade(Words):
    CORRECT = "correct"
    UNCONFIRMED = "unconfirmed"
    WRONG = "wrong"
    UNKNOWN = "unknown"
    ERROR = "error"


class BoardVerdict(Frozen):
    """Every backend's grade on one board, whether they agree, and the board's answer."""

    __slots__ = __match_args__ = ("result", "grades", "agree", "notes", "settled")
    result: Result  # the board's answer as the suite reports it
    grades: dict[str, Grade]
    agree: bool  # no two backends claimed opposite answers (among those not graded wrong: a wrong one is noted once)
    notes: tuple[str, ...]
    settled: bool  # ``result`` is a verified solution or a checked certificate, not a claim

    def __init__(
        self, result: Result, grades: dict[str, Grade], agree: bool, notes: tuple[str, ...] = (), settled: bool = False
    ) -> None:
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "grades", grades)
        object.__setattr__(self, "agree", agree)
        object.__setattr__(self, "notes", notes)
        object.__setattr__(self, "settled", settled)

    @property
    def truth(self) -> str:
        """The board's class for per-class scores: ``solvable``, ``unsolvable`` or ``open`` (not settled)."""
        if not self.settled:
            return "open"
        return "solvable" if self.result.status is Status.SOLVED else "unsolvable"

    @property
    def any_wrong(self) -> bool:
        return any(g is Grade.WRONG for g in self.grades.values())


def certified(answer: Result) -> str:
    """The bench CSV's ``certified``: ``yes`` for an ``unsolvable`` with a checked certificate, ``no`` for
    one that is only claimed (no certificate, or one that failed its check), empty for any other answer."""
    if answer.status is not Status.UNSOLVABLE:
        return ""
    return "yes" if accepted(answer) else "no"


def claim(answer: Result) -> str | None:
    """What an answer says about the board: "solvable", "unsolvable" or nothing."""
    if answer.status is Status.SOLVED or answer.wrong:
        return "solvable"
    if answer.status is Status.UNSOLVABLE:
        return "unsolvable"
    return None


def board_answer(board: Board, answers: dict[str, Result]) -> tuple[Result, bool]:
    """The board's answer from checked ``answers``, and whether it is settled (not just claimed)."""
    solutions = [a for a in answers.values() if a.verified]
    if solutions:
        return min(solutions, key=lambda a: a.seconds), True
    counted = counts_answer(board)
    if counted is not None:
        return counted, True
    certified = [a for a in answers.values() if a.status is Status.UNSOLVABLE and accepted(a)]
    if certified:
        return min(certified, key=lambda a: a.seconds), True
    said = tuple(answers.values())
    agreed = corroborated(said)
    if agreed is not None:
        return agreed.with_(claims=said), False
    if any(a.status is Status.UNSOLVABLE for a in said):
        message = f"{claims_message(said)}; no checked certificate and no backend of another family agreed"
        return Result(Status.UNKNOWN, "crosscheck", message=message, claims=said), False
    wrong = [a for a in answers.values() if a.wrong]
    if wrong:
        return Result(Status.ERROR, wrong[0].backend, message=wrong[0].message, wrong=True), False
    if answers and all(a.status is Status.ERROR for a in answers.values()):
        message = "; ".join(a.message for a in answers.values())
        return Result(Status.ERROR, "crosscheck", message=f"every backend failed: {message}"), False
    parts = [f"{name}: {a.message or a.status}" for name, a in answers.items()]
    return Result(Status.UNKNOWN, "crosscheck", message="; ".join(parts) or "no answer"), False


def grade_board(board: Board, answers: dict[str, Result]) -> BoardVerdict:
    """Grade every (already checked) answer on ``board`` against the others."""
    result, settled = board_answer(board, answers)
    truth = result.status if settled else None
    grades: dict[str, Grade] = {}
    notes: list[str] = []
    for name, answer in answers.items():
        if answer.wrong:
            grades[name] = Grade.WRONG
            notes.append(answer.message)
        elif answer.verified:
            grades[name] = Grade.CORRECT
        elif answer.status is Status.UNSOLVABLE:
            if truth is Status.SOLVED:
                grades[name] = Grade.WRONG
                notes.append(f"{name} said unsolvable ({answer.reason}) but {result.backend} found a verified solution")
            elif truth is Status.UNSOLVABLE and accepted(answer):
                grades[name] = Grade.CORRECT
            else:  # right or not, nothing checked it: a claim
                grades[name] = Grade.UNCONFIRMED
        elif answer.status is Status.ERROR:
            grades[name] = Grade.ERROR
        else:
            grades[name] = Grade.UNKNOWN
    # A disagreement among the answers not already graded wrong: a wrong answer is reported once, as wrong
    # (its note above), not a second time as a disagreement with the answers that showed it wrong.
    standing = {n: a for n, a in answers.items() if grades[n] is not Grade.WRONG}
    claims = {claim(a) for a in standing.values()} - {None}
    agree = len(claims) <= 1
    if not agree:
        notes.append("backends disagree: " + ", ".join(f"{n}={claim(a)}" for n, a in standing.items() if claim(a)))
    return BoardVerdict(result, grades, agree, tuple(notes), settled)
