"""A MiniZinc solution turned back into moves (tile ids in the models count from 1, here from 0)."""

from __future__ import annotations

from typing import Any

from sigmar.encoders.minizinc.data import candidate_pairs
from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.result import Move


def decode(board: Board, variant: str, solution: Any) -> tuple[Move, ...]:
    """The moves of a solution of the ``variant`` model (``order`` or ``steps``)."""
    takes = _takes(board, solution)
    if variant == "steps":
        pairs = candidate_pairs(board)
        out = []
        for p in solution.move:
            a, b = pairs[int(p) - 1]
            out.append(_move(board, a, b, takes))
        return tuple(out)
    leave = [int(x) - 1 for x in solution.leave]
    mate = [int(x) - 1 for x in solution.mate]
    return moves_from_rounds(board, leave, mate, takes)


def moves_from_rounds(
    board: Board, leave: list[int], mate: list[int], takes: dict[int, list[int]] | None = None
) -> tuple[Move, ...]:
    """A sequential move list from rounds and mates (ids from 0); ``takes``: quintessence -> its four elements.

    Within a round any order is legal: every tile of the round was free before
    it, and the model keeps at most one metal per round.
    """
    takes = takes or {}
    taken = {t for four in takes.values() for t in four}
    moves = []
    for i in sorted(range(len(board.tiles)), key=lambda t: (leave[t], t)):
        j = mate[i]
        if j < i or i in taken:
            continue
        moves.append(_move(board, i, j, takes))
    return tuple(moves)


def _move(board: Board, a: int, b: int, takes: dict[int, list[int]]) -> Move:
    """The move of tile ``a`` with ``b``: gold alone when ``b == a``, a quintessence with the four it takes."""
    tiles = (a, *takes[a]) if a in takes else (a,) if a == b else (a, b)
    return Move(tuple(board.tiles[t].cell for t in tiles))


def _takes(board: Board, solution: Any) -> dict[int, list[int]]:
    """{quintessence: the four element tiles it takes} from the models' ``takes`` (ids from 0)."""
    fives = facts_of(board).quintessence
    if not fives:
        return {}
    rows = solution.takes
    return {x: [int(t) - 1 for t in rows[q]] for q, x in enumerate(fives)}
