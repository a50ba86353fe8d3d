"""What every solver needs to know about a board, derived once: the suite's glossary.

Every backend, the stuck-set finder, the generator's checks and the
difficulty measure read these facts here instead of deriving them again
(docs/formats.md gives the meaning; the names below are used everywhere):

- **tile id**: a tile's index in ``Board.tiles``; bit ``i`` of a *mask* is tile ``i``
  (helpers in :mod:`sigmar.models.bits`; ``tile_ids`` is also importable from here).
- **window**: one of a tile's six runs of three ring-consecutive neighbours,
  as the tile ids in it (empty and off-board cells are left out: they are
  empty for good).  A tile is free when one of its windows holds no tile.
- **minimal windows**: the windows whose tiles hold no other window's tiles
  (enough to decide freeness); a tile with an empty window is free from the
  start and has just that one, ``()``.
- **partners**: the tiles a tile could ever pair with (the possible
  partners): an element its element, salt and quintessence; quintessence
  the four elements (it leaves with one of each); salt salt and every element;
  vitae and mors each other; quicksilver every metal but gold; a metal but
  gold every quicksilver; gold none.
- **metal chain**: the metals' tile ids in the order they must leave; the
  last is **gold**; ``lower[t]`` is the mask of metals before metal ``t``.
- **horizon**: the moves of any solution: pairs, plus gold alone (rounded up
  when the counts are odd, which only unsolvable boards have).

The rule engine (``rules.py``) and the certificate checker
(``certificate.py``) read the neighbours on their own on purpose: they are
the second reading that the solvers are judged by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from sigmar.models.bits import mask_of_ids, tile_ids, union
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, ring_neighbours
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

Window = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Facts:
    """One board's derived facts; get them with :func:`facts_of` (computed once per board)."""

    board: Board

    @cached_property
    def size(self) -> int:
        return len(self.board.tiles)

    @cached_property
    def symbols(self) -> tuple[str, ...]:
        return tuple(t.symbol for t in self.board.tiles)

    @cached_property
    def neighbours(self) -> tuple[tuple[int | None, ...], ...]:
        """Per tile, its six ring-order neighbours as tile ids (None: no tile there)."""
        return _ring_ids_of(tuple(t.cell for t in self.board.tiles))

    @cached_property
    def windows(self) -> tuple[tuple[Window, ...], ...]:
        """Per tile, its six windows in ring order, each the sorted tile ids in it."""
        out = []
        for ring in self.neighbours:
            runs = []
            for k in range(6):
                run = (ring[k], ring[(k + 1) % 6], ring[(k + 2) % 6])
                runs.append(tuple(sorted(n for n in run if n is not None)))
            out.append(tuple(runs))
        return tuple(out)

    @cached_property
    def window_masks(self) -> tuple[tuple[int, ...], ...]:
        """Per tile, its minimal windows (those holding no other window) as masks, fewest tiles first.

        A tile is free exactly when one of them is empty; a tile free from the start has just ``(0,)``.
        """
        return _window_masks_of(self.neighbours)

    @cached_property
    def minimal_windows(self) -> tuple[tuple[Window, ...], ...]:
        """:attr:`window_masks` as sorted tile ids; ``((),)`` for a tile free from the start."""
        return tuple(tuple(sorted(tuple(tile_ids(m)) for m in masks)) for masks in self.window_masks)

    @cached_property
    def metal_mask(self) -> int:
        return mask_of_ids(self.metal_chain)

    @cached_property
    def quicksilver_mask(self) -> int:
        return self.symbol_masks.get(QUICKSILVER, 0)

    @cached_property
    def neighbour_masks(self) -> tuple[int, ...]:
        return tuple(mask_of_ids(n for n in ring if n is not None) for ring in self.neighbours)

    @cached_property
    def symbol_masks(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i, symbol in enumerate(self.symbols):
            out[symbol] = out.get(symbol, 0) | 1 << i
        return out

    def mask_of(self, symbols: str) -> int:
        """The tiles of any of ``symbols``."""
        return union(self.symbol_masks.get(s, 0) for s in symbols)

    @cached_property
    def metal_chain(self) -> tuple[int, ...]:
        """The metals' tile ids, in the order they must leave (gold last)."""
        return tuple(sorted((i for i, s in enumerate(self.symbols) if s in METALS), key=self.symbols.__getitem__))

    @cached_property
    def gold(self) -> int:
        """Gold's tile id, -1 when the board has no metal."""
        return self.metal_chain[-1] if self.metal_chain else -1

    @cached_property
    def lower(self) -> tuple[int, ...]:
        """Per tile, the mask of metals that must leave before it (0 for a tile that is not a metal)."""
        out = [0] * self.size
        before = 0
        for t in self.metal_chain:
            out[t] = before
            before |= 1 << t
        return tuple(out)

    @cached_property
    def partners(self) -> tuple[int, ...]:
        """Per tile, the mask of the tiles it could ever pair with (never itself)."""
        elements = self.mask_of("".join(sorted(ELEMENTS)))
        salt = self.mask_of(SALT)
        quintessence = self.mask_of(QUINTESSENCE)
        gold_bit = 1 << self.gold if self.gold >= 0 else 0
        non_gold_metals = mask_of_ids(self.metal_chain) & ~gold_bit
        out = []
        for i, s in enumerate(self.symbols):
            if s in ELEMENTS:
                mask = self.mask_of(s) | salt | quintessence
            elif s == QUINTESSENCE:
                mask = elements
            elif s == SALT:
                mask = salt | elements
            elif s == VITAE:
                mask = self.mask_of(MORS)
            elif s == MORS:
                mask = self.mask_of(VITAE)
            elif s == QUICKSILVER:
                mask = non_gold_metals
            elif s in METALS and i != self.gold:
                mask = self.mask_of(QUICKSILVER)
            else:
                mask = 0
            out.append(mask & ~(1 << i))
        return tuple(out)

    def partners_of(self, tile: int) -> list[int]:
        """The tile ids of ``tile``'s partners, ascending."""
        return tile_ids(self.partners[tile])

    @cached_property
    def partner_pairs(self) -> tuple[tuple[int, int], ...]:
        """Every pair ``i < j`` of tiles that could ever leave together as a pair (quintessence never does)."""
        quintessence = self.mask_of(QUINTESSENCE)
        return tuple(
            (i, j)
            for i in range(self.size)
            if not quintessence >> i & 1
            for j in tile_ids(self.partners[i] & ~quintessence)
            if j > i
        )

    @cached_property
    def quintessence(self) -> tuple[int, ...]:
        """The quintessence tiles (the variant of docs/formats.md#the-rules); empty on a standard board."""
        return tuple(tile_ids(self.mask_of(QUINTESSENCE)))

    @cached_property
    def horizon(self) -> int:
        """Moves in any solution: quintessence moves, pairs, and gold alone."""
        gold = 1 if self.gold >= 0 else 0
        fives = len(self.quintessence)
        return fives + (self.size - 5 * fives - gold + 1) // 2 + gold


def ring_ids(cells: Sequence[Hex]) -> tuple[tuple[int | None, ...], ...]:
    """Per cell, its six ring-order neighbours as indices into ``cells`` (None: not one of them).

    The suite's one walk over the six neighbours (the rule engine and the
    certificate checker keep their own, on purpose); the generator calls it on
    a template's cells, which hold no tiles yet.
    """
    index = {cell: i for i, cell in enumerate(cells)}
    return tuple(tuple(index.get(n) for n in ring_neighbours(cell)) for cell in cells)


# The geometry depends on where the tiles are, not on what they are: boards that differ by a swap
# (the thousands of candidates of ``explain``'s repair) share it, so it is made once per layout.
@lru_cache(maxsize=256)
def _ring_ids_of(cells: tuple[Hex, ...]) -> tuple[tuple[int | None, ...], ...]:
    return ring_ids(cells)


@lru_cache(maxsize=256)
def _window_masks_of(rings: tuple[tuple[int | None, ...], ...]) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = []
    for ring in rings:
        bits = [0 if n is None else 1 << n for n in ring]
        masks = {bits[k] | bits[(k + 1) % 6] | bits[(k + 2) % 6] for k in range(6)}
        if 0 in masks:
            out.append((0,))
            continue
        minimal = [m for m in masks if not any(o != m and o & m == o for o in masks)]
        out.append(tuple(sorted(minimal, key=lambda m: (m.bit_count(), m))))
    return tuple(out)


@lru_cache(maxsize=64)
def facts_of(board: Board) -> Facts:
    """The facts of ``board``, computed once (boards are immutable, so they can be shared)."""
    return Facts(board)
