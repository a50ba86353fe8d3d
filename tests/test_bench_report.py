"""``sigmar bench``: PAR-2, the VBS, the baseline, the CSV row by row, the HTML report, BenchExec XML."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sigmar.models.boardfile import parse_boards
from sigmar.models.result import Result, Status
from sigmar.runners import cli
from sigmar.runners.bench import CsvSink, Row, bench, plan, read_csv, summarise
from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.paired import compare
from sigmar.runners.statistics.scores import vbs
from tests.broken_backend import BOARDS_TEXT


def row(board: str, backend: str, seconds: float, grade: Grade) -> Row:
    status = {Grade.CORRECT: Status.SOLVED, Grade.WRONG: Status.SOLVED, Grade.UNKNOWN: Status.UNKNOWN}[grade]
    return Row("f", board, backend, Result(status, backend, seconds), grade)


ROWS = [
    row("b1", "a", 1.0, Grade.CORRECT),
    row("b1", "b", 4.0, Grade.CORRECT),
    row("b2", "a", 10.0, Grade.UNKNOWN),
    row("b2", "b", 2.0, Grade.CORRECT),
    row("b3", "a", 3.0, Grade.CORRECT),
    row("b3", "b", 10.0, Grade.UNKNOWN),
]


def test_par2_charges_twice_the_limit_and_a_wrong_answer_disqualifies() -> None:
    a, b = summarise(ROWS, ["a", "b"], time_limit=10)
    assert a.par2 == pytest.approx((1 + 20 + 3) / 3)
    assert b.par2 == pytest.approx((4 + 2 + 20) / 3)
    (c,) = summarise([*ROWS, row("b4", "c", 0.1, Grade.WRONG)][-1:], ["c"], time_limit=10)
    assert math.isinf(c.par2)
    assert math.isnan(summarise(ROWS, ["a"])[0].par2)  # no time limit, no PAR-2


def test_vbs_takes_the_fastest_correct_answer_and_marginals_say_who_matters() -> None:
    best = vbs(ROWS, ["a", "b"], time_limit=10)
    assert (best.solved, best.boards) == (3, 3)
    assert best.par2 == pytest.approx((1 + 2 + 3) / 3)
    assert best.winners == {"a": 2, "b": 1}
    assert best.marginal["a"] == pytest.approx((4 + 2 + 20) / 3 - 2)
    assert best.marginal["b"] == pytest.approx((1 + 20 + 3) / 3 - 2)
    with_wrong = vbs([*ROWS, row("b1", "c", 0.01, Grade.WRONG)], ["a", "b", "c"], time_limit=10)
    assert with_wrong.members == ("a", "b")  # the wrong backend does not lend its times to the VBS


def test_baseline_speedup_and_changed_boards() -> None:
    old = [
        {
            "file": "/elsewhere/f",
            "board": "b1",
            "backend": "a",
            "status": "solved",
            "grade": "correct",
            "seconds": "2.0",
        },
        {"file": "f", "board": "b3", "backend": "a", "status": "solved", "grade": "correct", "seconds": "1.0"},
        {"file": "f", "board": "b2", "backend": "a", "status": "solved", "grade": "correct", "seconds": "1.0"},
    ]
    speedups, changes, common = compare(ROWS, old)
    assert common == 3
    assert speedups["a"].value == pytest.approx(math.sqrt(2 / 1 * 1 / 3))
    # 2 boards correct in both: below the floor, so no interval, only the counts (issue 52)
    assert speedups["a"].boards == 2 and not speedups["a"].enough and math.isnan(speedups["a"].low)
    assert (speedups["a"].ahead, speedups["a"].behind) == (1, 1) and speedups["a"].text() == "2 boards, too few"
    assert {(c.board, c.why) for c in changes} == {("b3", "slower"), ("b2", "answer")}


def test_csv_rows_are_written_as_each_board_is_graded(fakes, tmp_path: Path) -> None:
    boards = parse_boards(BOARDS_TEXT, "tiny")
    names = ["broken:unknown", "broken:proof"]
    runs = plan([("tiny", boards)], names)
    path = tmp_path / "live.csv"
    sink = CsvSink(path, ["test"])
    seen: list[int] = []

    def executor():
        for run in runs:
            seen.append(len(read_csv(path)))
            yield run, Result(Status.UNKNOWN, run.backend, 0.01), None

    bench(runs, names, executor(), on_board=sink.write)
    sink.close()
    assert seen == [0, 0, 2, 2, 4, 4]  # the first board's rows were on disk before the second board ran
    assert len(read_csv(path)) == 6


class Page(HTMLParser):
    """What a reader of the report sees: tables, their rows, images, links out."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.rows: dict[str, int] = {}
        self.images: list[str] = []
        self.outside: list[str] = []
        self.headings: list[str] = []
        self._in: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append(a.get("id") or a.get("class") or "")
        if tag == "tr" and self.tables:
            self.rows[self.tables[-1]] = self.rows.get(self.tables[-1], 0) + 1
        if tag == "img":
            self.images.append(a.get("src") or "")
        for key in ("src", "href"):
            if (a.get(key) or "").startswith(("http:", "https:", "//")):
                self.outside.append(a[key] or "")
        self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._in:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        if self._in and self._in[-1] in ("h1", "h2", "h3"):
            self.headings.append(data)
        self.text.append(data)


