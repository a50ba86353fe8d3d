"""The board as bit masks, read from docs/formats.md alone: the certificate checks' own reading of the rules.

The stuck-set and dead-states checks work on plain bit masks of the board's
tiles.  They share no code with the search that finds stuck sets and dead
states (nothing here imports ``encoders``, nor :mod:`sigmar.models.facts`,
which every backend and the stuck-set finder read): windows and partners are
derived here from the six neighbours, so a mistake in one reading of the
rules is not repeated in the other (``tests/test_layers.py`` holds this).
"""

from __future__ import annotations

from collections.abc import Sequence

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, ring_neighbours, to_rowcol
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE, name_of


class Masks:
    """The board's tiles as bits, in a given order (bit i is ``order[i]``), and what a certificate needs of them."""

    def __init__(self, board: Board, order: Sequence[Hex] | None = None) -> None:
        self.board = board
        self.order: tuple[Hex, ...] = tuple(order) if order is not None else tuple(t.cell for t in board.tiles)
        bit_of = {cell: 1 << i for i, cell in enumerate(self.order)}
        self.bit_of = bit_of
        self.size = len(self.order)
        self.symbols = [board.symbol_at[cell] for cell in self.order]
        # A window is three consecutive neighbours; cells without a tile are empty for good.
        self.windows: list[tuple[int, ...]] = []
        for cell in self.order:
            ring = [bit_of.get(n, 0) for n in ring_neighbours(cell)]
            self.windows.append(tuple(ring[k] | ring[(k + 1) % 6] | ring[(k + 2) % 6] for k in range(6)))
        self.of_symbol: dict[str, int] = {}
        for i, symbol in enumerate(self.symbols):
            self.of_symbol[symbol] = self.of_symbol.get(symbol, 0) | 1 << i
        metals = sorted((s, i) for i, s in enumerate(self.symbols) if s in METALS)
        self.metal_tiles = [i for _, i in metals]  # ascending digit
        self.gold = self.metal_tiles[-1] if metals else -1
        self.quicksilver = self.of_symbol.get(QUICKSILVER, 0)
        self.lower = [0] * self.size  # per metal: the metals with a lower digit
        below = 0
        for i in self.metal_tiles:
            self.lower[i] = below
            below |= 1 << i
        self.metals = below
        self.partners = [self._partners(s) & ~(1 << i) for i, s in enumerate(self.symbols)]  # never itself

    def _partners(self, symbol: str) -> int:
        """The possible partners of a tile (docs/formats.md#stuck-sets), over the whole board."""
        get = self.of_symbol.get
        elements = 0
        for e in ELEMENTS:
            elements |= get(e, 0)
        if symbol in ELEMENTS:
            return get(symbol, 0) | get(SALT, 0) | get(QUINTESSENCE, 0)
        if symbol == QUINTESSENCE:  # it leaves with one of each element (the variant of docs/formats.md#the-rules)
            return elements
        if symbol == SALT:
            return get(SALT, 0) | elements
        if symbol == VITAE:
            return get(MORS, 0)
        if symbol == MORS:
            return get(VITAE, 0)
        gold_bit = 1 << self.gold if self.gold >= 0 else 0
        if symbol == QUICKSILVER:
            return self.metals & ~gold_bit
        if symbol in METALS and symbol != self.symbols[self.gold]:
            return self.quicksilver
        return 0  # gold

    def where(self, i: int) -> str:
        row, col = to_rowcol(self.order[i], self.board.dim)
        return f"{name_of(self.symbols[i])} at [{row}, {col}]"
