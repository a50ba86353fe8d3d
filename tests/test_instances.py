"""The bundled boards: every file parses, and every hand-worked answer is right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigmar.models.boardfile import format_boards, read_boards
from sigmar.models.rules import count_problem, verify
from sigmar.models.stuck_sets import static_problem
from tests.bruteforce import solve_by_brute_force
from tests.conftest import INSTANCES

SMALL = read_boards(INSTANCES / "small.txt")
EXPECTED = re.compile(r"\[(solvable|unsolvable: (counts|static|search))\]$")


@pytest.mark.parametrize("path", sorted(INSTANCES.glob("*.txt")), ids=lambda p: p.name)
def test_every_instance_file_parses_and_round_trips(path: Path) -> None:
    boards = read_boards(path)
    assert boards
    names = [b.name for b in boards]
    assert len(set(names)) == len(names), "board names must be unique within a file"
    again = read_boards_from_text(format_boards(boards), path.name)
    assert [b.tiles for b in again] == [b.tiles for b in boards]


def read_boards_from_text(text: str, name: str) -> list:
    from sigmar.models.boardfile import parse_boards

    return parse_boards(text, name)


@pytest.mark.parametrize("board", SMALL, ids=lambda b: b.name)
def test_small_boards_have_the_answer_worked_out_by_hand(board) -> None:  # type: ignore[no-untyped-def]
    match = EXPECTED.search(board.name)
    assert match, f"{board.name!r} does not say its answer"
    solution = solve_by_brute_force(board)
    if match.group(1) == "solvable":
        assert solution is not None and verify(board, solution).valid
        return
    assert solution is None
    assert (count_problem(board) is not None) == (match.group(2) == "counts")
    if match.group(2) == "search":
        assert static_problem(board) is None, "a [search] board must not be caught by the static argument"


def test_public_samples_have_the_sizes_the_readme_says() -> None:
    for name in ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt"):
        boards = read_boards(INSTANCES / name)
        assert len(boards) == 100
        assert all(len(b) == 55 and b.gold == "6" and count_problem(b) is None for b in boards)
    assert len(read_boards(INSTANCES / "real-game.txt")) == 2


def test_every_public_board_parses(shared_data: Path) -> None:
    total = 0
    for path in sorted(shared_data.glob("*.txt")):
        boards = read_boards(path)
        total += len(boards)
        assert all(count_problem(b) is None for b in boards), path
    assert total == 22048 + 2  # hexmatch 2 x 10,000, ondrovo 2,048, real game 2