def run_bench(board_file: Path, tmp_path: Path, *extra: str) -> int:
    argv = ["bench", str(board_file), "-b", "honest,honest:proof,broken:unknown", "--time-limit", "5"]
    return cli.main([*argv, "--out", str(tmp_path / "b.csv"), *extra])


def test_html_report_is_self_contained_with_summary_vbs_plots_and_a_board_table(
    fakes, board_file: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    assert run_bench(board_file, tmp_path, "--html", str(report)) == 0
    page = Page()
    page.feed(report.read_text())
    assert page.outside == [], "the report must open offline"
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert len(page.images) == 1 + 3  # the cactus plot and a scatter per pair of the 3 backends
    assert page.rows["boards"] == 1 + 3  # heading and one row per board
    text = " ".join(page.text)
    assert "VBS" in text and "PAR-2" in text and "hardest" in " ".join(page.headings)
    assert "<script>" in report.read_text() and "data-v=" in report.read_text()  # the sortable table
    assert report.read_text().count("<svg") >= 3 and 'data-tile="' in report.read_text()  # hardest boards drawn
    # every "no" says certified or claimed: honest certifies its dead states, honest:proof only claims
    html = report.read_text()
    assert "data-certified='yes'" in html and "data-certified='no'" in html
    assert re.search(r"data-certified='no'[^>]*>[0-9.]+ claimed<", html)
    assert re.search(r"data-certified='yes'[^>]*>[0-9.]+ (counts|dead-states)<", html)
    assert "unsolvable, certified (dead-states)" in text
    # 3 boards: below the floor of 6, so each pair gets its counts and no interval (issue 52)
    assert "Backend against backend" in page.headings and "Wilcoxon" in text and "too few for an interval" in text
    assert any(h.startswith("Pairwise score") for h in page.headings)


def test_baseline_cli_adds_a_speedup_column_and_scatter_draws_a_pair(
    fakes, board_file: Path, tmp_path: Path, capsys
) -> None:
    assert run_bench(board_file, tmp_path) == 0
    old = tmp_path / "old.csv"
    (tmp_path / "b.csv").rename(old)
    capsys.readouterr()
    scatter = tmp_path / "scatter.png"
    assert run_bench(board_file, tmp_path, "--baseline", str(old), "--scatter", str(scatter)) == 0
    assert scatter.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "speedup" in out and "VBS" in out and "(honest against honest:proof)" in out


# BenchExec's own `table-generator` console script, run by the interpreter the tests use
TABLE_GENERATOR = "import sys; from benchexec.tablegenerator import main; sys.exit(main(sys.argv))"


def test_benchexec_table_generator_reads_the_xml(fakes, board_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("benchexec.tablegenerator", reason="BenchExec (dev extra) is needed to read its own XML")
    xml = tmp_path / "xml"
    assert run_bench(board_file, tmp_path, "--xml", str(xml)) == 0
    files = sorted(xml.glob("*.xml"))
    assert len(files) == 3
    text = files[0].read_text()
    for column in ('title="status"', 'title="category"', 'title="cputime"', 'title="walltime"', 'title="memory"'):
        assert column in text
    tables = tmp_path / "tables"
    done = subprocess.run(
        [sys.executable, "-c", TABLE_GENERATOR, "-o", str(tables), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (csv_table,) = tables.glob("*.table.csv")
    table = csv_table.read_text()
    assert "pair" in table and "counts" in table and "cputime" in table and "memory" in table
    assert list(tables.glob("*.table.html"))


def test_scatter_puts_an_unanswered_run_on_the_time_limit_line() -> None:
    from sigmar.runners.render.bench_plots import scatter_figure

    rows = [
        row("b1", "a", 1.0, Grade.CORRECT),
        row("b1", "b", 4.0, Grade.CORRECT),
        row("b2", "a", 0.5, Grade.UNKNOWN),  # gave up early: still drawn at the limit
        row("b2", "b", 2.0, Grade.CORRECT),
    ]
    fig = scatter_figure(rows, "a", "b", time_limit=10)
    (points,) = fig.axes[0].collections
    xy = {tuple(p) for p in points.get_offsets().tolist()}
    assert xy == {(1.0, 4.0), (10.0, 2.0)}


def test_benchexec_run_of_a_memory_error_says_out_of_memory() -> None:
    from datetime import UTC, datetime

    from sigmar.runners.render.benchexec_xml import run_set
    from sigmar.runners.statistics.cost import Usage

    over = Row("f", "b1", "x", Result(Status.ERROR, "x", 0.5), Grade.ERROR, Usage(0.4, 900.0, over_memory=True))
    element = run_set([over], "x", "1", 10, 512, datetime.now(UTC))
    values = {c.get("title"): c.get("value") for c in element.find("run").findall("column")}  # type: ignore[union-attr]
    assert values == {
        "status": "OUT OF MEMORY",
        "category": "error",
        "cputime": "0.400000s",
        "walltime": "0.500000s",
        "memory": f"{900 * 1024 * 1024}B",
        "answered by": "x",
    }
    assert element.get("memlimit") == "512 MB"
