"""How hard a board is: the random-play clear rate.

The interest measure of the physical-solitaire study (seed 003, after Browne
and Maire): a board that a player choosing uniformly random legal moves
clears often is not interesting.  We report the fraction of ``runs`` random
plays that clear the board.

Search nodes, the other measure, come from the ``search`` backend (see
``sigmar.runners.cmd_generate``), so this module stays free of backends.
"""

from __future__ import annotations

import random

from .board import Board
from .tiles import METALS, pairs_with


class Play:
    """A board as bitmask tables: tile ``i`` present when bit ``i`` of the mask is set."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.symbols = tuple(t.symbol for t in board.tiles)
        self.ring = tuple(tuple(-1 if n is None else n for n in ns) for ns in board.neighbour_tiles)
        self.gold = board.gold
        self.full = (1 << len(self.symbols)) - 1
        metal_ids = sorted((s, i) for i, s in enumerate(self.symbols) if s in METALS)
        self.metal_ids = tuple(i for _, i in metal_ids)

    def is_free(self, i: int, mask: int) -> bool:
        ring = self.ring[i]
        run = 0
        for k in range(8):
            n = ring[k % 6]
            if n < 0 or not (mask >> n) & 1:
                run += 1
                if run == 3:
                    return True
            else:
                run = 0
        return False

    def current_metal(self, mask: int) -> str | None:
        for i in self.metal_ids:
            if (mask >> i) & 1:
                return self.symbols[i]
        return None

    def legal_moves(self, mask: int) -> list[tuple[int, ...]]:
        """Every legal move (tile ids) in the position ``mask``."""
        symbols = self.symbols
        free = [i for i in range(len(symbols)) if (mask >> i) & 1 and self.is_free(i, mask)]
        current = self.current_metal(mask)
        gold = self.gold
        moves: list[tuple[int, ...]] = []
        for x, i in enumerate(free):
            si = symbols[i]
            if si == gold and current == gold:
                moves.append((i,))
            for j in free[x + 1 :]:
                if pairs_with(si, symbols[j], current, gold):
                    moves.append((i, j))
        return moves


def random_play_clears(play: Play, rng: random.Random) -> bool:
    """One game of uniformly random legal moves; True when it clears the board."""
    mask = play.full
    while mask:
        moves = play.legal_moves(mask)
        if not moves:
            return False
        for i in rng.choice(moves):
            mask &= ~(1 << i)
    return True


def clear_rate(board: Board, runs: int, rng: random.Random) -> float:
    """The fraction of ``runs`` random plays that clear ``board`` (0.0 for no runs)."""
    if runs <= 0:
        return 0.0
    play = Play(board)
    return sum(random_play_clears(play, rng) for _ in range(runs)) / runs
