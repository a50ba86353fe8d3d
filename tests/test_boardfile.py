"""Board files: reading, writing back identically, and every malformed input located."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigmar.models.boardfile import BoardFileError, format_board, format_boards, parse_boards, read_boards

GOOD = """\
# first
  a A
 . 1 Q
  . 2

# ignored comment
# second
  . .
 s s .
  . .
"""


def test_names_counts_and_case() -> None:
    boards = parse_boards(GOOD, "f.txt")
    assert [b.name for b in boards] == ["first", "second"]
    assert [t.symbol for t in boards[0].tiles] == ["a", "a", "1", "q", "2"]
    assert boards[0].dim == 2 and boards[0].gold == "2"


def test_unnamed_boards_get_file_and_index() -> None:
    boards = parse_boards("a a\n. . .\n . .\n\n\n6 .\n. . .\n . .\n", "x.txt")
    assert [b.name for b in boards] == ["x.txt:0", "x.txt:1"]


def test_trailing_comments_and_whitespace() -> None:
    boards = parse_boards("   a a   # top\n. . .\n\t. .  \n", "t")
    assert len(boards[0]) == 2


def test_round_trip_is_identical() -> None:
    boards = parse_boards(GOOD, "f.txt")
    text = format_boards(boards)
    again = parse_boards(text, "f.txt")
    assert again == boards
    assert format_boards(again) == text


@pytest.mark.parametrize(
    ("text", "row", "col", "fragment"),
    [
        ("a a\n. . .\n", 2, None, "has 3 rows; this one has only 2"),
        ("a a\n. . .\n . .\n. .\n", 3, None, "has 3 rows; this one has 4"),
        ("a a\n. . . .\n . .\n", 1, 3, "has 3 cells; this one has 4"),
        ("a a\n. .\n . .\n", 1, 2, "has 3 cells; this one has 2"),
        ("a a\n. z .\n . .\n", 1, 1, "unknown symbol 'z'"),
        ("1 a\n. 1 .\n . .\n", 1, 1, "metal 1 appears twice (first at [0, 0])"),
        ("a 0\n. . .\n . .\n", 0, 1, "unknown symbol '0'"),
    ],
)
def test_malformed_boards_name_row_and_column(text: str, row: int, col: int | None, fragment: str) -> None:
    with pytest.raises(BoardFileError) as info:
        parse_boards("# bad one\n" + text, "bad.txt")
    error = info.value
    assert (error.file, error.board, error.row, error.col) == ("bad.txt", "bad one", row, col)
    message = str(error)
    assert fragment in message and "bad.txt" in message and "board 'bad one'" in message
    assert f"row {row}" in message and "\n" not in message


def test_error_in_a_later_board_names_that_board() -> None:
    with pytest.raises(BoardFileError) as info:
        parse_boards(GOOD + "\n# third\na a\n. ? .\n . .\n", "f.txt")
    assert info.value.board == "third" and info.value.line == 14


def test_empty_and_comment_only_files(tmp_path: Path) -> None:
    for text in ["", "\n\n", "# just a comment\n"]:
        path = tmp_path / "empty.txt"
        path.write_text(text)
        with pytest.raises(BoardFileError, match="no board"):
            read_boards(path)


def test_binary_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "bin.dat"
    path.write_bytes(b"a a\n\x00\x01\x02")
    with pytest.raises(BoardFileError, match="binary"):
        read_boards(path)
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"a a\n\xe9 . .\n . .\n")
    with pytest.raises(BoardFileError, match="UTF-8") as info:
        read_boards(latin)
    assert info.value.line == 2
    with pytest.raises(BoardFileError, match="no such file"):
        read_boards(tmp_path / "nope.txt")
    with pytest.raises(BoardFileError, match="directory"):
        read_boards(tmp_path)


def test_oversized_board_is_refused() -> None:
    row = " ".join(["."] * 40)
    with pytest.raises(BoardFileError, match="not supported"):
        parse_boards(row + "\n", "big.txt")


def test_format_draws_the_hexagon() -> None:
    board = parse_boards(GOOD, "f.txt")[0]
    assert format_board(board) == "# first\n a a\n. 1 q\n . 2\n"


# -- board files as people write them: a name line right after a board starts the next one

NAMED_BACK_TO_BACK = """\
# one
  a A
 . 1 Q
  . 2
