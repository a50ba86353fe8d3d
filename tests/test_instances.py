"""The bundled boards: every file parses, and every hand-worked answer is right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigmar.models.boardfile import format_boards, read_boards
from sigmar.models.rules import count_problem, verify
from sigmar.models.stuck_sets import static_problem
from tests.bruteforce import solve_by_brute_force
from tests.conftest import INSTANCES, PUBLIC_SETS, public_boards

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


def test_every_public_board_parses() -> None:
    total = len(read_boards(INSTANCES / "real-game.txt"))
    for name in PUBLIC_SETS:
        boards = public_boards(name)
        total += len(boards)
        assert all(len(b) == 55 and b.gold == "6" and count_problem(b) is None for b in boards), name
        assert len({b.name for b in boards}) == len(boards), f"{name}: board names must be unique"
    assert total == 22048 + 2  # hexmatch 2 x 10,000, ondrovo 2,048, real game 2


def test_the_bundled_samples_are_taken_from_the_public_sets() -> None:
    samples = ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt")
    for sample, name in zip(samples, PUBLIC_SETS, strict=True):
        public = {b.name: b.tiles for b in public_boards(name)}
        assert all(public[b.name] == b.tiles for b in read_boards(INSTANCES / sample)), sample


@pytest.mark.parametrize("name", ["hexmatch-easy-quintessence.txt.xz", "hexmatch-hard-quintessence.txt.xz"])
def test_every_public_variant_board_parses(name: str) -> None:
    boards = read_boards(INSTANCES / name)
    assert len(boards) == 10_000
    assert all(b.counts["x"] == 2 and count_problem(b) is None for b in boards)
