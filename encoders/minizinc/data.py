"""The MiniZinc models' data: a board written as ``.dzn`` for ``sigmar_order.mzn`` or ``sigmar_steps.mzn``.

The models live next to this file.  Glossary:

- *round*: the order model's time; several pairs may leave in one round.
- *opening*: three consecutive ring positions around a tile; the tile is free
  once every tile on them has gone.
- *blockers*: the tiles on an opening's cells.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.tiles import ELEMENTS, QUICKSILVER

# The four elements, numbered 1..4 as the models' ``element_kind``: air, earth, fire, water
# (a quintessence takes one of each).
ELEMENT_KINDS = {symbol: kind for kind, symbol in enumerate(sorted(ELEMENTS), start=1)}

HERE = Path(__file__).resolve().parent
MODELS = {"order": HERE / "sigmar_order.mzn", "steps": HERE / "sigmar_steps.mzn"}
VARIANTS = tuple(MODELS)
DEFAULT_VARIANT = "order"

# Search strategies named in the models' ``strategy`` parameter.
FIND, REFUTE, PERSIST, WDEG, FIRST_FAIL, PERSIST_NOGOODS, OWN = 1, 2, 3, 7, 8, 10, 11
STRATEGY_NAMES = {
    1: "smallest key",
    2: "refute (metal openings first)",
    3: "weighted degree, Luby restarts",
    4: "rounds, then mates",
    5: "mates, then rounds",
    6: "key in input order",
    7: "weighted degree, no restarts",
    8: "first fail on the key",
    9: "smallest key, Luby restarts, no-goods",
    10: "weighted degree, Luby restarts, no-goods",
    11: "the solver's own search",
}
# The order model's implied constraints, by name: the data flag that switches each on.
IMPLIED = {
    "qcount": "use_qcount",
    "metal-openings": "use_metal_openings",
    "hitting-sets": "use_hitting",
    "parity": "use_parity",
    "symmetry": "use_symmetry",
    "blocking-mates": "use_blocking_mates",
}


def _partners(board: Board, i: int) -> list[int]:
    """Tiles that tile ``i`` could ever leave with as a pair (``sigmar.models.facts``); gold and quintessence: itself.

    On a quintessence board an element also lists itself: its mate is itself
    when a quintessence takes it (the order model's ``takes``).
    """
    facts = facts_of(board)
    fives = facts.quintessence
    if i == facts.gold or i in fives:
        return [i]
    mates = [j for j in facts.partners_of(i) if j not in fives]
    if fives and facts.symbols[i] in ELEMENT_KINDS:
        mates = sorted([*mates, i])
    return mates


def _openings(board: Board, i: int) -> tuple[list[list[int]], list[int]]:
    """The six openings' blockers around tile ``i`` and the openings worth trying (from 0).

    An opening is dominated when another one's blockers are a subset of its
    own (ties keep the first), so the search never branches on both.
    """
    openings = [list(window) for window in facts_of(board).windows[i]]
    useful = []
    for k, mine in enumerate(openings):
        dominated = any(
            set(other) < set(mine) or (set(other) == set(mine) and o < k) for o, other in enumerate(openings) if o != k
        )
        if not dominated:
            useful.append(k)
    return openings, useful


def candidate_pairs(board: Board) -> tuple[tuple[int, int], ...]:
    """Every pair that may ever be a move (the steps model's choices): tile ids from 0.

    Gold alone is (g, g); a quintessence's five-tile move is (x, x), its four
    elements chosen by the model's ``takes``.
    """
    facts = facts_of(board)
    alone = {facts.gold, *facts.quintessence}
    return tuple(
        (i, j) for i in range(len(board.tiles)) for j in _partners(board, i) if j > i or (j == i and i in alone)
    )


def hitting_sets(blockers: list[list[int]]) -> list[list[int]]:
    """The minimal sets of tiles that meet every one of ``blockers`` (none when one of them is empty).

    Whichever opening frees the tile, one tile of each such set left before it.
    """
    if not blockers or any(not b for b in blockers):
        return []
    tiles = sorted({t for b in blockers for t in b})
    found: list[set[int]] = []
    for size in range(1, len(tiles) + 1):
        for chosen in itertools.combinations(tiles, size):
            mine = set(chosen)
            if all(mine & set(b) for b in blockers) and not any(f <= mine for f in found):
                found.append(mine)
    return [sorted(f) for f in found]


def _mzn_set(items: list[int]) -> str:
    return "{" + ", ".join(str(x + 1) for x in items) + "}"


def data_text(
    board: Board, variant: str = DEFAULT_VARIANT, strategy: int = FIND, off: frozenset[str] = frozenset()
) -> str:
    """The board as MiniZinc data (``.dzn``); tile ids shift by one (MiniZinc counts from 1).

    ``off``: implied constraints of the order model to switch off (``IMPLIED``), for measuring.
    """
    n = len(board.tiles)
    facts = facts_of(board)
    metal_ids = facts.metal_chain
    quick = [i for i, symbol in enumerate(facts.symbols) if symbol == QUICKSILVER]
    rowcols = [board.rowcol(t.cell) for t in board.tiles]
    lines = [
        f"% board: {board.name or '(unnamed)'}; variant: {variant}",
        f"n_tiles = {n};",
        "symbol = [" + ", ".join(json.dumps(t.symbol) for t in board.tiles) + "];",
        "row = [" + ", ".join(str(r) for r, _ in rowcols) + "];",
        "col = [" + ", ".join(str(c) for _, c in rowcols) + "];",
        "n_metals = " + str(len(metal_ids)) + ";",
        "metal = [" + ", ".join(str(i + 1) for i in metal_ids) + "];",
        "quicksilver = " + _mzn_set(quick) + ";",
        f"n_moves = {facts.horizon};",
        f"n_quint = {len(facts.quintessence)};",
        "quint = [" + ", ".join(str(i + 1) for i in facts.quintessence) + "];",
        "element_kind = [" + ", ".join(str(ELEMENT_KINDS.get(s, 0)) for s in facts.symbols) + "];",
    ]
    lines.append(f"strategy = {strategy};  % the search: 1 finds, 2 refutes (see the model)")
    blockers, useful = [], []
    for i in range(n):
        openings, keep = _openings(board, i)
        blockers.append(openings)
        useful.append(keep)
    if n:
        rows = ["| " + ", ".join(_mzn_set(o) for o in openings) for openings in blockers]
        lines.append("blockers = [" + "\n  ".join(rows) + " |];")
    else:
        lines.append("blockers = array2d(1..0, 1..6, []);")
    lines.append("useful = [" + ", ".join(_mzn_set(k) for k in useful) + "];")
    if variant == "steps":
        return "\n".join(lines + _pairs_data(board)) + "\n"
    lines += [f"{flag} = {str(name not in off).lower()};" for name, flag in IMPLIED.items()]
    hits = [(i, h) for i in range(n) for h in hitting_sets([blockers[i][k] for k in useful[i]])]
    lines.append(f"n_hit = {len(hits)};")
    lines.append("hit_of = [" + ", ".join(str(i + 1) for i, _ in hits) + "];")
    lines.append("hit = [" + ", ".join(_mzn_set(h) for _, h in hits) + "];")
    lines.append("partners = [" + ", ".join(_mzn_set(_partners(board, i)) for i in range(n)) + "];")
    return "\n".join(lines) + "\n"


def _pairs_data(board: Board) -> list[str]:
    """The steps model's candidate moves."""
    pairs = candidate_pairs(board)
    return [
        f"n_pairs = {len(pairs)};",
        "pair_a = [" + ", ".join(str(a + 1) for a, _ in pairs) + "];",
        "pair_b = [" + ", ".join(str(b + 1) for _, b in pairs) + "];",
    ]
