"""Every legal move of many states at once: whether a dead-states file is closed under play.

States are held as rows of 64-bit words and moved with numpy, in batches of
bounded size, so a file of 300,000 states takes about a second and memory
stays near 16 bytes a state (docs/formats.md, "Limits").  The moves and the count test
are read over the board's bit masks (:class:`.stuck_check.Masks`), never the search's.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING

from sigmar.models.bits import mask_of_ids, tile_ids
from sigmar.models.rules import counts_problem
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUINTESSENCE, SALT, VITAE
from sigmar.runners.checking.stuck_check import Masks

if TYPE_CHECKING:  # numpy is imported where a dead-states check needs it, not at start-up
    import numpy as np

WORD = 0xFFFF_FFFF_FFFF_FFFF


class Closure:
    """Every legal move of many states at once, on states held as arrays of 64-bit words.

    Parents are taken in batches, the first of ``FIRST_ROWS`` and each four times the last up to
    ``BATCH_ROWS`` (a file that is open early, as a forged one usually is, is answered after its
    first rows; a genuine one of a few thousand states is one batch, as fast as all at once), and
    their children are tested against the listed states ``CHILDREN`` at a time, so the memory
    it needs does not grow with the file.
    """

    FIRST_ROWS = 1 << 12
    BATCH_ROWS = 1 << 16
    CHILDREN = 1 << 18

    def __init__(self, m: Masks, listed: np.ndarray, *, counts_end_play: bool = True) -> None:
        """``listed``: every listed state, an (N, words) uint64 array.

        ``counts_end_play``: a child whose counts cannot pair up need not be listed (a
        dead-states file: such a state is never cleared).  A play-bound file sets it False:
        play goes on from such a state, and may clear more tiles."""
        self.m = m
        self.counts_end_play = counts_end_play
        self.words = max(1, (m.size + 63) // 64)
        self.listed = self._keys(listed)

    def _array(self, states: list[int]) -> np.ndarray:
        """States as an (N, words) uint64 array, word 0 holding tiles 0-63."""
        import numpy as np

        columns = [np.array([(s >> (64 * w)) & WORD for s in states], dtype=np.uint64) for w in range(self.words)]
        return np.stack(columns, axis=1) if states else np.zeros((0, self.words), dtype=np.uint64)

    def _split(self, mask: int) -> list[tuple[int, np.uint64]]:
        import numpy as np

        return [
            (w, np.uint64((mask >> (64 * w)) & 0xFFFF_FFFF_FFFF_FFFF))
            for w in range(self.words)
            if (mask >> (64 * w)) & 0xFFFF_FFFF_FFFF_FFFF
        ]

    def _none_of(self, states: np.ndarray, mask: int) -> np.ndarray:
        """Per state: no tile of ``mask`` present."""
        import numpy as np

        out = np.ones(len(states), dtype=bool)
        for w, part in self._split(mask):
            out &= (states[:, w] & part) == 0
        return out

    def _count(self, states: np.ndarray, mask: int) -> np.ndarray:
        import numpy as np

        out = np.zeros(len(states), dtype=np.int64)
        for w, part in self._split(mask):
            out += np.bitwise_count(states[:, w] & part).astype(np.int64)
        return out

    def _key_view(self, states: np.ndarray) -> np.ndarray:
        """One comparable value per state: the word itself, or a byte string of the words."""
        import numpy as np

        if self.words == 1:
            return np.ascontiguousarray(states[:, 0])
        return np.ascontiguousarray(states).view(np.dtype((np.void, 8 * self.words))).ravel()

    def _keys(self, states: np.ndarray) -> np.ndarray:
        """The states' keys, sorted and unique (sorted in place in one copy: ``np.unique`` takes about six)."""
        import numpy as np

        keys = np.sort(self._key_view(states))
        if len(keys) < 2:
            return keys
        fresh = np.empty(len(keys), dtype=bool)
        fresh[0] = True
        fresh[1:] = keys[1:] != keys[:-1]
        return keys[fresh]

    def _is_listed(self, states: np.ndarray) -> np.ndarray:
        """Per state: it is one of the listed states (a binary search in the sorted keys)."""
        import numpy as np

        keys = self._key_view(states)
        if not len(self.listed):
            return np.zeros(len(keys), dtype=bool)
        at = np.minimum(np.searchsorted(self.listed, keys), len(self.listed) - 1)
        return self.listed[at] == keys

    def _free(self, states: np.ndarray) -> list[np.ndarray]:
        """Per tile: present and free (three consecutive neighbours empty) in each state."""
        import numpy as np

        m = self.m
        free = []
        for t in range(m.size):
            here = ~self._none_of(states, 1 << t)
            open_window = np.zeros(len(states), dtype=bool)
            for window in set(m.windows[t]):
                open_window |= self._none_of(states, window)
            free.append(here & open_window)
        return free

    def _moves(self) -> list[tuple[tuple[int, ...], int]]:
        """Every pair (and gold alone) that could ever be a move, with the metals that must be gone first."""
        m = self.m
        out: list[tuple[tuple[int, ...], int]] = []
        gold_symbol = m.symbols[m.gold] if m.gold >= 0 else None
        quintessence = m.of_symbol.get(QUINTESSENCE, 0)
        for i in range(m.size):
            for j in range(i + 1, m.size):
                if not m.partners[i] >> j & 1 or (quintessence >> i | quintessence >> j) & 1:
                    continue  # quintessence never leaves in a pair
                metal = i if m.symbols[i] in METALS else j if m.symbols[j] in METALS else -1
                out.append(((i, j), m.lower[metal] if metal >= 0 else 0))
        if gold_symbol is not None:
            out.append(((m.gold,), m.metals & ~(1 << m.gold)))
        return out

    def first_open(self, table: np.ndarray, rows: np.ndarray) -> tuple[int, tuple[int, ...], int] | None:
        """The first of the parents ``table[rows]`` with a child neither listed nor dead by counts, as
        (its row in ``table``, move, child); None if they are closed.  Parents go a batch at a time."""
        start, size = 0, min(self.FIRST_ROWS, self.BATCH_ROWS)
        while start < len(rows):
            batch = rows[start : start + size]
            start, size = start + size, min(4 * size, self.BATCH_ROWS)
            states = table[batch]
            free = self._free(states)
            found = [f for f in (self._open_pair(states, free), self._open_five(states, free)) if f is not None]
            if found:
                row, move, child = min(found, key=lambda f: f[0])
                return int(batch[row]), move, child
        return None

    def _state(self, states: np.ndarray, row: int) -> int:
        return sum(int(states[row, w]) << (64 * w) for w in range(self.words))

    def _open_five(self, states: np.ndarray, free: list[np.ndarray]) -> tuple[int, tuple[int, ...], int] | None:
        """:meth:`first_open` for the quintessence moves, played out one state at a time (they are rare)."""
        import numpy as np

        m = self.m
        kinds = [tile_ids(m.of_symbol.get(s, 0)) for s in (QUINTESSENCE, *sorted(ELEMENTS))]
        if not all(kinds):
            return None
        possible = np.ones(len(states), dtype=bool)
        for tiles in kinds:
            any_free = np.zeros(len(states), dtype=bool)
            for t in tiles:
                any_free |= free[t]
            possible &= any_free
        for row in np.nonzero(possible)[0]:
            groups = [[t for t in tiles if free[t][row]] for tiles in kinds]
            parent = self._state(states, int(row))
            for move in product(*groups):
                child = parent & ~mask_of_ids(move)
                ends = self.counts_end_play and counts_dead(m, child)
                if not self._is_listed(self._array([child]))[0] and not ends:
                    return int(row), tuple(move), child
        return None

    def _open_pair(self, states: np.ndarray, free: list[np.ndarray]) -> tuple[int, tuple[int, ...], int] | None:
        """:meth:`first_open` for the pairs and gold alone, a bounded number of children at a time."""
        import numpy as np

        moves = self._moves()
        best: tuple[int, int, np.ndarray] | None = None  # (row, move number, child words)
        rows: list[np.ndarray] = []
        children: list[np.ndarray] = []
        move_ids: list[np.ndarray] = []
        held = 0

        def flush() -> None:
            nonlocal best, held
            if not rows:
                return
            all_rows = np.concatenate(rows)
            all_children = np.concatenate(children)
            all_moves = np.concatenate(move_ids)
            for pending in (rows, children, move_ids):
                pending.clear()
            held = 0
            candidates = np.nonzero(~self._is_listed(all_children))[0]
            if not len(candidates):
                return
            bad = candidates[~self._counts_dead(all_children[candidates])] if self.counts_end_play else candidates
            if not len(bad):
                return
            first = bad[np.argmin(all_rows[bad])]
            if best is None or all_rows[first] < best[0]:
                best = (int(all_rows[first]), int(all_moves[first]), all_children[first].copy())

        for number, (tiles, waiting) in enumerate(moves):
            legal = free[tiles[0]].copy()
            for t in tiles[1:]:
                legal &= free[t]
            if waiting:
                legal &= self._none_of(states, waiting)
            where = np.nonzero(legal)[0]
            if not len(where):
                continue
            child = states[where]
            for w, part in self._split(mask_of_ids(tiles)):
                child[:, w] &= ~part
            rows.append(where)
            children.append(child)
            move_ids.append(np.full(len(where), number, dtype=np.int32))
            held += len(where)
            if held >= self.CHILDREN:
                flush()
        flush()
        if best is None:
            return None
        row, number, words = best
        child_int = sum(int(words[w]) << (64 * w) for w in range(self.words))
        return row, moves[number][0], child_int

    def _counts_dead(self, states: np.ndarray) -> np.ndarray:
        """The count test (docs/formats.md#the-rules) per state: odd elements vs salt, vitae vs mors, quicksilver.

        With quintessence, each takes one of every element first (fewer of an element is dead too).
        """
        import numpy as np

        m = self.m
        get = m.of_symbol.get
        fives = self._count(states, get(QUINTESSENCE, 0))
        odd = np.zeros(len(states), dtype=np.int64)
        short = np.zeros(len(states), dtype=bool)
        for e in ELEMENTS:
            left = self._count(states, get(e, 0)) - fives
            short |= left < 0
            odd += left % 2
        salt = self._count(states, get(SALT, 0))
        gold_bit = 1 << m.gold if m.gold >= 0 else 0
        dead = short | (odd > salt) | ((salt - odd) % 2 == 1)
        dead |= self._count(states, get(VITAE, 0)) != self._count(states, get(MORS, 0))
        dead |= self._count(states, m.quicksilver) != self._count(states, m.metals & ~gold_bit)
        return dead


def counts_dead(m: Masks, state: int) -> bool:
    """The rule engine's count test (:func:`sigmar.models.rules.counts_problem`) on one state's masks."""
    get = m.of_symbol.get
    gold = 1 if m.gold >= 0 and state >> m.gold & 1 else 0
    gold_bit = 1 << m.gold if m.gold >= 0 else 0
    metals = (state & m.metals & ~gold_bit).bit_count()
    return (
        counts_problem(
            (state & get(QUINTESSENCE, 0)).bit_count(),
            {e: (state & get(e, 0)).bit_count() for e in ELEMENTS},
            (state & get(SALT, 0)).bit_count(),
            (state & get(VITAE, 0)).bit_count(),
            (state & get(MORS, 0)).bit_count(),
            (state & m.quicksilver).bit_count(),
            metals + gold,
            metals,
        )
        is not None
    )
