"""The reference rule engine (docs/formats.md#the-rules): every answer of every backend is replayed here.

This is the judge, not a solver.  Positions are immutable; a move is checked
by :meth:`Position.why_illegal`, which names the first rule it breaks.  A whole
solution is replayed by :func:`verify` over a bit mask of the occupied cells
(every answer passes there, so it costs what the search's own reading of a
state costs), and a rejected one again through :class:`Position` to name the
fault.  Both read a cell's six neighbours themselves, not through
:mod:`sigmar.models.facts`, which the solvers share: the judge must not inherit
a mistake from what it judges.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache, cached_property
from itertools import combinations, product
from operator import attrgetter

from sigmar.models.board import Board
from sigmar.models.cached import SecondUse
from sigmar.models.hexgrid import Hex, has_three_empty_in_a_row, ring_neighbours
from sigmar.models.hexgrid import cells as cells_of_side
from sigmar.models.records import Frozen
from sigmar.models.result import Move
from sigmar.models.tiles import ELEMENTS, METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE, name_of, pairs_with
from sigmar.models.word_enums import Words, word_enum

# The symbols of a quintessence move, sorted: air, earth, fire, water and quintessence.
QUINTESSENCE_MOVE = sorted([*ELEMENTS, QUINTESSENCE])


@word_enum
class Fault(Words):
    """What is wrong with a rejected move sequence."""

    MALFORMED = "malformed move"  # not one or two distinct cells
    MISSING = "tile missing"  # no tile (left) on that cell
    NOT_FREE = "tile not free"
    NOT_A_PAIR = "not a pair"
    METAL_ORDER = "metal out of order"
    TILES_LEFT = "tiles left at the end"


class Illegal(Frozen):
    __slots__ = __match_args__ = ("fault", "detail")
    fault: Fault
    detail: str

    def __init__(self, fault: Fault, detail: str) -> None:
        object.__setattr__(self, "fault", fault)
        object.__setattr__(self, "detail", detail)


class Position(Frozen):
    """A board in play: the starting board and the cells still holding a tile."""

    # No __slots__: ``current_metal`` is kept in its __dict__ (``cached_property``).
    __match_args__ = ("board", "occupied")
    board: Board
    occupied: frozenset[Hex]

    def __init__(self, board: Board, occupied: frozenset[Hex]) -> None:
        own = self.__dict__
        own["board"] = board
        own["occupied"] = occupied

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.board == other.board and self.occupied == other.occupied

    def __hash__(self) -> int:
        return hash((self.board, self.occupied))

    @classmethod
    def start(cls, board: Board) -> Position:
        return cls(board, frozenset(t.cell for t in board.tiles))

    def symbol(self, cell: Hex) -> str | None:
        return self.board.symbol_at[cell] if cell in self.occupied else None

    @cached_property
    def current_metal(self) -> str | None:
        """The lowest metal digit still on the board."""
        digits = [self.board.symbol_at[c] for c in self.occupied if self.board.symbol_at[c] in METALS]
        return min(digits) if digits else None

    def is_free(self, cell: Hex) -> bool:
        empty = [n not in self.occupied for n in ring_neighbours(cell)]
        return has_three_empty_in_a_row(empty)

    @property
    def is_clear(self) -> bool:
        return not self.occupied

    def why_illegal(self, move: Move) -> Illegal | None:
        """None for a legal move, else the first rule it breaks."""
        cells = move.cells
        if len(cells) not in (1, 2, 5) or len(set(cells)) != len(cells):
            return Illegal(Fault.MALFORMED, "a move is two different cells, gold alone, or five for quintessence")
        for cell in cells:
            if cell not in self.occupied:
                return Illegal(Fault.MISSING, f"no tile at {self._where(cell)}")
        symbols = [self.board.symbol_at[c] for c in cells]
        gold = self.board.gold
        if len(cells) == 5:
            if sorted(symbols) != QUINTESSENCE_MOVE:
                detail = "five tiles leave only as quintessence with air, earth, fire and water"
                return Illegal(Fault.NOT_A_PAIR, detail)
        elif len(cells) == 1:
            if symbols[0] != gold:
                return Illegal(Fault.NOT_A_PAIR, f"{name_of(symbols[0])} cannot leave alone; only gold can")
            if self.current_metal != gold:
                return Illegal(
                    Fault.METAL_ORDER,
                    f"gold must wait until metal {self.current_metal} has left",
                )
        else:
            why = self._pair_problem(symbols[0], symbols[1])
            if why is not None:
                return why
        for cell, symbol in zip(cells, symbols, strict=True):
            if not self.is_free(cell):
                return Illegal(Fault.NOT_FREE, f"{name_of(symbol)} at {self._where(cell)} is not free")
        return None

    def _pair_problem(self, a: str, b: str) -> Illegal | None:
        current, gold = self.current_metal, self.board.gold
        if pairs_with(a, b, current, gold):
            return None
        metal = a if a in METALS else b if b in METALS else None
        if metal is not None and QUICKSILVER in (a, b):
            if metal == gold:
                return Illegal(Fault.NOT_A_PAIR, "gold pairs with nothing")
            return Illegal(Fault.METAL_ORDER, f"metal {metal} is not the current metal ({current})")
        return Illegal(Fault.NOT_A_PAIR, f"{name_of(a)} and {name_of(b)} do not pair")

    def play(self, move: Move) -> Position:
        """The position after a move; raises ValueError when it is illegal."""
        why = self.why_illegal(move)
        if why is not None:
            raise ValueError(f"{why.fault.value}: {why.detail}")
        return Position(self.board, self.occupied - set(move.cells))

    def free_cells(self) -> list[Hex]:
        return sorted((c for c in self.occupied if self.is_free(c)), key=self.board.index_of.__getitem__)

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a canonical order (by tile index)."""
        free = self.free_cells()
        moves: list[Move] = []
        gold = self.board.gold
        if gold is not None and self.current_metal == gold:
            moves.extend(Move((c,)) for c in free if self.board.symbol_at[c] == gold)
        current = self.current_metal
        for a, b in combinations(free, 2):
            if pairs_with(self.board.symbol_at[a], self.board.symbol_at[b], current, gold):
                moves.append(Move((a, b)))
        by_symbol = {s: [c for c in free if self.board.symbol_at[c] == s] for s in QUINTESSENCE_MOVE}
        for group in product(*(by_symbol[s] for s in QUINTESSENCE_MOVE)):
            moves.append(Move(tuple(group)))
        return moves

    def _where(self, cell: Hex) -> str:
        row, col = self.board.rowcol(cell)
        return f"[{row}, {col}]"


