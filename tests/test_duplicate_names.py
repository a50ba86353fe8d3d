"""Two boards of one file with one name (issue 47, S2): each is known by its place, every verb names them apart,
and ``sigmar check`` ties each answer to one board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sigmar.models.board import Board
from sigmar.models.boardfile import DistinctNames, format_boards, parse_boards, read_boards
from sigmar.runners.cli import main

# Three boards named "twin": solvable, unsolvable (the counts), solvable; and one named "twin#2" as written.
TWINS = """# twin
  a a
 . . .
  . .

# twin
  a f
 . . .
  . .

# twin#2
  v m
 . . .
  . .

# twin
  s s
 . . .
  . .
"""
NAMES = ["twin", "twin#2", "twin#2#2", "twin#3"]


@pytest.fixture
def twins(tmp_path: Path) -> Path:
    path = tmp_path / "twins.txt"
    path.write_text(TWINS)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict]]:
    code = main(list(args))
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


@given(st.lists(st.sampled_from(["a", "a#2", "a#3", "b", "a#2#2", ""]), max_size=12))
def test_names_are_distinct_and_the_first_of_each_keeps_its_own(names: list[str]) -> None:
    boards = [Board(2, (), name) for name in names]
    named = DistinctNames()
    given_names = [named.of(b).name for b in boards]
    assert len(set(given_names)) == len(given_names)
    for name in set(names):
        assert given_names[names.index(name)] == name or name in given_names[: names.index(name)]


def test_every_board_of_a_file_reads_under_its_own_name_and_writes_back_so(twins: Path) -> None:
    boards = read_boards(twins)
    assert [b.name for b in boards] == NAMES
    assert [b.name for b in parse_boards(format_boards(boards))] == NAMES  # written as read: stable


def test_solve_prove_explain_crosscheck_and_count_name_the_twins_apart(
    twins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = {}
    for verb, extra in (
        ("solve", ()),
        ("prove", ("--proof-dir", str(tmp_path / "p"))),
        ("explain", ("--proof-dir", str(tmp_path / "p"), "--time-limit", "30")),
        ("crosscheck", ("-b", "search,cnf")),
        ("count", ()),
    ):
        code, records = run(capsys, verb, str(twins), "--json", *extra)
        assert [r["board"] for r in records] == NAMES, (verb, records)
        outputs[verb] = records
    statuses = [r["status"] for r in outputs["solve"]]
    assert statuses == ["solved", "unsolvable", "solved", "solved"]
    # the honest outputs of solve, prove and explain are accepted whole
    for verb in ("solve", "prove", "explain"):
        answers = tmp_path / f"{verb}.jsonl"
        answers.write_text("".join(json.dumps(r) + "\n" for r in outputs[verb]))
        code, checked = run(capsys, "check", str(twins), str(answers), "--json")
        assert code == 0, (verb, checked)
        assert {r["board"] for r in checked} == set(NAMES)


def test_one_answer_does_not_stand_for_a_twin_without_one(
    twins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's forgery: one "solved" line for the first twin; the unsolvable twin has no answer (on main:
    exit 0)."""
    code, records = run(capsys, "solve", str(twins), "--json")
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(records[0]) + "\n")
    code = main(["check", str(twins), str(one)])
    out = capsys.readouterr().out
    assert code == 3 and "twin#2: MISSING" in out, out
    # the first twin's solution given as the unsolvable twin's answer is replayed on that board, and fails
    forged = tmp_path / "forged.jsonl"
    forged.write_text(
        "".join(
            json.dumps({**r, "board": "twin#2"} if i == 1 else r) + "\n"
            for i, r in enumerate([records[0], {**records[0]}, *records[2:]])
        )
    )
    code = main(["check", str(twins), str(forged)])
    out = capsys.readouterr().out
    assert code == 3 and "twin#2: solved INVALID" in out, out


def test_a_twin_is_picked_by_its_name_or_its_place(twins: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, records = run(capsys, "solve", f"{twins}:twin#2", "--json")
    assert [(r["board"], r["status"]) for r in records] == [("twin#2", "unsolvable")]
    code, records = run(capsys, "solve", f"{twins}:1", "--json")
    assert [r["board"] for r in records] == ["twin#2"]
    code, records = run(capsys, "solve", str(twins), "--board", "twin#3", "--json")
    assert [r["board"] for r in records] == ["twin#3"]


def test_twins_in_two_files_get_the_file_and_stay_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(TWINS)
    second.write_text(TWINS)
    code, records = run(capsys, "solve", str(first), str(second), "--json")
    names = [r["board"] for r in records]
    assert len(set(names)) == 8 and names[:4] == [f"{first}:{n}" for n in NAMES], names
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["check", str(first), str(second), str(answers)]) == 0, capsys.readouterr().out
