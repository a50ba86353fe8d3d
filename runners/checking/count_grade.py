"""Grading counts: each backend's count of a notion held against the rule engine's.

The notions and grades: docs/formats.md#counts-of-solutions.

The reference is :func:`sigmar.models.counting.reference_count`, run in this
process beside the workers.  A backend's count is graded:

- ``correct``: exact and equal to an exact reference;
- ``wrong``: exact and different from an exact reference, exact and below the
  reference's lower bound, or a lower bound above an exact reference: more
  ways than there are, or fewer than certainly exist;
- ``unconfirmed``: exact, at least the reference's lower bound (which stopped
  short, so it cannot say);
- ``bound``: a lower bound (the backend stopped at the time limit or a cap)
  that does not pass the reference;
- ``unknown``: no count (the worker was killed past the time limit);
- ``error``: the backend raised or crashed, or answered something that is not a count;
- ``refused``: the backend does not play this board (the quintessence variant), so was not asked.
"""

from __future__ import annotations

import threading

from sigmar.models.board import Board
from sigmar.models.counting import Count, Notion, count_in, reference_count
from sigmar.models.records import Frozen
from sigmar.models.result import Result, Status
from sigmar.models.word_enums import Words, word_enum


@word_enum
class CountGrade(Words):
    CORRECT = "correct"
    WRONG = "wrong"
    UNCONFIRMED = "unconfirmed"
    BOUND = "bound"
    UNKNOWN = "unknown"
    ERROR = "error"
    REFUSED = "refused"


class CountVerdict(Frozen):
    """One board's counts of one notion: the reference, each backend's answer and count, their grades."""

    __slots__ = __match_args__ = ("board", "notion", "reference", "reference_seconds", "answers", "grades", "notes")
    board: Board
    notion: Notion
    reference: Count
    reference_seconds: float
    answers: dict[str, Result]
    grades: dict[str, CountGrade]
    notes: tuple[str, ...]

    def __init__(
        self,
        board: Board,
        notion: Notion,
        reference: Count,
        reference_seconds: float,
        answers: dict[str, Result],
        grades: dict[str, CountGrade],
        notes: tuple[str, ...] = (),
    ) -> None:
        values = (board, notion, reference, reference_seconds, answers, grades, notes)
        for name, value in zip(self.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)

    @property
    def any_wrong(self) -> bool:
        return CountGrade.WRONG in self.grades.values()

    @property
    def all_exact(self) -> bool:
        """Every count and the reference exact (and none wrong): the board is fully answered."""
        return self.reference.exact and all(g in (CountGrade.CORRECT, CountGrade.REFUSED) for g in self.grades.values())

    def count(self, name: str) -> Count | None:
        return count_in(self.answers[name])


def grade_count(count: Count | None, answer: Result, reference: Count) -> CountGrade:
    """One backend's count against the reference (see the module docstring)."""
    if count is None:
        if answer.status is Status.ERROR:
            return CountGrade.REFUSED if answer.statistics.get("refused") else CountGrade.ERROR
        return CountGrade.UNKNOWN
    if count.exact:
        if reference.exact:
            return CountGrade.CORRECT if count.value == reference.value else CountGrade.WRONG
        return CountGrade.UNCONFIRMED if count.value >= reference.value else CountGrade.WRONG
    if reference.exact and count.value > reference.value:
        return CountGrade.WRONG
    return CountGrade.BOUND


def wrong_note(board: Board, name: str, count: Count, reference: Count) -> str:
    """The line that names a wrong count: the board, both counts and the notion."""
    return f"{board.name}: {name} counted {count} {count.notion}, the rule engine {reference}"


def grade_counts(
    board: Board, notion: Notion, answers: dict[str, Result], reference: Count, seconds: float
) -> CountVerdict:
    grades: dict[str, CountGrade] = {}
    notes: list[str] = []
    for name, answer in answers.items():
        count = count_in(answer)
        grades[name] = grade_count(count, answer, reference)
        if grades[name] is CountGrade.WRONG and count is not None:
            notes.append(wrong_note(board, name, count, reference))
    return CountVerdict(board, notion, reference, seconds, answers, grades, tuple(notes))


class ReferenceBeside:
    """The rule engine's count, in a thread of this process while the workers count (the GIL is free
    while this process waits on them).  ``result()`` waits for it."""

    def __init__(self, board: Board, notion: Notion, time_limit: float | None) -> None:
        import time

        self._clock = time.perf_counter
        self._out: list[tuple[Count, float]] = []
        self._error: list[BaseException] = []

        def run() -> None:
            start = self._clock()
            try:
                self._out.append((reference_count(board, notion, time_limit), self._clock() - start))
            except BaseException as exc:  # handed to result(): a bug in the judge must not pass silently
                self._error.append(exc)

        self._thread = threading.Thread(target=run, name="sigmar-reference-count", daemon=True)
        self._thread.start()

    def result(self) -> tuple[Count, float]:
        self._thread.join()
        if self._error:
            raise self._error[0]
        return self._out[0]
