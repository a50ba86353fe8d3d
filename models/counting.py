"""How many ways a board can be cleared: the two counted notions and the rule engine's own count of each.

The notions (docs/formats.md#counts-of-solutions):

- ``sequences``: distinct move sequences that clear the board;
- ``pairings``: distinct partitions of the tiles into moves (two tiles, gold
  alone, quintessence with its four) such that some order of those moves
  clears the board.

This module's counts are the reference every backend's count is held
against.  They are written over :mod:`sigmar.models.rules` alone
(``Position.legal_moves``), memoised over positions, so that a mistake in a
backend cannot hide in the judge.

Why pairings can be counted by positions at all: removing tiles only frees
others, and the current metal only moves on when it leaves, so a move that is
legal stays legal until one of its own tiles leaves.  A set of moves can then
be cleared in some order exactly when playing, at every position, its
smallest legal move (in a fixed order of moves) clears it.  Each pairing so
has exactly one such *canonical* sequence, and counting the canonical
sequences counts the pairings: a sequence is canonical when no move played
later was already legal, and smaller, at an earlier position.  The state is
then the position and the moves ruled out so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.records import Frozen
from sigmar.models.result import Result, Status
from sigmar.models.rules import Position, count_problem
from sigmar.models.stopped import Stopped
from sigmar.models.word_enums import Words, word_enum

# States memoised before a count gives up with a lower bound: a state of a side-6 board costs about 1 KB
# (its position as a frozenset of cells), so the cap keeps the judge near 1 GB.
MAX_STATES = 1_000_000
# The largest integer a JSON number carries exactly in every reader (IEEE double): 2^53.
JSON_EXACT = 2**53


@word_enum
class Notion(Words):
    """What is counted (docs/formats.md#counts-of-solutions)."""

    SEQUENCES = "sequences"
    PAIRINGS = "pairings"


NOTIONS = tuple(n.value for n in Notion)


class Count(Frozen):
    """A count of one notion: ``value`` exactly when ``exact``, else a lower bound ("at least value")."""

    __slots__ = __match_args__ = ("notion", "value", "exact")
    notion: Notion
    value: int
    exact: bool

    def __init__(self, notion: Notion, value: int, exact: bool) -> None:
        object.__setattr__(self, "notion", notion)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "exact", exact)

    def __str__(self) -> str:
        return f"{self.value:,}" if self.exact else f"at least {self.value:,}"


def json_number(value: int) -> int | str:
    """An exact integer for JSON: a number up to 2^53, a string of digits above (where doubles lose digits)."""
    return value if abs(value) <= JSON_EXACT else str(value)


def count_in(answer: Result) -> Count | None:
    """The count a counting job's answer carries (``runners/checking/intake.py``, ``counted``); None for an
    error or a killed run."""
    stats = answer.statistics
    if answer.status is Status.ERROR or "count" not in stats:
        return None
    return Count(Notion(stats["notion"]), int(stats["count"]), bool(stats["exact"]))


def notion_of(text: str) -> Notion:
    """The notion named ``text``; ValueError naming the choices otherwise."""
    try:
        return Notion(text)
    except ValueError:
        raise ValueError(f"unknown notion '{text}' (choose from {', '.join(NOTIONS)})") from None


def reference_count(
    board: Board, notion: Notion | str, time_limit: float | None = None, max_states: int = MAX_STATES
) -> Count:
    """The rule engine's count of ``notion`` on ``board``; a lower bound when ``time_limit`` or ``max_states``
    stops it."""
    notion = notion_of(str(notion))
    if count_problem(board) is not None:
        return Count(notion, 0, True)  # the counts cannot pair up: nothing clears the board
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    counter = _SequenceCounter(board) if notion is Notion.SEQUENCES else _PairingCounter(board)
    counter.deadline, counter.max_states = deadline, max_states
    try:
        return Count(notion, counter.start(), True)
    except Stopped as stopped:
        return Count(notion, stopped.partial, False)


class _Counter:
    """The memo, the clock and the cap that both counts share."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.deadline: float | None = None
        self.max_states = MAX_STATES
        self.steps = 0

    def tick(self, memo_size: int) -> None:
        self.steps += 1
        if memo_size >= self.max_states:
            raise Stopped(0)
        if self.deadline is not None and not self.steps & 255 and time.perf_counter() > self.deadline:
            raise Stopped(0)

    def summed(self, parts: Sequence[Callable[[], int]]) -> int:
        """The sum of ``parts``; when one stops, what was summed so far travels up with its partial count."""
        total = 0
        for part in parts:
            try:
                total += part()
            except Stopped as stopped:
                raise Stopped(total + stopped.partial) from None
        return total


class _SequenceCounter(_Counter):
    def __init__(self, board: Board) -> None:
        super().__init__(board)
        self.memo: dict[frozenset[Hex], int] = {}

    def start(self) -> int:
        return self.count(Position.start(self.board).occupied)

    def count(self, occupied: frozenset[Hex]) -> int:
        if not occupied:
            return 1
        known = self.memo.get(occupied)
        if known is not None:
            return known
        self.tick(len(self.memo))
        moves = Position(self.board, occupied).legal_moves()
        total = self.summed([partial(self.count, occupied - set(m.cells)) for m in moves])
        self.memo[occupied] = total
        return total


class _PairingCounter(_Counter):
    """Canonical sequences: at every position the smallest legal move of the pairing is played."""

    def __init__(self, board: Board) -> None:
        super().__init__(board)
        self.memo: dict[tuple[frozenset[Hex], frozenset[tuple[Hex, ...]]], int] = {}
        self.moves: dict[frozenset[Hex], list[tuple[Hex, ...]]] = {}

    def start(self) -> int:
        return self.count(Position.start(self.board).occupied, frozenset())

    def legal(self, occupied: frozenset[Hex]) -> list[tuple[Hex, ...]]:
        """The legal moves of a position in the fixed order (by their sorted tile numbers), once per position."""
        found = self.moves.get(occupied)
        if found is None:
            index = self.board.index_of
            legal = (m.cells for m in Position(self.board, occupied).legal_moves())
            found = self.moves[occupied] = sorted(legal, key=lambda cells: sorted(index[c] for c in cells))
        return found

    def count(self, occupied: frozenset[Hex], ruled_out: frozenset[tuple[Hex, ...]]) -> int:
        """Pairings of ``occupied`` that clear it and use none of the moves ``ruled_out``."""
        if not occupied:
            return 1
        key = (occupied, ruled_out)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.tick(len(self.memo))
        moves = [cells for cells in self.legal(occupied) if cells not in ruled_out]
        parts = []
        for k, cells in enumerate(moves):
            rest = occupied - set(cells)
            # Playing this move rules out, for good, every smaller move legal now (and those already
            # ruled out) that it leaves whole: were one in the pairing, it would have been played first.
            out = frozenset(m for m in (*ruled_out, *moves[:k]) if rest.issuperset(m))
            parts.append(partial(self.count, rest, out))
        total = self.summed(parts)
        self.memo[key] = total
        return total
