"""A board's cheap features, for algorithm selection (docs/bench.md#picking-the-backend): about a millisecond.

Measured CPU a board (300 dense deals each, load 4): median 0.6 ms on side 6 and 1.4 ms on side 8, of which the
largest stuck set is 1.2 ms; a selector whose tree is one leaf reads none of them (:meth:`Selector.pick`).

What a selector may look at before any backend starts: the side and tile counts, how many tiles are free
at the start and how many pairs they make, whether the counts can pair up, and the static check (the
largest stuck set of the starting board, and its size). All are read off the board's derived facts
(:mod:`sigmar.models.facts`) and the stuck-set argument (:mod:`sigmar.models.stuck_sets`) the search uses
itself, so nothing here is a second reading of the rules. The names and their order are fixed
(:data:`FEATURES`): an ASlib scenario's columns and a trained selector's inputs.
"""

from __future__ import annotations

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.rules import count_problem
from sigmar.models.stuck_sets import largest_stuck_set, metal_lock
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

FEATURES: tuple[str, ...] = (
    "side",
    "tiles",
    "elements",
    "odd_elements",
    "salt",
    "quicksilver",
    "metals",
    "vitae",
    "mors",
    "quintessence",
    "free",
    "free_fraction",
    "free_pairs",
    "free_partnerless",
    "counts_fail",
    "stuck",
    "stuck_fraction",
    "metal_locked",
)
# The feature step of an ASlib scenario: every feature comes from one pass over the board.
STEP = "board"


def features(board: Board) -> list[float]:
    """The values of :data:`FEATURES` for ``board``, in that order (numbers: booleans as 0 and 1)."""
    f = facts_of(board)
    symbols = f.symbols
    n = len(symbols)
    everything = (1 << n) - 1
    free = [t for t in range(n) if any(not w for w in f.window_masks[t])]
    free_mask = sum(1 << t for t in free)
    # pairs of free tiles that could leave together now (or some day: partners ignore the metals' order)
    free_pairs = sum((f.partners[t] & free_mask).bit_count() for t in free) // 2
    partnerless = sum(1 for t in free if not f.partners[t] & free_mask and t != f.gold)
    by_element = [symbols.count(e) for e in sorted(ELEMENTS)]
    stuck = largest_stuck_set(f, everything) if n else 0
    values = {
        "side": board.dim,
        "tiles": n,
        "elements": sum(by_element),
        "odd_elements": sum(c % 2 for c in by_element),
        "salt": symbols.count(SALT),
        "quicksilver": symbols.count(QUICKSILVER),
        "metals": sum(1 for s in symbols if s in METALS),
        "vitae": symbols.count(VITAE),
        "mors": symbols.count(MORS),
        "quintessence": symbols.count(QUINTESSENCE),
        "free": len(free),
        "free_fraction": len(free) / n if n else 0.0,
        "free_pairs": free_pairs,
        "free_partnerless": partnerless,
        "counts_fail": count_problem(board) is not None,
        "stuck": stuck.bit_count(),
        "stuck_fraction": stuck.bit_count() / n if n else 0.0,
        "metal_locked": bool(n) and metal_lock(f, everything) != 0,
    }
    return [float(values[name]) for name in FEATURES]
