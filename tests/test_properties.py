"""Hypothesis properties of the rule engine, against an oracle written from docs/formats.md#the-rules alone."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sigmar.models.board import Board
from sigmar.models.result import Move
from sigmar.models.rules import Fault, Position, verify
from tests.bruteforce import solve_by_brute_force
from tests.conftest import small_boards as boards

RING = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def oracle_legal(board: Board, occupied: set, cells_: tuple) -> bool:
    """docs/formats.md#the-rules, written again without the engine's code."""
    symbol = {t.cell: t.symbol for t in board.tiles}
    if len(cells_) not in (1, 2) or len(set(cells_)) != len(cells_) or not all(c in occupied for c in cells_):
        return False

    def free(c: tuple[int, int]) -> bool:
        empty = [(c[0] + dq, c[1] + dr) not in occupied for dq, dr in RING]
        return any(all(empty[(i + k) % 6] for k in range(3)) for i in range(6))

    if not all(free(c) for c in cells_):
        return False
    metals = sorted(symbol[c] for c in occupied if symbol[c].isdigit())
    gold = max(t.symbol for t in board.tiles if t.symbol.isdigit()) if metals else None
    if len(cells_) == 1:
        return symbol[cells_[0]] == gold and metals == [gold]
    a, b = sorted(symbol[c] for c in cells_)
    if a in "aefw" and b in "aefw":
        return a == b
    if "s" in (a, b):
        other = b if a == "s" else a
        return other in "aefws"
    if (a, b) == ("m", "v"):
        return True
    if a.isdigit() and b == "q":
        return a == metals[0] and a != gold
    return False


def random_play(board: Board, rng: random.Random) -> list[Move]:
    position = Position.start(board)
    played = []
    while True:
        moves = position.legal_moves()
        if not moves:
            return played
        move = rng.choice(moves)
        played.append(move)
        position = position.play(move)


@settings(max_examples=300, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_random_play_is_legal_by_the_oracle(board: Board, rng: random.Random) -> None:
    occupied = {t.cell for t in board.tiles}
    removed: list[str] = []
    for move in random_play(board, rng):
        assert oracle_legal(board, occupied, move.cells), move
        removed.extend(board.symbol_at[c] for c in move.cells)
        occupied -= set(move.cells)
    left = sorted(board.symbol_at[c] for c in occupied)
    assert sorted(removed + left) == sorted(t.symbol for t in board.tiles)
    # The engine offers every move the oracle allows, and no other.
    position = Position(board, frozenset(occupied))
    assert position.legal_moves() == []
    assert not any(oracle_legal(board, occupied, (a, b)) for a in occupied for b in occupied if a != b)


@settings(max_examples=300, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_verify_accepts_random_play(board: Board, rng: random.Random) -> None:
    moves = random_play(board, rng)
    verdict = verify(board, moves)
    left = len(board) - sum(len(m.cells) for m in moves)
    if left == 0:
        assert verdict.valid
    else:
        assert not verdict.valid and verdict.fault is Fault.TILES_LEFT and verdict.move_number == 0


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(boards(), st.data())
def test_verify_rejects_swaps_that_break_a_move(board: Board, data: st.DataObject) -> None:
    solution = solve_by_brute_force(board)
    assume(solution is not None and len(solution) >= 2)
    assert solution is not None
    assert verify(board, solution).valid
    i = data.draw(st.integers(0, len(solution) - 2))
    j = data.draw(st.integers(i + 1, len(solution) - 1))
    swapped = list(solution)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    occupied = {t.cell for t in board.tiles}
    first_bad = None
    for number, move in enumerate(swapped, start=1):
        if not oracle_legal(board, occupied, move.cells):
            first_bad = number
            break
        occupied -= set(move.cells)
    verdict = verify(board, swapped)
    if first_bad is None:
        assert verdict.valid
    else:
        assert not verdict.valid and verdict.move_number == first_bad
