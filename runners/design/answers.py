"""What the workbench's worker processes compute: a board's verdict, its explanation, and a game in play.

Each function takes a parsed board (the server parses and limits what is posted) and returns
plain JSON.  The rules are the suite's: a solution is replayed by the rule engine before it is
shown, and every "no" carries a certificate the independent checker accepted (the search's stuck
set or dead states; the counts), else it is shown as "unknown".
"""

from __future__ import annotations

from typing import Any

from sigmar.encoders.search import SearchBackend
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.result import CertificateKind, Move, Result, Status
from sigmar.models.rules import Position
from sigmar.models.solution import move_to_json

from ..checking.certify import ProofStore, certify
from ..checking.replay import counts_answer, run_checked
from ..render.answer_json import result_json
from .explain import explain, explanation_json


def checked_answer(board: Board, time_limit: float) -> Result:
    """The counts, else the search; an "unsolvable" certified (written to a temporary folder and checked)."""
    result = counts_answer(board) or run_checked(SearchBackend(), board, time_limit)
    if result.status is Status.UNSOLVABLE and not result.checked:
        with ProofStore() as store:
            result = certify(board, result, store)
        if not result.checked:  # a refutation whose certificate failed: a claim, not an answer
            return Result(Status.UNKNOWN, result.backend, result.seconds, message=result.message, claims=(result,))
    return result


def _stuck_cells(result: Result) -> list[list[int]]:
    certificate = result.certificate
    if result.checked and certificate is not None and certificate.kind is CertificateKind.STUCK:
        return [list(cell) for cell in certificate.cells]
    return []


def verdict(board: Board, time_limit: float) -> dict[str, Any]:
    """The board's answer (docs/formats.md#the-json-of-an-answer), with ``stuck``: the stuck set's cells to outline."""
    result = checked_answer(board, time_limit)
    record = result_json(board, result)
    record["stuck"] = _stuck_cells(result)
    record.pop("statistics", None)
    return record


def explanation(board: Board, time_limit: float) -> dict[str, Any]:
    """The answer with ``deepest`` and ``repair`` (docs/formats.md#the-json-of-explain)."""
    with ProofStore() as store:
        found = explain(board, checked_answer(board, time_limit), time_limit, store)
        record = explanation_json(found)
    record.pop("statistics", None)
    return record


def remaining(board: Board, occupied: frozenset[Hex]) -> Board:
    """The tiles still on the board as a board of their own.

    Its gold is its highest digit, as the game's: metals leave in ascending order, so the
    starting board's gold is the highest digit left while it is there, and once it has gone no
    metal is left.
    """
    return Board(board.dim, tuple(t for t in board.tiles if t.cell in occupied), board.name)


def play(board: Board, moves: list[tuple[Hex, ...]], time_limit: float) -> dict[str, Any]:
    """A game in play: each move judged by the rule engine; then whether the position can still be cleared.

    When it cannot, the move that lost is the first after which it could not (each earlier
    position is solved again, from the latest back), with the reason; ``hint`` is a move that
    keeps the position clearable, when one does.
    """
    position = Position.start(board)
    positions = [position]
    for number, cells in enumerate(moves, start=1):
        illegal = position.why_illegal(Move(cells))
        if illegal is not None:
            return {"legal": False, "move": number, "why": f"move {number}: {illegal.fault.value}: {illegal.detail}"}
        position = Position(board, position.occupied - set(cells))
        positions.append(position)
    record: dict[str, Any] = {"legal": True, "tiles_left": len(position.occupied), "hint": None}
    if position.is_clear:
        return {**record, "status": "cleared", "why": "the board is clear"}
    now = checked_answer(remaining(board, position.occupied), time_limit)
    if now.status is Status.SOLVED:
        hint = move_to_json(board, now.moves[0])
        return {**record, "status": "clearable", "why": "the position can still be cleared", "hint": hint}
    if now.status is not Status.UNSOLVABLE:
        return {**record, "status": "unknown", "why": now.message or "no answer within the time limit"}
    lost, reason = _losing_move(board, positions, now, time_limit)
    record.update(status="lost", lost_at=lost, why=reason, stuck=_stuck_cells(now))
    return record


def _losing_move(board: Board, positions: list[Position], now: Result, time_limit: float) -> tuple[int | None, str]:
    """The first move after which the position could not be cleared, and why (the unsolvable answer's reason)."""
    latest = now
    for index in range(len(positions) - 2, -1, -1):
        before = checked_answer(remaining(board, positions[index].occupied), time_limit)
        if before.status is Status.SOLVED:
            return index + 1, f"after move {index + 1} the position cannot be cleared: {latest.explanation}"
        if before.status is not Status.UNSOLVABLE:
            return None, f"the position cannot be cleared: {now.explanation}"
        latest = before
    return 0, f"the board could not be cleared from the start: {latest.explanation}"
