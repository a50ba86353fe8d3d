"""The board: a side length and the tiles on it, immutable."""

from __future__ import annotations

from collections import Counter
from operator import attrgetter

from sigmar.models.cached import cached
from sigmar.models.hexgrid import Hex, on_board, to_rowcol
from sigmar.models.records import Frozen
from sigmar.models.tiles import METALS

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any


class Tile(Frozen):
    __slots__ = ("cell", "symbol")
    __match_args__ = ("cell", "symbol")
    cell: Hex
    symbol: str

    def __init__(self, cell: Hex, symbol: str) -> None:
        object.__setattr__(self, "cell", cell)
        object.__setattr__(self, "symbol", symbol)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.cell == other.cell and self.symbol == other.symbol

    def __hash__(self) -> int:
        return hash((self.cell, self.symbol))


_SYMBOL = attrgetter("symbol")


class Board(Frozen):
    """A starting position.  ``tiles`` are in reading order; a tile's index is its id.

    Encoders and search number tiles by this index, so it must stay stable:
    the order is the board file's reading order (row by row, left to right).
    """

    # No __slots__: what a board derives is kept in its __dict__ (``cached``, the hash, the facts).
    __match_args__ = ("dim", "tiles", "name")
    dim: int
    tiles: tuple[Tile, ...]
    name: str

    def __init__(self, dim: int, tiles: tuple[Tile, ...], name: str = "") -> None:
        own = self.__dict__
        own["dim"] = dim
        own["tiles"] = tiles
        own["name"] = name

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.dim, self.tiles, self.name) == (other.dim, other.tiles, other.name)

    def __hash__(self) -> int:
        # Kept: the caches keyed by board (``facts_of``) hash it at every look-up, and hashing 55 tiles costs
        # more than some of what they cache.
        found: int | None = self.__dict__.get("_hash")
        if found is None:
            found = hash((self.dim, self.tiles, self.name))
            self.__dict__["_hash"] = found
        return found

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        # Without what it derived (the hash: a string's hash differs from process to process; the facts and
        # the cached tables: rebuilt where they are needed): a board sent to a worker is its fields.
        return type(self), (self.dim, self.tiles, self.name)

    @cached
    def index_of(self) -> dict[Hex, int]:
        return {tile.cell: i for i, tile in enumerate(self.tiles)}

    @cached
    def symbol_at(self) -> dict[Hex, str]:
        return {tile.cell: tile.symbol for tile in self.tiles}

    @cached
    def counts(self) -> Counter[str]:
        return Counter(map(_SYMBOL, self.tiles))  # a loop in C: asked of every board of a batch

    @cached
    def metals(self) -> tuple[str, ...]:
        """Metal digits on the board, ascending (the order they must leave in)."""
        counts = self.counts
        return tuple(digit for digit in sorted(METALS.intersection(counts)) for _ in range(counts[digit]))

    @cached
    def gold(self) -> str | None:
        """The highest metal digit: it leaves alone, last among the metals."""
        return self.metals[-1] if self.metals else None

    def rowcol(self, cell: Hex) -> tuple[int, int]:
        return to_rowcol(cell, self.dim)

    def contains(self, cell: Hex) -> bool:
        return on_board(cell, self.dim)

    def __len__(self) -> int:
        return len(self.tiles)
