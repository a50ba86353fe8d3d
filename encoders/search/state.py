"""The search engine's state: one board's masks and counters (see ``engine`` for the glossary)."""

from __future__ import annotations

from _random import Random  # random's generator, without the module around it (2.5 M instructions a solve)
from collections.abc import Sequence

from sigmar.models.bits import mask_of_ids, tile_ids
from sigmar.models.board import Board
from sigmar.models.cached import SecondUse, cached
from sigmar.models.facts import cell_windows, cell_windows_of, facts_of, pattern_windows, symbol_partners
from sigmar.models.hexgrid import Hex, distance, side
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

ELEMENT_ORDER = sorted(ELEMENTS)
ORDERS = ("none", "centre", "metal", "neighbours", "freed", "mixed", "random", "restarts")
# The orders a restart cycles through (``restarts``), each with a fresh random tie-break.
RESTART_ORDERS = ("random",)
# The weight of one neighbour in the restarts' random move order (the random part is 0..2^16).
NEIGHBOUR_BIAS = 1 << 14


def draw16(rng: Random) -> int:
    """``random.Random(seed).randrange(1 << 16)``'s draw from the same generator: the same numbers for a seed
    (tests/test_search.py holds them equal), without importing random."""
    r = rng.getrandbits(17)
    while r >= 1 << 16:
        r = rng.getrandbits(17)
    return r


# Dead states kept before the tables are emptied (about 100 bytes each: some 400 MB).
MAX_DEAD = 4_000_000


# _cellmasks.c's masks: loaded at a process's second board, as one board's set-up in Python costs less than
# loading it
compiled_masks = SecondUse("sigmar.encoders.search._cellmasks", "masks")

# What EngineState._symbol_masks sets, in the order of the compiled set-up's last table
SYMBOL_MASKS = (
    "metal_mask",
    "q_mask",
    "salt_mask",
    "el_masks",
    "el_masks_all",
    "x_mask",
    "vitae_mask",
    "mors_mask",
    "vm_mask",
    "element_mask",
    "metal_bits",
    "gold_bit",
)


class _CurrentMetal(dict[int, int]):
    """Per set of metals left (a mask), the bit of the lowest in the chain's order; a set not yet asked is
    found when first asked."""

    def __init__(self, chain: list[int]) -> None:
        super().__init__()
        self.chain = chain

    def __missing__(self, left: int) -> int:
        bit = self[left] = next((b for b in self.chain if left & b), 0)
        return bit


