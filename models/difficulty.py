"""How hard a board is: the random-play clear rate.

The interest measure of the physical-solitaire study (seed 003, after Browne
and Maire): a board that a player choosing uniformly random legal moves
clears often is not interesting.  We report the fraction of ``runs`` random
plays that clear the board.

Search nodes, the other measure, come from the ``search`` backend (see
``sigmar.runners.cli.generate``), so this module stays free of backends.
"""

from __future__ import annotations

import random

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.tiles import pairs_with


class Play:
    """A board as bitmask tables: tile ``i`` present when bit ``i`` of the mask is set."""

    def __init__(self, board: Board) -> None:
        facts = facts_of(board)
        self.board = board
        self.symbols = facts.symbols
        self.windows = facts.window_masks
        self.gold = board.gold
        self.full = (1 << facts.size) - 1
        self.metal_ids = facts.metal_chain

    def is_free(self, i: int, mask: int) -> bool:
        return any(not mask & window for window in self.windows[i])

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