class ReplayVerdict(Frozen):
    """The rule engine's judgement of a move sequence.

    ``move_number`` counts from 1 and names the first bad move (0 when every
    move was legal but tiles were left at the end).
    """

    __slots__ = __match_args__ = ("valid", "move_number", "fault", "detail")
    valid: bool
    move_number: int | None
    fault: Fault | None
    detail: str

    def __init__(
        self, valid: bool, move_number: int | None = None, fault: Fault | None = None, detail: str = ""
    ) -> None:
        object.__setattr__(self, "valid", valid)
        object.__setattr__(self, "move_number", move_number)
        object.__setattr__(self, "fault", fault)
        object.__setattr__(self, "detail", detail)

    def __str__(self) -> str:
        if self.valid:
            return "valid: the board is cleared"
        if self.fault is Fault.TILES_LEFT:
            return f"invalid: {self.fault.value}: {self.detail}"
        assert self.fault is not None
        return f"invalid: move {self.move_number}: {self.fault.value}: {self.detail}"


def verify(board: Board, moves: list[Move] | tuple[Move, ...]) -> ReplayVerdict:
    """Replay ``moves`` from the start; valid only when every move is legal and the board ends empty.

    The replay runs over bit masks (:func:`first_bad_move`); a sequence it rejects is replayed again
    move by move through :class:`Position`, which names the rule broken.
    """
    if first_bad_move(board, moves) is None:
        return _VALID
    return _first_fault(board, moves)


# Every valid replay's verdict: one, as it cannot change (a frozen record made with four ``object.__setattr__`` calls
# costs some 5.5 k instructions in Python 3.11, a third of a solution's compiled replay; issue 48).
_VALID = ReplayVerdict(True)


