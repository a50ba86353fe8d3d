"""The stuck-set argument (docs/formats.md#stuck-sets): tiles that can never leave, read off a state without search.

This is the one home of the suite's deadlock argument.  The search backend
uses it for its ``static`` answers and its certificates, the generator and
``prove`` for their reasons; the certificate checker
(``sigmar.runners.checking.stuck_check``) reads the same rules again on its own.

In a state S, a nonempty set K of tiles is *stuck* when every tile t of K is
held by one of (docs/formats.md#stuck-sets, with the glossary of ``sigmar.models.facts``):

- (a) every window of t holds a tile of K;
- (b) t is a metal and K holds a lower metal;
- (c) t is a metal and every window of t holds a tile of K or more
  quicksilver than there are metals lower than t in S;
- (d) t is quicksilver and the lowest metal of S is in K and held by (a) or (c);
- (e) t is not gold and every partner of t in S is in K and held by (a)-(d).

*Proof sketch.*  Look at the first move that takes a tile t of K: all of K
is still there.  (a) and (c) keep t from being free (a window can only empty
after its quicksilver left, each with a metal lower than t); (b) keeps it out
of turn; (d) leaves it only the lowest metal as a partner, which cannot move;
(e) leaves it only partners that cannot move.  So K never loses a tile.

The rules only get easier to meet as K grows, so the largest stuck set is
the greatest fixed point: start from every tile present and drop the tiles
no rule holds until nothing changes.  Searching with masks keeps this cheap
enough to run at the root of every search.
"""

from __future__ import annotations

from sigmar.models.board import Board
from sigmar.models.facts import Facts, facts_of
from sigmar.models.result import Reason
from sigmar.models.rules import count_problem
from sigmar.models.tiles import name_of


def _walled(f: Facts, t: int, stuck: int) -> bool:
    """Rule (a); minimal windows suffice, since every window holds one."""
    return all(w & stuck for w in f.window_masks[t])


def _metal_locked(f: Facts, t: int, present: int, stuck: int) -> bool:
    """Rule (c) for metal t."""
    lower = (f.lower[t] & present).bit_count()
    quicksilver = present & f.quicksilver_mask
    return all(w & stuck or (w & quicksilver).bit_count() > lower for w in f.window_masks[t])


def _lowest_metal(f: Facts, present: int) -> int:
    return next((t for t in f.metal_chain if present >> t & 1), -1)


def held(f: Facts, present: int, stuck: int) -> int:
    """The tiles of ``stuck`` that some rule (a)-(e) holds in state ``present``."""
    metals = f.metal_mask
    by_ac = 0
    by_b = 0
    rest = stuck
    while rest:
        low = rest & -rest
        rest ^= low
        t = low.bit_length() - 1
        if _walled(f, t, stuck) or low & metals and _metal_locked(f, t, present, stuck):
            by_ac |= low
        elif low & metals and f.lower[t] & stuck:
            by_b |= low
    by_d = 0
    lowest = _lowest_metal(f, present)
    if lowest >= 0 and by_ac >> lowest & 1:
        by_d = stuck & f.quicksilver_mask
    base = by_ac | by_b | by_d  # rule (e) leans on (a)-(d) only
    by_e = 0
    rest = stuck & ~base
    while rest:
        low = rest & -rest
        rest ^= low
        t = low.bit_length() - 1
        if t != f.gold and not f.partners[t] & present & ~base:
            by_e |= low
    return base | by_e


def largest_stuck_set(f: Facts, present: int | None = None) -> int:
    """The largest stuck set of the state (default: the starting board), as a mask; 0 when there is none."""
    present = (1 << f.size) - 1 if present is None else present
    stuck = present
    while stuck:
        kept = held(f, present, stuck)
        if kept == stuck:
            return stuck
        stuck = kept
    return 0


