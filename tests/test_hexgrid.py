"""Geometry: cell counts, neighbours in ring order, row/col round trips."""

from __future__ import annotations

import random

import pytest

from sigmar.models.hexgrid import (
    DIRECTIONS,
    cell_count,
    cells,
    distance,
    from_rowcol,
    has_three_empty_in_a_row,
    on_board,
    ring_neighbours,
    row_lengths,
    side,
    to_rowcol,
)

DIMS = range(1, 9)


@pytest.mark.parametrize("dim", DIMS)
def test_cell_count_matches_a_brute_force_count(dim: int) -> None:
    """Count the cells within distance dim - 1 of the centre over a square of axial coordinates."""
    square = [(q, r) for q in range(-dim, dim + 1) for r in range(-dim, dim + 1)]
    within = {cell for cell in square if distance(cell, (0, 0)) < dim}
    assert set(cells(dim)) == within
    assert len(cells(dim)) == cell_count(dim) == len(within)


@pytest.mark.parametrize("dim", DIMS)
def test_row_lengths(dim: int) -> None:
    expected = list(range(dim, 2 * dim)) + list(range(2 * dim - 2, dim - 1, -1))
    assert list(row_lengths(dim)) == expected
    assert sum(row_lengths(dim)) == cell_count(dim)


@pytest.mark.parametrize("dim", DIMS)
def test_rowcol_round_trip(dim: int) -> None:
    for row, length in enumerate(row_lengths(dim)):
        for col in range(length):
            cell = from_rowcol(row, col, dim)
            assert on_board(cell, dim)
            assert to_rowcol(cell, dim) == (row, col)
    for cell in cells(dim):
        assert from_rowcol(*to_rowcol(cell, dim), dim) == cell


@pytest.mark.parametrize("dim", DIMS)
def test_rowcol_off_board_is_rejected(dim: int) -> None:
    with pytest.raises(ValueError):
        from_rowcol(2 * dim - 1, 0, dim)
    with pytest.raises(ValueError):
        from_rowcol(0, dim, dim)
    with pytest.raises(ValueError):
        from_rowcol(-1, 0, dim)


@pytest.mark.parametrize("dim", DIMS)
def test_neighbour_counts(dim: int) -> None:
    """Interior cells have 6 neighbours on the board, edges 4, corners 3."""
    counts = {}
    for cell in cells(dim):
        on = sum(on_board(n, dim) for n in ring_neighbours(cell))
        counts[on] = counts.get(on, 0) + 1
    if dim == 1:
        assert counts == {0: 1}
        return
    assert counts[3] == 6
    assert counts.get(4, 0) == 6 * (dim - 2)
    assert counts.get(6, 0) == cell_count(dim - 1)


def test_ring_order_consecutive_directions_are_neighbours() -> None:
    """Each direction is adjacent to the next, so the list walks round the ring."""
    for i, a in enumerate(DIRECTIONS):
        b = DIRECTIONS[(i + 1) % 6]
        assert distance(a, b) == 1
        assert distance(a, (0, 0)) == 1


def test_rows_match_the_file_picture() -> None:
    """Row 0's first cell touches row 1's first two cells (the drawing's slant)."""
    dim = 6
    top = from_rowcol(0, 0, dim)
    below = {to_rowcol(n, dim) for n in ring_neighbours(top) if on_board(n, dim)}
    assert below == {(0, 1), (1, 0), (1, 1)}
    middle_left = from_rowcol(dim - 1, 0, dim)
    around = {to_rowcol(n, dim) for n in ring_neighbours(middle_left) if on_board(n, dim)}
    assert around == {(dim - 2, 0), (dim - 1, 1), (dim, 0)}


@pytest.mark.parametrize(
    ("empty", "expected"),
    [
        ((True, True, True, False, False, False), True),
        ((True, False, True, False, True, False), False),
        ((True, True, False, False, False, True), True),  # wraps around
        ((False, True, True, False, True, True), False),
        ((False,) * 6, False),
    ],
)
def test_three_in_a_row(empty: tuple[bool, ...], expected: bool) -> None:
    assert has_three_empty_in_a_row(empty) is expected


@pytest.mark.parametrize("dim", DIMS)
def test_a_sides_tables_are_the_cells_neighbours_and_windows(dim: int) -> None:
    """The tables made once per side say what the cell-by-cell functions say: the neighbours in ring
    order (off the board: one past the last cell), the distances, and freeness by the windows for
    random sets of cells holding tiles."""
    geometry = side(dim)
    assert geometry is side(dim) and geometry.cells == cells(dim)
    off = geometry.count
    rng = random.Random(dim)
    for c, cell in enumerate(geometry.cells):
        assert geometry.index[cell] == c
        assert [geometry.cells[n] if n != off else None for n in geometry.ring[c]] == [
            n if on_board(n, dim) else None for n in ring_neighbours(cell)
        ]
        assert geometry.centre[c] == distance(cell, (0, 0))
        assert geometry.distances(c) == tuple(distance(cell, other) for other in geometry.cells)
        for _ in range(20):
            held = {other for other in geometry.cells if rng.random() < 0.6}
            mask = sum(1 << geometry.index[other] for other in held)
            by_windows = any(not mask & window for window in geometry.windows[c])
            assert by_windows == has_three_empty_in_a_row([n not in held for n in ring_neighbours(cell)])


def test_the_written_out_table_of_minimal_windows_is_the_one_its_definition_makes() -> None:
    """``facts.MINIMAL_WINDOWS`` is written out (making it costs a one-board solve 7 M instructions): it must
    stay what ``minimal_windows_made`` derives from the definition, pattern by pattern."""
    from sigmar.models.facts import MINIMAL_WINDOWS, minimal_windows_made

    assert len(MINIMAL_WINDOWS) == 64
    assert minimal_windows_made() == MINIMAL_WINDOWS
