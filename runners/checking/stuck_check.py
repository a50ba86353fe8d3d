"""Check a ``stuck`` certificate: K is a stuck set of the state, each tile held by one of rules (a)-(e).

The rules are docs/formats.md#stuck-sets, read over the board's bit masks
(:mod:`.board_masks`), never the search's stuck-set finder.  The dead-states
check asks this module about the stuck sets its states carry.
"""

from __future__ import annotations

from collections.abc import Iterable

from sigmar.models.bits import mask_of_ids, tile_ids
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, on_board, to_rowcol
from sigmar.models.tiles import METALS

from .board_masks import Masks
from .verdict import CertificateError, Verdict


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
