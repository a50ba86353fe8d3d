"""Grading and ``sigmar crosscheck``: the broken backends must be caught, honest ones must pass."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sigmar.encoders import registry
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status
from sigmar.runners import cli
from sigmar.runners.checking.grading import Grade, grade_board
from sigmar.runners.checking.grading import certified as certified_
from sigmar.runners.checking.replay import replayed

ROOT = Path(__file__).resolve().parents[1]


def solution(board) -> Result:
    from tests.broken_backend import dfs

    moves = dfs(board)
    assert moves is not None
    return replayed(board, Result(Status.SOLVED, "search", 0.1, moves=moves))


def test_a_verified_solution_beats_an_unsolvable_claim(boards) -> None:
    board = boards["pair"]
    claim = Result(Status.UNSOLVABLE, "cnf:glucose4", reason=Reason.EXHAUSTED)
    verdict = grade_board(board, {"search": solution(board), "cnf": claim})
    assert verdict.grades == {"search": Grade.CORRECT, "cnf": Grade.WRONG}
    # the wrong "no" is reported once, as wrong, not again as a disagreement (issue 52)
    assert verdict.agree and verdict.result.verified
    assert verdict.notes == ("cnf said unsolvable (exhausted) but search found a verified solution",)


def test_refutations_are_correct_only_with_a_checked_certificate(boards) -> None:
    board = boards["stuck"]
    proof = Result(Status.UNSOLVABLE, "cnf:glucose4", reason=Reason.PROOF)
    alone = grade_board(board, {"cnf": proof, "cpsat": Result(Status.UNKNOWN, "cpsat")})
    assert alone.grades == {"cnf": Grade.UNCONFIRMED, "cpsat": Grade.UNKNOWN}
    assert alone.result.status is Status.UNKNOWN and alone.agree
    same_family = grade_board(board, {"cnf": proof, "cnf2": proof.with_(backend="cnf:cadical195")})
    assert set(same_family.grades.values()) == {Grade.UNCONFIRMED}
    other = proof.with_(backend="cpsat")
    both = grade_board(board, {"cnf": proof, "cpsat": other})
    # Two families agreeing is a weaker label (corroborated), not a proof: still unconfirmed.
    assert set(both.grades.values()) == {Grade.UNCONFIRMED}
    assert both.result.reason is Reason.CORROBORATED and not both.result.checked
    certified = proof.with_(certificate=Certificate(CertificateKind.DRUP, file="x.drup"), checked=True)
    settled = grade_board(board, {"cnf": certified, "cpsat": other})
    # The board is settled, but cpsat's "no" is still its own claim: BenchExec's correct-unconfirmed.
    assert settled.grades == {"cnf": Grade.CORRECT, "cpsat": Grade.UNCONFIRMED}
    assert settled.result.checked and settled.result.backend == "cnf:glucose4"
    assert (certified_(certified), certified_(other)) == ("yes", "no")


def test_rejected_solution_and_crash_grades(boards) -> None:
    board = boards["pair"]
    bad = replayed(board, Result(Status.SOLVED, "broken", moves=(Move((board.tiles[0].cell,)),)))
    crash = Result(Status.ERROR, "crashy", message="boom")
    verdict = grade_board(board, {"broken": bad, "crashy": crash, "search": solution(board)})
    assert verdict.grades == {"broken": Grade.WRONG, "crashy": Grade.ERROR, "search": Grade.CORRECT}
    assert verdict.any_wrong


def test_counts_settle_a_board_without_a_sound_backend(boards) -> None:
    board = boards["counts"]
    proof = Result(Status.UNSOLVABLE, "cnf:glucose4", reason=Reason.PROOF)
    verdict = grade_board(board, {"cnf": proof})
    assert verdict.grades == {"cnf": Grade.UNCONFIRMED}  # right, but cnf certified nothing
    assert verdict.result.reason is Reason.COUNTS and verdict.settled


def crosscheck(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict]]:
    code = cli.main(["crosscheck", *argv])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_honest_backends_agree(fakes, board_file: Path, capsys) -> None:
    code, records = crosscheck([str(board_file), "-b", "honest,honest:proof", "--json"], capsys)
    assert code == 0
    assert all(r["agree"] for r in records)
    assert records[0]["answers"] == {"honest": "solved", "honest:proof": "solved"}
    assert records[1]["status"] == "unsolvable" and records[1]["reason"] == "exhausted"
    # honest:proof's "no" is right but only claimed: unconfirmed, however certain the board is
    assert records[1]["grades"] == {"honest": "correct", "honest:proof": "unconfirmed"}


@pytest.mark.parametrize("broken", ["broken:wrong", "broken:proof"])
def test_the_broken_backend_is_caught(fakes, board_file: Path, capsys, broken: str) -> None:
    code, records = crosscheck([str(board_file), "-b", f"honest,{broken}", "--json"], capsys)
    assert code == 3, f"{broken} was not caught"
    pair = records[0]
    assert pair["grades"][broken] == "wrong" and pair["status"] == "solved"


def test_crashes_and_hangs_are_graded_not_fatal(fakes, board_file: Path, capsys) -> None:
    code, records = crosscheck(
        [str(board_file), "-b", "honest,broken:crash,broken:exit,broken:hang", "--time-limit", "0.3", "--json"],
        capsys,
    )
    assert code == 0  # every board answered by the honest backend, nobody wrong
    grades = records[0]["grades"]
    assert grades == {"honest": "correct", "broken:crash": "error", "broken:exit": "error", "broken:hang": "unknown"}


def test_table_output_names_the_trouble(fakes, board_file: Path, capsys) -> None:
    code = cli.main(["crosscheck", str(board_file), "-b", "honest,broken:wrong"])
    out = capsys.readouterr().out
    assert code == 3
    assert "rejects" in out and "wrong" in out


def test_real_backends_agree_on_small_instances(capsys) -> None:
    """Every available real backend on the hand-checked boards: no disagreement, nothing wrong."""
    small = ROOT / "instances" / "small.txt"
    names = [n for n in registry.expand("all") if n != "minizinc"]  # minizinc costs ~1 s a board
    if not names:
        pytest.skip("no real backend is available here")
    code, records = crosscheck([str(small), "-b", ",".join(names), "--time-limit", "20", "--json"], capsys)
    assert code in (0, 1), records  # 1 only if a backend ran out of time on this busy machine
    assert len(records) == len(read_boards(small))
    assert all(r["agree"] for r in records), [r for r in records if not r["agree"]]
    assert not any(g == "wrong" for r in records for g in r["grades"].values())


def test_crosscheck_with_minizinc_leaves_stderr_clean_when_its_compiler_refutes_the_model(tmp_path: Path) -> None:
    """MiniZinc's "model inconsistency detected" goes into the answer's statistics, not onto the terminal."""
    import subprocess
    import sys

    from sigmar.models.boardfile import format_boards

    pytest.importorskip("minizinc", reason="the MiniZinc backend needs the minizinc package")
    if not registry.info("minizinc").available:
        pytest.skip(f"MiniZinc is not installed here: {registry.info('minizinc').why_not}")
    (ringed,) = [b for b in read_boards(ROOT / "instances" / "small.txt") if b.name.startswith("lead ringed")]
    path = tmp_path / "ringed.txt"
    path.write_text(format_boards([ringed]))
    # a time limit far beyond the second it needs: the answer, not the machine's load, decides
    command = [sys.executable, "-m", "sigmar.runners.cli", "crosscheck", "-b", "minizinc,search", "--time-limit", "600"]
    command.append(str(path))
    for extra in ([], ["--json"]):  # the table, and JSON Lines
        done = subprocess.run([*command, *extra], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done
        # standard error holds the progress bar and, beside --json, the closing summary line; nothing else
        noise = [
            line
            for line in done.stderr.splitlines()
            if line.strip() and "━" not in line and not line.startswith("1 board: ")
        ]
        assert noise == [] and ("1 board: " in done.stderr) == bool(extra), done.stderr
    record = json.loads(done.stdout)
    assert record["answers"] == {"minizinc": "unsolvable", "search": "unsolvable"} and record["agree"], record


# -- the rendered table: colours, NO_COLOR, whole names, a progress bar --------------------------------

MARKUP = re.compile(r"\[/?(red|yellow|green|bold|dim|italic|blue|magenta|cyan)[^\]]*\]|\[/")
COLOUR = re.compile(r"\x1b\[[0-9;]*3[1-7]m")  # a foreground colour code


def crosscheck_table(board_file: Path, capsys, monkeypatch, **env: str) -> tuple[str, str]:
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = cli.main(["crosscheck", str(board_file), "-b", "honest,honest:proof,broken:wrong,broken:crash"])
    assert code == 3
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_the_table_shows_colours_not_markup(fakes, board_file: Path, capsys, monkeypatch) -> None:
    out, err = crosscheck_table(board_file, capsys, monkeypatch, FORCE_COLOR="1", COLUMNS="200")
    assert COLOUR.search(out), "no colour in a terminal"
    assert not MARKUP.search(out), MARKUP.search(out)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[" not in plain  # no board name here holds a bracket, so any "[" is markup shown as text
    assert "claimed" in plain and "wrong" in plain and "error" in plain
    assert "━" in err or "boards" in err, "no progress bar on standard error"


def test_the_table_reads_the_same_with_no_color(fakes, board_file: Path, capsys, monkeypatch) -> None:
    out, _ = crosscheck_table(board_file, capsys, monkeypatch, FORCE_COLOR="1", NO_COLOR="1", COLUMNS="200")
    assert not COLOUR.search(out) and not MARKUP.search(out)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[" not in plain
    for word in ("claimed", "wrong", "error", "unsol/exhausted"):
        assert word in plain, word
    piped, _ = crosscheck_table(board_file, capsys, monkeypatch)  # into a pipe: no escape codes at all
    assert "[" not in piped and "claimed" in piped


def test_board_names_are_whole_when_the_terminal_has_room(fakes, tmp_path: Path, capsys, monkeypatch) -> None:
    from tests.broken_backend import BOARDS_TEXT

    long_name = "a board whose name is long enough to have been cut at twenty-four characters [solvable]"
    path = tmp_path / "named.txt"
    path.write_text(f"# {long_name}\n" + BOARDS_TEXT.split("\n\n")[0].split("\n", 1)[1] + "\n")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.main(["crosscheck", str(path), "-b", "honest"]) == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert long_name in plain


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
def test_compare_counts_shows_its_grades_as_text_not_markup(
    no_color: bool, fakes, board_file: Path, capsys, monkeypatch
) -> None:
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    args = ["crosscheck", str(board_file), "-b", "honest,broken:wrong,broken:crash", "--compare-counts"]
    assert cli.main([*args, "--time-limit", "10"]) == 3
    out = capsys.readouterr().out
    assert not MARKUP.search(out), MARKUP.search(out)
    assert bool(COLOUR.search(out)) is not no_color
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[" not in plain  # no board or backend name here holds a bracket
    assert "counts against the rule engine's" in plain
    rows = {line.split("│")[1].strip(): line for line in plain.splitlines() if line.count("│") > 2}
    assert "honest (sequences)" not in rows  # a backend that does not count is not asked
    for notion in ("sequences", "pairings"):
        # broken:wrong counts one more on each of the three boards; broken:crash raises on each
        assert re.search(r"│\s+0\s+│\s+3\s+│", rows[f"broken:wrong ({notion})"]), rows[f"broken:wrong ({notion})"]
        assert "3" in rows[f"broken:crash ({notion})"]
    assert "wrong count: pair: broken:wrong counted 2 sequences, the rule engine 1" in plain