def _first_fault(board: Board, moves: list[Move] | tuple[Move, ...]) -> ReplayVerdict:
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        why = position.why_illegal(move)
        if why is not None:
            return ReplayVerdict(False, number, why.fault, why.detail)
        position = Position(board, position.occupied - set(move.cells))
    if not position.is_clear:
        left = len(position.occupied)
        return ReplayVerdict(False, 0, Fault.TILES_LEFT, f"{left} tile{'s' if left != 1 else ''} left")
    return ReplayVerdict(True)


def first_bad_move(board: Board, moves: list[Move] | tuple[Move, ...]) -> int | None:
    """None when ``moves`` are all legal and clear the board, else the number (from 1) of the first illegal
    move, 0 when tiles are left, -1 when a tile is off its board's side (only :class:`Position` reads that).

    Compiled where the extension was built (``models/_replay.c``: the same reading as :func:`_bad_move_read`,
    some ten times faster; issue 48, a board costs what its solving costs), else, or for what it does not
    read (a cell that is no plain key, an odd symbol), :func:`_bad_move_read`.
    """
    compiled = _compiled_replay.loaded or _compiled_replay()
    if compiled:
        index, ring = _replay_ring(board.dim)
        found: int | None = compiled(index, ring, board.tiles, moves)
        if found != -2:
            return found
    return _bad_move_read(board, moves)


# models/_replay.c's first_bad_move: loaded at a process's second replay, as the Python reading of one solution
# costs less than loading it
_compiled_replay = SecondUse("sigmar.models._replay", "first_bad_move")
_compiled_counts = SecondUse("sigmar.models._replay", "counts_pair_up")


def _bad_move_read(board: Board, moves: list[Move] | tuple[Move, ...]) -> int | None:
    """:func:`first_bad_move` in Python: the reference the compiled replay is held to (tests/test_properties.py).

    The rules of :meth:`Position.why_illegal`, over a bit mask of the occupied cells, one bit per cell of
    the board's side, with windows of its own (:func:`_replay_windows`, made from ``ring_neighbours`` as
    :class:`Position` reads them).  As fast as the search's own reading of a state, and apart from it:
    the search reads the side's tables (``hexgrid.side``) and the minimal windows of ``models/facts.py``
    and keeps its own free set; this reads all six windows of each cell and decides freeness at every
    move (remembered per cell and neighbours held, :func:`_replay_neighbours`, as the search remembers
    its windows), so a wrong table of the search's cannot make a wrong move pass.
    """
    index, windows = _replay_windows(board.dim)
    near, known = _replay_neighbours(board.dim)
    get = index.get
    start = _replay_start(board, index)
    if start is None:
        return -1
    occupied, symbols, metals = start  # bit c of occupied: cell c holds a tile, of symbol symbols[c]
    metal_bits = [1 << c for _, c in metals]
    lowest = 0  # metals[lowest] is the current metal once the metals before it have left
    current = metals[0][0] if metals else None
    gold = board.gold
    always = _PAIRS_ALWAYS
    for number, move in enumerate(moves, start=1):
        cells = move.cells
        if len(cells) == 2:  # a pair: most moves, read here rather than in a call
            a, b = get(cells[0]), get(cells[1])
            if a is None or b is None or a == b or not occupied >> a & 1 or not occupied >> b & 1:
                return number
            ids: tuple[int, ...] = (a, b)
        else:
            held = _held(cells, index, occupied)
            if held is None:
                return number
            ids = held
        if current is not None and not occupied & metal_bits[lowest]:
            while lowest < len(metals) and not occupied & metal_bits[lowest]:
                lowest += 1
            current = metals[lowest][0] if lowest < len(metals) else None
        if len(ids) == 2:
            pair = (symbols[ids[0]], symbols[ids[1]])
            if pair not in always and not pairs_with(*pair, current, gold):
                return number
        elif not _leave_together([symbols[c] for c in ids], current, gold):
            return number
        for c in ids:
            around = occupied & near[c]  # a cell's freeness is a function of its neighbours held: memoised
            free = known[c].get(around)
            if free is None:
                free = known[c][around] = _free(windows[c], around)
            if not free:
                return number
        for c in ids:  # after all are judged free: a pair's tiles must both be free before the move
            occupied ^= 1 << c
    return 0 if occupied else None


