"""Regression tests for the defects of issue 18 (hardening): each bad input is exit 2 with one line,
nothing is lost or overwritten on a bad path.  The kill tests are in test_lifetime.py."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigmar.models.boardfile import BoardFileError, parse_boards
from sigmar.models.result import Certificate, CertificateKind, Result, Status
from sigmar.models.solution import parse_solutions
from sigmar.runners.bench import CsvSink, bench, plan, read_csv
from sigmar.runners.checking.certify import ProofStore, proof_stem
from tests.broken_backend import BOARDS_TEXT
from tests.conftest import REAL_GAME_TEXT

BOARD = parse_boards(BOARDS_TEXT, "tiny")[0]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *args], capture_output=True, text=True, timeout=60
    )


def assert_usage_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, no traceback, and the last line of standard error names the problem."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in last, last


# -- 5: time limits


# Every command takes --time-limit through options.add_time_limit (one checked type): every bad
# value is tried on solve, and each other command is shown to use the check with two of them.
TIME_LIMIT_CASES = [("solve", v) for v in ["nan", "inf", "-inf", "1e9", "1e400", "0", "x"]] + [
    (command, value) for command in ["crosscheck", "bench", "prove"] for value in ["nan", "0"]
]


@pytest.mark.parametrize(("command", "value"), TIME_LIMIT_CASES)
def test_time_limit_must_be_finite_positive_and_at_most_a_week(tmp_path: Path, command: str, value: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    assert_usage_error(run_cli(command, str(board), f"--time-limit={value}"), "--time-limit", value)


def test_a_week_is_accepted_as_a_time_limit() -> None:
    from sigmar.runners.cli.options import seconds

    assert seconds("604800") == 604800.0 and seconds("0.5") == 0.5


# -- 9: --sat-cmd that cannot start


@pytest.mark.parametrize(
    ("command", "word"),
    [("no-such-solver-xyz -q", "no-such-solver-xyz"), ("kissat 'unterminated", "No closing quotation"), ("", "empty")],
)
def test_a_sat_cmd_that_cannot_start_is_exit_2_up_front(tmp_path: Path, command: str, word: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    assert_usage_error(run_cli("solve", str(board), "--sat-cmd", command), "--sat-cmd", word)


def test_a_flooding_sat_cmd_is_an_error_not_a_memory_hog(monkeypatch: pytest.MonkeyPatch) -> None:
    from sigmar.encoders import cnf
    from sigmar.encoders.cnf import external

    monkeypatch.setattr(external, "OUTPUT_CAP", 1 << 20)  # `yes` prints 1 MB in milliseconds
    result = cnf.CnfBackend("external", sat_cmd="yes").solve(BOARD, 20)
    assert result.status is Status.ERROR and "more than" in result.message, result


# -- 8 and 6: unusable output paths, found before any work


@pytest.mark.parametrize("where", ["file", "under-file"])
@pytest.mark.parametrize("command", ["solve", "prove", "crosscheck"])
def test_an_unusable_proof_dir_is_exit_2_before_any_work(tmp_path: Path, command: str, where: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker if where == "file" else blocker / "proofs"
    assert_usage_error(run_cli(command, str(board), "--proof-dir", str(target)), "--proof-dir")


@pytest.mark.parametrize("option", ["--out", "--plot"])
@pytest.mark.parametrize("where", ["folder", "under-file"])
def test_an_unusable_bench_output_is_exit_2_before_any_run(tmp_path: Path, option: str, where: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = tmp_path if where == "folder" else blocker / "x.out"
    assert_usage_error(run_cli("bench", str(board), "-b", "search", option, str(target)), option)


@pytest.mark.parametrize("value", ["0", "-3", "two", "100000"])
def test_jobs_is_checked_at_parse_time(tmp_path: Path, value: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    assert_usage_error(run_cli("bench", str(board), f"--jobs={value}"), "--jobs")


# -- bench keeps every finished run


def test_bench_writes_each_board_as_it_ends_and_keeps_them_on_interrupt(fakes, tmp_path: Path) -> None:
    boards = parse_boards(BOARDS_TEXT, "tiny")
    names = ["honest"]
    runs = plan([("tiny", boards)], names)

    def interrupted():  # type: ignore[no-untyped-def]
        yield runs[0], Result(Status.SOLVED, "honest", 0.1, moves=()), None
        raise KeyboardInterrupt

    out = tmp_path / "bench.csv"
    log = CsvSink(out, ["a header line"])
    with pytest.raises(KeyboardInterrupt):
        bench(runs, names, interrupted(), on_board=log.write)
    log.close()
    rows = read_csv(out)
    assert [r["board"] for r in rows] == [boards[0].name], rows


# -- 4: proof files that cannot collide


def _claim_in_child(folder: str, text: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    store = ProofStore(Path(folder))
    texts = {".drup": text, ".cnf": text, ".vars.json": text}
    written = store.write(BOARD, Certificate(CertificateKind.DRUP, texts=texts))
    queue.put((text, written.file))


def test_runs_sharing_a_proof_dir_never_overwrite_each_other(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    texts = [f"run {i}\n" for i in range(6)]
    procs = [ctx.Process(target=_claim_in_child, args=(str(tmp_path), t, queue)) for t in texts]
    for p in procs:
        p.start()
    answers = [queue.get(timeout=20) for _ in procs]
    for p in procs:
        p.join(10)
    files = [file for _, file in answers]
    assert len(set(files)) == len(texts), files  # six runs, six stems
    for text, file in answers:
        stem = file.removesuffix(".drup")
        for suffix in (".drup", ".cnf", ".vars.json"):  # every file of a run holds that run's text
            assert Path(stem + suffix).read_text() == text
    assert all(Path(f).name.startswith(proof_stem(BOARD)) for f in files)


def test_a_rerun_into_the_same_proof_dir_keeps_the_first_files(tmp_path: Path) -> None:
    first = ProofStore(tmp_path).write(BOARD, Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": "1"}))
    second = ProofStore(tmp_path).write(BOARD, Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": "2"}))
    assert first.file != second.file
    assert Path(str(first.file)).read_text() == "1" and Path(str(second.file)).read_text() == "2"


# -- 2 and 11: rup_check bounded, and a missing file is exit 2


def rup_main(tmp_path: Path, cnf: str, drup: str | None) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run rup_check in a fresh interpreter; its peak memory (kB) comes back with the outcome.

    VmHWM, not ru_maxrss: ru_maxrss keeps the size of the forked pytest process from before exec.
    """
    (tmp_path / "F.cnf").write_text(cnf)
    if drup is not None:
        (tmp_path / "P.drup").write_text(drup)
    code = (
        "import sys\n"
        "from sigmar.runners.checking.rup_check import main\n"
        f"code = main([{str(tmp_path / 'F.cnf')!r}, {str(tmp_path / 'P.drup')!r}])\n"
        "hwm = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')]\n"
        "print('PEAK', hwm[0])\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    peak = int(done.stdout.split("PEAK")[-1]) if "PEAK" in done.stdout else 0
    return done, peak


@pytest.mark.parametrize(
    ("cnf", "drup", "word"),
    [
        ("p cnf 2 2\n1 2 0\n-1 0\n", "3000000000 0\n0\n", "beyond"),
        ("p cnf 2 2\n1 2 0\n-1 0\n", "-3000000000 1 0\n0\n", "beyond"),
        ("p cnf 3000000000 1\n3000000000 0\n", "0\n", "more than this checker takes"),
        ("p cnf -1 0\n", "0\n", "negative"),
    ],
)
def test_rup_check_refuses_absurd_sizes_before_allocating(tmp_path: Path, cnf: str, drup: str, word: str) -> None:
    done, peak = rup_main(tmp_path, cnf, drup)
    assert done.returncode == 1 and "INVALID" in done.stdout and word in done.stdout, done
    assert peak < 200_000, f"peak {peak} kB"


def test_rup_check_on_a_missing_file_is_exit_2_with_one_line(tmp_path: Path) -> None:
    done, _ = rup_main(tmp_path, "p cnf 1 1\n1 0\n", None)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "P.drup" in done.stderr, done.stderr


# -- 7: verify's JSON

REAL_BOARD = "# one\n" + REAL_GAME_TEXT


@pytest.mark.parametrize(
    ("solution", "word"),
    [
        ('{"moves": 5}', "list of moves"),
        ('{"moves": null}', "list of moves"),
        ("[[Infinity,0]]", "Infinity"),
        ('{"moves": [[[NaN, 1]]]}', "NaN"),
        ('{"moves": [[[1' + "0" * 5000 + ", 2]]]}", "too long"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"moves": [[[1.9, 2.2]]]}', "whole number"),
        ('{"moves": [[[true, 2]]]}', "whole number"),
        ('{"moves": [[[1, 2, 3]]]}', "two numbers"),
        ('{"moves": [[["\\u0661", 2]]]}', "whole number"),
        ('{"moves": [[[-1, 2]]]}', "row or column"),
        ('{"moves": [[]]}', "nonempty"),
        ('{"board": 7, "moves": []}', "string"),
        ('{"board": "another", "moves": [[[1, 2], [3, 4]]]}', "another"),
        ("\u0661,2 3,4", "not a cell"),
    ],
    ids=lambda value: value if len(value) < 40 else f"{value[:20]}...({len(value)} chars)",
)
def test_verify_rejects_odd_solutions_with_exit_2_and_one_line(tmp_path: Path, solution: str, word: str) -> None:
    board, answer = tmp_path / "b.txt", tmp_path / "s.json"
    board.write_text(REAL_BOARD)
    answer.write_text(solution + "\n")
    done = run_cli("verify", str(board), str(answer))
    assert_usage_error(done, word)
    assert done.stderr.strip().count("\n") == 0, done.stderr


def test_verify_refuses_a_solution_for_another_board_than_the_one_chosen(tmp_path: Path) -> None:
    board, answer = tmp_path / "b.txt", tmp_path / "s.json"
    board.write_text(REAL_BOARD + "\n" + REAL_BOARD.replace("# one", "# two"))
    answer.write_text('{"board": "one", "moves": [[[1, 2], [3, 4]]]}\n')
    assert_usage_error(run_cli("verify", str(board), str(answer), "--board", "two"), "'one'", "'two'")


# -- 11: board files split at \n only; a BOM is dropped


@pytest.mark.parametrize("odd", ["\v", "\f", "\x85", "\u2028", "\u2029", "\x1c"])
def test_board_rows_split_only_at_newlines(odd: str) -> None:
    text = REAL_BOARD.replace(" f m v", f" f{odd}m v").replace("s a s e", "s a z e")  # z: a bad symbol
    with pytest.raises(BoardFileError) as caught:
        parse_boards(text, "odd.txt")
    error = caught.value
    assert (error.line, error.row, error.col) == (4, 2, 2), str(error)


def test_a_bom_is_dropped_and_crlf_is_a_newline() -> None:
    (board,) = parse_boards("\ufeff" + REAL_BOARD.replace("\n", "\r\n"), "bom.txt")
    assert board.dim == 6 and len(board.tiles) == 55 and board.name == "one"


# -- minor: -b with a stray comma, and a broken pipe


@pytest.mark.parametrize(("spec", "word"), [("all,cnf", "stands alone"), (",", "no backend named")])
def test_backend_lists_with_all_or_nothing_say_so(tmp_path: Path, spec: str, word: str) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARDS_TEXT)
    assert_usage_error(run_cli("solve", str(board), f"--backend={spec}"), word)


