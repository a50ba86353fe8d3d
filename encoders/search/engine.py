"""The search engine behind the ``search`` backend: depth-first search over bitmask states.

In four modules: ``state`` (the board's masks and counters), ``moves``
(move generation and orders), ``pruning`` (locked metals, stuck sets) and this
one (the depth-first search with its dead table and restarts).

Glossary (the board's terms are those of ``sigmar.models.facts``: window, partners, metal chain):

- *occ*: the tiles still on the board, one bit per tile id.
- *free*: the occupied tiles that may be taken now: those with a window that
  holds no tile left (``occ & window == 0``).
- *dead*: a state proved to have no solution; the transposition table is the set
  of dead states (the current metal is a function of ``occ``, so ``occ`` is the key).

Why it is fast enough in pure Python: freeness changes only around the tiles just
removed, so the free set is updated incrementally; moves are generated per symbol
from ``free & symbol_mask``; and every pruning rule below is sound, so a dead
state is dead for good.

Pruning (each sound, argued where it is applied):

- counts: salt spent on an element of even count must leave enough salt for the
  odd elements (the only way the pair counts of a state can break);
- locked metals: a metal whose every window holds a later metal, or more
  quicksilver than there are earlier metals left to take them, can never be
  freed; a quicksilver whose every window holds gold or the last non-gold
  metal can never leave.  Both depend only on the metals and quicksilver left,
  so the verdict is cached per such subset;
- stuck sets (at the start only: inside the search they cost more than they
  saved): the largest set of tiles that are walled in by the set, wait for a
  lower metal of the set, or can pair only with such tiles never shrinks;
- safe moves (no branching): gold when it can leave; vitae with mors when every
  vitae and mors left is free; an element pair when no salt is left and every
  tile of that element is free; salt with salt when no element is left and all
  salt is free; the last quicksilver with the last non-gold metal.  In each case
  every solution can be reordered to start with the move.

Move order (``restarts``, the default): budgeted runs (Luby sequence times
``restart_base`` nodes), each with a fresh random order, sharing the dead table.
The random weight of a tile leans towards tiles with many neighbours (each is
worth a quarter of the random range), and quintessence moves come first.

Partial-order reduction (optional, ``sleep=True``): two legal moves that share
no tile commute (removing tiles only frees tiles; a metal move changes the
current metal, which disables no other legal move but the other quicksilver
moves on the same metal, which share its tile).  Sleep sets skip the second
order of such a pair; see ``_dfs_sleep_set`` for how they meet the dead table.
Measured in docs/search.md: they lose to the dead table alone.
"""

from __future__ import annotations

import time
from _random import Random  # random.Random without the random module (issue 48)

from sigmar.encoders.search.moves import MoveGeneration
from sigmar.encoders.search.pruning import Pruning
from sigmar.encoders.search.state import MAX_DEAD, ORDERS, RESTART_ORDERS
from sigmar.models.records import Record
from sigmar.models.result import Status
from sigmar.models.stuck_sets import explain_stuck

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_DEAD", "ORDERS", "RESTART_ORDERS", "Engine", "Outcome", "luby"]


class Timeout(Exception):
    """Raised inside the search when the deadline has passed."""


class Budget(Exception):
    """Raised inside the search when a restart's node budget is spent."""


def luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 ...: restart budgets with a proven worst case."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while (1 << k) - 1 != i:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


class Outcome(Record):
    """What the engine found: ``solution`` (removal masks in order), or proof of none, or nothing."""

    __slots__ = __match_args__ = ("status", "solution", "why", "explanation", "statistics")
    status: Status
    solution: list[int]
    why: str  # for unsolvable: "exhausted" or "static"
    explanation: str
    statistics: dict[str, Any]

    def __init__(
        self,
        status: Status,
        solution: list[int] | None = None,
        why: str = "",
        explanation: str = "",
        statistics: dict[str, Any] | None = None,
    ) -> None:
        self.status = status
        self.solution = [] if solution is None else solution
        self.why = why
        self.explanation = explanation
        self.statistics = {} if statistics is None else statistics


