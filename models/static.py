"""Static unsolvability arguments: reasons read off the starting board, no search.

Every argument here is *sound*: when it fires, no sequence of legal moves
clears the board.  Each comes with its proof sketch, because a reason the
user cannot follow is no better than a solver's bare "no".

1. **Counts** (SPEC §1): the tiles cannot all pair up.  This lives in
   :func:`sigmar.models.rules.count_problem`; it is called, not repeated.

2. **A stuck set**: a non-empty set ``S`` of tiles such that every tile of
   ``S`` is, with all of ``S`` still on the board,

   (a) *walled in*: each of its six windows of three ring-consecutive
       neighbours holds a tile of ``S``, so it is not free; or
   (b) *waiting for a lower metal*: it is a metal and a lower metal is in
       ``S``, so it is not the current metal (nor, for gold, the last
       metal); or
   (c) *pairing only with locked tiles*: it is not gold, and every tile it
       could pair with while all of ``S`` is on the board is in ``S`` and
       satisfies (a) or (b).  Quicksilver pairs only with the current metal,
       which is at most the lowest metal of ``S``, so its partners are the
       non-gold metals up to that digit.

   *Proof.*  Suppose some play clears the board, and look at the first move
   that removes a tile of ``S``.  Just before it, every tile of ``S`` is on
   the board.  A tile of kind (a) is not free then, and one of kind (b) can
   neither pair with quicksilver nor leave alone as gold, so the move takes
   neither kind.  A tile of kind (c) leaves with a partner that pairs with it
   in that position; that partner is in ``S`` and of kind (a) or (b), so it
   cannot be in the move either.  Hence no first move removes a tile of
   ``S``: its tiles stay forever and the board is never cleared.  ∎

   The classic cases are instances: a metal ringed by quicksilver and later
   metals (the quicksilver can only pair with that very metal, the later
   metals wait for it), and a block of tiles that wall each other in.  The
   largest stuck set is the greatest fixed point of the rules above, found
   by starting from every tile and discarding tiles that no rule keeps.

:func:`is_stuck_set` re-checks a witness directly against (a)-(c), without
the fixed-point iteration, so a claimed set can be confirmed independently.
"""

from __future__ import annotations

from collections.abc import Collection

from .board import Board
from .rules import count_problem
from .tiles import METALS, QUICKSILVER, could_ever_pair, name_of


def _windows(board: Board, tile: int) -> list[tuple[int | None, ...]]:
    """The six runs of three ring-consecutive neighbours (tile ids; None is empty or off-board)."""
    ring = board.neighbour_tiles[tile]
    return [tuple(ring[(i + k) % 6] for k in range(3)) for i in range(6)]


def _walled_in(board: Board, tile: int, stuck: Collection[int]) -> bool:
    """Rule (a): every window holds a tile of the set, so the tile is not free while the set stays."""
    return all(any(n is not None and n in stuck for n in window) for window in _windows(board, tile))


def _waits_for_metal(board: Board, tile: int, stuck: Collection[int]) -> bool:
    """Rule (b): a metal with a lower metal in the set is never current while the set stays."""
    symbol = board.tiles[tile].symbol
    if symbol not in METALS:
        return False
    return any(board.tiles[u].symbol in METALS and board.tiles[u].symbol < symbol for u in stuck)


def _locked(board: Board, stuck: Collection[int]) -> set[int]:
    """Tiles of the set that rule (a) or (b) keeps: none of them can be in the first move."""
    return {t for t in stuck if _walled_in(board, t, stuck) or _waits_for_metal(board, t, stuck)}


def _partners(board: Board, tile: int, stuck: Collection[int]) -> list[int] | None:
    """Tiles that could pair with ``tile`` while every tile of ``stuck`` is on the board.

    None for gold: it leaves alone, so rule (c) does not apply to it.
    """
    symbol = board.tiles[tile].symbol
    gold = board.gold
    if symbol == gold:
        return None
    if symbol == QUICKSILVER:
        stuck_metals = [board.tiles[u].symbol for u in stuck if board.tiles[u].symbol in METALS]
        ceiling = min(stuck_metals) if stuck_metals else None
        return [
            u
            for u, other in enumerate(board.tiles)
            if other.symbol in METALS and other.symbol != gold and (ceiling is None or other.symbol <= ceiling)
        ]
    return [u for u, other in enumerate(board.tiles) if u != tile and could_ever_pair(symbol, other.symbol)]