def test_all_with_a_stray_comma_is_all() -> None:
    from sigmar.encoders.registry import expand

    assert expand("all,") == expand("all")


@pytest.mark.parametrize("command", [["show"], ["solve", "-b", "search", "--json"]])
def test_a_broken_pipe_is_silent(tmp_path: Path, command: list[str]) -> None:
    board = tmp_path / "b.txt"
    board.write_text("\n".join([REAL_BOARD] * 40))
    shell = f"{sys.executable} -m sigmar.runners.cli {command[0]} {board} {' '.join(command[1:])} | head -c 1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", (done.returncode, done.stderr)


# -- fuzz: any text is boards or one BoardFileError, never a traceback

ODD_TEXT = st.text(
    alphabet=st.sampled_from([*'aefwsvmqx0123456789.# \n\r\t\v\f[]{},:"-1eE+', "\ufeff", "\u2028", "\x85", "\u0661"]),
    max_size=300,
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["moves", "board", "cells"]), inner, max_size=3)
    ),
    max_leaves=20,
).map(json.dumps)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ODD_TEXT)
def test_board_parser_on_any_text_is_boards_or_one_clean_error(text: str) -> None:
    try:
        boards = parse_boards(text, "fuzz.txt")
    except BoardFileError as exc:
        assert "\n" not in str(exc)
    else:
        assert boards


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ODD_TEXT | JSON_VALUES)
def test_solution_parser_on_any_text_is_solutions_or_one_clean_error(text: str) -> None:
    try:
        solutions = parse_solutions(text, "fuzz.json")
    except BoardFileError as exc:
        assert "\n" not in str(exc)
    else:
        for solution in solutions:
            for move in solution.moves:
                assert all(type(r) is int and type(c) is int and r >= 0 and c >= 0 for r, c in move)


