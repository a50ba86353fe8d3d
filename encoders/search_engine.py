"""The search engine behind the ``search`` backend: depth-first search over bitmask states.

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

Partial-order reduction (optional, ``sleep=True``): two legal moves that share
no tile commute (removing tiles only frees tiles; a metal move changes the
current metal, which disables no other legal move but the other quicksilver
moves on the same metal, which share its tile).  Sleep sets skip the second
order of such a pair; see ``_dfs_sleep_set`` for how they meet the dead table.
Measured in docs/search.md: they lose to the dead table alone.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.hexgrid import distance
from sigmar.models.static import explain_stuck
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, SALT, VITAE

ORDERS = ("none", "centre", "metal", "neighbours", "freed", "mixed", "random", "restarts")
# The orders a restart cycles through (``restarts``), each with a fresh random tie-break.
RESTART_ORDERS = ("random",)
# Dead states kept before the tables are emptied (about 100 bytes each: some 400 MB).
MAX_DEAD = 4_000_000


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


@dataclass
class Outcome:
    """What the engine found: ``solution`` (removal masks in order), or proof of none, or nothing."""

    status: str  # "solved", "unsolvable", "unknown"
    solution: list[int] = field(default_factory=list)
    why: str = ""  # for unsolvable: "exhausted" or "static"
    explanation: str = ""
    statistics: dict[str, Any] = field(default_factory=dict)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Engine:
    """Precomputed masks for one board, and the search over them."""

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
        self.vitae_mask = facts.mask_of(VITAE)
        self.mors_mask = facts.mask_of(MORS)
        self.vm_mask = self.vitae_mask | self.mors_mask
        self.element_mask = sum(self.el_masks)
        self.metal_bits = [1 << m for m in self.metal_tiles]
        self.gold_bit = 1 << self.gold_tile if self.metal_tiles else 0
        self._lock_cache: dict[int, str | None] = {}
        # Stuck sets: per tile its partners, and per metal the lower metals it waits for.
        self.partners = list(facts.partners)
        self.lower = list(facts.lower)
        # Static move-order keys (lower first).
        cells = [t.cell for t in board.tiles]
        centre = (0, 0)
        self.key_centre = [distance(c, centre) for c in cells]
        self.key_nbrs = [-self.nbr[i].bit_count() for i in range(n)]
        self.key_metal = [[distance(c, cells[m]) for c in cells] for m in self.metal_tiles] or [[0] * n]
        self.key_random = [0] * n
        self._weights: dict[int, int] = {}
        if order == "random":  # one fixed random order (``restarts`` draws a new one per restart)
            rng = random.Random(n * 7919 + len(board.name))
            self.key_random = [rng.randrange(1 << 16) for _ in range(n)]
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

    # -- freeness -------------------------------------------------------------

    def is_free(self, i: int, occ: int) -> bool:
        return any(not occ & m for m in self.windows[i])

    def free_set(self, occ: int) -> int:
        free = 0
        for i in _bits(occ):
            if self.is_free(i, occ):
                free |= 1 << i
        return free

    # -- static arguments on metals and quicksilver -----------------------------

    def lock_problem(self, occ: int) -> str | None:
        """Why the metals and quicksilver left can never all leave, else None (cached)."""
        key = occ & (self.metal_mask | self.q_mask)
        if key in self._lock_cache:
            return self._lock_cache[key]
        why = self._lock_problem(key)
        self._lock_cache[key] = why
        return why

    def _lock_problem(self, key: int) -> str | None:
        sym = self.sym
        left = [m for m in self.metal_tiles if key >> m & 1]
        if not left:
            return None
        gold = self.gold_tile
        nongold = [m for m in left if m != gold]
        qs = key & self.q_mask
        for rank, m in enumerate(nongold):
            later = 0
            for other in left:
                if sym[other] > sym[m]:
                    later |= 1 << other
            # Tiles of a window must all leave before m is taken.  A later metal cannot;
            # each quicksilver needs an earlier metal of its own, and only `rank` are left.
            if all(t & later or (t & qs).bit_count() > rank for t in self.windows[m]):
                return (
                    f"metal {sym[m]} at {self._where(m)} can never be freed: every side is held by later metals "
                    "or by more quicksilver than there are earlier metals to take it"
                )
        if nongold and qs:
            last = nongold[-1]
            blockers = (1 << last) | (1 << gold if gold >= 0 and key >> gold & 1 else 0)
            for q in _bits(qs):
                # A quicksilver leaves with some non-gold metal M while M is on the board, so one of
                # its windows must empty first; gold and the last non-gold metal never leave before M.
                if all(t & blockers for t in self.windows[q]):
                    return (
                        f"quicksilver at {self._where(q)} can never leave: "
                        f"every side is held by gold or by metal {sym[last]}"
                    )
        return None

    def _where(self, i: int) -> str:
        row, col = self.board.rowcol(self.board.tiles[i].cell)
        return f"[{row}, {col}]"

    def stuck_set(self, occ: int, free: int) -> int:
        """The largest set of tiles that can never leave (0 when there is none).

        The argument of ``sigmar.models.static`` (issue 8), on bitmasks and for any state: a
        set S of tiles still on the board where every tile is *locked* (each of its windows
        holds a tile of S, or it is a metal with a lower metal in S) or *waits for a locked
        partner* (it is not gold and every tile left that it could ever pair with is a locked
        tile of S).  The first move to take a tile of S would need a free tile of S, or a
        partner of one outside the locked part: neither exists, so S never shrinks.  Using
        a superset of the true partners (quicksilver: every non-gold metal) only makes the
        rule harder to meet, so it stays sound.  The greatest such S is found by shrinking
        from all tiles; a free tile is never walled, so only ``~free`` needs the window scan.
        """
        windows = self.windows
        lower = self.lower
        partners = self.partners
        gold = self.gold_tile
        stuck = occ
        while stuck:
            locked = 0
            rest = stuck
            while rest:
                low = rest & -rest
                rest ^= low
                t = low.bit_length() - 1
                if lower[t] & stuck:
                    locked |= low
                elif not free & low:
                    for m in windows[t]:
                        if not m & stuck:
                            break
                    else:
                        locked |= low
            kept = locked
            rest = stuck & ~locked
            while rest:
                low = rest & -rest
                rest ^= low
                t = low.bit_length() - 1
                if t != gold and not partners[t] & occ & ~locked:
                    kept |= low
            if kept == stuck:
                return stuck
            stuck = kept
        return 0

    def stuck_set_fast(self, occ: int, free: int) -> int:
        """:meth:`stuck_set` by a worklist: the same set, touching only what each drop can change.

        Start from every tile: the locked ones are the tiles not free (walled in by ``occ``) and
        the metals above the current one.  A tile leaves the set when it is unlocked and gold or
        has a partner that is not locked.  A tile that leaves can unlock its neighbours (a window
        may now miss the set) and, if a metal, the metals above it; an unlocked tile makes its
        unlocked partners leave.  Locks only ever open, so each event is handled once.
        """
        windows = self.windows
        lower = self.lower
        partners = self.partners
        nbr = self.nbr
        gold = self.gold_tile
        metals = occ & self.metal_mask
        cur = 0
        for m in self.metal_bits:
            if occ & m:
                cur = m
                break
        stuck = occ
        locked = (occ & ~free) | (metals & ~cur)
        loose = occ & ~locked  # never locked again; grows as locks open
        stack = []
        rest = loose
        while rest:
            low = rest & -rest
            rest ^= low
            t = low.bit_length() - 1
            if t == gold or partners[t] & loose:
                stack.append(t)
        while stack:
            u = stack.pop()
            ub = 1 << u
            if not stuck & ub:
                continue
            stuck ^= ub
            cand = nbr[u] & locked
            if ub & metals:
                cand |= locked & metals
            while cand:
                low = cand & -cand
                cand ^= low
                v = low.bit_length() - 1
                if lower[v] & stuck:
                    continue
                for m in windows[v]:
                    if not m & stuck:
                        break
                else:
                    continue  # still walled in
                locked ^= low
                loose |= low
                pv = partners[v]
                if v == gold or pv & loose:
                    stack.append(v)
                dependants = pv & stuck & loose
                while dependants:
                    d = dependants & -dependants
                    dependants ^= d
                    stack.append(d.bit_length() - 1)
        return stuck

    # -- moves ----------------------------------------------------------------

    def moves(self, occ: int, free: int) -> list[int]:
        """Candidate moves as removal masks, safe moves alone when one exists, in search order."""
        cur = 0  # the current metal's bit
        for m in self.metal_bits:
            if occ & m:
                cur = m
                break
        if cur and cur == self.gold_bit and free & cur:
            self.safe_moves += 1
            return [cur]  # safe: gold is the last metal and removing it disables nothing
        out: list[int] = []
        safe = self.safe
        salt_occ = occ & self.salt_mask
        salt_free = free & self.salt_mask
        sl: list[int] = []
        while salt_free:
            low = salt_free & -salt_free
            sl.append(low)
            salt_free ^= low
        odd = 0
        for em in self.el_masks:
            odd += (occ & em).bit_count() & 1
        spare = salt_occ.bit_count() - odd  # even; salt beyond what the odd elements need
        for em in self.el_masks:
            ef = free & em
            if not ef:
                continue
            fl: list[int] = []
            while ef:
                low = ef & -ef
                fl.append(low)
                ef ^= low
            k = len(fl)
            if safe and not salt_occ and k > 1 and free & em == occ & em:
                self.safe_moves += 1
                return [fl[0] | fl[1]]
            for x in range(k - 1):
                bx = fl[x]
                for y in range(x + 1, k):
                    out.append(bx | fl[y])
            if sl:
                if spare < 2 and not (occ & em).bit_count() & 1:
                    self.pruned_counts += 1  # salt on an even element would starve an odd one
                else:
                    for bs in sl:
                        for be in fl:
                            out.append(bs | be)
        if len(sl) > 1 and spare >= 2:
            if safe and not occ & self.element_mask and len(sl) == salt_occ.bit_count():
                self.safe_moves += 1
                return [sl[0] | sl[1]]
            for x in range(len(sl) - 1):
                bx = sl[x]
                for y in range(x + 1, len(sl)):
                    out.append(bx | sl[y])
        vm_occ = occ & self.vm_mask
        if vm_occ:
            vf = free & self.vitae_mask
            mf = free & self.mors_mask
            if vf and mf:
                if safe and free & vm_occ == vm_occ:
                    self.safe_moves += 1
                    return [(vf & -vf) | (mf & -mf)]
                ml: list[int] = []
                while mf:
                    low = mf & -mf
                    ml.append(low)
                    mf ^= low
                while vf:
                    low = vf & -vf
                    vf ^= low
                    for bm in ml:
                        out.append(low | bm)
        if cur and free & cur:
            qf = free & self.q_mask
            if qf:
                if safe and (occ & self.q_mask) == qf and qf & (qf - 1) == 0:
                    self.safe_moves += 1
                    return [cur | qf]  # safe: the last quicksilver with the last non-gold metal
                while qf:
                    low = qf & -qf
                    qf ^= low
                    out.append(cur | low)
        if len(out) > 1 and self.order != "none":
            out = self._ordered(out, occ, free, cur.bit_length() - 1)
        return out

    def _ordered(self, out: list[int], occ: int, free: int, cur: int) -> list[int]:
        order = self.order
        if order == "random":
            # Moves recur in many states: cache each move's weight for this restart's keys.
            weights = self._weights
            key = self.key_random
            for r in out:
                if r not in weights:
                    w = 0
                    rr = r
                    while rr:
                        low = rr & -rr
                        w += key[low.bit_length() - 1]
                        rr ^= low
                    weights[r] = w
            out.sort(key=weights.__getitem__)
            return out
        if order == "centre":
            key = self.key_centre
        elif order == "neighbours":
            key = self.key_nbrs
        elif order == "metal":
            key = self.key_metal[self.metal_tiles.index(cur)] if cur >= 0 else self.key_centre
        elif order == "freed":
            return sorted(out, key=lambda r: -self._freed(r, occ, free))
        else:  # mixed: metal moves first, then nearest the current metal, then the centre
            km = self.key_metal[self.metal_tiles.index(cur)] if cur >= 0 else self.key_centre
            kc = self.key_centre
            mm = self.metal_mask

            def mixed(r: int) -> int:
                if r & mm:
                    return -1000
                s = 0
                while r:
                    low = r & -r
                    i = low.bit_length() - 1
                    s += 4 * km[i] + kc[i]
                    r ^= low
                return s

            return sorted(out, key=mixed)

        def static(r: int) -> int:
            s = 0
            while r:
                low = r & -r
                s += key[low.bit_length() - 1]
                r ^= low
            return s

        return sorted(out, key=static)

    def _freed(self, r: int, occ: int, free: int) -> int:
        child = occ & ~r
        cand = 0
        for i in _bits(r):
            cand |= self.nbr[i]
        cand &= child & ~free
        return sum(1 for i in _bits(cand) if self.is_free(i, child))

    # -- search ---------------------------------------------------------------

    def stop(self) -> None:
        self._stop = True

    def run(self, time_limit: float | None = None, sleep: bool = False) -> Outcome:
        start = time.perf_counter()
        deadline = start + time_limit if time_limit is not None else float("inf")
        occ = self.full
        status = "unknown"
        solution: list[int] = []
        why = explanation = ""
        problem = self.lock_problem(occ) if self.locks else None
        free = self.free_set(occ)
        if problem is None and self.stuck_root:
            # The fast worklist knows rules (a), (b), (e) only; with lock_problem above it caught 214 of the
            # 215 boards the full finder (``sigmar.models.static``) catches in a sample of 3,030, at a third
            # of its cost on solvable boards.  The certificate always comes from the full finder.
            stuck = self.stuck_set_fast(occ, free)
            problem = explain_stuck(self.board, frozenset(_bits(stuck))) if stuck else None
        if problem is not None:
            status, why, explanation = "unsolvable", "static", problem
        else:
            try:
                found = self._search(occ, free, deadline, sleep)
            except Timeout:
                found = None
            if found is None:
                status = "unknown"
            elif isinstance(found, list):
                status = "solved"
                solution = found
            else:
                status, why = "unsolvable", "exhausted"
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
        rng = random.Random(len(self.sym) * 7919 + occ % 1000003)
        try:
            while True:
                self.restarts += 1
                self.order = RESTART_ORDERS[(self.restarts - 1) % len(RESTART_ORDERS)]
                if self.order == "random":
                    self.key_random = [rng.randrange(1 << 16) for _ in range(self.n)]
                    self._weights = {}
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

    def _dfs(self, occ: int, free: int, deadline: float, _: None = None) -> list[int] | bool:
        """A solution (removal masks) from ``occ``, or False when ``occ`` is dead."""
        self.nodes += 1
        if not self.nodes & 255:
            self._checkpoint(deadline)
        if self.nodes == self.cap:
            raise Budget
        dead = self.dead
        if self.nodes >= self.stuck_after and occ.bit_count() >= self.stuck_min and self.stuck_set_fast(occ, free):
            self.pruned_stuck += 1
            dead.add(occ)
            return False
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
        self.nodes += 1
        if not self.nodes & 255:
            self._checkpoint(deadline)
        if self.nodes == self.cap:
            raise Budget
        dead = self.dead
        if self.nodes >= self.stuck_after and occ.bit_count() >= self.stuck_min and self.stuck_set_fast(occ, free):
            self.pruned_stuck += 1
            dead.add(occ)
            return False
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