class Engine(Pruning, MoveGeneration):
    """The depth-first search over one board's states (the masks come from ``EngineState``)."""

    def stop(self) -> None:
        self._stop = True

    def run(self, time_limit: float | None = None, sleep: bool = False) -> Outcome:
        start = time.perf_counter()
        deadline = start + time_limit if time_limit is not None else float("inf")
        occ = self.full
        status = Status.UNKNOWN
        solution: list[int] = []
        why = explanation = ""
        problem = self.lock_problem(occ) if self.locks else None
        free = self.free_set(occ)
        if problem is None and self.stuck_root:
            # The fast worklist knows rules (a), (b), (e) only; with lock_problem above it caught 214 of the
            # 215 boards the full finder (``sigmar.models.stuck_sets``) catches in a sample of 3,030, at a third
            # of its cost on solvable boards.  The certificate always comes from the full finder.
            stuck = self.stuck_set_fast(occ, free)
            problem = explain_stuck(self.board, frozenset(self.tile_ids(stuck))) if stuck else None
        if problem is not None:
            status, why, explanation = Status.UNSOLVABLE, "static", problem
        else:
            try:
                found = self._search(occ, free, deadline, sleep)
            except Timeout:
                found = None
            if found is None:
                status = Status.UNKNOWN
            elif isinstance(found, list):
                status = Status.SOLVED
                solution = found
            else:
                status, why = Status.UNSOLVABLE, "exhausted"
                explanation = f"a complete search of {self.nodes} states found no way to clear the board"
        return Outcome(status, solution, why, explanation, self.statistics(time.perf_counter() - start))

    def _search(self, occ: int, free: int, deadline: float, sleep: bool) -> list[int] | bool:
        """One full search, or (order ``restarts``) a series of budgeted ones sharing the dead table.

        Restarting loses nothing that was proved: dead states stay dead.  Only the states on
        the abandoned path are left unresolved, and the budgets grow (Luby) without bound, so
        the last run always finishes: the search stays complete.
        """
        dfs = self._dfs_sleep_set if sleep else self._dfs
        start: Any = frozenset() if sleep else None
        if self.order != "restarts":
            return dfs(occ, free, deadline, start)
        rng = Random(self.seed)
        try:
            while True:
                self.restarts += 1
                self.order = RESTART_ORDERS[(self.restarts - 1) % len(RESTART_ORDERS)]
                if self.order == "random":
                    self.random_keys(rng)
                self.cap = self.nodes + self.restart_base * luby(self.restarts)
                try:
                    return dfs(occ, free, deadline, start)
                except Budget:
                    continue
        finally:
            self.order = "restarts"

    def statistics(self, seconds: float) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "dead_states": len(self.dead),
            "tt_hits": self.tt_hits,
            "safe_moves": self.safe_moves,
            "pruned_counts": self.pruned_counts,
            "pruned_locks": self.pruned_locks,
            "pruned_stuck": self.pruned_stuck,
            "sleep_skips": self.sleep_skips,
            "restarts": self.restarts,
            "table_clears": self.table_clears,
            "order": self.order,
            "search_seconds": round(seconds, 6),
        }

    def _checkpoint(self, deadline: float) -> None:
        """Every 256 nodes: honour the deadline and ``stop()``, and keep the tables' memory bounded.

        A dead state takes about 100 bytes; past ``max_dead`` states the tables are emptied.
        Forgetting is sound (a forgotten dead state is only searched again), so the search
        stays complete, only slower.
        """
        if self._stop or time.perf_counter() > deadline:
            raise Timeout
        if len(self.dead) + len(self.partial) > self.max_dead:
            self.dead.clear()
            self.partial.clear()
            self.table_clears += 1

    def _enter(self, occ: int, free: int, deadline: float) -> bool:
        """Count a node, honour the deadline and the restart budget; True when ``occ`` is pruned as stuck."""
        self.nodes += 1
        if not self.nodes & 255:
            self._checkpoint(deadline)
        if self.nodes == self.cap:
            raise Budget
        if self.nodes >= self.stuck_after and occ.bit_count() >= self.stuck_min and self.stuck_set_fast(occ, free):
            self.pruned_stuck += 1
            self.dead.add(occ)
            return True
        return False

    def _dfs(self, occ: int, free: int, deadline: float, _: None = None) -> list[int] | bool:
        """A solution (removal masks) from ``occ``, or False when ``occ`` is dead."""
        if self._enter(occ, free, deadline):
            return False
        dead = self.dead
        mm = self.metal_mask | self.q_mask
        for r in self.moves(occ, free):
            child = occ & ~r
            if not child:
                return [r]
            if child in dead:
                self.tt_hits += 1
                continue
            if r & mm and self.locks and self.lock_problem(child) is not None:
                self.pruned_locks += 1
                dead.add(child)
                continue
            found = self._dfs(child, self._child_free(occ, free, r), deadline)
            if found:
                assert isinstance(found, list)
                found.append(r)
                return found
        dead.add(occ)
        return False

    def _dfs_sleep_set(self, occ: int, free: int, deadline: float, asleep: frozenset[int]) -> list[int] | bool:
        """Depth-first search with sleep sets.

        A move in ``asleep`` was already explored from an ancestor in an order where it came
        first, and it commutes with every move since, so exploring it here would reach states
        already covered.  A state explored with a non-empty sleep set is *not* proved dead (it
        skipped moves), so only states explored with an empty sleep set enter the dead table;
        the others are remembered with their sleep set, and a revisit with a superset of that
        sleep set is skipped (it would explore a subset of the same moves).
        """
        if self._enter(occ, free, deadline):
            return False
        dead = self.dead
        partial = self.partial
        mm = self.metal_mask | self.q_mask
        done: list[int] = []
        for r in self.moves(occ, free):
            if r in asleep:
                self.sleep_skips += 1
                continue
            child = occ & ~r
            if not child:
                return [r]
            if child in dead:
                self.tt_hits += 1
                done.append(r)
                continue
            if r & mm and self.locks and self.lock_problem(child) is not None:
                self.pruned_locks += 1
                dead.add(child)
                done.append(r)
                continue
            # Moves that stay asleep in the child: those disjoint from r.
            child_sleep = frozenset(s for s in (*asleep, *done) if not s & r)
            seen = partial.get(child)
            if seen is not None and seen <= child_sleep:
                self.tt_hits += 1
                done.append(r)
                continue
            found = self._dfs_sleep_set(child, self._child_free(occ, free, r), deadline, child_sleep)
            if found:
                assert isinstance(found, list)
                found.append(r)
                return found
            done.append(r)
        if asleep:
            old = partial.get(occ)
            partial[occ] = asleep if old is None else old & asleep
            if not partial[occ]:
                dead.add(occ)
        else:
            dead.add(occ)
        return False
