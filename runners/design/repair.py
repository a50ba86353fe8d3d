"""The smallest repair of an unsolvable board: one change (a swap of two tiles, or a tile moved to an empty cell).

A designer with a board that cannot be cleared wants the smallest edit that
fixes it.  Every board one change away is a candidate; each is solved by the
search in this process, and the first whose solution the rule engine replays
is the repair.  A board has a few thousand such neighbours (55 tiles on a
side-6 board: about 1,400 swaps and 2,000 moves), so the order matters:

- first the tiles that show where play gets stuck (the board's stuck set,
  then the tiles the deepest play leaves, which the caller passes as
  ``focus``), each moved to the most open empty cells, then swapped with the
  most open tiles;
- then every other change;
- in passes of growing time per candidate: most boards, solvable or not, are
  settled by the search in milliseconds, so a first short pass over all
  candidates finds a repair before a few hard neighbours use the time.

"No repair with one change" is said only when it is shown: every candidate
refuted with a certificate that the independent checker accepted
(:func:`sigmar.runners.checking.certify.certify`), or the counts, which no
swap or move changes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from sigmar.encoders.search import SearchBackend
from sigmar.models.board import Board, Tile
from sigmar.models.hexgrid import Hex, on_board, ring_neighbours
from sigmar.models.hexgrid import cells as hex_cells
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.tiles import name_of
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import run_replayed

# Seconds the search gets per candidate in each pass (the last pass: whatever time is left).
PASS_LIMITS = (0.05, 1.0)

ChangeKind = Literal["swap", "move"]


@dataclass(frozen=True)
class Change:
    """One edit: ``swap`` the tiles on two cells, or ``move`` the tile of the first cell to the empty second."""

    kind: ChangeKind
    cells: tuple[Hex, Hex]

    def apply(self, board: Board) -> Board:
        symbols = dict(board.symbol_at)
        a, b = self.cells
        if self.kind == "swap":
            symbols[a], symbols[b] = symbols[b], symbols[a]
        else:
            symbols[b] = symbols.pop(a)
        tiles = tuple(Tile(cell, symbols[cell]) for cell in hex_cells(board.dim) if cell in symbols)
        return Board(board.dim, tiles, board.name)

    def describe(self, board: Board) -> str:
        """In words, with the board's ``[row, col]`` cells (the board before the change)."""
        a, b = self.cells
        first = f"{name_of(board.symbol_at[a])} at {list(board.rowcol(a))}"
        if self.kind == "swap":
            return f"swap {first} with {name_of(board.symbol_at[b])} at {list(board.rowcol(b))}"
        return f"move {first} to the empty cell {list(board.rowcol(b))}"

    def json(self, board: Board) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "cells": [list(board.rowcol(cell)) for cell in self.cells],
            "text": self.describe(board),
        }


@dataclass(frozen=True)
class Repair:
    """What the search for a repair found.

    ``changes`` and ``board`` (the changed board) and ``solution`` (its answer, replayed) when a
    repair was found; else ``none_with_one`` says whether "no repair with one change" was shown, and
    ``why`` in words.  ``tried`` counts the searches (a candidate may take one per pass); ``unsettled``
    candidates of ``candidates`` were left
    without an answer (or without a checked certificate) when the time ran out.
    """

    changes: tuple[Change, ...] = ()
    board: Board | None = None
    solution: Result | None = None
    none_with_one: bool = False
    why: str = ""
    tried: int = 0
    candidates: int = 0
    unsettled: int = 0
    seconds: float = 0.0
    refutations: dict[Change, Result] = field(default_factory=dict, repr=False, compare=False)

    @property
    def found(self) -> bool:
        return self.board is not None


def openness(board: Board, cell: Hex) -> int:
    """How many of a cell's six neighbours are empty or off the board (a tile there is freed soonest)."""
    return sum(1 for n in ring_neighbours(cell) if n not in board.symbol_at or not on_board(n, board.dim))


