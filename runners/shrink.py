"""Shrinking a failing board to a smallest one that fails the same way (delta debugging, as cnfdd does for CNF).

``shrink(board, fails)`` tries smaller candidates in this order and keeps the
first that still ``fails``, until none does:

1. drop two tiles at once (so pairs leave together and the counts still pair up);
2. drop a quintessence with one each of the four elements (the five tiles of its move);
3. drop one tile;
4. relabel the metals: the digits compacted to 1, 2, ... in the same order;
5. move every tile onto a smaller side (any translation that fits).

``fails`` is asked once per candidate; the caller decides what "the same
way" means (same backend, same failure kind).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations, product

from sigmar.models.board import Board, Tile
from sigmar.models.hexgrid import cells, on_board
from sigmar.models.tiles import ELEMENTS, QUINTESSENCE

MIN_SIDE = 2


def without(board: Board, drop: set[int]) -> Board:
    return Board(board.dim, tuple(t for i, t in enumerate(board.tiles) if i not in drop), board.name)


def dropped_pairs(board: Board) -> Iterator[Board]:
    for i, j in combinations(range(len(board.tiles)), 2):
        yield without(board, {i, j})


def dropped_quintessence_moves(board: Board) -> Iterator[Board]:
    """A quintessence with one each of air, earth, fire and water: the five tiles of one move."""
    by_symbol: dict[str, list[int]] = {}
    for i, tile in enumerate(board.tiles):
        by_symbol.setdefault(tile.symbol, []).append(i)
    for x in by_symbol.get(QUINTESSENCE, []):
        for group in product(*(by_symbol.get(e, []) for e in sorted(ELEMENTS))):
            yield without(board, {x, *group})


def dropped_singles(board: Board) -> Iterator[Board]:
    for i in range(len(board.tiles)):
        yield without(board, {i})


def relabelled(board: Board) -> Iterator[Board]:
    """The metals renumbered 1, 2, ... in their order (the same board to every rule), if that changes them."""
    digits = {d: str(n) for n, d in enumerate(board.metals, start=1)}
    if all(d == new for d, new in digits.items()):
        return
    yield Board(board.dim, tuple(Tile(t.cell, digits.get(t.symbol, t.symbol)) for t in board.tiles), board.name)


def smaller_sides(board: Board) -> Iterator[Board]:
    """The tiles translated onto the next smaller side, in every position where they all fit."""
    dim = board.dim - 1
    if dim < MIN_SIDE:
        return
    span = 2 * board.dim
    for dq in range(-span, span + 1):
        for dr in range(-span, span + 1):
            moved = {(t.cell[0] + dq, t.cell[1] + dr): t.symbol for t in board.tiles}
            if all(on_board(c, dim) for c in moved):
                yield Board(dim, tuple(Tile(c, moved[c]) for c in cells(dim) if c in moved), board.name)


STEPS: tuple[Callable[[Board], Iterator[Board]], ...] = (
    dropped_pairs,
    dropped_quintessence_moves,
    dropped_singles,
    relabelled,
    smaller_sides,
)


def shrink(board: Board, fails: Callable[[Board], bool], budget: int = 2000) -> tuple[Board, int]:
    """A smallest board found that still fails, and how many candidates were tried (at most ``budget``)."""
    tried = 0
    progress = True
    while progress:
        progress = False
        for step in STEPS:
            for candidate in step(board):
                if tried >= budget:
                    return board, tried
                if not candidate.tiles:
                    continue
                tried += 1
                if fails(candidate):
                    board, progress = candidate, True
                    break
            if progress:
                break
    return board, tried
