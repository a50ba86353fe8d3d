"""The independent reading of docs/formats.md#certificates: check a certificate that a board has no solution.

A backend that says "unsolvable" brings a certificate; this module decides
whether it proves the claim.  It is written from docs/formats.md alone (the rules and the certificates), over
plain bit masks of the board's tiles, and shares no code with the search
that finds stuck sets and dead states (nothing here imports ``encoders``,
nor :mod:`sigmar.models.facts`, which every backend and the stuck-set finder
read): it walks the six neighbours and derives windows and partners itself,
so a mistake in one reading of the rules is not repeated in the other.

- ``counts``: :func:`check_counts` asks the rule engine's count test.
- ``stuck``: :func:`check_stuck` tests each tile of K against rules (a)-(e).
- ``dead-states``: :func:`check_dead_states` reads the JSON Lines file and
  checks that every listed state without a stuck set is closed under every
  legal move.  The closure is checked for all states at once with numpy
  (states as arrays of 64-bit words), so a file of 300,000 states takes
  about a second, not minutes.

A certificate that does not parse, or that is for another board, raises
:class:`CertificateError` (the caller's exit 2); one that parses but proves
nothing gives ``Verdict(False, reason)`` naming the first state or tile that
fails (exit 3).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING

from .bits import mask_of_ids, tile_ids
from .board import Board
from .hexgrid import Hex, from_rowcol, on_board, ring_neighbours, to_rowcol
from .rules import count_problem, counts_problem
from .tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE, name_of

if TYPE_CHECKING:  # numpy is imported where a dead-states check needs it, not at start-up
    import numpy as np

DEAD_STATES_FORMAT = "sigmar-dead-states"
DEAD_STATES_VERSION = 1
# A dead-states file above this many states is refused before it is read into memory.
MAX_STATES = 5_000_000


class CertificateError(ValueError):
    """A certificate that cannot be read, or that belongs to another board (malformed, not wrong)."""


@dataclass(frozen=True)
class Verdict:
    """Whether a certificate proves its board unsolvable; ``reason`` says why not, or what it showed."""

    valid: bool
    reason: str


def check_counts(board: Board) -> Verdict:
    """A ``counts`` certificate: the tile counts of the starting board cannot pair up."""
    problem = count_problem(board)
    if problem is None:
        return Verdict(False, "the tile counts can pair up, so counts alone prove nothing")
    return Verdict(True, problem)


# ---------------------------------------------------------------- the board as bit masks


class Masks:
    """The board's tiles as bits, in a given order (bit i is ``order[i]``), and what a certificate needs of them."""

    def __init__(self, board: Board, order: Sequence[Hex] | None = None) -> None:
        self.board = board
        self.order: tuple[Hex, ...] = tuple(order) if order is not None else tuple(t.cell for t in board.tiles)
        bit_of = {cell: 1 << i for i, cell in enumerate(self.order)}
        self.bit_of = bit_of
        self.size = len(self.order)
        self.symbols = [board.symbol_at[cell] for cell in self.order]
        # A window is three consecutive neighbours; cells without a tile are empty for good.
        self.windows: list[tuple[int, ...]] = []
        for cell in self.order:
            ring = [bit_of.get(n, 0) for n in ring_neighbours(cell)]
            self.windows.append(tuple(ring[k] | ring[(k + 1) % 6] | ring[(k + 2) % 6] for k in range(6)))
        self.of_symbol: dict[str, int] = {}
        for i, symbol in enumerate(self.symbols):
            self.of_symbol[symbol] = self.of_symbol.get(symbol, 0) | 1 << i
        metals = sorted((s, i) for i, s in enumerate(self.symbols) if s in METALS)
        self.metal_tiles = [i for _, i in metals]  # ascending digit
        self.gold = self.metal_tiles[-1] if metals else -1
        self.quicksilver = self.of_symbol.get(QUICKSILVER, 0)
        self.lower = [0] * self.size  # per metal: the metals with a lower digit
        below = 0
        for i in self.metal_tiles:
            self.lower[i] = below
            below |= 1 << i
        self.metals = below
        self.partners = [self._partners(s) & ~(1 << i) for i, s in enumerate(self.symbols)]  # never itself

    def _partners(self, symbol: str) -> int:
        """The possible partners of a tile (docs/formats.md#stuck-sets), over the whole board."""
        get = self.of_symbol.get
        elements = 0
        for e in ELEMENTS:
            elements |= get(e, 0)
        if symbol in ELEMENTS:
            return get(symbol, 0) | get(SALT, 0) | get(QUINTESSENCE, 0)
        if symbol == QUINTESSENCE:  # it leaves with one of each element (the variant of docs/formats.md#the-rules)
            return elements
        if symbol == SALT:
            return get(SALT, 0) | elements
        if symbol == VITAE:
            return get(MORS, 0)
        if symbol == MORS:
            return get(VITAE, 0)
        gold_bit = 1 << self.gold if self.gold >= 0 else 0
        if symbol == QUICKSILVER:
            return self.metals & ~gold_bit
        if symbol in METALS and symbol != self.symbols[self.gold]:
            return self.quicksilver
        return 0  # gold

    def where(self, i: int) -> str:
        row, col = to_rowcol(self.order[i], self.board.dim)
        return f"{name_of(self.symbols[i])} at [{row}, {col}]"