class EngineState:
    """Precomputed masks for one board (from ``sigmar.models.facts``), the dead table and the counters.

    A bit of a mask stands for a tile.  With ``by_cell`` (what the backend's solve uses), bit ``c`` is
    the tile on the cell of index ``c`` in its side's tables (``hexgrid.side``): the windows and the
    neighbours are then the side's, made once for every board of that side, and a board costs only
    its symbols.  Otherwise bit ``i`` is tile ``i`` (``Board.tiles``), the numbering of ``facts``, the
    stuck-set finder and the certificates.  The search runs the same in both: its orders break ties
    by position, and both numberings follow the reading order.
    """

    def __init__(
        self,
        board: Board,
        order: str = "restarts",
        safe: bool = True,
        locks: bool = True,
        stuck: bool = True,
        by_cell: bool = False,
    ) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown move order '{order}' (choose from {', '.join(ORDERS)})")
        self.board = board
        self.order = order
        self.safe = safe
        self.locks = locks
        # A stuck set costs about five plain nodes to look for.  At the start it is always worth
        # it (a static refutation); inside the search it did not pay on any set we measured
        # (docs/search.md), so by default it is looked for only in states of at least
        # `stuck_min` tiles after `stuck_after` nodes: never, unless a caller lowers them.
        self.stuck_root = stuck
        self.stuck_after = 0
        self.stuck_min = len(board.tiles) + 1
        try:
            if not by_cell:
                raise KeyError
            self._cell_masks(board)
        except KeyError:  # numbered by tile, or a tile off its board's side
            self._masks(board)
        self._order_keys(board, order)
        self._counters()

    def _masks(self, board: Board) -> None:
        """The board's facts as the search's masks (``sigmar.models.facts``), bit ``i`` for tile ``i``."""
        n = len(board.tiles)
        self.n = n
        self.by_cell = False
        self.positions: list[int] = list(range(n))  # per tile id, its bit
        self.full = (1 << n) - 1
        facts = facts_of(board)
        self.sym: list[str] = list(facts.symbols)  # per position ("" where no tile is)
        self.nbr: Sequence[int] = facts.neighbour_masks
        self.windows: Sequence[tuple[int, ...]] = facts.window_masks  # minimal windows: free when one is empty
        self.mask = dict(facts.symbol_masks)
        self.metal_tiles = list(facts.metal_chain)
        self.gold_tile = facts.gold
        self._symbol_masks()
        # Stuck sets: per tile its partners, and per metal the lower metals it waits for.
        self.partners = list(facts.partners)
        self.lower = list(facts.lower)
        self.key_nbrs = [-m.bit_count() for m in self.nbr]

    def _cell_masks(self, board: Board) -> None:
        """The same masks, bit ``c`` for the tile on cell ``c``: the neighbours are the side's, and the windows
        the side's for the neighbours that hold a tile (``facts.cell_windows``).  KeyError: a tile off the side.

        Made for every board of a batch (issue 48: a board should cost what its search costs): by the compiled
        set-up where it was built (``_cellmasks.c``, some 50 us less a side-6 board), else in Python."""
        compiled = compiled_masks.loaded or compiled_masks()
        if compiled:
            geometry = side(board.dim)
            ring, table, fill = pattern_windows(board.dim)
            made = compiled(geometry.index, board.tiles, ring, table, fill, NEIGHBOUR_BIAS)
            if made is not None:  # else a board it does not read (a tile off its side): read here
                (self.positions, self.sym, self.mask, self.full, self.metal_tiles, self.windows) = made[:6]
                (self.key_nbrs, self.key_bias, self.partners, self.lower) = made[6:10]
                (
                    self.metal_mask,
                    self.q_mask,
                    self.salt_mask,
                    self.el_masks,
                    self.el_masks_all,
                    self.x_mask,
                    self.vitae_mask,
                    self.mors_mask,
                    self.vm_mask,
                    self.element_mask,
                    self.metal_bits,
                    self.gold_bit,
                ) = made[10]  # what _symbol_masks reads off them (SYMBOL_MASKS)
                self.n = len(board.tiles)
                self.by_cell = True
                self.nbr = geometry.neighbours
                self.gold_tile = self.metal_tiles[-1] if self.metal_tiles else -1
                self._metal_tables()
                return
        self._cell_masks_read(board)

    def _cell_masks_read(self, board: Board) -> None:
        """:meth:`_cell_masks` in Python, in as few passes over the tiles as the masks allow, with the side's
        tables read into locals: the reference the compiled set-up is held to (tests/test_search.py)."""
        dim = board.dim
        geometry = side(dim)
        index = geometry.index
        tiles = board.tiles
        count = geometry.count
        positions = [index[t.cell] for t in tiles]
        sym = [""] * count
        mask: dict[str, int] = {}
        get = mask.get
        for tile, c in zip(tiles, positions, strict=True):
            sym[c] = symbol = tile.symbol
            mask[symbol] = get(symbol, 0) | 1 << c
        full = 0
        for m in mask.values():
            full |= m
        self.n = len(tiles)
        self.by_cell = True
        self.positions = positions
        self.full = full
        self.sym = sym
        self.mask = mask
        metal_tiles = self.metal_tiles = []  # by digit (each digit's tiles by cell, if a board has two)
        for digit in sorted(METALS.intersection(mask)):
            metal_tiles += tile_ids(mask[digit])
        self.gold_tile = metal_tiles[-1] if metal_tiles else -1
        self._symbol_masks()
        # Per tile, its windows (the side's, for the neighbours that hold a tile), its neighbours (the
        # restarts' lean) and its partners, in one pass.
        of_symbol = symbol_partners(mask, self.gold_bit)
        near = self.nbr = geometry.neighbours
        table = cell_windows(dim)
        windows: list[tuple[int, ...]] = [()] * count
        key_nbrs = [0] * count
        bias = [0] * count
        partners = [0] * count
        for c in positions:
            held = full & near[c]
            windows[c] = table[c].get(held) or cell_windows_of(dim, c, held)
            key_nbrs[c] = k = -held.bit_count()
            bias[c] = NEIGHBOUR_BIAS * k
            partners[c] = of_symbol[sym[c]] & ~(1 << c)
        if metal_tiles:
            partners[metal_tiles[-1]] = 0  # gold pairs with nothing
        self.windows = windows
        self.key_nbrs = key_nbrs
        self.key_bias = bias
        self.partners = partners
        lower = [0] * count
        before = 0
        for c in metal_tiles:
            lower[c] = before
            before |= 1 << c
        self.lower = lower

    def _symbol_masks(self) -> None:
        """The masks of symbols and metals the search reads at every node, from ``mask`` and the metal chain
        (``SYMBOL_MASKS``; the compiled set-up makes the same, tests/test_search.py holds them equal)."""
        mask = self.mask
        self.metal_mask = 0
        for m in self.metal_tiles:
            self.metal_mask |= 1 << m
        self.q_mask = mask.get(QUICKSILVER, 0)
        self.salt_mask = mask.get(SALT, 0)
        self.el_masks = [mask[e] for e in ELEMENT_ORDER if e in mask]
        self.el_masks_all = [mask.get(e, 0) for e in ELEMENT_ORDER]  # one per element, even if absent
        self.x_mask = mask.get(QUINTESSENCE, 0)
        self.vitae_mask = mask.get(VITAE, 0)
        self.mors_mask = mask.get(MORS, 0)
        self.vm_mask = self.vitae_mask | self.mors_mask
        self.element_mask = sum(self.el_masks)
        self.metal_bits = [1 << m for m in self.metal_tiles]
        self.gold_bit = 1 << self.gold_tile if self.metal_tiles else 0
        self._metal_tables()

    def _metal_tables(self) -> None:
        """The current metal per set of metals left, and the locked metals' verdicts (made as asked)."""
        # Per set of metals left, the current metal's bit (a lookup: the search asks at every node).  Metals
        # leave in the chain's order, so a state reached by moves holds a suffix of the chain: those are
        # made now, any other set when first asked (``_CurrentMetal``; 64 sets a board took 10 us).
        current_of = self.current_of = _CurrentMetal(self.metal_bits)
        left = 0
        for bit in reversed(self.metal_bits):
            left |= bit
            current_of[left] = bit
        current_of[0] = 0
        self._lock_cache: dict[int, str | None] = {}

    def _order_keys(self, board: Board, order: str) -> None:
        """Static move-order keys (lower first); those by distance are made when an order asks for them."""
        n = self.n
        # The restarts draw their random order from this seed (the same in both numberings).
        self.seed = n * 7919 + ((1 << n) - 1) % 1000003
        self.key_random = [0] * len(self.sym)
        # The restarts' random weights lean towards tiles with many neighbours at the start (they
        # wall in the most): each neighbour is worth a quarter of the random range.  On 2,000
        # public variant boards this cut the p99 of the nodes from 3,279 to about 1,800.
        if not self.by_cell:  # by cell: made with the masks (``_cell_masks``)
            keys = self.key_nbrs
            bias = self.key_bias = [0] * len(self.sym)
            for p in self.positions:
                bias[p] = NEIGHBOUR_BIAS * keys[p]
        self._weights: dict[int, int] = {}
        if order == "random":  # one fixed random order (``restarts`` draws a new one per restart)
            self.random_keys(Random(n * 7919 + len(board.name)), bias=False)

    def random_keys(self, rng: Random, bias: bool = True) -> None:
        """A fresh random order: a random weight per tile (drawn in tile order), leaning by ``key_bias``."""
        keys = [0] * len(self.sym)
        lean = self.key_bias
        for p in self.positions:
            keys[p] = draw16(rng) + (lean[p] if bias else 0)
        self.key_random = keys
        self._weights = {}

    def cell_of(self, p: int) -> Hex:
        """The cell of the tile at bit ``p``."""
        return self.cells[p]

    @cached
    def cells(self) -> tuple[Hex, ...]:
        """Per position, its cell."""
        return side(self.board.dim).cells if self.by_cell else tuple(t.cell for t in self.board.tiles)

    def tile_ids(self, mask: int) -> list[int]:
        """The tile ids (``Board.tiles``) of the tiles in ``mask``, ascending."""
        if not self.by_cell:
            return tile_ids(mask)
        tile_at = self.tile_at
        return [tile_at[p] for p in tile_ids(mask)]

    @cached
    def tile_at(self) -> dict[int, int]:
        """Per position, its tile's id."""
        return {p: t for t, p in enumerate(self.positions)}

    def in_tiles(self, mask: int) -> int:
        """``mask`` with bit ``i`` for tile ``i`` (the numbering of ``facts`` and the certificates)."""
        return mask_of_ids(self.tile_ids(mask)) if self.by_cell else mask

    @cached
    def key_centre(self) -> list[int]:
        """Per position, the tile's distance to the centre."""
        if self.by_cell:
            return list(side(self.board.dim).centre)
        return [distance(t.cell, (0, 0)) for t in self.board.tiles]

    @cached
    def key_metal(self) -> list[list[int]]:
        """Per metal of the chain, each tile's distance to it (by position)."""
        if self.by_cell:
            return [list(side(self.board.dim).distances(m)) for m in self.metal_tiles] or [[0] * len(self.sym)]
        cells = [t.cell for t in self.board.tiles]
        return [[distance(c, cells[m]) for c in cells] for m in self.metal_tiles] or [[0] * self.n]

    def _counters(self) -> None:
        """The dead table, the restart budget and the statistics."""
        self.restart_base = 100
        self.restarts = 0
        self.cap = -1  # node count at which the current restart gives up; -1 for none
        self.nodes = 0
        self.dead: set[int] = set()
        self.max_dead = MAX_DEAD
        self.table_clears = 0
        # Sleep sets: states explored with moves asleep, and the sleep set they were explored with.
        self.partial: dict[int, frozenset[int]] = {}
        self.pruned_counts = 0
        self.pruned_locks = 0
        self.pruned_stuck = 0
        self.safe_moves = 0
        self.tt_hits = 0
        self.sleep_skips = 0
        self._stop = False

    def current_metal(self, occ: int) -> int:
        """The current metal's bit (the lowest metal left), 0 when no metal is left."""
        return self.current_of[occ & self.metal_mask]

    # -- freeness -------------------------------------------------------------

    def is_free(self, i: int, occ: int) -> bool:
        return any(not occ & m for m in self.windows[i])

    def free_set(self, occ: int) -> int:
        """The free tiles of ``occ`` (:meth:`is_free` of each, without a call a tile: the search's first look)."""
        free = 0
        windows = self.windows
        rest = occ
        while rest:
            low = rest & -rest
            rest ^= low
            for m in windows[low.bit_length() - 1]:
                if not occ & m:
                    free |= low
                    break
        return free

    def _child_free(self, occ: int, free: int, r: int) -> int:
        """The free set after removing ``r``: only neighbours of removed tiles can change."""
        nbr = self.nbr
        cand = 0
        rr = r
        while rr:
            low = rr & -rr
            cand |= nbr[low.bit_length() - 1]
            rr ^= low
        child = occ & ~r
        free &= ~r
        cand &= child & ~free
        windows = self.windows
        while cand:
            low = cand & -cand
            cand ^= low
            for m in windows[low.bit_length() - 1]:
                if not child & m:
                    free |= low
                    break
        return free
