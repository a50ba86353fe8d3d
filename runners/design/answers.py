"""What the workbench's worker processes compute: a board's verdict, its explanation, and a game in play.

Each function takes a parsed board (the server parses and limits what is posted) and returns
plain JSON.  The rules are the suite's: a solution is replayed by the rule engine before it is
shown, and every "no" carries a certificate the independent checker accepted (the counts, the
search's stuck set or dead states, a DRUP proof), else it is shown as "unknown".
"""

from __future__ import annotations

from typing import Any

from sigmar.encoders.search.playgraph import MAX_STATES, _playgraph
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.result import CertificateKind, Move, Result, Status
from sigmar.models.rules import Position
from sigmar.models.solution import move_to_json
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.replay import counts_answer
from sigmar.runners.design.difficulty import difficulty, difficulty_json, difficulty_lines
from sigmar.runners.design.explain import VERDICT_BACKENDS, explain, explanation_json
from sigmar.runners.design.hint import hint, hint_json
from sigmar.runners.race import Race
from sigmar.runners.render.answer_json import result_json

# A worker of the workbench may use 1 GB (jobs.Pool): its play graph stops at five million positions (at most
# some 700 MB in the compiled core, playgraph.BYTES_PER_STATE_COMPILED) and samples past them, rather than being
# stopped for its memory (the walk's own cap is twenty million).
WORKBENCH_STATES = 5_000_000

# The verdict's race, made once per worker process (its own backend processes die with it).
_race: Race | None = None


def raced_answer(board: Board, time_limit: float) -> Result:
    """The answer ``explain`` gives: the counts, else the search and cnf race of ``prove`` (every "no" certified).

    The search settles most boards in milliseconds in this process; a board it does not settle at
    once (one it must exhaust) is raced against a DRUP proof of its CNF, in worker processes that
    live as long as this one.  Certificates go to a temporary folder (the run's, removed when the
    server stops).
    """
    global _race
    counted = counts_answer(board)
    if counted is not None:
        return counted
    if _race is None:
        _race = Race(list(VERDICT_BACKENDS), proofs=ProofStore())
    return _race.solve(board, time_limit).result


def _stuck_cells(result: Result) -> list[list[int]]:
    certificate = result.certificate
    if result.checked and certificate is not None and certificate.kind is CertificateKind.STUCK:
        return [list(cell) for cell in certificate.cells]
    return []


def verdict(board: Board, time_limit: float) -> dict[str, Any]:
    """The board's answer (docs/formats.md#the-json-of-an-answer), with ``stuck``: the stuck set's cells to outline."""
    result = raced_answer(board, time_limit)
    record = result_json(board, result)
    record["stuck"] = _stuck_cells(result)
    record.pop("statistics", None)
    return record


def explanation(board: Board, time_limit: float) -> dict[str, Any]:
    """The answer with ``deepest`` and ``repair`` (docs/formats.md#the-json-of-explain)."""
    with ProofStore() as store:
        found = explain(board, raced_answer(board, time_limit), time_limit, store)
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
    now = raced_answer(remaining(board, position.occupied), time_limit)
    if now.status is Status.SOLVED:
        hint = move_to_json(board, now.moves[0])
        record.update(status="clearable", why="the position can still be cleared", hint=hint)
        return {**record, "solution_moves": len(now.moves)}
    if now.status is not Status.UNSOLVABLE:
        return {**record, "status": "unknown", "why": now.message or "no answer within the time limit"}
    lost, reason = _losing_move(board, positions, now, time_limit)
    record.update(status="lost", lost_at=lost, why=reason, stuck=_stuck_cells(now))
    return record


def _losing_move(board: Board, positions: list[Position], now: Result, time_limit: float) -> tuple[int | None, str]:
    """The first move after which the position could not be cleared, and why (the unsolvable answer's reason)."""
    latest = now
    for index in range(len(positions) - 2, -1, -1):
        before = raced_answer(remaining(board, positions[index].occupied), time_limit)
        if before.status is Status.SOLVED:
            return index + 1, f"after move {index + 1} the position cannot be cleared: {latest.explanation}"
        if before.status is not Status.UNSOLVABLE:
            return None, f"the position cannot be cleared: {now.explanation}"
        latest = before
    return 0, f"the board could not be cleared from the start: {latest.explanation}"


def proved_hint(board: Board, moves: list[tuple[Hex, ...]], time_limit: float) -> dict[str, Any]:
    """Every legal move of the position marked safe (a solution after it, replayed), losing (a checked
    certificate) or unknown: ``sigmar hint``'s JSON (docs/formats.md#the-json-of-hint)."""
    return hint_json(hint(board, [Move(cells) for cells in moves], time_limit))


def figures(board: Board, time_limit: float) -> dict[str, Any]:
    """How hard the board is (docs/explain.md#difficulty): ``explain --difficulty``'s JSON, with its lines in words."""
    found = difficulty(board, time_limit, max_states=MAX_STATES if _playgraph is None else WORKBENCH_STATES)
    return {**difficulty_json(found), "lines": [line.strip() for line in difficulty_lines(found)]}


def warm() -> None:
    """Import what the race needs (the cnf backend and its SAT solver) before workers are forked from this process."""
    from sigmar.encoders.registry import make

    for name in VERDICT_BACKENDS:
        make(name)