# two
  . .
 s s .
  . .
# three
  6 .
 . . .
  . .
"""


def test_a_name_line_right_after_a_complete_board_starts_the_next() -> None:
    boards = parse_boards(NAMED_BACK_TO_BACK, "public.txt")
    assert [b.name for b in boards] == ["one", "two", "three"]
    assert [len(b) for b in boards] == [5, 2, 1]
    # with blank lines between them, the same boards
    spaced = NAMED_BACK_TO_BACK.replace("# two", "\n# two").replace("# three", "\n\n# three")
    assert parse_boards(spaced, "public.txt") == boards


def test_a_comment_inside_an_unfinished_board_does_not_end_it() -> None:
    (board,) = parse_boards("# only\n  a a\n# a note between rows\n . . .\n  . .\n# trailing note\n", "f.txt")
    assert board.name == "only" and len(board) == 2


def test_the_side_comes_from_the_row_count_so_a_wrong_first_row_is_blamed() -> None:
    real = (Path(__file__).resolve().parents[1] / "instances" / "real-game.txt").read_text().splitlines()
    rows = [line for line in real if line.strip() and not line.startswith("#")]
    bad = "\n".join(["# wide top", rows[0] + " .", *rows[1:11]]) + "\n"  # row 0 has 7 cells, not 6
    with pytest.raises(BoardFileError) as info:
        parse_boards(bad, "b.txt")
    error = info.value
    assert (error.row, error.col, error.line) == (0, 6, 2), str(error)
    assert "row 0 of a side-6 board (11 rows) has 6 cells; this one has 7" in str(error)


def test_a_missing_middle_row_is_found_where_it_is_missing() -> None:
    real = (Path(__file__).resolve().parents[1] / "instances" / "real-game.txt").read_text().splitlines()
    rows = [line for line in real if line.strip() and not line.startswith("#")][:11]
    with pytest.raises(BoardFileError) as info:
        parse_boards("\n".join(rows[:4] + rows[5:]) + "\n", "b.txt")
    assert info.value.row == 4 and "has 11 rows; this one has only 10" in str(info.value)


def test_templates_read_their_blocks_as_board_files_do() -> None:
    from sigmar.models.templates import parse_templates

    text = "# left\n  o o\n o o o\n  o o\n# right\n  . o\n o o o\n  o .\n"
    assert [t.name for t in parse_templates(text, "t.txt")] == ["left", "right"]


def test_a_board_sent_to_another_process_is_its_fields_there() -> None:
    """A board keeps its hash and its facts under private names; pickled (to a worker) it carries neither:
    a string's hash differs from process to process, and a kept hash from the parent would put two equal
    boards apart in the worker's dictionaries."""
    import os
    import pickle
    import subprocess
    import sys

    from sigmar.models.facts import facts_of

    board = parse_boards(GOOD)[0]
    hash(board)
    assert facts_of(board).partners
    assert {"_hash", "_facts"} <= board.__dict__.keys()
    sent = pickle.dumps(board)
    assert pickle.loads(sent) == board and not {"_hash", "_facts"} & pickle.loads(sent).__dict__.keys()
    check = (
        "import pickle, sys\n"
        "from sigmar.models.boardfile import parse_boards\n"
        "board = pickle.loads(sys.stdin.buffer.read())\n"
        "again = parse_boards(sys.argv[1])[0]\n"
        "assert board == again and hash(board) == hash(again) and len({board, again}) == 1\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    run = subprocess.run([sys.executable, "-c", check, GOOD], input=sent, capture_output=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
