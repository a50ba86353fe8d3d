"""Issue 29: hostile input ends in exit 2 with one line or in the right verdict, with bounded memory.

One test (or a few) per item of the issue; the big inputs are made small by lowering a limit
for the test (an environment variable of models/input_limits.py, or a batch size), and the
memory tests compare a peak with and without the input in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError, format_board, parse_boards, read_boards, stream_boards
from sigmar.models.rules import Position
from sigmar.models.solution import MAX_MOVES, read_solutions
from sigmar.runners import cli
from sigmar.runners.checking import rup_check
from sigmar.runners.checking.closure import Closure
from sigmar.runners.checking.dead_states_check import check_dead_states
from sigmar.runners.checking.verdict import CertificateError
from sigmar.runners.survey import Deals, ResultsFile, read_results
from tests.broken_backend import BOARDS_TEXT
from tests.bruteforce import dead_states_text
from tests.test_rup_engines import needs_c, satisfiable

PAIR, STUCK = parse_boards(BOARDS_TEXT, "tiny")[:2]  # STUCK: counts fine, no way out (a dead-states certificate)


def run_cli(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def assert_one_line_exit_2(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


@pytest.fixture
def stuck_files(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """The stuck board's file and its dead-states certificate (every reachable state)."""
    board = tmp_path / "stuck.txt"
    board.write_text(format_board(STUCK))
    text = dead_states_text(STUCK)
    assert text is not None
    dead = tmp_path / "stuck.dead.jsonl"
    dead.write_text(text)
    return board, dead, text.splitlines()


# -- 1: a deeply nested JSON line


def test_a_nested_line_in_a_dead_states_file_or_first_in_a_cert_is_exit_2(stuck_files, tmp_path: Path) -> None:
    board, _, lines = stuck_files
    nested = "[" * 100_000 + "]" * 100_000
    second = tmp_path / "n2.dead.jsonl"
    second.write_text(lines[0] + "\n" + nested + "\n")
    assert_one_line_exit_2(run_cli("check", board, second), "line 2", "nested")
    first = tmp_path / "n1.jsonl"
    first.write_text(nested + "\n")
    assert_one_line_exit_2(run_cli("check", board, first), "line 1")


def test_json_value_turns_every_parser_failure_into_an_input_error() -> None:
    for text, word in (("[" * 50_000, "nested"), ("{", "not JSON"), ("1" * 5000, "not JSON the suite reads")):
        with pytest.raises(input_limits.InputError, match=word):
            input_limits.json_value(text, "x.json", 3)


# -- 2, 3: a proof of one lemma repeated: streamed, duplicates counted, not stored

PEAK = """
import sys
from sigmar.runners.checking.rup_check import check_files
report = check_files(sys.argv[1], sys.argv[2])
hwm = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')]
print(report.valid, report.lemmas, hwm[0])
"""


def test_a_repeated_lemma_costs_no_memory_per_copy(tmp_path: Path) -> None:
    """2,000,000 copies of one lemma (12 MB of text) stored would cost about 80 MB; counted, only the map."""
    needs_c()
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 3 2\n1 2 3 0\n-1 2 0\n")
    small, big = tmp_path / "small.drup", tmp_path / "big.drup"
    small.write_text("2 3 0\n")
    big.write_text("2 3 0\n" * 2_000_000)

    def peak(proof: Path) -> tuple[str, int]:
        done = subprocess.run([sys.executable, "-c", PEAK, str(cnf), str(proof)], capture_output=True, text=True)
        valid, lemmas, kb = done.stdout.split()
        return f"{valid} {lemmas}", int(kb)

    (verdict_small, kb_small), (verdict_big, kb_big) = peak(small), peak(big)
    assert verdict_small == "False 1" and verdict_big == "False 2000000"  # no conflict: the right verdict
    assert kb_big - kb_small < 2 * big.stat().st_size // 1024, (kb_small, kb_big)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_copies_and_deletions_never_make_the_c_checker_accept_a_satisfiable_formula(seed: int) -> None:
    """The tampered-proof sweep's DRUP part: lemmas written again and clauses deleted at random."""
    from tests.test_rup_engines import refuted

    formula, steps = refuted(seed)
    rng = random.Random(seed)
    tampered: list[rup_check.Step] = []
    for deletion, lemma in steps:
        tampered.append((deletion, lemma))
        if not deletion and rng.random() < 0.3:
            tampered.append((False, list(reversed(lemma))))  # the same clause again, in another order
        if rng.random() < 0.1:
            tampered.append((True, list(rng.choice(formula))))
    assert rup_check.check_rup(formula, [s for s in tampered if not s[0]], engine="c").valid  # copies alone: fine
    weakened = list(formula)
    for index in rng.sample(range(len(formula)), len(formula)):
        weakened.remove(formula[index])
        if satisfiable(weakened):
            break
    assert not rup_check.check_rup(weakened, tampered, engine="c").valid