def metal_lock(f: Facts, present: int) -> int:
    """A small stuck set, when a metal below gold is held by (c) with the later metals present (held by (b)).

    Cheaper than :func:`largest_stuck_set` (it looks only at metals and
    quicksilver), so it is the one looked for in every state of a dead-states
    closure; 0 when no metal is so locked.
    """
    present_metals = [t for t in f.metal_chain if present >> t & 1]
    for i, t in enumerate(present_metals):
        if t == f.gold:
            break
        later = sum(1 << o for o in present_metals[i + 1 :])
        if _metal_locked(f, t, present, later):
            return (1 << t) | later
    return 0


def stuck_set(board: Board) -> frozenset[int]:
    """The largest stuck set of the starting board, as tile ids (empty when the argument does not apply)."""
    stuck = largest_stuck_set(facts_of(board))
    return frozenset(t for t in range(len(board.tiles)) if stuck >> t & 1)


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
    f = facts_of(board)
    mask = sum(1 << t for t in stuck)
    ordered = sorted(stuck)
    walled = [t for t in ordered if _walled(f, t, mask)]
    # A walled-in metal is the clearest story (the lowest one), then any walled-in tile.
    metals = [t for t in f.metal_chain if t in walled]
    focus = metals[0] if metals else (walled[0] if walled else None)
    size = len(stuck)
    rest = "each is walled in by the others, waits for a lower metal among them, or pairs only with such a tile"
    if focus is not None:
        blockers = sorted(n for n in f.neighbours[focus] if n is not None and n in stuck)
        return (
            f"{_describe(board, focus)} can never be freed: every three neighbours in a row include one of "
            f"{_list(board, blockers)}, and none of these {size} tiles can leave first ({rest})"
        )
    metals_in = [t for t in f.metal_chain if t in stuck]
    if metals_in:
        return (
            f"{_describe(board, metals_in[0])} can never be freed: its neighbours hold more quicksilver than "
            f"there are metals to take it first, and none of these {size} tiles can leave first ({rest})"
        )
    lonely = next((t for t in ordered if t != f.gold and not f.partners[t]), None)
    if lonely is not None:
        return f"{_describe(board, lonely)} has no tile it could ever pair with"
    return f"{_list(board, ordered)} can never leave: {rest}"


def static_problem(board: Board) -> str | None:
    """One sentence saying why the board is unsolvable from its layout alone, else None.

    The counts are not repeated here (see ``count_problem``); callers ask for
    them first.
    """
    stuck = stuck_set(board)
    if not stuck:
        return None
    return explain_stuck(board, stuck)


def unsolvable_reason(board: Board) -> tuple[Reason, str] | None:
    """``(Reason.COUNTS, sentence)`` or ``(Reason.STATIC, sentence)`` for the first argument that fires, else None."""
    counts = count_problem(board)
    if counts is not None:
        return Reason.COUNTS, counts
    static = static_problem(board)
    if static is not None:
        return Reason.STATIC, static
    return None


def explain_dead_end(board: Board, state: int) -> tuple[int, str]:
    """A state where no move is left: its largest stuck set (a mask, 0 when none) and one sentence why nothing moves.

    For the position a deepest play leaves (``sigmar explain``): the stuck set says why those tiles
    never leave; any other tile left is free but has no free partner.
    """
    f = facts_of(board)
    stuck = largest_stuck_set(f, state)
    free = [t for t in range(f.size) if state >> t & 1 and any(not w & state for w in f.window_masks[t])]
    loose = [t for t in free if not stuck >> t & 1]
    if stuck:
        sentence = explain_stuck(board, frozenset(t for t in range(f.size) if stuck >> t & 1))
        if loose:
            sentence += f"; the free {_list(board, loose)} {'has' if len(loose) == 1 else 'have'} no free partner"
        return stuck, sentence
    if not free:
        return 0, "no tile left is free"
    return 0, f"no move is left: the free tiles ({_list(board, free, limit=6)}) pair with none of each other"
