"""Tables for any width (issue 52, item 3): every table of bench, crosscheck, count, prove and solve, rendered at
80 and 120 columns, shows every board name, every backend name and every score column whole, and no line is
wider than the terminal.  (At 80 columns the bench's ranked table lost its backends and scores to '…', and
crosscheck's board column shrank to nothing.)"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.table import Table

from sigmar.models.result import Result, Status
from sigmar.runners import cli
from sigmar.runners.bench import summarise
from sigmar.runners.checking.grading import Grade
from sigmar.runners.render.bench_tables import answers_table, family_table, pairwise_table, times_table
from sigmar.runners.render.columns import columns, fixed_row
from sigmar.runners.render.terminal import PipeConsole, fitted, print_table
from sigmar.runners.statistics.runs import Row
from sigmar.runners.statistics.scores import pairwise_scores, vbs
from tests.conftest import INSTANCES

WIDTHS = (80, 120)
BACKENDS = [
    "search",
    "cnf:glucose42",
    "cpsat:order",
    "minizinc:gecode+chuffed",
    "pumpkin:order",
    "cpmpy:pumpkin",
    "cnf:thesis+cadical195",
    "cnf:external",
]
BOARDS = [
    "gold alone [solvable]",
    "salt must take the earth, and whichever pair leaves first, the fires end up walled in [unsolvable: search]",
    "b3",
]


def rows() -> list[Row]:
    found = []
    for i, board in enumerate(BOARDS):
        for j, backend in enumerate(BACKENDS):
            seconds = 0.001 * (1 + i) * (1 + j) ** 2
            status = Status.UNKNOWN if (i + j) % 5 == 4 else Status.SOLVED
            grade = Grade.UNKNOWN if status is Status.UNKNOWN else Grade.CORRECT
            found.append(
                Row("family-a" if i < 2 else "family-b", board, backend, Result(status, backend, seconds), grade)
            )
    return found


def in_order(name: str, text: str) -> bool:
    """Every word of ``name`` in ``text``, in order (a name wrapped inside its column shares lines with the
    other cells); a cut name ('…') fails."""
    words = iter(text.split())
    return "…" not in text and all(any(word == found for found in words) for word in name.split())


def rendered(table: Table, width: int, keys: int = 1) -> str:
    out = io.StringIO()
    console = PipeConsole(file=out, width=width, color_system=None)
    print_table(console, table, keys)
    return out.getvalue()


def headers(table: Table) -> list[str]:
    return [" ".join(str(c.header).split()) for c in table.columns]


def assert_whole(text: str, width: int, names: list[str], heads: list[str]) -> None:
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert "…" not in text, "a cell was cut"
    cells = [re.split(r"\s*[│┃]\s*", line.strip("│┃ ")) for line in lines]
    flat = {cell for row in cells for cell in row}
    for name in names:
        assert name in flat, f"{name!r} not shown whole at {width} columns"
    header_words = " ".join(text.split())
    for head in heads:
        for word in head.split():
            assert word in header_words, f"column {head!r} not shown at {width} columns"


def bench_tables() -> list[tuple[str, Table, int]]:
    found = rows()
    summaries = summarise(found, BACKENDS, time_limit=10)
    best = vbs(found, BACKENDS, time_limit=10)
    return [
        ("answers", answers_table(summaries, best, None), 2),
        ("times", times_table(summaries, best, repeated=True), 1),
        ("family", family_table(found, BACKENDS, 10), 2),
        ("pairwise", pairwise_table(pairwise_scores(found, BACKENDS), len(BOARDS)), 1),
    ]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["answers", "times", "family", "pairwise"])
def test_every_bench_table_keeps_its_names_and_scores(which: str, width: int) -> None:
    (table, keys) = next((t, k) for name, t, k in bench_tables() if name == which)
    text = rendered(table, width, keys)
    assert_whole(text, width, BACKENDS, headers(table))
    if which == "answers":  # every backend's PAR-2 is there, on the backend's own row
        for summary in summarise(rows(), BACKENDS, time_limit=10):
            assert any(summary.backend in line and f"{summary.par2:.3f}" in line for line in text.splitlines())


def test_a_table_that_fits_is_one_part_and_a_wide_one_repeats_its_names() -> None:
    table = dict((n, t) for n, t, _ in bench_tables())["answers"]
    assert len(fitted(table, 400, 2)) == 1
    parts = fitted(table, 80, 2)
    assert len(parts) > 1
    assert all([str(c.header) for c in part.columns[:2]] == ["rank", "backend"] for part in parts)
    shown = [str(c.header) for part in parts for c in part.columns[2:]]
    assert shown == [str(c.header) for c in table.columns[2:]], "every column once, in order"


# -- the plain columns of solve, count and prove


SOLVE_HEAD = ("board", "status", "backend", "seconds", "detail")


def solve_rows() -> list[tuple[str, ...]]:
    detail = "unsolvable: a stuck set of 3 tiles [stuck certificate checked] " * 2
    return [(b, "unsolvable", backend, "0.012", detail) for b, backend in zip(BOARDS, BACKENDS, strict=False)]


@pytest.mark.parametrize("width", WIDTHS)
def test_solves_columns_keep_every_name_at_any_width(width: int) -> None:
    text = columns(SOLVE_HEAD, solve_rows(), width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    joined = " ".join(text.split())
    for board, backend in zip(BOARDS, BACKENDS, strict=False):
        assert in_order(board, text) and backend in joined, board
    for head in SOLVE_HEAD:
        assert head in joined


@pytest.mark.parametrize("width", WIDTHS)
def test_counts_columns_name_every_backend_even_when_they_do_not_fit(width: int) -> None:
    header = ("board", "sequences (rule engine)", *BACKENDS)
    found = [(b, "12", *(f"12 ({i}.00 s)" for i in range(len(BACKENDS)))) for b in BOARDS]
    text = columns(header, found, width, detail=False)
    assert all(len(line) <= width for line in text.splitlines())
    joined = " ".join(text.split())
    for backend in BACKENDS:
        assert backend in joined
    assert joined.count("12 (7.00 s)") == len(BOARDS)


@pytest.mark.parametrize("width", WIDTHS)
def test_proves_rows_keep_the_whole_name(width: int) -> None:
    head = ("board", "status", "reason", "checked", "proof s", "corrob. s", "detail")
    widths = (max(len(b) for b in BOARDS), 10, 11, 7, 8, 9)
    out = [fixed_row(head, widths, width)]
    out += [
        fixed_row((b, "unsolvable", "proof", "yes", "0.120", "-", "a DRUP proof checked " * 3), widths, width)
        for b in BOARDS
    ]
    text = "\n".join(out)
    assert all(len(line) <= width for line in text.splitlines()), text
    joined = " ".join(text.split())
    for board in BOARDS:
        assert in_order(board, text), board
    for word in head:
        assert word in joined


# -- through the command line, at COLUMNS=80 and 120


@pytest.mark.parametrize("width", WIDTHS)
def test_crosscheck_at_this_width_shows_every_board_and_backend(
    width: int, fakes, tmp_path: Path, capsys, monkeypatch
) -> None:
    from tests.broken_backend import BOARDS_TEXT

    monkeypatch.setenv("COLUMNS", str(width))
    long_name = "a board whose name is long enough to fold inside its column at eighty columns [solvable]"
    path = tmp_path / "named.txt"
    path.write_text(f"# {long_name}\n" + BOARDS_TEXT.split("\n\n")[0].split("\n", 1)[1] + "\n")
    chosen = ["honest", "honest:proof", "honest:slow", "honest:sticky", "broken:wrong"]
    assert cli.main(["crosscheck", str(path), "-b", ",".join(chosen), "--time-limit", "20"]) == 3
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]  # the tables (a note is a sentence)
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert "…" not in out
    board_column = " ".join(
        line.split("│")[1].strip() for line in lines if line.startswith("│") and line.split("│")[1].strip()
    )
    assert long_name in board_column, board_column
    for name in chosen:
        assert re.search(rf"[┃│] {re.escape(name)}\s+[┃│]", out), name


@pytest.mark.parametrize("width", WIDTHS)
def test_solve_count_and_prove_at_this_width(width: int, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    small = str(INSTANCES / "small.txt")
    from sigmar.models.boardfile import read_boards

    names = [" ".join(b.name.split()) for b in read_boards(INSTANCES / "small.txt")[9:12]]
    for argv in (
        ["solve", f"{small}:9-11", "-b", "search"],
        ["count", f"{small}:9-11", "-b", "search"],
        ["prove", f"{small}:9-11", "--no-corroborate", "--no-second-opinion"],
    ):
        cli.main(argv)
        out = capsys.readouterr().out
        assert all(len(line) <= width for line in out.splitlines()), (argv[0], max(out.splitlines(), key=len))
        for name in names:
            assert in_order(name, out), (argv[0], name)
