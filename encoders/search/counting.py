"""The search backend's own counts (docs/formats.md#counts-of-solutions), over its bitmask states.

Written apart from the rule engine's reference count (``sigmar.models.counting``)
so that the two can be held against each other:

- ``sequences``: a memoised sum over states of every legal move
  (``certificates.legal_moves``: no safe moves, no pruning that drops a legal
  order), with states whose counts can no longer pair up counted as 0;
- ``pairings``: by *layers*, not by canonical sequences.  Removing tiles only
  frees others and a move stays legal until one of its tiles leaves, so a
  pairing that some order clears is played fastest in layers: every move of
  it legal at the start, then every move legal after those, and so on.  A
  sequence of layers is such a layering exactly when each layer is a
  non-empty set of disjoint moves, legal where it is played, none of them
  legal already before the previous layer (else it would have gone then).
  The state is the position before the previous layer and the position now.

A count stopped by the time limit, ``stop()`` or the state cap returns what it
had summed: a lower bound.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from sigmar.encoders.search.certificates import counts_dead, legal_moves
from sigmar.encoders.search.engine import Engine
from sigmar.models.stopped import Stopped

# States memoised before a count gives up with a lower bound.
MAX_STATES = 2_000_000


class Counting:
    """One count on one board; ``stop()`` from another thread ends it with what it has."""

    def __init__(self, engine: Engine, deadline: float | None, max_states: int = MAX_STATES) -> None:
        self.engine = engine
        self.deadline = deadline
        self.max_states = max_states
        self.stopped = False
        self.nodes = 0
        self.memo: dict[object, int] = {}
        self.moves_of: dict[int, frozenset[int]] = {}
        self.dead_of: dict[int, bool] = {}

    def count(self, notion: str) -> tuple[int, bool]:
        e = self.engine
        full, free = e.full, e.free_set(e.full)
        try:
            if notion == "sequences":
                return self.sequences(full, free), True
            return self.layerings(None, full, free), True
        except Stopped as stopped:
            return stopped.partial, False

    def _tick(self) -> None:
        self.nodes += 1
        if self.stopped or len(self.memo) >= self.max_states:
            raise Stopped(0)
        if self.deadline is not None and not self.nodes & 255 and time.perf_counter() > self.deadline:
            raise Stopped(0)

    def sequences(self, occ: int, free: int) -> int:
        if not occ:
            return 1
        known = self.memo.get(occ)
        if known is not None:
            return known
        self._tick()
        e = self.engine
        total = 0
        for move in legal_moves(e, occ, free):
            child = occ & ~move
            if child and counts_dead(e, child):
                continue
            try:
                total += self.sequences(child, e._child_free(occ, free, move))
            except Stopped as stopped:
                raise Stopped(total + stopped.partial) from None
        self.memo[occ] = total
        return total

    def legal(self, occ: int, free: int) -> frozenset[int]:
        """The legal moves of state ``occ``, once per state (each is the ``before`` of many layerings)."""
        found = self.moves_of.get(occ)
        if found is None:
            found = self.moves_of[occ] = frozenset(legal_moves(self.engine, occ, free))
        return found

    def dead(self, occ: int) -> bool:
        """Whether the counts of state ``occ`` can no longer pair up, once per state."""
        found = self.dead_of.get(occ)
        if found is None:
            found = self.dead_of[occ] = bool(occ) and counts_dead(self.engine, occ)
        return found

    def layerings(self, before: tuple[int, int] | None, occ: int, free: int) -> int:
        """Layerings of ``occ`` whose first layer holds no move legal at ``before`` (its state and free
        set; None at the start)."""
        if not occ:
            return 1
        key = (before and before[0], occ)
        known = self.memo.get(key)
        if known is not None:
            return known
        self._tick()
        e = self.engine
        old = frozenset() if before is None else self.legal(*before)
        new = [m for m in self.legal(occ, free) if m not in old]
        total = 0
        for layer in disjoint_sets(new):
            child = occ & ~layer
            if self.dead(child):
                continue
            try:
                total += self.layerings((occ, free), child, e._child_free(occ, free, layer))
            except Stopped as stopped:
                raise Stopped(total + stopped.partial) from None
        self.memo[key] = total
        return total


def disjoint_sets(moves: list[int], start: int = 0, used: int = 0) -> Iterator[int]:
    """The union of every non-empty set of pairwise disjoint ``moves[start:]`` that avoids ``used``."""
    for k in range(start, len(moves)):
        move = moves[k]
        if move & used:
            continue
        yield used | move
        yield from disjoint_sets(moves, k + 1, used | move)