def test_a_lemma_written_twice_needs_two_deletions_to_go() -> None:
    needs_c()
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    twice = [(False, [2, 1]), (True, [1, 2]), (False, [1]), (False, [])]  # (1 2) again: one copy is left
    assert rup_check.check_rup(formula, twice, engine="c").valid
    gone = [*twice[:2], (True, [2, 1]), (False, [1]), (False, [])]  # both copies deleted: (1) no longer follows
    report = rup_check.check_rup(formula, gone, engine="c")
    assert not report.valid and report.failed_at == 4, report


def test_sigmar_check_maps_the_proof_and_refuses_a_proof_above_the_limit(tmp_path: Path) -> None:
    from sigmar.encoders.cnf import build_formula
    from sigmar.runners.checking.drup_check import check_drup

    formula = build_formula(PAIR)
    (tmp_path / "p.cnf").write_text(formula.to_dimacs())
    (tmp_path / "p.vars.json").write_text(formula.sidecar(with_names=False))
    (tmp_path / "p.drup").write_text("1 0\n" * 1000)
    assert not check_drup(PAIR, tmp_path / "p.drup").valid
    os.environ["SIGMAR_MAX_DRUP"] = "100"
    try:
        with pytest.raises(CertificateError, match="SIGMAR_MAX_DRUP"):
            check_drup(PAIR, tmp_path / "p.drup")
    finally:
        del os.environ["SIGMAR_MAX_DRUP"]
    (tmp_path / "p.cnf").write_text(formula.to_dimacs() + "c padding\n" * 200_000)  # larger than the board's can be
    with pytest.raises(CertificateError, match="larger than this board's"):
        check_drup(PAIR, tmp_path / "p.drup")


# -- 4: one writer per results file


