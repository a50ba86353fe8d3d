"""Check a ``stuck`` certificate: K is a stuck set of the state, each tile held by one of rules (a)-(e).

The rules are docs/formats.md#stuck-sets, read a second time over plain bit masks
of the board's tiles (:class:`Masks`), never through the search's stuck-set finder:
nothing here imports ``encoders``, nor :mod:`sigmar.models.facts`, which every
backend and the stuck-set finder read.  Windows and partners are derived here from
the six neighbours, so a mistake in one reading of the rules is not repeated in the
other (``tests/test_layers.py`` holds this).  The dead-states check reads the board
through the same masks and asks this module about the stuck sets its states carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sigmar.models.bits import mask_of_ids, tile_ids
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, on_board, ring_neighbours, to_rowcol
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE, name_of
from sigmar.runners.checking.verdict import CertificateError, Verdict


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


def _rules_a_to_d(m: Masks, present: int, stuck: int) -> dict[int, str]:
    """The tiles of K held by (a), (b), (c) or (d), with the first rule's letter."""
    q_present = present & m.quicksilver
    walled: dict[int, bool] = {}
    locked: dict[int, bool] = {}
    held: dict[int, str] = {}
    for t in tile_ids(stuck):
        walled[t] = all(w & stuck for w in m.windows[t])
        if m.symbols[t] in METALS:
            lower_present = (m.lower[t] & present).bit_count()
            locked[t] = all(w & stuck or (w & q_present).bit_count() > lower_present for w in m.windows[t])
        if walled[t]:
            held[t] = "a"
        elif m.symbols[t] in METALS and m.lower[t] & stuck:
            held[t] = "b"
        elif locked.get(t):
            held[t] = "c"
    lowest = next((i for i in m.metal_tiles if present >> i & 1), -1)
    lowest_held = lowest >= 0 and stuck >> lowest & 1 and (walled[lowest] or locked[lowest])
    if lowest_held:
        for t in tile_ids(stuck & m.quicksilver):
            held.setdefault(t, "d")
    return held


def holding(m: Masks, present: int, stuck: int) -> dict[int, str]:
    """Each tile of K held in state ``present``, with the letter of the first rule (a)-(e) that holds it."""
    held = _rules_a_to_d(m, present, stuck)
    by_a_to_d = 0
    for t in held:
        by_a_to_d |= 1 << t
    for t in tile_ids(stuck & ~by_a_to_d):
        if t != m.gold and not m.partners[t] & present & ~by_a_to_d:
            held[t] = "e"
    return held


def _why_not_held(m: Masks, present: int, stuck: int, t: int) -> str:
    """One sentence: which window leaves tile t free, and which partner could take it."""
    window = next((w for w in m.windows[t] if not w & stuck), 0)
    cells = ", ".join(m.where(i) for i in tile_ids(window & present)) or "no tiles"
    why = f"a window of it ({cells}) holds no tile of K"
    if t == m.gold:
        return why + ", and gold leaves alone"
    free_partners = tile_ids(m.partners[t] & present & ~mask_of_ids(_rules_a_to_d(m, present, stuck)))
    if free_partners:
        why += f", and its possible partner {m.where(free_partners[0])} is not held by (a)-(d)"
    return why


def stuck_verdict(m: Masks, present: int, stuck: int) -> Verdict:
    """Whether K (``stuck``) is a stuck set of the state ``present``, naming the first tile that is not held."""
    if not stuck:
        return Verdict(False, "the stuck set is empty")
    if stuck & ~present:
        t = tile_ids(stuck & ~present)[0]
        return Verdict(False, f"{m.where(t)} is in the stuck set but not in the state")
    held = holding(m, present, stuck)
    for t in tile_ids(stuck):
        if t not in held:
            return Verdict(
                False, f"{m.where(t)} is held by none of rules (a)-(e): {_why_not_held(m, present, stuck, t)}"
            )
    rules = "".join(sorted(set(held.values())))
    return Verdict(True, f"a stuck set of {len(held)} tiles, held by rules {', '.join(f'({r})' for r in rules)}")


def _cells_mask(m: Masks, cells: Iterable[Hex], what: str) -> int:
    mask = 0
    for cell in cells:
        bit = m.bit_of.get(cell)
        if bit is None:
            row, col = to_rowcol(cell, m.board.dim) if on_board(cell, m.board.dim) else cell
            raise CertificateError(f"{what} names [{row}, {col}], which holds no tile of board {m.board.name!r}")
        mask |= bit
    return mask


def check_stuck(board: Board, cells: Iterable[Hex], present: Iterable[Hex] | None = None) -> Verdict:
    """A ``stuck`` certificate: K (axial cells) is a stuck set of the state (default: the starting board)."""
    m = Masks(board)
    stuck = _cells_mask(m, cells, "the stuck set")
    state = _cells_mask(m, present, "the state") if present is not None else (1 << m.size) - 1
    return stuck_verdict(m, state, stuck)


def holding_rules(board: Board, cells: Iterable[Hex], present: Iterable[Hex] | None = None) -> dict[Hex, str]:
    """For each cell of K, the letter of the first rule (a)-(e) that holds its tile ('' when none does)."""
    m = Masks(board)
    cells = list(cells)
    stuck = _cells_mask(m, cells, "the stuck set")
    state = _cells_mask(m, present, "the state") if present is not None else (1 << m.size) - 1
    held = holding(m, state, stuck)
    return {cell: held.get(m.bit_of[cell].bit_length() - 1, "") for cell in cells}