# ---------------------------------------------------------------- stuck sets


def _rules_a_to_d(m: Masks, present: int, stuck: int) -> dict[int, str]:
    """The tiles of K held by (a), (b), (c) or (d), with the first rule's letter."""
    q_present = present & m.quicksilver
    walled: dict[int, bool] = {}
    locked: dict[int, bool] = {}
    held: dict[int, str] = {}
    for t in tile_ids(stuck):
        walled[t] = all(w & stuck for w in m.windows[t])
        if m.symbols[t] in METALS:
            lower_present = (m.lower[t] & present).bit_count()
            locked[t] = all(w & stuck or (w & q_present).bit_count() > lower_present for w in m.windows[t])
        if walled[t]:
            held[t] = "a"
        elif m.symbols[t] in METALS and m.lower[t] & stuck:
            held[t] = "b"
        elif locked.get(t):
            held[t] = "c"
    lowest = next((i for i in m.metal_tiles if present >> i & 1), -1)
    lowest_held = lowest >= 0 and stuck >> lowest & 1 and (walled[lowest] or locked[lowest])
    if lowest_held:
        for t in tile_ids(stuck & m.quicksilver):
            held.setdefault(t, "d")
    return held


def holding(m: Masks, present: int, stuck: int) -> dict[int, str]:
    """Each tile of K held in state ``present``, with the letter of the first rule (a)-(e) that holds it."""
    held = _rules_a_to_d(m, present, stuck)
    by_a_to_d = 0
    for t in held:
        by_a_to_d |= 1 << t
    for t in tile_ids(stuck & ~by_a_to_d):
        if t != m.gold and not m.partners[t] & present & ~by_a_to_d:
            held[t] = "e"
    return held


def _why_not_held(m: Masks, present: int, stuck: int, t: int) -> str:
    """One sentence: which window leaves tile t free, and which partner could take it."""
    window = next((w for w in m.windows[t] if not w & stuck), 0)
    cells = ", ".join(m.where(i) for i in tile_ids(window & present)) or "no tiles"
    why = f"a window of it ({cells}) holds no tile of K"
    if t == m.gold:
        return why + ", and gold leaves alone"
    free_partners = tile_ids(m.partners[t] & present & ~mask_of_ids(_rules_a_to_d(m, present, stuck)))
    if free_partners:
        why += f", and its possible partner {m.where(free_partners[0])} is not held by (a)-(d)"
    return why


def stuck_verdict(m: Masks, present: int, stuck: int) -> Verdict:
    """Whether K (``stuck``) is a stuck set of the state ``present``, naming the first tile that is not held."""
    if not stuck:
        return Verdict(False, "the stuck set is empty")
    if stuck & ~present:
        t = tile_ids(stuck & ~present)[0]
        return Verdict(False, f"{m.where(t)} is in the stuck set but not in the state")
    held = holding(m, present, stuck)
    for t in tile_ids(stuck):
        if t not in held:
            return Verdict(
                False, f"{m.where(t)} is held by none of rules (a)-(e): {_why_not_held(m, present, stuck, t)}"
            )
    rules = "".join(sorted(set(held.values())))
    return Verdict(True, f"a stuck set of {len(held)} tiles, held by rules {', '.join(f'({r})' for r in rules)}")


