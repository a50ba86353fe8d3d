"""The static stuck-set argument: it fires only on truly unsolvable boards, and it is re-checkable."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.rules import count_problem
from sigmar.models.stuck_sets import static_problem, stuck_set, unsolvable_reason
from sigmar.runners.checking.stuck_check import check_stuck
from tests.bruteforce import solve_by_brute_force
from tests.conftest import PUBLIC_SETS, public_boards, random_board

ROOT = Path(__file__).resolve().parents[1]


def test_ringed_lead_is_stuck_and_unsolvable() -> None:
    (board,) = parse_boards(
        """
           . . .
          . q 2 .
         . 3 1 q .
          . 4 q .
           . . .
        """
    )
    assert count_problem(board) is None
    sentence = static_problem(board)
    assert sentence is not None and "metal 1 at [2, 2]" in sentence
    assert solve_by_brute_force(board) is None


def test_solvable_full_board_has_no_stuck_set() -> None:
    # Every inner window is filled at the start, but the rim tiles are free: the set must shrink to nothing.
    (board,) = parse_boards(
        """
          a a
         1 2 q
          v m
        """
    )
    assert solve_by_brute_force(board) is not None
    assert stuck_set(board) == frozenset()


def test_random_small_boards_sound_and_often_useful() -> None:
    """On random side-3 boards with pairing counts, a fired argument is always confirmed by brute force."""
    rng = random.Random(8)
    fired = unsolvable = checked = 0
    while checked < 1500:
        board = random_board(rng, 3, rng.choice((10, 12, 14)))
        if count_problem(board) is not None:
            continue
        checked += 1
        stuck = stuck_set(board)
        solvable = solve_by_brute_force(board) is not None
        unsolvable += not solvable
        if stuck:
            fired += 1
            assert not solvable, f"static argument fired on a solvable board: {board}"
            assert check_stuck(board, [board.tiles[t].cell for t in stuck]).valid
            assert static_problem(board)
    # The argument should catch a good share of the unsolvable layouts (about 60% when measured).
    assert unsolvable > 0 and fired >= unsolvable // 4, (fired, unsolvable)


def test_the_largest_stuck_set_is_largest() -> None:
    """A union of stuck sets is stuck, so no tile can be added to the largest one (by the independent checker)."""
    rng = random.Random(3)
    found = 0
    while found < 30:
        board = random_board(rng, 3, 14)
        stuck = stuck_set(board)
        if not stuck:
            continue
        found += 1
        cells_of = [t.cell for t in board.tiles]
        assert check_stuck(board, [cells_of[t] for t in stuck]).valid
        for extra in range(len(board.tiles)):
            if extra not in stuck:
                grown = [cells_of[t] for t in stuck | {extra}]
                assert not check_stuck(board, grown).valid, (board, extra)


def test_instances_small_reasons_match_brute_force() -> None:
    for board in read_boards(ROOT / "instances" / "small.txt"):
        reason = unsolvable_reason(board)
        if reason is not None:
            assert solve_by_brute_force(board) is None, board.name


@pytest.mark.parametrize("name", ["hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt", "real-game.txt"])
def test_never_fires_on_bundled_solvable_boards(name: str) -> None:
    for board in read_boards(ROOT / "instances" / name):
        assert unsolvable_reason(board) is None, board.name


def test_never_fires_on_a_sample_of_public_boards() -> None:
    rng = random.Random(1)
    for name in PUBLIC_SETS:
        boards = public_boards(name)
        for board in rng.sample(boards, 150):
            assert unsolvable_reason(board) is None, f"{name}: {board.name}"
