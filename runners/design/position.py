"""A game in play as the page draws it: which tiles are free, which moves are legal, how far the game has come.

The rule engine's own answer (:class:`sigmar.models.rules.Position`), so the page never guesses
the rules: it dims the tiles this says are blocked, marks the free ones, and, once a tile is
picked, the tiles that would pair with it.  Cheap enough (a few milliseconds on a full side-6
board) to compute in the server process on every move, so the marks follow a click at once while
a worker judges whether the position can still be cleared (:func:`.answers.play`).
"""

from __future__ import annotations

from typing import Any

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.result import Move
from sigmar.models.rules import Position

# Past this many free tiles the legal moves are not listed (a side-16 board can hold hundreds of
# free tiles and tens of thousands of pairs): the page then sends each pair to be judged.
MAX_LISTED_FREE = 120
MAX_LISTED_MOVES = 4000


def position_json(board: Board, moves: list[tuple[Hex, ...]]) -> dict[str, Any]:
    """The position after ``moves`` (each judged by the rule engine), as JSON for the page.

    ``legal`` false with ``move`` (its number) and ``why`` when a move breaks a rule; else
    ``tiles``, ``left``, ``moves`` (how many made), ``free`` (the free tiles' cells), ``metal``
    (the metal next to leave), ``legal_moves`` (every legal move's cells, or None when there are
    too many to list), ``count`` (how many legal moves) and ``status``: ``cleared``, ``stuck``
    (tiles left and no legal move: lost for sure) or ``playing``.
    """
    now = Position.start(board)
    for number, cells in enumerate(moves, start=1):
        illegal = now.why_illegal(Move(cells))
        if illegal is not None:
            return {"legal": False, "move": number, "why": f"move {number}: {illegal.fault.value}: {illegal.detail}"}
        now = Position(board, now.occupied - set(cells))
    free = now.free_cells()
    listed: list[list[list[int]]] | None = None
    count: int | None = None
    if len(free) <= MAX_LISTED_FREE:
        legal = now.legal_moves()
        count = len(legal)
        if count <= MAX_LISTED_MOVES:
            listed = [[list(board.rowcol(cell)) for cell in move.cells] for move in legal]
    status = "cleared" if now.is_clear else "stuck" if count == 0 else "playing"
    return {
        "legal": True,
        "tiles": len(board.tiles),
        "left": len(now.occupied),
        "moves": len(moves),
        "free": [list(board.rowcol(cell)) for cell in free],
        "metal": now.current_metal,
        "legal_moves": listed,
        "count": count,
        "status": status,
    }
