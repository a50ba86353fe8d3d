"""The search engine's state: one board's masks and counters (see ``engine`` for the glossary)."""

from __future__ import annotations

import random

from sigmar.models.board import Board
from sigmar.models.facts import facts_of, tile_ids
from sigmar.models.hexgrid import distance
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

ORDERS = ("none", "centre", "metal", "neighbours", "freed", "mixed", "random", "restarts")
# The orders a restart cycles through (``restarts``), each with a fresh random tie-break.
RESTART_ORDERS = ("random",)
# The weight of one neighbour in the restarts' random move order (the random part is 0..2^16).
NEIGHBOUR_BIAS = 1 << 14
# Dead states kept before the tables are emptied (about 100 bytes each: some 400 MB).
MAX_DEAD = 4_000_000


class EngineState:
    """Precomputed masks for one board (from ``sigmar.models.facts``), the dead table and the counters."""

    def __init__(
        self, board: Board, order: str = "restarts", safe: bool = True, locks: bool = True, stuck: bool = True
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
        self._masks(board)
        self._order_keys(board, order)
        self._counters()

    def _masks(self, board: Board) -> None:
        """The board's facts as the search's masks (``sigmar.models.facts``)."""
        n = len(board.tiles)
        self.n = n
        self.full = (1 << n) - 1
        facts = facts_of(board)
        sym = list(facts.symbols)
        self.sym = sym
        self.nbr = list(facts.neighbour_masks)
        self.windows = facts.window_masks  # minimal windows: a tile is free when one is empty
        self.mask = dict(facts.symbol_masks)
        self.metal_tiles = list(facts.metal_chain)
        self.gold_tile = facts.gold
        self.metal_mask = facts.mask_of("".join(sorted(METALS)))
        self.q_mask = facts.mask_of(QUICKSILVER)
        self.salt_mask = facts.mask_of(SALT)
        self.el_masks = [self.mask[e] for e in sorted(ELEMENTS) if e in self.mask]
        self.el_masks_all = [self.mask.get(e, 0) for e in sorted(ELEMENTS)]  # one per element, even if absent
        self.x_mask = facts.mask_of(QUINTESSENCE)
        self.vitae_mask = facts.mask_of(VITAE)
        self.mors_mask = facts.mask_of(MORS)
        self.vm_mask = self.vitae_mask | self.mors_mask
        self.element_mask = sum(self.el_masks)
        self.metal_bits = [1 << m for m in self.metal_tiles]
        self.gold_bit = 1 << self.gold_tile if self.metal_tiles else 0
        # Per set of metals left, the current metal's bit (a lookup: the search asks at every node).
        self.current_of = {0: 0}
        for rank, bit in enumerate(self.metal_bits):
            later = self.metal_bits[rank + 1 :]
            for subset in range(1 << len(later)):
                rest = sum(b for k, b in enumerate(later) if subset >> k & 1)
                self.current_of[bit | rest] = bit
        self._lock_cache: dict[int, str | None] = {}
        # Stuck sets: per tile its partners, and per metal the lower metals it waits for.
        self.partners = list(facts.partners)
        self.lower = list(facts.lower)

    def _order_keys(self, board: Board, order: str) -> None:
        """Static move-order keys (lower first)."""
        n = self.n
        cells = [t.cell for t in board.tiles]
        centre = (0, 0)
        self.key_centre = [distance(c, centre) for c in cells]
        self.key_nbrs = [-self.nbr[i].bit_count() for i in range(n)]
        self.key_metal = [[distance(c, cells[m]) for c in cells] for m in self.metal_tiles] or [[0] * n]
        self.key_random = [0] * n
        # The restarts' random weights lean towards tiles with many neighbours at the start (they
        # wall in the most): each neighbour is worth a quarter of the random range.  On 2,000
        # public variant boards this cut the p99 of the nodes from 3,279 to about 1,800.
        self.key_bias = [NEIGHBOUR_BIAS * k for k in self.key_nbrs]
        self._weights: dict[int, int] = {}
        if order == "random":  # one fixed random order (``restarts`` draws a new one per restart)
            rng = random.Random(n * 7919 + len(board.name))
            self.key_random = [rng.randrange(1 << 16) for _ in range(n)]

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
        free = 0
        for i in tile_ids(occ):
            if self.is_free(i, occ):
                free |= 1 << i
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
