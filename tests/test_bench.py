"""``sigmar bench``: rows, grades, CSV header, cactus plot, local processes and a Dask LocalCluster."""

from __future__ import annotations

import math
from pathlib import Path

import psutil
import pytest

from sigmar.models.boardfile import parse_boards
from sigmar.models.result import Lost, Result, Status
from sigmar.runners import cli
from sigmar.runners.bench import Row, bench, percentile, plan, read_csv, run_local, summarise
from sigmar.runners.checking.grading import Grade
from tests.broken_backend import BOARDS_TEXT


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50 and percentile(values, 90) == 90 and percentile(values, 99) == 99
    assert percentile([3.0], 99) == 3.0
    assert math.isnan(percentile([], 50))


def test_summary_counts_and_times_only_answered_runs() -> None:
    rows = [
        Row("f", "b1", "x", Result(Status.SOLVED, "x", 1.0, verified=True), Grade.CORRECT),
        Row("f", "b2", "x", Result(Status.UNSOLVABLE, "x", 3.0), Grade.CORRECT),
        Row("f", "b3", "x", Result(Status.UNKNOWN, "x", 10.0), Grade.UNKNOWN),
        Row("f", "b4", "x", Result(Status.UNSOLVABLE, "x", 0.5), Grade.WRONG),
    ]
    (s,) = summarise(rows, ["x"])
    assert (s.runs, s.solved, s.unsolvable, s.unknown, s.wrong) == (4, 1, 1, 1, 1)
    assert (s.median, s.max) == (1.0, 3.0)  # the unknown and the wrong run are not timed


def test_local_bench_grades_every_run_and_leaves_no_process(fakes) -> None:
    boards = parse_boards(BOARDS_TEXT, "tiny")
    names = ["honest", "broken:wrong", "broken:exit", "broken:hang"]
    runs = plan([("tiny", boards)], names)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    # A limit the exiting worker meets on a loaded machine too: at 0.3 s (with 0.2 s of slack) its fork had not
    # reached os._exit at load 25, and it was killed as an overrun (unknown, not error).
    result = bench(runs, names, run_local(runs, 2.0, jobs=2, slack=1.0))
    assert {p.pid for p in psutil.Process().children(recursive=True)} <= before
    assert len(result.rows) == len(boards) * len(names)
    grades = {(r.board, r.backend): r.grade for r in result.rows}
    assert grades[("pair", "honest")] is Grade.CORRECT
    assert grades[("pair", "broken:wrong")] is Grade.WRONG
    assert grades[("pair", "broken:exit")] is Grade.ERROR
    assert grades[("pair", "broken:hang")] is Grade.UNKNOWN
    assert grades[("counts", "honest")] is Grade.CORRECT  # exhausted agrees with the counts


def test_bench_cli_writes_csv_and_plot(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    out, plot = tmp_path / "bench.csv", tmp_path / "cactus.png"
    argv = ["bench", str(board_file), "-b", "honest,honest:proof", "--time-limit", "5"]
    code = cli.main([*argv, "--out", str(out), "--plot", str(plot)])
    assert code == 0
    header = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert any("cpus" in line and "python" in line for line in header)
    assert any(line.startswith("# backend honest: exact name honest:dfs; version fake-1") for line in header)
    rows = read_csv(out)
    assert len(rows) == 3 * 2
    assert {r["backend"] for r in rows} == {"honest", "honest:proof"}
    by = {(r["board"], r["backend"]): r for r in rows}
    # every "no" says whether it was certified: honest's dead-states file was checked, honest:proof only claims
    assert (by[("stuck", "honest")]["certified"], by[("stuck", "honest:proof")]["certified"]) == ("yes", "no")
    assert by[("stuck", "honest")]["certificate"] == "dead-states" and by[("stuck", "honest")]["grade"] == "correct"
    assert by[("stuck", "honest:proof")]["grade"] == "unconfirmed"
    assert by[("pair", "honest")]["certified"] == "" and by[("pair", "honest")]["truth"] == "solvable"
    assert all(r["grade"] == "correct" for r in rows if r["backend"] == "honest")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "median" in printed and "p99" in printed


def test_bench_cli_exits_3_on_a_wrong_backend(fakes, board_file: Path, capsys) -> None:
    assert cli.main(["bench", str(board_file), "-b", "honest,broken:wrong", "--time-limit", "5"]) == 3
    assert "rejects" in capsys.readouterr().out


def test_bench_on_a_dask_local_cluster(fakes, board_file: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="bench --cluster needs dask.distributed")
    out = tmp_path / "cluster.csv"
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0"
    ) as cluster:
        code = cli.main(
            [
                "bench",
                str(board_file),
                "-b",
                "honest,broken:crash,broken:wrong,broken:hang",
                "--time-limit",
                "3",
                "--cluster",
                cluster.scheduler_address,
                "--out",
                str(out),
            ]
        )
    assert code == 3  # broken:wrong caught on the cluster too
    rows = read_csv(out)
    assert len(rows) == 3 * 4
    by = {(r["board"], r["backend"]): r for r in rows}
    assert by[("pair", "honest")]["grade"] == "correct"
    assert by[("pair", "broken:crash")]["grade"] == "error"
    assert by[("pair", "broken:wrong")]["grade"] == "wrong"
    # a run that ignores its limit: its worker in the host is killed, and the next run gets a fresh one
    hung = [r for r in rows if r["backend"] == "broken:hang"]
    assert all(r["grade"] == "unknown" and "killed" in r["message"] for r in hung), hung
    # measured in the host's workers like a local run: CPU time and peak memory on every answered run
    answered = [r for r in rows if r["grade"] in ("correct", "wrong")]
    assert answered and all(float(r["cpu_seconds"]) >= 0 and float(r["memory_mb"]) > 0 for r in answered), answered
    assert any("dask cluster" in line for line in out.read_text().splitlines() if line.startswith("#"))


def test_a_cluster_hosts_runs_are_marked_lost_by_its_code_never_by_a_backend(fakes, boards, monkeypatch) -> None:
    """A cluster task's runs in the host (cluster._one_run, here in this process): a worker that dies or
    overruns gives an answer marked lost (Result.lost, what fuzz grades by), and a backend that marks its
    own answer so has that mark cleared before it leaves the host."""
    from sigmar.runners.bench import WorkerPool
    from sigmar.runners.cluster import _one_run, lost_mark
    from tests.broken_backend import HonestBackend

    real = HonestBackend.solve
    monkeypatch.setattr(HonestBackend, "solve", lambda self, b, t=None: real(self, b, t).with_(lost=Lost.CRASH))
    pool = WorkerPool(None)
    try:
        runs = {
            name: _one_run(pool, index, name, boards["pair"], 2.0, 0.5)[1]
            for index, name in enumerate(["honest", "broken:exit", "broken:hang"])
        }
    finally:
        pool.kill_all()
    assert runs["honest"].status is Status.SOLVED and lost_mark(runs["honest"]) is None
    assert runs["broken:exit"].status is Status.ERROR and lost_mark(runs["broken:exit"]) is Lost.CRASH
    assert runs["broken:hang"].status is Status.UNKNOWN and lost_mark(runs["broken:hang"]) is Lost.OVERRUN