def test_a_second_survey_on_a_locked_results_file_is_exit_2_at_once(tmp_path: Path, capsys) -> None:
    results = tmp_path / "r.jsonl"
    with ResultsFile(results):  # as if another survey were running
        code = cli.main(["survey", "-b", "search", "--count", "2", "--results", str(results)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and str(results) in err[0] and "another survey" in err[0], err
        with pytest.raises(Exception, match="another survey"):
            read_results(results, Deals("dense", 6, 0, 2))  # no repair either while it is held
    assert not results.exists()  # the second survey wrote nothing (and the empty file the lock made is gone)


def test_the_torn_line_is_cut_only_by_the_lock_holder(tmp_path: Path) -> None:
    deals = Deals("dense", 6, 1, 10)
    whole = json.dumps(deals.tags(0) | {"status": "solved", "verified": True}) + "\n"
    results = tmp_path / "r.jsonl"
    results.write_text(whole + '{"index": 1, "de')
    with ResultsFile(results) as held:
        assert set(held.read(deals)) == {0}
        assert results.read_text() == whole
        held.append(deals.tags(1) | {"status": "unknown"})
    assert set(read_results(results, deals)) == {0, 1}


def test_a_fifo_is_not_a_results_file(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    assert cli.main(["survey", "-b", "search", "--count", "1", "--results", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err


# -- 5: a board file far larger than its limit, and boards read one at a time


def test_a_board_file_above_its_limit_is_refused_unread(tmp_path: Path) -> None:
    many = tmp_path / "many.txt"
    many.write_text((format_board(STUCK) + "\n") * 50)
    env = {"SIGMAR_MAX_BOARD_FILE": str(many.stat().st_size - 1)}
    for command in (["verify", many, many], ["encode", many, "--to", "dimacs"], ["show", many]):
        assert_one_line_exit_2(run_cli(*command, env=env), "SIGMAR_MAX_BOARD_FILE", str(many))


def test_boards_are_read_one_at_a_time_and_share_their_tiles(tmp_path: Path) -> None:
    path = tmp_path / "b.txt"
    bad = format_board(STUCK).replace("e", "z", 1)
    path.write_text(format_board(STUCK) + "\n" + format_board(STUCK) + "\n" + bad)
    boards = stream_boards(path)
    first, second = next(boards), next(boards)  # the bad third board is not reached yet
    assert first.tiles == STUCK.tiles and all(a is b for a, b in zip(first.tiles, second.tiles, strict=True))
    with pytest.raises(BoardFileError, match="unknown symbol"):
        next(boards)


# -- 6: what is not a regular file


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "{fifo}"],
        ["verify", "{fifo}", "{board}"],
        ["verify", "{board}", "{fifo}"],
        ["decode", "{board}", "{fifo}"],
        ["check", "{board}", "{fifo}"],
        ["show", "{dir}"],
    ],
    ids=lambda c: " ".join(c),
)
def test_a_fifo_or_a_folder_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    board = tmp_path / "b.txt"
    board.write_text(format_board(STUCK))
    filled = [part.format(fifo=fifo, board=board, dir=tmp_path) for part in command]
    done = run_cli(*filled)  # a reader that opened the FIFO would wait for a writer: the timeout fails it
    assert_one_line_exit_2(done, "FIFO" if "{fifo}" in command else "directory")


def test_open_input_names_each_kind_of_file(tmp_path: Path) -> None:
    with pytest.raises(input_limits.InputError, match="no such file"):
        input_limits.read_bytes(tmp_path / "nope", input_limits.SOLUTION)
    with pytest.raises(input_limits.InputError, match="character device"):
        input_limits.read_bytes("/dev/zero", input_limits.SOLUTION)


# -- 7: a dead-states file of many random states: checked a batch at a time


def _random_states_file(tmp_path: Path, lines: list[str], count: int) -> Path:
    """The whole board, then ``count`` random states (fewer when the board has fewer), each listed once: a state
    listed twice is malformed."""
    rng = random.Random(5)
    tiles = len(json.loads(lines[0])["tiles"])
    first = int(json.loads(lines[1])["state"], 16)
    drawn = dict.fromkeys(rng.getrandbits(tiles) for _ in range(4 * count))
    body = [json.dumps({"state": format(state, "x")}) for state in drawn if state != first][:count]
    path = tmp_path / "random.dead.jsonl"
    path.write_text("\n".join([lines[0], lines[1], *body]) + "\n")
    return path


def test_random_states_get_the_same_verdict_whatever_the_batch(stuck_files, tmp_path: Path, monkeypatch) -> None:
    _, dead, lines = stuck_files
    path = _random_states_file(tmp_path, lines, 3000)
    whole = check_dead_states(STUCK, path), check_dead_states(STUCK, dead)
    monkeypatch.setattr(Closure, "FIRST_ROWS", 2)
    monkeypatch.setattr(Closure, "BATCH_ROWS", 7)
    monkeypatch.setattr(Closure, "CHILDREN", 5)
    small = check_dead_states(STUCK, path), check_dead_states(STUCK, dead)
    assert whole == small and not whole[0].valid and whole[1].valid, (whole, small)


def test_more_states_than_the_limit_are_refused_at_the_first_one_over(stuck_files, tmp_path: Path, monkeypatch) -> None:
    from sigmar.runners.checking import dead_states_check

    _, _, lines = stuck_files
    path = _random_states_file(tmp_path, lines, 50)
    monkeypatch.setattr(dead_states_check, "MAX_STATES", 10)
    with pytest.raises(CertificateError, match="more than 10 states"):
        check_dead_states(STUCK, path)


@cache
def _clearable(board: Board, occupied: frozenset) -> bool:
    if not occupied:
        return True
    return any(_clearable(board, occupied - set(m.cells)) for m in Position(board, occupied).legal_moves())


def test_sample_of_the_tampered_dead_states_sweep(stuck_files, tmp_path: Path, monkeypatch) -> None:
    """Lines dropped, bits flipped, lines swapped: what the checker accepts is closed under the rule engine
    (every move from a listed state leads to a listed state or one that cannot be cleared), with big
    batches and with tiny ones alike."""
    _, _, lines = stuck_files
    tiles = [t.cell for t in STUCK.tiles]
    rng = random.Random(11)
    rejected = 0
    for trial in range(40):
        body = lines[1:]
        kind = trial % 3
        if kind == 0:
            body = body[:1] + [line for line in body[1:] if rng.random() > 0.2]
        elif kind == 1:
            at = rng.randrange(len(body))
            state = int(json.loads(body[at])["state"], 16) ^ (1 << rng.randrange(len(tiles)))
            body = [*body[:at], json.dumps({"state": format(state, "x")}), *body[at + 1 :]]
        else:
            body = [body[-1], *body[1:-1], body[0]]
        path = tmp_path / f"t{trial}.dead.jsonl"
        path.write_text("\n".join([lines[0], *body]) + "\n")
        if len(set(body)) < len(body):  # a flipped bit made a state listed twice: malformed, whatever the batch
            with pytest.raises(CertificateError, match="listed once"):
                check_dead_states(STUCK, path)
            rejected += 1
            continue
        with monkeypatch.context() as tiny:
            tiny.setattr(Closure, "FIRST_ROWS", 1)
            tiny.setattr(Closure, "BATCH_ROWS", 3)
            tiny.setattr(Closure, "CHILDREN", 4)
            small = check_dead_states(STUCK, path)
        verdict = check_dead_states(STUCK, path)
        assert verdict == small
        rejected += not verdict.valid
        if verdict.valid:
            listed = {
                frozenset(c for i, c in enumerate(tiles) if int(json.loads(b)["state"], 16) >> i & 1) for b in body
            }
            assert frozenset(tiles) in listed and frozenset() not in listed
            for occupied in listed:
                for move in Position(STUCK, occupied).legal_moves():
                    child = occupied - set(move.cells)
                    assert child in listed or not _clearable(STUCK, child), (trial, sorted(child))
    assert rejected >= 10


# -- 8: a solution of more moves than any board has cells stops there


def test_a_long_solution_stops_at_the_first_move_too_many(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_bytes(b"0,1 0,2\n" * (MAX_MOVES + 1) + b"\xff not even UTF-8\n" * 1000)
    with pytest.raises(BoardFileError, match="moves") as caught:
        read_solutions(path)
    assert caught.value.line == MAX_MOVES + 1
    json_moves = tmp_path / "long.json"
    json_moves.write_text(json.dumps({"moves": [[[0, 1]]] * (MAX_MOVES + 1)}) + "\n")
    with pytest.raises(BoardFileError, match="moves"):
        read_solutions(json_moves)


# -- 9: --sat-cmd joins the chosen backends (the default, an explicit -b all, a list) unless they name it


def test_sat_cmd_joins_the_race_as_cnf_external(monkeypatch) -> None:
    from sigmar.runners.cli.options import add_backend, add_sat_cmd, apply_sat_cmd

    monkeypatch.delenv("SIGMAR_SAT_CMD", raising=False)
    parser = argparse.ArgumentParser()
    add_backend(parser)
    add_sat_cmd(parser)
    for extra, joining in (
        ([], ["cnf:external"]),
        (["-b", "all"], ["cnf:external"]),
        (["-b", "search,cnf"], ["cnf:external"]),
        (["-b", "cnf:external"], []),
    ):
        args = parser.parse_args(["--sat-cmd", "true", *extra])
        assert apply_sat_cmd(args) == joining, extra
        assert args.backend == (extra[1] if extra else "all")


# -- 11: a byte-order mark is skipped at the start of a file, and only there


def test_a_bom_opens_any_file_and_is_a_character_elsewhere(stuck_files, tmp_path: Path) -> None:
    board, dead, lines = stuck_files
    bom = b"\xef\xbb\xbf"
    board.write_bytes(bom + board.read_bytes())
    assert read_boards(board) == [STUCK]
    dead.write_bytes(bom + dead.read_bytes())
    assert check_dead_states(STUCK, dead).valid
    moves = tmp_path / "m.txt"
    moves.write_bytes(bom + b"0,1 0,2\n")
    assert read_solutions(moves)[0].moves == (((0, 1), (0, 2)),)
    moves.write_bytes(b"0,1 0,2\n" + bom + b"1,1 1,2\n")
    with pytest.raises(BoardFileError, match="line 2"):
        read_solutions(moves)


# -- the last net: an exhausted memory is one line, exit 2


def test_a_memory_error_anywhere_is_one_line_not_a_traceback(monkeypatch, capsys, tmp_path: Path) -> None:
    from sigmar.runners.cli import show

    def exhausted(args: argparse.Namespace) -> int:
        raise MemoryError

    monkeypatch.setattr(show, "run", exhausted)
    board = tmp_path / "b.txt"
    board.write_text(format_board(STUCK))
    assert cli.main(["show", str(board)]) == 2
    err = capsys.readouterr().err
    assert "out of memory" in err and "Limits" in err and err.count("\n") == 1


def test_listed_states_of_two_words_are_found_exactly() -> None:
    """Boards of more than 64 tiles hold a state in two words: keys sorted, deduplicated and searched alike."""
    import numpy as np

    class Wide:
        size = 100

    rng = random.Random(2)
    listed = [rng.getrandbits(100) for _ in range(300)]
    closure = Closure(Wide(), np.zeros((0, 2), dtype=np.uint64))  # type: ignore[arg-type]
    table = closure._array(listed + listed[:50])
    closure.listed = closure._keys(table)
    assert len(closure.listed) == 300
    probes = listed[::7] + [state ^ (1 << 70) for state in listed[::11]]
    found = closure._is_listed(closure._array(probes))
    assert found.tolist() == [state in set(listed) for state in probes]


def test_the_formats_page_lists_every_limit() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text()
    section = page.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for limit in input_limits.LIMITS:
        assert f"`{limit.env}`" in section, limit
