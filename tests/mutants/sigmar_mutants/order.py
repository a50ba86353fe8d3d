"""Mutant (b): a complete search that ignores the metal order.

Quicksilver pairs with any metal but gold, and gold leaves alone whenever it
is free: its solutions may take the metals out of turn, and it calls a board
solved that only the order makes unsolvable.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from sigmar import Backend, Board, Move, Reason, Result, Status
from sigmar.models.hexgrid import Hex
from sigmar.models.rules import Position
from sigmar.models.tiles import METALS, QUICKSILVER, pairs_with


def order_blind_moves(position: Position) -> list[Move]:
    board, gold = position.board, position.board.gold
    free = position.free_cells()
    moves = [Move((c,)) for c in free if board.symbol_at[c] == gold]
    for a, b in combinations(free, 2):
        x, y = board.symbol_at[a], board.symbol_at[b]
        metal = x if x in METALS else y if y in METALS else None
        if metal is not None and QUICKSILVER in (x, y) and metal != gold or pairs_with(x, y, None, gold):
            moves.append(Move((a, b)))
    return moves


class OrderBlind(Backend):
    family = "mutant-order"
    description = "wrong on purpose: metals leave in any order"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        @cache
        def search(occupied: frozenset[Hex]) -> tuple[Move, ...] | None:
            if not occupied:
                return ()
            for move in order_blind_moves(Position(board, occupied)):
                rest = search(occupied - set(move.cells))
                if rest is not None:
                    return (move, *rest)
            return None

        found = search(Position.start(board).occupied)
        if found is None:
            return Result(Status.UNSOLVABLE, self.name, reason=Reason.EXHAUSTED, explanation="searched every order")
        return Result(Status.SOLVED, self.name, moves=found)