def _cells_mask(m: Masks, cells: Iterable[Hex], what: str) -> int:
    mask = 0
    for cell in cells:
        bit = m.bit_of.get(cell)
        if bit is None:
            row, col = to_rowcol(cell, m.board.dim) if on_board(cell, m.board.dim) else cell
            raise CertificateError(f"{what} names [{row}, {col}], which holds no tile of board {m.board.name!r}")
        mask |= bit
    return mask


def check_stuck(board: Board, cells: Iterable[Hex], present: Iterable[Hex] | None = None) -> Verdict:
    """A ``stuck`` certificate: K (axial cells) is a stuck set of the state (default: the starting board)."""
    m = Masks(board)
    stuck = _cells_mask(m, cells, "the stuck set")
    state = _cells_mask(m, present, "the state") if present is not None else (1 << m.size) - 1
    return stuck_verdict(m, state, stuck)


def holding_rules(board: Board, cells: Iterable[Hex], present: Iterable[Hex] | None = None) -> dict[Hex, str]:
    """For each cell of K, the letter of the first rule (a)-(e) that holds its tile ('' when none does)."""
    m = Masks(board)
    cells = list(cells)
    stuck = _cells_mask(m, cells, "the stuck set")
    state = _cells_mask(m, present, "the state") if present is not None else (1 << m.size) - 1
    held = holding(m, state, stuck)
    return {cell: held.get(m.bit_of[cell].bit_length() - 1, "") for cell in cells}


# ---------------------------------------------------------------- dead-states files


@dataclass(frozen=True)
class DeadStatesFile:
    """A parsed dead-states file: tile order, and per listed state its line and stuck set (0: none)."""

    board_name: str
    order: tuple[Hex, ...]
    states: list[int]
    stuck: list[int]
    lines: list[int]


