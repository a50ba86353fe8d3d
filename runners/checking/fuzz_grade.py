"""Grading one backend's answer against the fuzzer's ground truth (:mod:`sigmar.models.truth`).

The answer arrives as in a race (``replay.replayed`` replayed any
solution, ``certify.certify`` checked any certificate).  Failure kinds:

- ``rejected-solution``: a solution the rule engine rejects, on a solvable board;
- ``wrong-solved``: "solved" on an unsolvable board (its moves cannot replay);
- ``wrong-unsolvable``: "unsolvable", or a claim of it, on a solvable board;
- ``rejected-certificate``: a true "unsolvable" whose certificate the checker rejects;
- ``crash``: the worker died while solving; ``hang``: no answer by the time
  limit (plus slack), so the worker was killed; ``error``: any other error;
- ``wrong-count`` (``fuzz --compare-counts``): a count that differs from the
  rule engine's (``checking.count_grade``); a counter that crashes, hangs or
  fails is a ``crash``, ``hang`` or ``error`` as above.

A backend's own ``unknown`` within the time limit is not a failure: the
fuzzer cannot tell a slow answer from a missing one.  Neither is the refusal
of a backend that does not play the quintessence variant.
"""

from __future__ import annotations

from sigmar.models.result import Lost, Result, Status
from sigmar.models.truth import Truth
from sigmar.models.word_enums import Words, word_enum
from sigmar.runners.checking.count_grade import CountGrade, CountVerdict


@word_enum
class Failure(Words):
    REJECTED_SOLUTION = "rejected-solution"
    WRONG_SOLVED = "wrong-solved"
    WRONG_UNSOLVABLE = "wrong-unsolvable"
    REJECTED_CERTIFICATE = "rejected-certificate"
    CRASH = "crash"
    HANG = "hang"
    ERROR = "error"
    WRONG_COUNT = "wrong-count"


def is_hang(answer: Result) -> bool:
    """The runner's own answer for a worker it killed past the time limit."""
    return answer.lost is Lost.OVERRUN


def is_crash(answer: Result) -> bool:
    """The runner's own answer for a worker that died while solving or counting."""
    return answer.lost is Lost.CRASH


def failure_of(answer: Result, truth: Truth) -> Failure | None:
    """What is wrong with ``answer`` on a board whose truth is ``truth``; None when nothing is."""
    if answer.wrong:
        return Failure.REJECTED_SOLUTION if truth.solvable else Failure.WRONG_SOLVED
    if answer.status is Status.SOLVED:
        if not truth.solvable:  # the rule engine replayed it: the truth search itself is wrong
            raise AssertionError(f"{answer.backend} found a verified solution on a board the fuzzer calls unsolvable")
        return None
    if answer.status is Status.UNSOLVABLE:
        if truth.solvable:
            return Failure.WRONG_UNSOLVABLE
        if answer.certificate is not None and not answer.checked:
            return Failure.REJECTED_CERTIFICATE
        return None
    if answer.status is Status.ERROR:
        return Failure.CRASH if is_crash(answer) else Failure.ERROR
    return Failure.HANG if is_hang(answer) else None


def count_failure(verdict: CountVerdict, name: str) -> Failure | None:
    """What is wrong with backend ``name``'s count in ``verdict``; None when nothing is (a lower bound is not)."""
    grade, answer = verdict.grades[name], verdict.answers[name]
    if grade is CountGrade.WRONG:
        return Failure.WRONG_COUNT
    if grade is CountGrade.ERROR:
        return Failure.CRASH if is_crash(answer) else Failure.ERROR
    if grade is CountGrade.UNKNOWN:
        return Failure.HANG if is_hang(answer) else None
    return None