def _replay_start(board: Board, index: dict[Hex, int]) -> tuple[int, list[str], list[tuple[str, int]]] | None:
    """The replay's first state: the occupied cells' mask, each cell's symbol ("" where none) and the metals
    (symbol, cell index) in the order they leave; None when a tile is off the side (or two share a cell)."""
    occupied = 0
    symbols = [""] * len(index)
    metals = []
    get = index.get
    for tile in board.tiles:
        c = get(tile.cell)
        if c is None or occupied >> c & 1:
            return None
        occupied |= 1 << c
        symbols[c] = symbol = tile.symbol
        if symbol in METALS:
            metals.append((symbol, c))
    metals.sort()
    return occupied, symbols, metals


# The pairs that pair whatever the metals (elements, salt, vitae and mors), by the rule itself: a set look-up
# instead of a call for most moves of a replay; quicksilver and the metals are asked of ``pairs_with``.
_PLAIN_SYMBOLS = (*ELEMENTS, SALT, VITAE, MORS)
_PAIRS_ALWAYS = frozenset((a, b) for a in _PLAIN_SYMBOLS for b in _PLAIN_SYMBOLS if pairs_with(a, b, None, None))


@cache
def _replay_windows(dim: int) -> tuple[dict[Hex, int], tuple[tuple[int, ...], ...]]:
    """The replay's own geometry of side ``dim``, made once: each cell's index (reading order), and per cell
    its six windows (three ring-consecutive neighbours) as masks of cell bits, the cells off the board left
    out (they are empty for good)."""
    every = cells_of_side(dim)
    index = {cell: i for i, cell in enumerate(every)}
    windows = []
    for cell in every:  # made in every process that replays a solution: a few calls a cell
        b0, b1, b2, b3, b4, b5 = [1 << index[n] if n in index else 0 for n in ring_neighbours(cell)]
        windows.append((b0 | b1 | b2, b1 | b2 | b3, b2 | b3 | b4, b3 | b4 | b5, b4 | b5 | b0, b5 | b0 | b1))
    return index, tuple(windows)


@cache
def _replay_ring(dim: int) -> tuple[dict[Hex, int], bytes]:
    """The compiled replay's geometry of side ``dim``: each cell's index (reading order, as
    :func:`_replay_windows`) and per cell its six ring neighbours' indexes (-1: off the board), as int32s."""
    index = _replay_windows(dim)[0]
    ids = [index.get(n, -1) for cell in cells_of_side(dim) for n in ring_neighbours(cell)]
    return index, b"".join([c.to_bytes(4, sys.byteorder, signed=True) for c in ids])


@cache
def _replay_neighbours(dim: int) -> tuple[tuple[int, ...], list[dict[int, bool]]]:
    """Per cell of side ``dim``, the mask of its neighbours (the union of its windows), and the memo of its
    freeness by the neighbours that hold a tile (at most 64 entries a cell), filled as replays ask."""
    near = []
    for cell_windows in _replay_windows(dim)[1]:
        mask = 0
        for window in cell_windows:
            mask |= window
        near.append(mask)
    return tuple(near), [{} for _ in near]


def _free(windows: tuple[int, ...], occupied: int) -> bool:
    """Whether a cell with these windows is free: three neighbours in a row (a window) hold no tile."""
    for window in windows:  # noqa: SIM110 (a loop, not any() over a generator: it runs for every move replayed)
        if not occupied & window:
            return True
    return False


def _held(cells: tuple[Hex, ...], index: dict[Hex, int], occupied: int) -> tuple[int, ...] | None:
    """The cells of a move as cell indices, when they are one, two or five different cells holding a tile."""
    if len(cells) == 2:  # a pair: most moves
        a, b = index.get(cells[0]), index.get(cells[1])
        if a is None or b is None or a == b or not occupied >> a & 1 or not occupied >> b & 1:
            return None
        return a, b
    ids = []
    for cell in cells:
        c = index.get(cell)
        if c is None or not occupied >> c & 1:
            return None
        ids.append(c)
    return tuple(ids) if len(ids) in (1, 5) and len(set(ids)) == len(ids) else None


def _leave_together(symbols: list[str], current: str | None, gold: str | None) -> bool:
    """Whether tiles of these symbols may leave together now: a pair, gold alone last, or quintessence's five."""
    if len(symbols) == 2:
        return pairs_with(symbols[0], symbols[1], current, gold)
    if len(symbols) == 1:
        return symbols[0] == gold and current == gold
    return sorted(symbols) == QUINTESSENCE_MOVE