def test_an_external_solver_that_closes_its_output_and_hangs_is_stopped_at_the_limit(tmp_path: Path) -> None:
    from sigmar.encoders import cnf

    script = tmp_path / "close.sh"
    script.write_text("#!/bin/sh\nexec >&-\nsleep 100\n")
    script.chmod(0o755)
    backend = cnf.CnfBackend("external", sat_cmd=str(script))
    result = backend.solve(BOARD, 1.0)
    assert result.status is Status.UNKNOWN and result.seconds < 6, result


# -- the same sweep over the other subcommands' arguments


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["generate", "--count", "1", "-o", "{blocker}/x.txt"], "--out"),
        (["generate", "--count", "1", "-o", "{tmp}"], "folder"),
        (["generate", "--stats", "--runs", "-5"], "--runs"),
        (["encode", "{board}", "--to", "dimacs", "-o", "{blocker}/x"], "--out"),
        (["encode", "{board}", "--to", "dimacs", "-o", "{tmp}"], "folder"),
        (["prove", "{board}", "--corroborate", "nan"], "--corroborate"),
        (["bench", "{board}", "-b", "search", "--cluster", "not-an-address"], "Dask"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_other_bad_arguments_are_exit_2_with_one_line(tmp_path: Path, args: list[str], word: str) -> None:
    board, blocker = tmp_path / "b.txt", tmp_path / "a-file"
    board.write_text(BOARDS_TEXT)
    blocker.write_text("")
    filled = [a.format(board=board, blocker=blocker, tmp=tmp_path) for a in args]
    assert_usage_error(run_cli(*filled), word)


def test_a_huge_solution_file_is_refused_before_it_is_parsed() -> None:
    from sigmar.models.solution import MAX_CHARS

    with pytest.raises(BoardFileError, match="too large"):
        parse_solutions("[" + " " * MAX_CHARS + "]", "huge.json")
