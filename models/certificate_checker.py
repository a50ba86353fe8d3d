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
- ``dead-states``: :func:`check_dead_states` reads the JSON Lines file a line
  at a time (stopping at the first bad one) into arrays of 64-bit words, and
  checks that every listed state without a stuck set is closed under every
  legal move.  The closure is checked with numpy for many states at once, in
  batches of bounded size, so a file of 300,000 states takes about a second and
  memory stays near 16 bytes a state (README "Limits").

A certificate that does not parse, or that is for another board, raises
:class:`CertificateError` (the caller's exit 2); one that parses but proves
nothing gives ``Verdict(False, reason)`` naming the first state or tile that
fails (exit 3).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING

from . import input_limits
from .bits import mask_of_ids, tile_ids
from .board import Board
from .hexgrid import Hex, from_rowcol, on_board, ring_neighbours, to_rowcol
from .input_limits import DEAD_STATES, MAX_STATES, InputError
from .rules import count_problem, counts_problem
from .tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE, name_of

if TYPE_CHECKING:  # numpy is imported where a dead-states check needs it, not at start-up
    import numpy as np

DEAD_STATES_FORMAT = "sigmar-dead-states"
DEAD_STATES_VERSION = 1
WORD = 0xFFFF_FFFF_FFFF_FFFF
# A dead-states file is read this many bytes at a time (its lines parsed by one json.loads).
BLOCK = 1 << 18


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
    """A parsed dead-states file: tile order, the listed states as rows of 64-bit words (row i is
    line i + 2, tiles 0-63 in word 0), the stuck sets some of them carry, by row (a state that
    names an empty list is there with 0), and the header line as read."""

    board_name: str
    order: tuple[Hex, ...]
    words: np.ndarray
    stuck: dict[int, int]
    header: dict

    def state(self, row: int) -> int:
        return sum(int(word) << (64 * w) for w, word in enumerate(self.words[row]))


def line_of(row: int) -> int:
    """The file line of a listed state (the header is line 1)."""
    return row + 2


def read_dead_states(
    board: Board, path: str | Path, form: str = DEAD_STATES_FORMAT, key: str = "stuck"
) -> DeadStatesFile:
    """Parse and validate the file's form against ``board``; CertificateError names the line at fault.

    The file is read a line at a time and refused at its first bad line (or when it is not a
    regular file, or above the dead-states limit).  ``form`` is the header's ``format`` and
    ``key`` the optional tile list a state line may carry (a play-bound file,
    :mod:`sigmar.models.play_bound_checker`, is read the same way with its own two)."""
    where = str(path)
    try:
        with input_limits.open_input(path, DEAD_STATES) as stream:
            return _read_dead_states(board, stream, where, form, key)
    except InputError as exc:
        raise CertificateError(str(exc)) from None


def _line_blocks(stream: input_limits.Capped, where: str) -> Iterator[tuple[int, list[str]]]:
    """The file's lines a block (about ``BLOCK`` bytes) at a time, with the number of the first.

    Every line must end with a newline (else the file was cut short) and be at most the
    dead-states line limit long; a block is decoded as UTF-8 in one go (an error names its line).
    """
    longest = DEAD_STATES.line_bytes
    number, pending = 1, b""
    while chunk := stream.read(BLOCK):
        pending += chunk
        cut = pending.rfind(b"\n")
        if cut < 0:
            if len(pending) > longest:
                raise CertificateError(f"{where}: line {number}: longer than {longest:,} bytes")
            continue
        block, pending = pending[:cut], pending[cut + 1 :]
        if number == 1:
            block = block.removeprefix(input_limits.BOM)
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = number + block[: exc.start].count(b"\n")
            raise CertificateError(f"{where}: line {line}: not UTF-8 text") from None
        lines = text.split("\n")
        yield number, lines
        number += len(lines)
    if pending:
        raise CertificateError(f"{where}: line {number}: the file does not end with a newline (truncated?)")


def _records(lines: list[str], first: int, where: str) -> list:
    """The JSON value of each line, parsed in one call; a bad line is then found one by one."""
    try:
        records = json.loads("[" + ",".join(lines) + "]")
        if len(records) == len(lines):
            return records
    except (ValueError, RecursionError):
        pass
    for number, line in enumerate(lines, start=first):
        _json_line(line, where, number)
    raise CertificateError(f"{where}: line {first}-{first + len(lines) - 1}: a line holds more than one JSON value")


def _read_dead_states(board: Board, stream: input_limits.Capped, where: str, form: str, key: str) -> DeadStatesFile:
    from array import array

    import numpy as np

    blocks = _line_blocks(stream, where)
    first = next(blocks, None)
    if first is None:
        raise CertificateError(f"{where}: the file is empty")
    header = _json_line(first[1][0], where, 1)
    order = _read_header(board, header, where, form)
    n = len(order)
    words = max(1, (n + 63) // 64)
    columns = [array("Q") for _ in range(words)]
    stuck: dict[int, int] = {}
    for start, lines in _chain_blocks((2, first[1][1:]), blocks):
        if start + len(lines) - 1 > MAX_STATES + 1:
            raise CertificateError(f"{where}: more than {MAX_STATES:,} states; refused")
        for number, record in enumerate(_records(lines, start, where) if lines else [], start=start):
            if not isinstance(record, dict) or not isinstance(record.get("state"), str):
                raise CertificateError(f'{where}: line {number}: expected {{"state": HEX}}')
            try:
                state = int(record["state"], 16)
            except ValueError:
                shown = record["state"][:40]
                raise CertificateError(f"{where}: line {number}: state {shown!r} is not hexadecimal") from None
            if state < 0 or state >> n:
                raise CertificateError(f"{where}: line {number}: the state names a tile beyond the {n} of the header")
            if key in record:
                stuck[number - 2] = _stuck_indices(record[key], n, where, number, key)
            if words == 1:
                columns[0].append(state)
            else:
                for w in range(words):
                    columns[w].append((state >> (64 * w)) & WORD)
    count = len(columns[0])
    if not count:
        raise CertificateError(f"{where}: no states after the header")
    table = np.empty((count, words), dtype=np.uint64)
    for w, column in enumerate(columns):
        table[:, w] = np.frombuffer(column, dtype=np.uint64)
        del column[:]  # the array's copy is the one kept
    return DeadStatesFile(str(header.get("board", "")), order, table, stuck, header)


def _chain_blocks(
    head: tuple[int, list[str]], rest: Iterator[tuple[int, list[str]]]
) -> Iterator[tuple[int, list[str]]]:
    yield head
    yield from rest


def _json_line(line: str, where: str, number: int) -> dict:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise CertificateError(f"{where}: line {number}: not JSON ({why})") from None
    if not isinstance(record, dict):
        raise CertificateError(f"{where}: line {number}: expected a JSON object")
    return record


def _read_header(board: Board, header: dict, where: str, form: str) -> tuple[Hex, ...]:
    if header.get("format") != form or header.get("version") != DEAD_STATES_VERSION:
        expected = f"format {form!r}, version {DEAD_STATES_VERSION}"
        raise CertificateError(f"{where}: line 1: expected a header with {expected}")
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


def _stuck_indices(value: object, n: int, where: str, number: int, key: str = "stuck") -> int:
    if not isinstance(value, list) or not all(type(x) is int and 0 <= x < n for x in value):
        raise CertificateError(f'{where}: line {number}: "{key}" must list tile indices from 0 to {n - 1}')
    if len(set(value)) != len(value):
        raise CertificateError(f'{where}: line {number}: "{key}" lists a tile twice')
    return mask_of_ids(value)


def check_dead_states(board: Board, path: str | Path) -> Verdict:
    """A ``dead-states`` certificate: the listed states, the first the whole board, are closed under moves."""
    import numpy as np

    found = read_dead_states(board, path)
    m = Masks(board, found.order)
    full = (1 << m.size) - 1
    if found.state(0) != full:
        return Verdict(False, f"line {line_of(0)}: the first state is not the whole board")
    empty = np.nonzero(~found.words.any(axis=1))[0]
    if len(empty):
        return Verdict(False, f"line {line_of(int(empty[0]))}: a listed state is empty, which is the solved board")
    checked: dict[tuple[int, int], Verdict] = {}
    for row, k in sorted(found.stuck.items()):
        if k:
            state = found.state(row)
            verdict = checked.get((state, k))
            if verdict is None:
                verdict = checked[(state, k)] = stuck_verdict(m, state, k)
            if not verdict.valid:
                return Verdict(False, f"line {line_of(row)}: state {state:x}: its stuck set fails: {verdict.reason}")
    expanded = np.ones(len(found.words), dtype=bool)
    expanded[[row for row, k in found.stuck.items() if k]] = False
    rows = np.nonzero(expanded)[0]
    failure = Closure(m, found.words).first_open(found.words, rows)
    if failure is not None:
        row, move, child = failure
        state = found.state(row)
        tiles = " and ".join(m.where(t) for t in move)
        lead = "the empty board (the board is solvable)" if not child else f"state {child:x}"
        return Verdict(
            False,
            f"line {line_of(row)}: state {state:x}: removing {tiles} leads to {lead}, "
            "which is not listed and whose counts can pair up",
        )
    stuck_count = sum(1 for k in found.stuck.values() if k)
    return Verdict(
        True,
        f"{len(found.words):,} states closed under every legal move ({stuck_count:,} of them with a stuck set)",
    )


# ---------------------------------------------------------------- closure, for all states at once


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
