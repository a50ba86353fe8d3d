"""A reference brute force over the rule engine, for tests only: slow, obviously right."""

from __future__ import annotations

import json
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


def dead_states_text(board: Board) -> str | None:
    """A dead-states certificate listing every reachable state, or None if the board is solvable.

    The format: docs/formats.md#dead-states-files.

    Written from docs/formats.md alone over the rule engine, so that test backends can
    bring a real certificate without sharing the search backend's code.
    """
    start = Position.start(board)
    bit = {tile.cell: 1 << i for i, tile in enumerate(board.tiles)}
    seen: dict[frozenset, None] = {}
    stack = [start.occupied]
    while stack:
        occupied = stack.pop()
        if occupied in seen:
            continue
        if not occupied:
            return None
        seen[occupied] = None
        stack.extend(occupied - set(m.cells) for m in Position(board, occupied).legal_moves())
    tiles = [list(board.rowcol(tile.cell)) for tile in board.tiles]
    header = {"format": "sigmar-dead-states", "version": 1, "board": board.name, "tiles": tiles}
    lines = [json.dumps(header)]
    lines += [json.dumps({"state": format(sum(bit[c] for c in state), "x")}) for state in seen]
    return "\n".join(lines) + "\n"


def is_solvable(board: Board) -> bool:
    return solve_by_brute_force(board) is not None
