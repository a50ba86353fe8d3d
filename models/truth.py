"""The fuzzer's ground truth: is a small board solvable?  Settled by exhaustive search over the rule engine.

Written over :mod:`sigmar.models.rules` alone (``Position.legal_moves``), not
over any backend's code, so that a mistake in a backend cannot hide in the
judge.  States (the cells still occupied) are memoised: a fuzz board has at
most a few dozen tiles, and the reachable states of such a board are few.
"""

from __future__ import annotations

from dataclasses import dataclass

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.result import Move
from sigmar.models.rules import Position, count_problem


@dataclass(frozen=True)
class Truth:
    """What the exhaustive search found: a solution, or none at all (``states``: how many it visited)."""

    solvable: bool
    solution: tuple[Move, ...] = ()
    states: int = 0


def settle(board: Board) -> Truth:
    """The board's truth.  A board whose counts cannot pair up is unsolvable without a search."""
    if count_problem(board) is not None:
        return Truth(False)
    dead: set[frozenset[Hex]] = set()
    path: list[Move] = []

    def clears(occupied: frozenset[Hex]) -> bool:
        if not occupied:
            return True
        if occupied in dead:
            return False
        for move in Position(board, occupied).legal_moves():
            path.append(move)
            if clears(occupied - set(move.cells)):
                return True
            path.pop()
        dead.add(occupied)
        return False

    solvable = clears(Position.start(board).occupied)
    return Truth(solvable, tuple(path) if solvable else (), len(dead) + len(path))
