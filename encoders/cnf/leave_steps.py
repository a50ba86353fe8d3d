"""The window of steps in which each tile can leave, for our encoding's reachability pruning.

A tile's ``("gone", i, s)`` variables exist only between its earliest and latest possible leave
step (:mod:`.default`); outside that window the value is a constant.
"""

from __future__ import annotations

from sigmar.models.board import Board
from sigmar.models.facts import facts_of, tile_ids


def freeing_windows(board: Board) -> list[tuple[tuple[int, ...], ...] | None]:
    """Per tile, its minimal windows (``sigmar.models.facts``); None when it is free from the start."""
    return [None if runs == ((),) else runs for runs in facts_of(board).minimal_windows]


def leave_step_bounds(board: Board, K: int) -> tuple[list[int], list[int]]:
    """Earliest and latest leave step of each tile (``K + 1`` earliest: it can never leave).

    Both are fixpoints of sound bounds: a tile leaves after every tile of some
    neighbour window and with a mate; metals leave one after another.  Latest:
    a tile lying in every window of another must leave before it.
    """
    facts = facts_of(board)
    # A tile leaves in the step of some partner (quintessence: of its elements, and they of it).
    mates = [tile_ids(facts.partners[i]) for i in range(facts.size)]
    return _earliest(board, K, mates), _latest(board, K, mates)


def _earliest(board: Board, K: int, mates: list[list[int]]) -> list[int]:
    facts = facts_of(board)
    sets = freeing_windows(board)
    chain = facts.metal_chain
    previous_metal = dict(zip(chain[1:], chain, strict=False))
    gold_tile = facts.gold
    never = K + 1
    early = [1] * facts.size
    get = early.__getitem__  # the bounds read through map(): a generator per window was 40% of a side-6 build
    changed = True
    while changed:
        changed = False
        for i in range(facts.size):
            best = 1 if sets[i] is None else 1 + min([max(map(get, s)) for s in sets[i] or []])
            if i != gold_tile:
                best = max(best, min(map(get, mates[i]), default=never))
            if i in previous_metal:
                best = max(best, early[previous_metal[i]] + 1)
            best = min(best, never)
            if best > early[i]:
                early[i] = best
                changed = True
    return early


def _latest(board: Board, K: int, mates: list[list[int]]) -> list[int]:
    facts = facts_of(board)
    sets = freeing_windows(board)
    chain = facts.metal_chain
    next_metal = dict(zip(chain, chain[1:], strict=False))
    gold_tile = facts.gold
    late = [K] * facts.size
    must_precede: list[list[int]] = [[] for _ in range(facts.size)]  # i must leave before each j listed
    for j, s in enumerate(sets):
        if s:
            for m in set(s[0]).intersection(*map(set, s[1:])):
                must_precede[m].append(j)
    changed = True
    while changed:
        changed = False
        for i in range(facts.size):
            best = late[i]
            for j in must_precede[i]:
                best = min(best, late[j] - 1)
            if i in next_metal:
                best = min(best, late[next_metal[i]] - 1)
            if i != gold_tile:
                best = min(best, max((late[j] for j in mates[i]), default=0))
            if best < late[i]:
                late[i] = best
                changed = True
    return late