def _kept(board: Board, stuck: Collection[int]) -> set[int]:
    """The tiles of ``stuck`` that some rule (a)-(c) keeps, relative to ``stuck`` itself."""
    locked = _locked(board, stuck)
    kept = set(locked)
    for tile in stuck:
        if tile in locked:
            continue
        partners = _partners(board, tile, stuck)
        if partners is not None and all(p in locked for p in partners):
            kept.add(tile)
    return kept


def stuck_set(board: Board) -> frozenset[int]:
    """The largest stuck set (tile ids); empty when the argument does not apply.

    The rules are monotone in the set, so discarding unkept tiles until
    nothing changes reaches the greatest fixed point.
    """
    current = set(range(len(board.tiles)))
    while True:
        kept = _kept(board, current)
        if kept == current:
            return frozenset(current)
        current = kept


def is_stuck_set(board: Board, tiles: Collection[int]) -> bool:
    """Whether ``tiles`` is a non-empty stuck set: a direct check of rules (a)-(c), no iteration."""
    chosen = set(tiles)
    if not chosen or not all(0 <= t < len(board.tiles) for t in chosen):
        return False
    return _kept(board, chosen) == chosen


def _describe(board: Board, tile: int) -> str:
    row, col = board.rowcol(board.tiles[tile].cell)
    return f"{name_of(board.tiles[tile].symbol)} at [{row}, {col}]"


def _list(board: Board, tiles: list[int], limit: int = 4) -> str:
    named = [_describe(board, t) for t in tiles[:limit]]
    if len(tiles) > limit:
        named.append(f"{len(tiles) - limit} more")
    if len(named) == 1:
        return named[0]
    return ", ".join(named[:-1]) + " and " + named[-1]


def explain_stuck(board: Board, stuck: frozenset[int]) -> str:
    """One sentence naming the tile that best shows why ``stuck`` is stuck."""
    ordered = sorted(stuck)
    locked = _locked(board, stuck)
    walled = [t for t in ordered if _walled_in(board, t, stuck)]
    # A walled-in metal is the clearest story (the lowest one), then any walled-in tile.
    metals = sorted((t for t in walled if board.tiles[t].symbol in METALS), key=lambda t: board.tiles[t].symbol)
    focus = metals[0] if metals else (walled[0] if walled else None)
    size = len(stuck)
    if focus is not None:
        blockers = sorted({n for n in board.neighbour_tiles[focus] if n is not None and n in stuck})
        return (
            f"{_describe(board, focus)} can never be freed: every three neighbours in a row include one of "
            f"{_list(board, blockers)}, and none of these {size} tiles can leave first (each is walled in by "
            f"the others, waits for a lower metal among them, or pairs only with such a tile)"
        )
    for tile in ordered:
        if tile in locked:
            continue
        partners = _partners(board, tile, stuck) or []
        if not partners:
            return f"{_describe(board, tile)} has no tile it could ever pair with"
        return (
            f"{_describe(board, tile)} can never leave: every tile it could pair with "
            f"({_list(board, partners)}) is stuck among {size} tiles that block each other"
        )
    return f"{_list(board, ordered)} can never leave: each waits for a lower metal among them"  # pragma: no cover


def static_problem(board: Board) -> str | None:
    """One sentence saying why the board is unsolvable from its layout alone, else None.

    The counts are not repeated here (see ``count_problem``); callers ask
    for them first.  This finds the largest stuck set (see the module
    docstring for the proof) and explains it.
    """
    stuck = stuck_set(board)
    if not stuck:
        return None
    return explain_stuck(board, stuck)


def unsolvable_reason(board: Board) -> tuple[str, str] | None:
    """``("counts", sentence)`` or ``("static", sentence)`` for the first argument that fires, else None."""
    counts = count_problem(board)
    if counts is not None:
        return "counts", counts
    static = static_problem(board)
    if static is not None:
        return "static", static
    return None
