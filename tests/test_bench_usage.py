"""``sigmar bench``: CPU time and peak memory per run, children included, and ``--mem-limit``."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from sigmar.models.boardfile import parse_boards
from sigmar.runners import cli
from sigmar.runners.bench import bench, plan, read_csv, run_local
from sigmar.runners.checking.grading import Grade
from tests.broken_backend import BOARDS_TEXT


def one_board_runs(names: list[str]):
    boards = parse_boards(BOARDS_TEXT, "tiny")[:1]
    return plan([("tiny", boards)], names)


def test_cpu_time_counts_a_child_process(fakes) -> None:
    runs = one_board_runs(["broken:spinchild"])
    (row,) = bench(runs, ["broken:spinchild"], run_local(runs, 10)).rows
    cpu = row.usage.cpu_seconds
    assert cpu is not None and cpu >= 0.25, f"a child's 0.3 s of CPU is missing: {cpu}"


def test_peak_memory_sees_the_worker_and_its_child(fakes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGMAR_FAKE_MB", "150")
    names = ["broken:unknown", "broken:hog", "broken:hogchild"]
    runs = one_board_runs(names)
    rows = {r.backend: r for r in bench(runs, names, run_local(runs, 10)).rows}
    idle = rows["broken:unknown"].usage.memory_mb
    assert idle is not None and idle > 5
    for name in ("broken:hog", "broken:hogchild"):
        peak = rows[name].usage.memory_mb
        assert peak is not None and peak - idle == pytest.approx(150, rel=0.25), f"{name}: {peak} MB vs idle {idle}"


def test_a_run_over_the_memory_limit_is_an_error_and_the_bench_goes_on(
    fakes, board_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("SIGMAR_FAKE_MB", "400")
    idle = psutil.Process().memory_info().rss / 2**20
    out = tmp_path / "mem.csv"
    argv = ["bench", str(board_file), "-b", "broken:hog,broken:hogchild,honest", "--time-limit", "10"]
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    code = cli.main([*argv, "--mem-limit", f"{idle + 150:.0f}", "--out", str(out)])
    assert {p.pid for p in psutil.Process().children(recursive=True)} <= before
    assert code == 0  # honest answered every board
    rows = read_csv(out)
    assert len(rows) == 3 * 3
    for r in rows:
        if r["backend"].startswith("broken"):
            assert (r["status"], r["reason"], r["grade"]) == ("error", "memory", "error"), r
            assert "over the limit" in r["message"] or "out of memory" in r["message"]
        else:
            assert r["grade"] == Grade.CORRECT.value and float(r["memory_mb"]) > 0, r
    assert any(line.startswith("# memory limit") for line in out.read_text().splitlines())
    assert "3 (3 mem)" in capsys.readouterr().out  # the summary says which errors were memory


def test_a_memory_error_without_a_limit_is_an_error_with_reason_memory(fakes) -> None:
    runs = one_board_runs(["broken:memerror", "honest"])
    rows = {r.backend: r for r in bench(runs, ["broken:memerror", "honest"], run_local(runs, 10)).rows}
    bad = rows["broken:memerror"]
    assert (str(bad.result.status), bad.reason, bad.grade) == ("error", "memory", Grade.ERROR)
    assert "ran out of memory" in bad.result.message
    assert rows["honest"].grade is Grade.CORRECT


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--mem-limit", "0"], "--mem-limit must be a positive"),
        (["--out", "{file}/x.csv"], "--out"),
        (["--html", "{file}/r.html"], "--html"),
        (["--xml", "{file}/xml"], "--xml"),
        (["--baseline", "{file}"], "not a sigmar bench CSV"),
        (["--scatter", "{file}.png", "--pair", "honest,cnf"], "cnf is not among the chosen backends"),
        (["--pair", "honest,honest:proof"], "give --scatter PNG too"),
    ],
)
def test_bad_bench_arguments_exit_2_with_one_line(
    fakes, board_file: Path, tmp_path: Path, capsys, extra: list[str], words: str
) -> None:
    a_file = tmp_path / "plain.txt"
    a_file.write_text("name,age\nx,1\n")
    argv = ["bench", str(board_file), "-b", "honest", *(e.replace("{file}", str(a_file)) for e in extra)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err, err
