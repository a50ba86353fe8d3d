"""``sigmar fuzz``: the dealer, the truth, the grading, the shrinking, and the three mutants it must catch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders import plugins
from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.result import Certificate, CertificateKind, Lost, Reason, Result, Status
from sigmar.models.rules import verify
from sigmar.models.truth import Truth, settle
from sigmar.runners.checking.fuzz_grade import Failure, failure_of
from sigmar.runners.fuzz import Races, fuzz_one
from sigmar.runners.shrink import shrink
from tests.bruteforce import is_solvable
from tests.conftest import small_boards

SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]


# -- the truth ---------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(small_boards().filter(lambda b: b.dim <= 3))
def test_truth_agrees_with_the_brute_force(board: Board) -> None:
    truth = settle(board)
    assert truth.solvable == is_solvable(board)
    if truth.solvable:
        assert verify(board, truth.solution).valid


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**4), st.sampled_from(["standard", "quintessence"]))
def test_truth_agrees_with_the_brute_force_on_dealt_boards(seed: int, index: int, variant: str) -> None:
    board = fuzz_board(seed, index, 10, variant)
    if board.dim > 3:
        board = fuzz_board(seed, index, 7, variant)  # at most 7 tiles: some side <= 3 holds them
    truth = settle(board)
    assert truth.solvable == is_solvable(board)
    if truth.solvable:
        assert verify(board, truth.solution).valid


# -- the dealer --------------------------------------------------------------


def test_deals_are_reproducible_and_cover_every_kind() -> None:
    assert fuzz_board(7, 3, 12, "both") == fuzz_board(7, 3, 12, "both")
    boards = [fuzz_board(1, i, 12, "both") for i in range(300)]
    symbols = Counter(t.symbol for b in boards for t in b.tiles)
    assert set("aefwsvmqx") <= set(symbols)
    assert {str(d) for d in range(1, 10)} <= set(symbols)
    assert {b.dim for b in boards} == {2, 3, 4}
    assert all(1 <= len(b) <= 12 for b in boards)
    truths = Counter(settle(b).solvable for b in boards)
    assert truths[True] > 30 and truths[False] > 30
    standard, quintessence = boards[0::2], boards[1::2]
    assert not any("x" in b.counts for b in standard)
    assert all("x" in b.counts for b in quintessence)
    # the boards near the limits: gold alone, no metals, a lone quicksilver, salt standing in
    assert any(len(b) == 1 and b.gold is not None for b in boards)
    assert any(not b.metals and settle(b).solvable for b in boards)
    assert any(b.counts["q"] == 1 and not b.metals for b in boards)
    assert any(b.counts["s"] % 2 == 1 and settle(b).solvable for b in boards)
    assert any(len(b.metals) >= 4 and settle(b).solvable for b in boards)


# -- the grading -------------------------------------------------------------

SOLVABLE, UNSOLVABLE = Truth(True), Truth(False)


def test_every_failure_kind_is_told_apart() -> None:
    said = Result(Status.UNSOLVABLE, "x", reason=Reason.PROOF)
    assert failure_of(said, SOLVABLE) is Failure.WRONG_UNSOLVABLE
    assert failure_of(said, UNSOLVABLE) is None  # a claim on an unsolvable board is true, if unchecked
    rejected = Result(Status.ERROR, "x", wrong=True, message="rejects")
    assert failure_of(rejected, SOLVABLE) is Failure.REJECTED_SOLUTION
    assert failure_of(rejected, UNSOLVABLE) is Failure.WRONG_SOLVED
    bad_certificate = said.with_(certificate=Certificate(CertificateKind.STUCK), checked=False)
    assert failure_of(bad_certificate, UNSOLVABLE) is Failure.REJECTED_CERTIFICATE
    assert failure_of(bad_certificate.with_(checked=True), UNSOLVABLE) is None
    crashed = Result(Status.ERROR, "x", message="x: worker killed by signal SIGKILL", lost=Lost.CRASH)
    assert failure_of(crashed, SOLVABLE) is Failure.CRASH
    # told by the runner's mark, not by the words: a backend's own message that reads like a crash is an error
    assert failure_of(Result(Status.ERROR, "x", message="x: died while solving"), SOLVABLE) is Failure.ERROR
    assert failure_of(Result(Status.ERROR, "x", message="ValueError: no"), SOLVABLE) is Failure.ERROR
    overran = Result(Status.UNKNOWN, "x", message="no answer in 1 s; killed", lost=Lost.OVERRUN)
    assert failure_of(overran, SOLVABLE) is Failure.HANG
    assert failure_of(Result(Status.UNKNOWN, "x", message="no answer in 1 s; killed"), SOLVABLE) is None
    assert failure_of(Result(Status.UNKNOWN, "x", message="time limit"), SOLVABLE) is None
    assert failure_of(Result(Status.SOLVED, "x", verified=True), SOLVABLE) is None


def test_crashes_and_hangs_are_failures_and_the_honest_backend_is_not(fakes: None) -> None:
    board = parse_boards("a . .\n . . . .\n  . . a . .\n   . . . .\n    . . .\n", "pair")[0]
    with Races(["honest:dfs", "broken:exit", "broken:hang", "broken:wrong"], time_limit=1.0) as races:
        record = fuzz_one(races, board)
    kinds = {f["backend"]: f["failure"] for f in record["failures"]}
    assert kinds == {"broken:exit": "crash", "broken:hang": "hang", "broken:wrong": "rejected-solution"}
    assert record["truth"] == "solvable"
    assert all(f["shrunk_tiles"] <= 2 for f in record["failures"])


def test_races_drop_an_optional_backend_not_available_here_and_refuse_any_other(fakes: None) -> None:
    """``all`` on a cluster: the host's machine says which backends it grades (the client asks none), so a name
    it lacks is dropped there, not a failed task; a name asked for by name is still refused."""
    from sigmar.encoders.registry import UnknownBackend

    board = parse_boards("a . .\n . . . .\n  . . a . .\n   . . . .\n    . . .\n", "pair")[0]
    with Races(["honest:dfs", "no-such-family"], time_limit=5.0, optional=["no-such-family"]) as races:
        assert races.names == ["honest:dfs"]
        assert fuzz_one(races, board)["answers"] == {"honest:dfs": "solved"}
    with pytest.raises(UnknownBackend):
        Races(["honest:dfs", "no-such-family"], time_limit=5.0)


# -- the shrinking -----------------------------------------------------------


def test_shrink_drops_pairs_relabels_metals_and_shrinks_the_side() -> None:
    board = parse_boards(". . . .\n. v a . .\n. . 7 q . .\n. . m 9 . . .\n. . a . . .\n. . s . .\ne . . .\n")[0]
    assert board.dim == 4

    def has_order(b: Board) -> bool:  # "fails" while it has a quicksilver and two metals
        return b.counts["q"] >= 1 and len(b.metals) >= 2

    small, tried = shrink(board, has_order)
    assert sorted(t.symbol for t in small.tiles) == ["1", "2", "q"]
    assert small.dim == 2
    assert tried > 0
    assert has_order(small)


def test_shrink_drops_a_whole_quintessence_move() -> None:
    board = parse_boards(". x a\ne . f .\nw . . . .\n. v m .\n. . .\n")[0]
    small, _ = shrink(board, lambda b: b.counts["v"] == 1 and len(b) % 2 == 0)
    assert sorted(t.symbol for t in small.tiles) == ["m", "v"]


# -- the command -------------------------------------------------------------


def run_sigmar(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SIGMAR, *args], capture_output=True, text=True, env=env, timeout=600)


def test_fuzz_finds_nothing_wrong_with_the_search_backend(tmp_path: Path) -> None:
    done = run_sigmar("fuzz", "-b", "search", "--count", "40", "--seed", "3", "--out", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["board"] for r in records] == [f"fuzz-s3-{i}" for i in range(40)]
    assert all(r["failures"] == [] for r in records)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ["--max-tiles", "0"],
        ["--max-tiles", "38"],
        ["--count", "-1"],
        ["--variant", "odd"],
        ["--variant", "quintessence", "--max-tiles", "4"],
        ["-b", "nosuch"],
        ["--time-limit", "0"],
    ],
)
def test_bad_arguments_exit_2_in_one_line(args: list[str]) -> None:
    done = run_sigmar("fuzz", "-b", "search", *args) if "-b" not in args else run_sigmar("fuzz", *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


# -- the mutants -------------------------------------------------------------


@pytest.mark.parametrize("mutant", ["mutant-vitae", "mutant-order", "mutant-cnf"])
def test_each_mutant_is_caught_and_shrunk_to_at_most_6_tiles(
    mutant: str, mutant_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_sigmar("fuzz", "-b", mutant, "--count", "60", "--seed", "1", "--out", str(out), "--json", env=mutant_env)
    assert done.returncode == 3, done.stderr
    failures = [f for line in done.stdout.splitlines() for f in json.loads(line)["failures"]]
    assert failures and all(f["backend"] == mutant for f in failures)
    smallest = min(failures, key=lambda f: f["shrunk_tiles"])
    assert smallest["shrunk_tiles"] <= 6
    assert smallest["shrunk_tiles"] < len(parse_boards(smallest["original"])[0]) or smallest["shrunk_tiles"] <= 2
    # the files: the shrunk board, and a report whose command reproduces the failure
    board_file, report_file = (Path(p) for p in smallest["files"])
    report = json.loads(report_file.read_text())
    assert report["backend"] == mutant and report["failure"] == smallest["failure"] and report["seed"] == 1
    assert parse_boards(report["original"])[0].tiles
    shrunk = read_boards(board_file)
    assert len(shrunk) == 1 and len(shrunk[0]) == smallest["shrunk_tiles"]
    command = report["command"].split()
    assert command[0] == "sigmar"
    again = run_sigmar(*command[1:], "--json", env=mutant_env)
    assert again.returncode == 3
    assert [f["failure"] for f in json.loads(again.stdout)["failures"]] == [smallest["failure"]]


def test_mutants_are_graded_not_trusted_beside_an_honest_backend(mutant_env: dict[str, str], tmp_path: Path) -> None:
    """A board without vitae: the vitae mutant answers like the search backend, and nothing fails."""
    path = tmp_path / "pair.txt"
    path.write_text("a . .\n . . . .\n  . . a . .\n   . . . .\n    . . .\n")
    done = run_sigmar("fuzz", "--replay", str(path), "-b", "search,mutant-vitae", "--json", env=mutant_env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answers"] == {"search": "solved", "mutant-vitae": "solved"}


# -- on a Dask cluster -------------------------------------------------------


def test_fuzz_on_a_real_dask_cluster_finds_what_it_finds_here(
    mutant_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    distributed = pytest.importorskip("distributed", reason="--cluster needs dask.distributed")

    from sigmar.runners import cli

    for path in reversed(mutant_env["PYTHONPATH"].split(os.pathsep)):
        if path:
            monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("PYTHONPATH", mutant_env["PYTHONPATH"])  # the cluster's worker processes find the plugin
    # This process read the entry points once already if an earlier test listed the backends (one xdist worker
    # runs many tests): read them again with the mutants on the path, and again after the test without them.
    plugins.entries.cache_clear()
    request.addfinalizer(plugins.entries.cache_clear)
    args = ["fuzz", "-b", "search,mutant-order", "--count", "12", "--seed", "1", "--json"]
    with distributed.LocalCluster(  # Dask's defaults: a nanny, a daemonic worker process
        processes=True, n_workers=1, threads_per_worker=2, dashboard_address=":0", silence_logs=50
    ) as cluster:
        code = cli.main([*args, "--out", str(tmp_path / "there"), "--cluster", cluster.scheduler_address])
    said = capsys.readouterr()
    assert code == 3, said.err
    there = {r["board"]: r for r in map(json.loads, said.out.splitlines())}
    here_code = cli.main([*args, "--out", str(tmp_path / "here")])
    here = {r["board"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert code == here_code == 3
    assert set(there) == set(here) == {f"fuzz-s1-{i}" for i in range(12)}
    for name, record in here.items():
        assert there[name]["truth"] == record["truth"]
        assert [(f["backend"], f["failure"]) for f in there[name]["failures"]] == [
            (f["backend"], f["failure"]) for f in record["failures"]
        ]
    written = {where: sorted(p.name for p in (tmp_path / where).iterdir()) for where in ("there", "here")}
    assert written["there"] == written["here"]


# -- failures grouped, capped, with the truth's witness, in the shrunk board's cells


def test_one_bug_on_many_boards_is_one_group_and_the_cap_stops_the_deal(
    mutant_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_sigmar(
        "fuzz", "-b", "mutant-vitae", "--count", "60", "--seed", "1", "--output-dir", str(out), "--json", env=mutant_env
    )
    assert done.returncode == 3, done.stderr
    failures = [f for line in done.stdout.splitlines() for f in json.loads(line)["failures"]]
    reports = [json.loads(p.read_text()) for p in out.glob("*.json") if not p.name.endswith(".witness.json")]
    assert len(failures) > 3 and len(reports) < len(failures), (len(failures), len(reports))
    assert sorted(b for r in reports for b in r["boards"]) == sorted(
        json.loads(line)["board"] for line in done.stdout.splitlines() if json.loads(line)["failures"]
    )
    capped = run_sigmar(
        "fuzz",
        "-b",
        "mutant-vitae",
        "--count",
        "60",
        "--seed",
        "1",
        "--max-failures",
        "2",
        "--output-dir",
        str(tmp_path / "capped"),
        "--json",
        env=mutant_env,
    )
    assert capped.returncode == 3, capped.stderr
    records = [json.loads(line) for line in capped.stdout.splitlines()]
    assert sum(len(r["failures"]) for r in records) == 2 and len(records) < 60


def test_a_wrong_unsolvable_carries_the_truths_witness_which_verify_accepts(
    mutant_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_sigmar(
        "fuzz",
        "-b",
        "mutant-vitae",
        "--count",
        "6",
        "--seed",
        "1",
        "--output-dir",
        str(out),
        "--max-failures",
        "1",
        env=mutant_env,
    )
    assert done.returncode == 3, done.stderr
    (report_file,) = [p for p in out.glob("*.json") if not p.name.endswith(".witness.json")]
    report = json.loads(report_file.read_text())
    assert report["failure"] == "wrong-unsolvable" and report["witness"], report
    command = report["verify"].split()
    assert command[:2] == ["sigmar", "verify"]
    assert run_sigmar(*command[1:]).returncode == 0  # the witness clears the shrunk board


def test_a_failure_message_names_cells_of_the_shrunk_board(mutant_env: dict[str, str], tmp_path: Path) -> None:
    """mutant-cnf plays a tile that is not free; the message names it by a cell of the board in the files."""
    import re

    from sigmar.models.hexgrid import from_rowcol
    from sigmar.models.tiles import name_of

    done = run_sigmar(
        "fuzz",
        "-b",
        "mutant-cnf",
        "--count",
        "20",
        "--seed",
        "1",
        "--output-dir",
        str(tmp_path),
        "--json",
        env=mutant_env,
    )
    assert done.returncode == 3, done.stderr
    failures = [f for line in done.stdout.splitlines() for f in json.loads(line)["failures"]]
    named = 0
    for failure in failures:
        shrunk = parse_boards(failure["shrunk"])[0]
        for kind, row, col in re.findall(r"((?:metal )?\w+) at \[(\d+), (\d+)\]", failure["message"]):
            named += 1
            cell = from_rowcol(int(row), int(col), shrunk.dim)
            assert name_of(shrunk.symbol_at[cell]) == kind, (failure["message"], failure["shrunk"])
    assert named, [f["message"] for f in failures]
