"""Hexagonal board geometry in axial coordinates.

Cells are ``(q, r)`` pairs (redblobgames' axial coordinates, ``s = -q - r``).
A board of side ``dim`` holds every cell with ``max(|q|, |r|, |s|) < dim``.
The six directions are listed in ring order, so "three consecutive empty
neighbours" is one scan around a cyclic list.  ``[row, col]`` exists only at
the edges (files, JSON): ``row = r + dim - 1`` and ``col`` counts from the
left of that row.
"""

from __future__ import annotations

from functools import cache

from sigmar.models.records import Frozen

Hex = tuple[int, int]

# Ring order: each direction is adjacent (as a neighbour) to the next one.
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def on_board(cell: Hex, dim: int) -> bool:
    q, r = cell
    radius = dim - 1
    return max(abs(q), abs(r), abs(q + r)) <= radius


def row_range(row: int, dim: int) -> tuple[int, int]:
    """First and last ``q`` of a row (inclusive)."""
    radius = dim - 1
    r = row - radius
    return max(-radius, -r - radius), min(radius, -r + radius)


def row_lengths(dim: int) -> tuple[int, ...]:
    """Cells per row, top to bottom: dim, dim+1, ..., 2*dim-1, ..., dim."""
    return tuple(hi - lo + 1 for lo, hi in (row_range(row, dim) for row in range(2 * dim - 1)))


def to_rowcol(cell: Hex, dim: int) -> tuple[int, int]:
    q, r = cell
    row = r + dim - 1
    return row, q - row_range(row, dim)[0]


def from_rowcol(row: int, col: int, dim: int) -> Hex:
    if not 0 <= row < 2 * dim - 1:
        raise ValueError(f"row {row} is off a board of side {dim}")
    lo, hi = row_range(row, dim)
    if not 0 <= col <= hi - lo:
        raise ValueError(f"column {col} is off row {row} of a board of side {dim}")
    return lo + col, row - (dim - 1)


@cache
def cells(dim: int) -> tuple[Hex, ...]:
    """Every cell of the board in reading order (row by row, left to right)."""
    out: list[Hex] = []
    for row in range(2 * dim - 1):
        lo, hi = row_range(row, dim)
        out.extend((q, row - (dim - 1)) for q in range(lo, hi + 1))
    return tuple(out)


def cell_count(dim: int) -> int:
    return 3 * dim * (dim - 1) + 1


def ring_neighbours(cell: Hex) -> tuple[Hex, ...]:
    """The six neighbours in ring order, on the board or not."""
    q, r = cell
    # DIRECTIONS, written out (no generator: called for every cell of a side's tables and of the replay's)
    return ((q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1))


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def has_three_empty_in_a_row(empty: tuple[bool, ...] | list[bool]) -> bool:
    """True when three cyclically consecutive entries of a six-ring are empty."""
    return any(empty[i] and empty[(i + 1) % 6] and empty[(i + 2) % 6] for i in range(6))


class Side(Frozen):
    """The geometry of a board of one side, as tables over cell indices (reading order), made once per side.

    Every board of a side shares it: the search and the stuck-set finder look a neighbour up here
    (the rule engine's replay and the certificate checks make their own windows) instead of
    computing it for every board.  ``ring[c]`` holds the six ring-order neighbours of cell ``c`` as
    cell indices, ``count`` (one past the last cell) where the neighbour is off the board: a
    sentinel that indexes a per-board table one longer than the board.
    """

    __slots__ = __match_args__ = (
        "dim",
        "cells",
        "index",
        "ring",
        "runs",
        "neighbours",
        "windows",
        "centre",
        "rowcol",
    )
    dim: int
    cells: tuple[Hex, ...]
    index: dict[Hex, int]
    ring: tuple[tuple[int, ...], ...]
    # Per cell, its six windows in ring order (window k: neighbours k, k+1 and k+2) as masks of cell bits,
    # the cells off the board left out.
    runs: tuple[tuple[int, ...], ...]
    neighbours: tuple[int, ...]  # per cell, the mask of the cells next to it
    # Per cell, its six windows (three ring-consecutive neighbours) as masks of cell bits, the cells off
    # the board left out (they are empty for good), fewest cells first: the cell is free in a position
    # (a mask of the cells holding a tile) when one of its windows holds no tile.
    windows: tuple[tuple[int, ...], ...]
    centre: tuple[int, ...]  # per cell, its distance to the centre
    rowcol: tuple[tuple[int, int], ...]  # per cell, its [row, col] in board files and JSON

    def __init__(
        self,
        dim: int,
        cells: tuple[Hex, ...],
        index: dict[Hex, int],
        ring: tuple[tuple[int, ...], ...],
        runs: tuple[tuple[int, ...], ...],
        neighbours: tuple[int, ...],
        windows: tuple[tuple[int, ...], ...],
        centre: tuple[int, ...],
        rowcol: tuple[tuple[int, int], ...],
    ) -> None:
        values = (dim, cells, index, ring, runs, neighbours, windows, centre, rowcol)
        for name, value in zip(self.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)

    __eq__ = object.__eq__  # one per side: compared by identity
    __hash__ = object.__hash__

    @property
    def count(self) -> int:
        return len(self.cells)

    def distances(self, c: int) -> tuple[int, ...]:
        """Per cell, its distance to cell ``c`` (made once per cell)."""
        return _distances(self.dim, c)


@cache
def side(dim: int) -> Side:
    """The shared geometry of the boards of side ``dim``."""
    # Made in every process that reads a board (a one-board solve: 5 M instructions before these loops were
    # flattened), so with few calls a cell: ring_neighbours, the windows' order and to_rowcol inline.
    every = cells(dim)
    index = {cell: i for i, cell in enumerate(every)}
    off = len(every)
    get = index.get
    steps = DIRECTIONS
    ring = tuple(tuple([get((q + dq, r + dr), off) for dq, dr in steps]) for q, r in every)
    bit_of = [1 << c for c in range(off)] + [0]  # the last: off the board, no bit
    runs, neighbours, windows = [], [], []
    for a, b, c, d, e, f in ring:
        a, b, c, d, e, f = bit_of[a], bit_of[b], bit_of[c], bit_of[d], bit_of[e], bit_of[f]
        own = (a | b | c, b | c | d, c | d | e, d | e | f, e | f | a, f | a | b)
        runs.append(own)
        neighbours.append(a | b | c | d | e | f)
        windows.append(tuple(sorted(sorted(set(own)), key=int.bit_count)))  # fewest cells first, then by mask
    centre = tuple([max(abs(q), abs(r), abs(q + r)) for q, r in every])
    rowcol = tuple([(row, col) for row, length in enumerate(row_lengths(dim)) for col in range(length)])
    return Side(dim, every, index, ring, tuple(runs), tuple(neighbours), tuple(windows), centre, rowcol)


@cache
def _distances(dim: int, c: int) -> tuple[int, ...]:
    every = cells(dim)
    return tuple(distance(every[c], other) for other in every)
