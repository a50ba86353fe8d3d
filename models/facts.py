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

import sys
from collections.abc import Callable, Sequence
from functools import lru_cache

from sigmar.models.bits import mask_of_ids, tile_ids, union
from sigmar.models.board import Board
from sigmar.models.cached import cached
from sigmar.models.hexgrid import Hex, ring_neighbours, side
from sigmar.models.records import Frozen
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

Window = tuple[int, ...]


class Facts(Frozen):
    """One board's derived facts; get them with :func:`facts_of` (computed once per board)."""

    # No __slots__: the facts are kept in its __dict__ (``cached``).
    __match_args__ = ("board",)
    board: Board

    def __init__(self, board: Board) -> None:
        self.__dict__["board"] = board

    __eq__ = object.__eq__  # compared by identity
    __hash__ = object.__hash__

    @cached
    def size(self) -> int:
        return len(self.board.tiles)

    @cached
    def symbols(self) -> tuple[str, ...]:
        return tuple(t.symbol for t in self.board.tiles)

    @cached
    def layout(self) -> Layout:
        """Where the tiles are, read through their side's geometry (shared by every board of that layout)."""
        return layout_of(self.board.dim, tuple(t.cell for t in self.board.tiles))

    @property
    def neighbours(self) -> tuple[tuple[int | None, ...], ...]:
        """Per tile, its six ring-order neighbours as tile ids (None: no tile there)."""
        return self.layout.neighbours

    @cached
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

    @cached
    def window_masks(self) -> tuple[tuple[int, ...], ...]:
        """Per tile, its minimal windows (those holding no other window) as masks, fewest tiles first
        (among windows of as many tiles, in ring order).

        A tile is free exactly when one of them is empty; a tile free from the start has just ``(0,)``.
        """
        return self.layout.window_masks

    @cached
    def minimal_windows(self) -> tuple[tuple[Window, ...], ...]:
        """:attr:`window_masks` as sorted tile ids; ``((),)`` for a tile free from the start."""
        return tuple(tuple(sorted(tuple(tile_ids(m)) for m in masks)) for masks in self.window_masks)

    @cached
    def metal_mask(self) -> int:
        return mask_of_ids(self.metal_chain)

    @cached
    def quicksilver_mask(self) -> int:
        return self.symbol_masks.get(QUICKSILVER, 0)

    @cached
    def neighbour_masks(self) -> tuple[int, ...]:
        """Per tile, the mask of the tiles next to it."""
        return self.layout.neighbour_masks

    @cached
    def symbol_masks(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i, symbol in enumerate(self.symbols):
            out[symbol] = out.get(symbol, 0) | 1 << i
        return out

    def mask_of(self, symbols: str) -> int:
        """The tiles of any of ``symbols``."""
        get = self.symbol_masks.get
        out = 0
        for s in symbols:
            out |= get(s, 0)
        return out

    @cached
    def metal_chain(self) -> tuple[int, ...]:
        """The metals' tile ids, in the order they must leave (gold last)."""
        return tuple(sorted((i for i, s in enumerate(self.symbols) if s in METALS), key=self.symbols.__getitem__))

    @cached
    def gold(self) -> int:
        """Gold's tile id, -1 when the board has no metal."""
        return self.metal_chain[-1] if self.metal_chain else -1

    @cached
    def lower(self) -> tuple[int, ...]:
        """Per tile, the mask of metals that must leave before it (0 for a tile that is not a metal)."""
        out = [0] * self.size
        before = 0
        for t in self.metal_chain:
            out[t] = before
            before |= 1 << t
        return tuple(out)

    @cached
    def partners(self) -> tuple[int, ...]:
        """Per tile, the mask of the tiles it could ever pair with (never itself)."""
        of_symbol = symbol_partners(self.symbol_masks, 1 << self.gold if self.gold >= 0 else 0)
        return tuple(0 if i == self.gold else of_symbol[s] & ~(1 << i) for i, s in enumerate(self.symbols))

    def partners_of(self, tile: int) -> list[int]:
        """The tile ids of ``tile``'s partners, ascending."""
        return tile_ids(self.partners[tile])

    @cached
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

    @cached
    def quintessence(self) -> tuple[int, ...]:
        """The quintessence tiles (the variant of docs/formats.md#the-rules); empty on a standard board."""
        return tuple(tile_ids(self.mask_of(QUINTESSENCE)))

    @cached
    def horizon(self) -> int:
        """Moves in any solution: quintessence moves, pairs, and gold alone."""
        gold = 1 if self.gold >= 0 else 0
        fives = len(self.quintessence)
        return fives + (self.size - 5 * fives - gold + 1) // 2 + gold


def symbol_partners(symbol_masks: dict[str, int], gold_bit: int) -> dict[str, int]:
    """Per symbol, the mask of the tiles a tile of it could ever pair with (:attr:`Facts.partners`), in any
    numbering of the tiles: ``symbol_masks`` and ``gold_bit`` say where they are.  Gold, which pairs with
    nothing, and the tile itself are the caller's to leave out (gold's digit is listed as a metal)."""
    get = symbol_masks.get
    elements = 0
    for e in ELEMENTS:
        elements |= get(e, 0)
    salt, quintessence, quicksilver = get(SALT, 0), get(QUINTESSENCE, 0), get(QUICKSILVER, 0)
    non_gold_metals = 0
    for s, mask in symbol_masks.items():
        if s in METALS:
            non_gold_metals |= mask
    non_gold_metals &= ~gold_bit
    out: dict[str, int] = {}
    for s, mask in symbol_masks.items():
        if s in ELEMENTS:
            out[s] = mask | salt | quintessence
        elif s == QUINTESSENCE:
            out[s] = elements
        elif s == SALT:
            out[s] = salt | elements
        elif s == VITAE:
            out[s] = get(MORS, 0)
        elif s == MORS:
            out[s] = get(VITAE, 0)
        elif s == QUICKSILVER:
            out[s] = non_gold_metals
        elif s in METALS:
            out[s] = quicksilver
        else:
            out[s] = 0
    return out


def ring_ids(cells: Sequence[Hex]) -> tuple[tuple[int | None, ...], ...]:
    """Per cell, its six ring-order neighbours as indices into ``cells`` (None: not one of them).

    The suite's one walk over the six neighbours (the rule engine and the
    certificate checker keep their own, on purpose); the generator calls it on
    a template's cells, which hold no tiles yet.
    """
    index = {cell: i for i, cell in enumerate(cells)}
    return tuple(tuple(index.get(n) for n in ring_neighbours(cell)) for cell in cells)


class Layout(Frozen):
    """The geometry of one layout of tiles (where they are, not what they are), per tile id.

    Boards that differ by a swap (the thousands of candidates of ``explain``'s repair) share it, so
    it is made once per layout, from the tables of its side (:func:`hexgrid.side`), made once per side.
    """

    # No __slots__: ``neighbours`` is kept in its __dict__ (``cached``).
    __match_args__ = ("cells", "cell_ids", "neighbour_masks", "window_masks", "_dim")
    cells: tuple[Hex, ...]
    cell_ids: tuple[int, ...]  # per tile, its cell's index in its side's tables; () when off that side
    neighbour_masks: tuple[int, ...]
    window_masks: tuple[tuple[int, ...], ...]
    _dim: int

    def __init__(
        self,
        cells: tuple[Hex, ...],
        cell_ids: tuple[int, ...],
        neighbour_masks: tuple[int, ...],
        window_masks: tuple[tuple[int, ...], ...],
        _dim: int,
    ) -> None:
        own = self.__dict__
        own["cells"] = cells
        own["cell_ids"] = cell_ids
        own["neighbour_masks"] = neighbour_masks
        own["window_masks"] = window_masks
        own["_dim"] = _dim

    __eq__ = object.__eq__  # compared by identity
    __hash__ = object.__hash__

    @cached
    def neighbours(self) -> tuple[tuple[int | None, ...], ...]:
        if not self.cell_ids:
            return ring_ids(self.cells)
        tile_at: list[int | None] = [None] * (side(self._dim).count + 1)  # the last: off the board
        for t, c in enumerate(self.cell_ids):
            tile_at[c] = t
        ring = side(self._dim).ring
        return tuple(tuple(tile_at[c] for c in ring[i]) for i in self.cell_ids)


@lru_cache(maxsize=256)
def layout_of(dim: int, cells: tuple[Hex, ...]) -> Layout:
    """The layout of tiles on ``cells`` of a board of side ``dim``."""
    geometry = side(dim)
    index = geometry.index
    if not all(cell in index for cell in cells):  # not on a board of that side: the plain walk
        return _walked(dim, cells)
    ids = tuple(index[cell] for cell in cells)
    bit_at = [0] * (geometry.count + 1)  # per cell, its tile's bit; the last: off the board
    for t, c in enumerate(ids):
        bit_at[c] = 1 << t
    ring = geometry.ring
    table = _minimal_windows()
    neighbour_masks = []
    window_masks: list[tuple[int, ...]] = []
    free = (0,)
    for i in ids:
        c0, c1, c2, c3, c4, c5 = ring[i]
        b0, b1, b2, b3, b4, b5 = bit_at[c0], bit_at[c1], bit_at[c2], bit_at[c3], bit_at[c4], bit_at[c5]
        neighbour_masks.append(b0 | b1 | b2 | b3 | b4 | b5)
        starts = table[(b0 and 1) | (b1 and 2) | (b2 and 4) | (b3 and 8) | (b4 and 16) | (b5 and 32)]
        if not starts:  # a window with no tile: free from the start
            window_masks.append(free)
        elif len(starts) == 1:
            k = starts[0]
            bits = (b0, b1, b2, b3, b4, b5, b0, b1)
            window_masks.append((bits[k] | bits[k + 1] | bits[k + 2],))
        else:
            bits = (b0, b1, b2, b3, b4, b5, b0, b1)
            window_masks.append(tuple([bits[k] | bits[k + 1] | bits[k + 2] for k in starts]))
    return Layout(cells, ids, tuple(neighbour_masks), tuple(window_masks), dim)


def _walked(dim: int, cells: tuple[Hex, ...]) -> Layout:
    """The layout of cells that are not all on a board of side ``dim``, by walking their rings."""
    table = _minimal_windows()
    neighbour_masks = []
    window_masks: list[tuple[int, ...]] = []
    for around in ring_ids(cells):
        bits = [0 if n is None else 1 << n for n in around]
        neighbour_masks.append(union(bits))
        starts = table[sum(1 << k for k in range(6) if bits[k])]
        window_masks.append(tuple(bits[k] | bits[(k + 1) % 6] | bits[(k + 2) % 6] for k in starts) or (0,))
    return Layout(cells, (), tuple(neighbour_masks), tuple(window_masks), dim)


def cell_windows(dim: int) -> list[dict[int, tuple[int, ...]]]:
    """For the boards of side ``dim`` numbered by cell (bit ``c``: the cell of index ``c``, ``hexgrid.side``),
    per cell and per mask of its neighbours that hold a tile, its minimal windows as cell masks (``(0,)``:
    free from the start): :attr:`Facts.window_masks` with no board to derive them from.  Filled as boards
    ask (:func:`cell_windows_of`), once per side, cell and neighbourhood: at most 64 of each cell."""
    found = _CELL_WINDOWS.get(dim)
    if found is None:
        found = _CELL_WINDOWS[dim] = [{} for _ in range(side(dim).count)]
    return found


def cell_windows_of(dim: int, c: int, held: int) -> tuple[int, ...]:
    """The entry of :func:`cell_windows` for cell ``c`` whose neighbours ``held`` (a mask of cells) hold a tile."""
    row = cell_windows(dim)[c]
    found = row.get(held)
    if found is None:
        geometry = side(dim)
        n0, n1, n2, n3, n4, n5 = geometry.ring[c]  # off the board: one past the last cell, never held
        pattern = (
            (held >> n0 & 1)
            | (held >> n1 & 1) << 1
            | (held >> n2 & 1) << 2
            | (held >> n3 & 1) << 3
            | (held >> n4 & 1) << 4
            | (held >> n5 & 1) << 5
        )
        runs = geometry.runs[c]
        found = row[held] = tuple([runs[k] for k in MINIMAL_WINDOWS[pattern]]) or (0,)
    return found


_CELL_WINDOWS: dict[int, list[dict[int, tuple[int, ...]]]] = {}


def pattern_windows(
    dim: int,
) -> tuple[bytes, list[list[tuple[int, ...] | None]], Callable[[int, int], tuple[int, ...]]]:
    """The search's compiled set-up's view of :func:`cell_windows` (``encoders/search/_cellmasks.c``): the side's
    ring as native int32s (off the board: -1), per cell and pattern of ring neighbours holding a tile (bit
    ``k``: neighbour ``k``) its minimal windows (None until asked), and the function that makes an entry (the
    same windows as :func:`cell_windows_of`, keyed by the pattern the neighbours held make)."""
    found = _PATTERN_WINDOWS.get(dim)
    if found is None:
        geometry = side(dim)
        count = geometry.count
        ids = [-1 if n == count else n for around in geometry.ring for n in around]
        ring = b"".join([n.to_bytes(4, sys.byteorder, signed=True) for n in ids])
        table: list[list[tuple[int, ...] | None]] = [[None] * 64 for _ in range(count)]
        runs = geometry.runs

        def fill(c: int, pattern: int) -> tuple[int, ...]:
            made = table[c][pattern] = tuple([runs[c][k] for k in MINIMAL_WINDOWS[pattern]]) or (0,)
            return made

        found = _PATTERN_WINDOWS[dim] = (ring, table, fill)
    return found


_PATTERN_WINDOWS: dict[
    int, tuple[bytes, list[list[tuple[int, ...] | None]], Callable[[int, int], tuple[int, ...]]]
] = {}


def _minimal_windows() -> tuple[tuple[int, ...], ...]:
    """Per pattern of ring positions holding a tile (bit ``k``: neighbour ``k``), the minimal windows, by
    their first position: one per set of tiles, holding no other window's tiles, fewest tiles first;
    none when some window holds no tile (the tile is free from the start).  :data:`MINIMAL_WINDOWS`, which
    :func:`minimal_windows_made` makes (tests/test_hexgrid.py holds them equal)."""
    return MINIMAL_WINDOWS


# Written out: making it costs some 7 M instructions, 5% of a one-board solve's whole process (issue 48).
# fmt: off
MINIMAL_WINDOWS: tuple[tuple[int, ...], ...] = (
    (), (), (), (), (), (), (), (), (), (0, 1), (), (2, 4), (), (3, 4), (), (3, 4),
    (), (), (0, 2), (1, 2), (), (1, 3, 5), (3, 5), (3, 1, 5), (), (0, 1), (0, 4), (0, 1, 2, 4), (), (5, 1, 3), (4, 5),
    (3, 4, 5, 1), (), (), (), (), (0, 3), (1, 3), (2, 3), (2, 3), (), (0, 1), (0, 2, 4), (2, 0, 4), (0, 4),
    (0, 1, 3, 4), (4, 0, 2), (2, 3, 4, 0), (), (), (0, 2), (1, 2), (0, 5), (1, 3, 5), (0, 2, 3, 5), (1, 2, 3, 5), (),
    (0, 1), (0, 2, 4), (0, 1, 2, 4), (0, 5), (0, 1, 5, 3), (0, 4, 5, 2), (0, 1, 2, 3, 4, 5),
)
# fmt: on


def minimal_windows_made() -> tuple[tuple[int, ...], ...]:
    """:data:`MINIMAL_WINDOWS` made from its definition."""
    out: list[tuple[int, ...]] = []
    for pattern in range(64):
        held = {k: frozenset(j % 6 for j in range(k, k + 3) if pattern >> (j % 6) & 1) for k in range(6)}
        if not all(held.values()):
            out.append(())
            continue
        first: dict[frozenset[int], int] = {}
        for k, tiles in held.items():
            first.setdefault(tiles, k)
        minimal = [(len(tiles), k) for tiles, k in first.items() if not any(other < tiles for other in first)]
        out.append(tuple(k for _, k in sorted(minimal)))
    return tuple(out)


def facts_of(board: Board) -> Facts:
    """The facts of ``board``, computed once (boards are immutable, so they can be shared): kept on the board
    itself, where finding them costs nothing (a cache keyed by board would hash its tiles at every look-up)."""
    found: Facts | None = board.__dict__.get("_facts")
    if found is None:
        found = board.__dict__["_facts"] = Facts(board)
    return found
