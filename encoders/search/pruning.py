"""The search's pruning arguments on a state: locked metals and quicksilver, and stuck sets by a worklist.

Both are fast, incremental forms of the suite's one stuck-set argument
(``sigmar.models.stuck_sets``), used inside the search; the tests hold them to it
(the plain fixed point they are checked against lives in tests/test_search.py).
"""

from __future__ import annotations

from sigmar.encoders.search.state import EngineState
from sigmar.models.facts import tile_ids


class Pruning(EngineState):
    """Sound static arguments the search applies to a state."""

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
            for q in tile_ids(qs):
                # A quicksilver leaves with some non-gold metal M while M is on the board, so one of
                # its windows must empty first; gold and the last non-gold metal never leave before M.
                if all(t & blockers for t in self.windows[q]):
                    return (
                        f"quicksilver at {self._where(q)} can never leave: "
                        f"every side is held by gold or by metal {sym[last]}"
                    )
        return None

    def _where(self, i: int) -> str:
        row, col = self.board.rowcol(self.cell_of(i))
        return f"[{row}, {col}]"

    def stuck_set_fast(self, occ: int, free: int) -> int:
        """The largest set of tiles that can never leave (0 when there is none), by a worklist.

        The argument of ``sigmar.models.stuck_sets`` on bitmasks, for any state: a set S of
        tiles still on the board where every tile is *locked* (each of its windows holds a tile
        of S, or it is a metal with a lower metal in S) or *waits for a locked partner* (it is
        not gold and every tile left that it could ever pair with is a locked tile of S).  The
        first move to take a tile of S would need a free tile of S, or a partner of one outside
        the locked part: neither exists, so S never shrinks.  (tests/test_search.py holds it to
        a plain fixed point and to ``sigmar.models.stuck_sets``.)

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
        stuck = occ
        locked = (occ & ~free) | (metals & ~self.current_metal(occ))
        loose = occ & ~locked  # never locked again; grows as locks open
        stack = [t for t in tile_ids(loose) if t == gold or partners[t] & loose]
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