def count_problem(board: Board) -> str | None:
    """A sentence saying why the tile counts alone make the board unsolvable, else None.

    Sound because every move removes a pair (or gold alone) and the pair
    rules fix which counts can be matched: elements of odd count need salt,
    and the salt left over must pair with itself; vitae match mors one to
    one; each metal but gold takes exactly one quicksilver.
    """
    kept = board.__dict__.get("_count_problem", board)  # asked by the runner and again by each backend
    if kept is not board:
        return kept
    if _counts_pair_up(board):
        board.__dict__["_count_problem"] = None
        return None
    counts = board.counts
    metals = len(board.metals)
    elements = {e: counts[e] for e in ELEMENTS}
    quicksilver = (counts[QUICKSILVER], metals, max(metals - 1, 0))
    problem = counts_problem(counts[QUINTESSENCE], elements, counts[SALT], counts[VITAE], counts[MORS], *quicksilver)
    board.__dict__["_count_problem"] = problem  # a private name: not sent with the board (Board.__reduce__)
    return problem


def _counts_pair_up(board: Board) -> bool:
    """True when the counts test finds nothing wrong and the board holds no quintessence (False: ask the
    test itself).  Read off one string of the board's symbols with ``str.count`` (loops in C): the test's
    common case at a few calls, where the whole test took some 20 us a board after a search (issue 48); from a
    process's second board in one compiled pass (``models/_replay.c counts_pair_up``, held to this one)."""
    compiled = _compiled_counts.loaded or _compiled_counts()
    if compiled:
        found = compiled(board.tiles)
        if found is not None:  # else a symbol that is no one-character string: read below
            return bool(found)
    return _counts_pair_up_read(board)


def _counts_pair_up_read(board: Board) -> bool:
    """:func:`_counts_pair_up` in Python: the reference the compiled one is held to (tests/test_properties.py)."""
    symbols = "".join(map(_SYMBOL, board.tiles))
    if len(symbols) != len(board.tiles):
        return False  # a symbol of more than one character: the test itself says what it is
    count = symbols.count
    if count(QUINTESSENCE):
        return False
    elements = [count("a"), count("e"), count("f"), count("w")]
    salt, vitae, mors, quicksilver = count(SALT), count(VITAE), count(MORS), count(QUICKSILVER)
    metals = sum(map(count, _METAL_DIGITS))
    if sum(elements) + salt + vitae + mors + quicksilver + metals != len(symbols):
        return False  # a symbol that is none of these: the test itself says what it is
    odd = sum([e & 1 for e in elements])
    return salt >= odd and not (salt - odd) & 1 and vitae == mors and quicksilver == max(metals - 1, 0)


_SYMBOL = attrgetter("symbol")
_METAL_DIGITS = sorted(METALS)


def counts_problem(
    quintessence: int,
    elements: Mapping[str, int],
    salt: int,
    vitae: int,
    mors: int,
    quicksilver: int,
    metals: int,
    needed: int,
) -> str | None:
    """The counts test itself, on numbers, so that a state's bit masks ask it too (see :func:`count_problem`).

    ``needed`` is how many quicksilver the ``metals`` take: one for each but gold.
    """
    for e in sorted(ELEMENTS):
        if elements[e] < quintessence:
            return (
                f"{quintessence} quintessence each take one {name_of(e)}, but there "
                f"{'is' if elements[e] == 1 else 'are'} only {elements[e]}"
            )
    left = {e: elements[e] - quintessence for e in ELEMENTS}  # what pairs among themselves and with salt
    odd = sorted(e for e in ELEMENTS if left[e] % 2)
    if salt < len(odd):
        names = ", ".join(name_of(e) for e in odd)
        have = "element has" if len(odd) == 1 else "elements have"
        salts = "there is no salt" if salt == 0 else f"there {'is' if salt == 1 else 'are'} only {salt} salt"
        return f"{len(odd)} {have} an odd count ({names}) but {salts}"
    if (salt - len(odd)) % 2:
        return f"{salt} salt cannot pair up: after matching the {len(odd)} odd elements, an odd number is left"
    if vitae != mors:
        return f"{vitae} vitae cannot pair with {mors} mors"
    if quicksilver != needed:
        return (
            f"{quicksilver} quicksilver but {metals} metals: every metal but gold "
            f"takes exactly one quicksilver ({needed} in all)"
        )
    return None