def candidates(board: Board, focus: Iterable[Hex] = ()) -> Iterator[Change]:
    """Every one-change board, each once: the ``focus`` tiles' changes first, then the rest (module docstring)."""
    empty = sorted((c for c in hex_cells(board.dim) if c not in board.symbol_at), key=lambda c: -openness(board, c))
    tiles = sorted((t.cell for t in board.tiles), key=lambda c: -openness(board, c))
    first = list(dict.fromkeys(c for c in focus if c in board.symbol_at))
    seen: set[frozenset[Hex]] = set()
    for a in first + [c for c in tiles if c not in first]:
        for b in empty:
            yield Change("move", (a, b))
        for b in tiles:
            if board.symbol_at[a] == board.symbol_at[b] or frozenset((a, b)) in seen:
                continue
            seen.add(frozenset((a, b)))
            yield Change("swap", (a, b))


def smallest_repair(board: Board, time_limit: float, *, focus: Iterable[Hex] = ()) -> Repair:
    """The first one-change repair in :func:`candidates` order, or whether none exists (module docstring)."""
    start = time.perf_counter()
    deadline = start + time_limit
    problem = count_problem(board)
    if problem is not None:
        why = f"no swap or move can repair it: they keep the tile counts, and {problem}"
        return Repair(none_with_one=True, why=why, seconds=time.perf_counter() - start)
    order = list(candidates(board, focus))
    search = SearchBackend()
    open_: list[Change] = order
    refuted: dict[Change, Result] = {}
    tried = 0
    for per_candidate in (*PASS_LIMITS, None):
        left: list[Change] = []
        for change in open_:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                left.append(change)
                continue
            limit = remaining if per_candidate is None else min(per_candidate, remaining)
            changed = change.apply(board)
            result = run_replayed(search, changed, limit)
            tried += 1
            if result.status is Status.SOLVED and result.verified:
                return Repair(
                    (change,), changed, result, tried=tried, candidates=len(order), seconds=time.perf_counter() - start
                )
            if result.status is Status.UNSOLVABLE and (
                result.certificate is not None or result.reason is Reason.COUNTS
            ):
                refuted[change] = result
            else:  # no answer yet, or a "no" whose certificate the time cut short: again, with more time
                left.append(change)
        open_ = left
        if not open_:
            break
    return _no_repair(board, order, refuted, open_, tried, start, deadline)


def _no_repair(
    board: Board,
    order: list[Change],
    refuted: dict[Change, Result],
    unsettled: list[Change],
    tried: int,
    start: float,
    deadline: float,
) -> Repair:
    """No candidate was solved: shown when every one is refuted with a certificate that checks.

    The candidates' certificates are written to a temporary folder (thousands of files a board).
    """
    unchecked = len(unsettled)
    if not unsettled:
        with ProofStore() as store:
            for change, result in refuted.items():
                if time.perf_counter() > deadline:
                    unchecked = len(refuted)
                    break
                changed = change.apply(board)
                if not certify(changed, result, store).checked and not _refuted_by_proof(changed, store, deadline):
                    unchecked += 1
    shown = unchecked == 0
    if shown:
        why = f"each of the {len(order):,} boards one swap or move away is unsolvable (each certificate checked)"
    else:
        why = f"no repair with one change found: {unchecked:,} of the {len(order):,} candidates are not settled"
    return Repair(
        none_with_one=shown,
        why=why,
        tried=tried,
        candidates=len(order),
        unsettled=unchecked,
        seconds=time.perf_counter() - start,
        refutations=refuted,
    )


def _refuted_by_proof(board: Board, store: ProofStore, deadline: float) -> bool:
    """Whether the CNF route (a DRUP proof of the board's own formula, checked) refutes ``board`` in the time left.

    For the rare candidate whose dead states outgrow the search's certificate limit.
    """
    from sigmar.encoders.registry import make
    from sigmar.runners.prove import DEFAULT_PROVER

    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        return False
    result = run_replayed(make(f"cnf:{DEFAULT_PROVER}"), board, remaining)
    return result.status is Status.UNSOLVABLE and certify(board, result, store).checked