def read_dead_states(board: Board, path: str | Path) -> DeadStatesFile:
    """Parse and validate the file's form against ``board``; CertificateError names the line at fault."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CertificateError(f"{where}: cannot read the dead-states file: {exc}") from exc
    raw_lines = text.split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()
    elif raw_lines:
        raise CertificateError(f"{where}: line {len(raw_lines)}: the file does not end with a newline (truncated?)")
    if len(raw_lines) > MAX_STATES + 1:
        raise CertificateError(f"{where}: more than {MAX_STATES:,} states; refused")
    if not raw_lines:
        raise CertificateError(f"{where}: the file is empty")
    header = _json_line(raw_lines[0], where, 1)
    order = _read_header(board, header, where)
    records = _json_records(raw_lines, where)
    n = len(order)
    states: list[int] = []
    stuck: list[int] = []
    lines: list[int] = []
    for number, record in enumerate(records, start=2):
        if not isinstance(record, dict) or not isinstance(record.get("state"), str):
            raise CertificateError(f'{where}: line {number}: expected {{"state": HEX}}')
        try:
            state = int(record["state"], 16)
        except ValueError:
            raise CertificateError(f"{where}: line {number}: state {record['state']!r} is not hexadecimal") from None
        if state < 0 or state >> n:
            raise CertificateError(f"{where}: line {number}: the state names a tile beyond the {n} of the header")
        k = 0
        if "stuck" in record:
            k = _stuck_indices(record["stuck"], n, where, number)
        states.append(state)
        stuck.append(k)
        lines.append(number)
    if not states:
        raise CertificateError(f"{where}: no states after the header")
    return DeadStatesFile(str(header.get("board", "")), order, states, stuck, lines)


def _json_line(line: str, where: str, number: int) -> dict:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise CertificateError(f"{where}: line {number}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise CertificateError(f"{where}: line {number}: expected a JSON object")
    return record


def _json_records(raw_lines: list[str], where: str) -> list:
    """Every line after the header, parsed in one call; a bad line is then found one by one."""
    try:
        records = json.loads("[" + ",".join(raw_lines[1:]) + "]")
        if len(records) == len(raw_lines) - 1:
            return records
    except (ValueError, RecursionError):
        pass
    for number, line in enumerate(raw_lines[1:], start=2):
        _json_line(line, where, number)
    raise CertificateError(f"{where}: a line holds more than one JSON value")


def _read_header(board: Board, header: dict, where: str) -> tuple[Hex, ...]:
    if header.get("format") != DEAD_STATES_FORMAT or header.get("version") != DEAD_STATES_VERSION:
        raise CertificateError(
            f"{where}: line 1: expected a header with format {DEAD_STATES_FORMAT!r}, version {DEAD_STATES_VERSION}"
        )
    tiles = header.get("tiles")
    if not isinstance(tiles, list):
        raise CertificateError(f"{where}: line 1: the header has no list of tiles")
    order: list[Hex] = []
    for i, pair in enumerate(tiles):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and 0 <= x < 10_000 for x in pair)):
            raise CertificateError(f"{where}: line 1: tile {i} is not a [row, col] pair of non-negative integers")
        try:
            cell = from_rowcol(pair[0], pair[1], board.dim)
        except ValueError as exc:
            raise CertificateError(f"{where}: line 1: tile {i} [{pair[0]}, {pair[1]}]: {exc}") from None
        if cell not in board.symbol_at:
            raise CertificateError(
                f"{where}: line 1: tile {i} [{pair[0]}, {pair[1]}] is an empty cell of board {board.name!r}: "
                "the certificate is for another board"
            )
        order.append(cell)
    if len(set(order)) != len(order):
        raise CertificateError(f"{where}: line 1: a tile is listed twice")
    if len(order) != len(board.tiles):
        raise CertificateError(
            f"{where}: line 1: {len(order)} tiles, but board {board.name!r} has {len(board.tiles)}: "
            "the certificate is for another board"
        )
    return tuple(order)


def _stuck_indices(value: object, n: int, where: str, number: int) -> int:
    if not isinstance(value, list) or not all(type(x) is int and 0 <= x < n for x in value):
        raise CertificateError(f'{where}: line {number}: "stuck" must list tile indices from 0 to {n - 1}')
    if len(set(value)) != len(value):
        raise CertificateError(f'{where}: line {number}: "stuck" lists a tile twice')
    return mask_of_ids(value)


def check_dead_states(board: Board, path: str | Path) -> Verdict:
    """A ``dead-states`` certificate: the listed states, the first the whole board, are closed under moves."""
    found = read_dead_states(board, path)
    m = Masks(board, found.order)
    full = (1 << m.size) - 1
    if found.states[0] != full:
        return Verdict(False, f"line {found.lines[0]}: the first state is not the whole board")
    for state, line in zip(found.states, found.lines, strict=True):
        if not state:
            return Verdict(False, f"line {line}: a listed state is empty, which is the solved board")
    checked: dict[tuple[int, int], Verdict] = {}
    for state, k, line in zip(found.states, found.stuck, found.lines, strict=True):
        if k:
            verdict = checked.get((state, k))
            if verdict is None:
                verdict = checked[(state, k)] = stuck_verdict(m, state, k)
            if not verdict.valid:
                return Verdict(False, f"line {line}: state {state:x}: its stuck set fails: {verdict.reason}")
    expanded = [i for i, k in enumerate(found.stuck) if not k]
    failure = Closure(m, found.states).first_open([found.states[i] for i in expanded])
    if failure is not None:
        row, move, child = failure
        line = found.lines[expanded[row]]
        state = found.states[expanded[row]]
        tiles = " and ".join(m.where(t) for t in move)
        lead = "the empty board (the board is solvable)" if not child else f"state {child:x}"
        return Verdict(
            False,
            f"line {line}: state {state:x}: removing {tiles} leads to {lead}, "
            "which is not listed and whose counts can pair up",
        )
    stuck_count = sum(1 for k in found.stuck if k)
    return Verdict(
        True,
        f"{len(found.states):,} states closed under every legal move ({stuck_count:,} of them with a stuck set)",
    )


# ---------------------------------------------------------------- closure, for all states at once


class Closure:
    """Every legal move of many states at once, on states held as arrays of 64-bit words."""

    def __init__(self, m: Masks, listed: list[int]) -> None:
        self.m = m
        self.words = max(1, (m.size + 63) // 64)
        self.listed = self._keys(self._array(listed))
        self.listed_states = set(listed)

    def _array(self, states: list[int]) -> np.ndarray:
        """States as an (N, words) uint64 array, word 0 holding tiles 0-63."""
        import numpy as np

        columns = [
            np.array([(s >> (64 * w)) & 0xFFFF_FFFF_FFFF_FFFF for s in states], dtype=np.uint64)
            for w in range(self.words)
        ]
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

    def _keys(self, states: np.ndarray) -> np.ndarray:
        """One comparable value per state (a byte string of its words), sorted and unique."""
        import numpy as np

        return np.unique(np.ascontiguousarray(states).view(np.dtype((np.void, 8 * self.words))).ravel())

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

    def first_open(self, parents: list[int]) -> tuple[int, tuple[int, ...], int] | None:
        """The first parent (row, move, child) with a child neither listed nor dead by counts; None if closed."""
        if not parents:
            return None
        states = self._array(parents)
        free = self._free(states)
        found = [f for f in (self._open_pair(states, free), self._open_five(parents, free)) if f is not None]
        return min(found, key=lambda f: f[0]) if found else None

    def _open_five(self, parents: list[int], free: list[np.ndarray]) -> tuple[int, tuple[int, ...], int] | None:
        """:meth:`first_open` for the quintessence moves, played out one state at a time (they are rare)."""
        import numpy as np

        m = self.m
        kinds = [tile_ids(m.of_symbol.get(s, 0)) for s in (QUINTESSENCE, *sorted(ELEMENTS))]
        if not all(kinds):
            return None
        possible = np.ones(len(parents), dtype=bool)
        for tiles in kinds:
            any_free = np.zeros(len(parents), dtype=bool)
            for t in tiles:
                any_free |= free[t]
            possible &= any_free
        for row in np.nonzero(possible)[0]:
            groups = [[t for t in tiles if free[t][row]] for tiles in kinds]
            for move in product(*groups):
                child = parents[row] & ~mask_of_ids(move)
                if child not in self.listed_states and not counts_dead(m, child):
                    return int(row), tuple(move), child
        return None

    def _open_pair(self, states: np.ndarray, free: list[np.ndarray]) -> tuple[int, tuple[int, ...], int] | None:
        """:meth:`first_open` for the pairs and gold alone, every state at once."""
        import numpy as np

        rows: list[np.ndarray] = []
        children: list[np.ndarray] = []
        move_ids: list[np.ndarray] = []
        moves = self._moves()
        for number, (tiles, waiting) in enumerate(moves):
            legal = free[tiles[0]].copy()
            for t in tiles[1:]:
                legal &= free[t]
            if waiting:
                legal &= self._none_of(states, waiting)
            where = np.nonzero(legal)[0]
            if not len(where):
                continue
            child = states[where].copy()
            for w, part in self._split(mask_of_ids(tiles)):
                child[:, w] &= ~part
            rows.append(where)
            children.append(child)
            move_ids.append(np.full(len(where), number))
        if not rows:
            return None
        all_rows = np.concatenate(rows)
        all_children = np.concatenate(children)
        all_moves = np.concatenate(move_ids)
        keys = np.ascontiguousarray(all_children).view(np.dtype((np.void, 8 * self.words))).ravel()
        unlisted = ~np.isin(keys, self.listed)
        if not unlisted.any():
            return None
        candidates = np.nonzero(unlisted)[0]
        alive = ~self._counts_dead(all_children[candidates])
        if not alive.any():
            return None
        bad = candidates[alive]
        first = bad[np.argmin(all_rows[bad])]
        child_int = sum(int(all_children[first, w]) << (64 * w) for w in range(self.words))
        return int(all_rows[first]), moves[int(all_moves[first])][0], child_int

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
