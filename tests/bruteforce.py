"""A reference brute force over the rule engine, for tests only: slow, obviously right."""

from __future__ import annotations

from functools import cache

from sigmar.models.board import Board
from sigmar.models.result import Move
from sigmar.models.rules import Position


def solve_by_brute_force(board: Board) -> list[Move] | None:
    """A move sequence that clears ``board``, or None when none exists (exhaustive)."""

    @cache
    def search(occupied: frozenset) -> tuple[Move, ...] | None:
        position = Position(board, occupied)
        if position.is_clear:
            return ()
        for move in position.legal_moves():
            rest = search(occupied - set(move.cells))
            if rest is not None:
                return (move, *rest)
        return None

    found = search(Position.start(board).occupied)
    return list(found) if found is not None else None


def count_move_sequences(board: Board) -> int:
    """How many distinct move sequences clear ``board`` (for model-counting tests)."""

    @cache
    def count(occupied: frozenset) -> int:
        position = Position(board, occupied)
        if position.is_clear:
            return 1
        return sum(count(occupied - set(m.cells)) for m in position.legal_moves())

    return count(Position.start(board).occupied)


def is_solvable(board: Board) -> bool:
    return solve_by_brute_force(board) is not None
