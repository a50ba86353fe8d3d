"""How hard a board is, sampled: the random-play clear rate and its interval.

The interest measure of the physical-solitaire study (seed 003, after Browne
and Maire): a board that a player choosing uniformly random legal moves
clears often is not interesting.  We report the fraction of ``runs`` random
plays that clear the board, with its 95% Wilson interval.  The exact chance
over the play graph is ``sigmar.runners.design.difficulty``'s; this sample is
what stands in for it past the graph's limits, and what ``generate --stats``
compares it with.

Search nodes, the other measure, come from the ``search`` backend (see
``sigmar.runners.cli.generate``), so this module stays free of backends.
"""

from __future__ import annotations

import math
import random
from itertools import product

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.tiles import ELEMENTS, QUINTESSENCE, pairs_with

# The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


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
        self.quintessence = bool(facts.quintessence)

    def is_free(self, i: int, mask: int) -> bool:
        return any(not mask & window for window in self.windows[i])

    def current_metal(self, mask: int) -> str | None:
        for i in self.metal_ids:
            if (mask >> i) & 1:
                return self.symbols[i]
        return None

    def legal_moves(self, mask: int) -> list[tuple[int, ...]]:
        """Every legal move (tile ids) in the position ``mask``, as the rule engine lists them."""
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
        if self.quintessence:  # the variant: quintessence with one free tile of each element
            groups = [[i for i in free if symbols[i] == s] for s in (QUINTESSENCE, *sorted(ELEMENTS))]
            moves.extend(product(*groups))
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


def wilson(wins: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``wins`` in ``runs`` (95% by default): good near 0 and 1 too."""
    if runs <= 0:
        return 0.0, 1.0
    rate = wins / runs
    centre = (rate + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    low = 0.0 if wins == 0 else max(0.0, centre - half)  # exact at the ends, where rounding would miss them
    high = 1.0 if wins == runs else min(1.0, centre + half)
    return low, high
