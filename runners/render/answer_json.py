"""The JSON of one board (docs/formats.md#the-json-of-an-answer) and the readable table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sigmar.models.board import Board
from sigmar.models.result import Result, Status

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any

    from sigmar.models.counting import Count
    from sigmar.runners.checking.count_grade import CountVerdict
    from sigmar.runners.checking.grading import BoardVerdict


def result_json(board: Board, result: Result, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "board": board.name,
        "status": result.status.value,
        "backend": result.backend,
        "seconds": round(result.seconds, 6),
    }
    if result.status is Status.SOLVED:
        from sigmar.models.solution import (
            move_to_json,  # only for what counts or writes JSON: not a one-board table's modules
        )

        record["moves"] = [move_to_json(board, m) for m in result.moves]
    if result.status is Status.SOLVED or result.moves:  # only where there were moves to replay
        record["verified"] = result.verified
    if result.status is Status.UNSOLVABLE:
        record["reason"] = result.reason.value if result.reason else None
        record["explanation"] = result.explanation
        record["certificate"] = result.certificate.json() if result.certificate else None
        record["checked"] = result.checked
        record["check_seconds"] = None if result.check_seconds is None else round(result.check_seconds, 6)
    if result.claims and result.status is not Status.SOLVED:
        record["claims"] = [claim_json(c) for c in result.claims]
    if result.status is Status.ERROR or (result.status is Status.UNKNOWN and result.message):
        record["message"] = result.message
    if result.statistics:
        record["statistics"] = result.statistics
    record.update(extra)
    return record


def graded_json(board: Board, verdict: BoardVerdict, answers: Mapping[str, Result]) -> dict[str, Any]:
    """A board every backend answered (``crosscheck``, ``bench``): the board's answer, with each backend's
    status, grade and time, whether they agree, and which "no" had its own checked certificate."""
    from sigmar.runners.checking.grading import certified

    record = result_json(
        board,
        verdict.result,
        answers={name: str(a.status) for name, a in answers.items()},
        agree=verdict.agree,
        grades={name: str(g) for name, g in verdict.grades.items()},
        times={name: round(a.seconds, 6) for name, a in answers.items()},
        certified={name: certified(a) for name, a in answers.items() if certified(a)},
    )
    if verdict.notes:
        record["notes"] = list(verdict.notes)
    return record


def claim_json(claim: Result) -> dict[str, Any]:
    """What one backend said before the end (docs/formats.md#the-json-of-an-answer, ``claims``)."""
    record: dict[str, Any] = {
        "backend": claim.backend,
        "status": claim.status.value,
        "reason": claim.reason.value if claim.reason else None,
        "seconds": round(claim.seconds, 6),
    }
    if claim.status is Status.UNSOLVABLE:
        record["checked"] = claim.checked
    if claim.message:
        record["message"] = claim.message
    return record


def count_json(count: Count | None) -> dict[str, Any]:
    """``{"count": N, "exact": bool}`` (docs/formats.md#the-json-of-a-count): N exact, as a string of digits
    above 2^53 (where a JSON reader's doubles lose digits); null when there is no count."""
    if count is None:
        return {"count": None, "exact": False}
    from sigmar.models.counting import (
        json_number,  # only for what counts or writes JSON: not a one-board table's modules
    )

    return {"count": json_number(count.value), "exact": count.exact}


def dumps(record: dict[str, Any]) -> str:
    import json  # json where JSON is read or written: 5 M instructions a one-board solve (a table) need not pay

    return json.dumps(record, separators=(", ", ": "))


def summary_line(result: Result) -> str:
    """A short human sentence for the table's last column."""
    if result.status is Status.SOLVED:
        count = len(result.moves)
        moves = f"{count} move{'' if count == 1 else 's'}"
        return f"{moves}, verified" if result.verified else f"{moves}, NOT verified"
    if result.status is Status.UNSOLVABLE:
        if result.checked and result.certificate is not None:
            return f"{result.reason}: {result.explanation} [{result.certificate.kind} certificate checked]"
        return f"{result.reason} (unchecked): {result.explanation}"
    if result.status is Status.ERROR:
        return result.message
    return result.message or "no answer in time"


def exit_code(results: list[Result]) -> int:
    """docs/formats.md#exit-status: 0 every board answered, 1 some board not answered, 3 a wrong answer."""
    if any(r.wrong for r in results):
        return 3
    if any(r.status in (Status.UNKNOWN, Status.ERROR) for r in results):
        return 1
    return 0


def verdict_json(verdict: CountVerdict) -> dict[str, Any]:
    """One board's counts as one JSON object (docs/formats.md#the-json-of-a-count)."""
    from sigmar.models.counting import count_in

    record: dict[str, Any] = {
        "board": verdict.board.name,
        "notion": str(verdict.notion),
        "reference": {**count_json(verdict.reference), "seconds": round(verdict.reference_seconds, 6)},
        "counts": {},
    }
    for name, answer in verdict.answers.items():
        entry = {
            **count_json(count_in(answer)),
            "seconds": round(answer.seconds, 6),
            "grade": str(verdict.grades[name]),
        }
        if answer.message:
            entry["message"] = answer.message
        record["counts"][name] = entry
    record["agree"] = not verdict.any_wrong
    if verdict.notes:
        record["notes"] = list(verdict.notes)
    return record


def tally_line(results: Sequence[Result], wall: float) -> str:
    """One line of counts over the answers and the wall time: the end of every verb that answers boards.

    ``unsolvable (checked)`` counts checked certificates; an unsolvable answer on corroboration alone,
    and answers found wrong, are named only when there are some.
    """
    return counts_line(
        len(results),
        solved=sum(r.status is Status.SOLVED for r in results),
        checked=sum(r.status is Status.UNSOLVABLE and r.checked for r in results),
        unknown=sum(r.status is Status.UNKNOWN for r in results),
        error=sum(r.status is Status.ERROR for r in results),
        wall=wall,
        corroborated=sum(r.status is Status.UNSOLVABLE and not r.checked for r in results),
        wrong=sum(r.wrong for r in results),
    )


def counts_line(
    boards: int,
    *,
    solved: int,
    checked: int,
    unknown: int,
    error: int,
    wall: float,
    corroborated: int = 0,
    wrong: int = 0,
) -> str:
    """``N boards: S solved, U unsolvable (checked), K unknown, E error; W s wall``."""
    parts = [f"{solved} solved", f"{checked} unsolvable (checked)"]
    if corroborated:
        parts.append(f"{corroborated} unsolvable (corroborated, not checked)")
    parts += [f"{unknown} unknown", f"{error} error"]
    if wrong:
        parts.append(f"{wrong} WRONG")
    return f"{boards} board{'' if boards == 1 else 's'}: {', '.join(parts)}; {wall:.2f} s wall"
