"""``--sat-cmd`` with ``{cnf}`` and ``{proof}``: an outside solver's "no" checked by our own DRUP checker.

Its proof may be text DRUP or binary DRAT (CaDiCaL's default), read by ``models/drat_binary.py``;
a proof that does not check is a rejected certificate (the answer stays a claim), never a "no".
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.cnf import CnfBackend, external_argv
from sigmar.models.boardfile import read_boards
from sigmar.models.drat_binary import DratError, is_binary, to_text
from sigmar.runners.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "instances" / "small.txt"

needs_cadical = pytest.mark.skipif(
    shutil.which("cadical") is None, reason="no 'cadical' on PATH: scripts/install.sh installs Debian's package"
)


@pytest.fixture(autouse=True)
def _sat_cmd_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from sigmar.encoders.cnf import SAT_CMD_ENV

    monkeypatch.setenv(SAT_CMD_ENV, "")  # restored after each test: --sat-cmd sets it for the workers


def binary(steps: list[tuple[bool, list[int]]]) -> bytes:
    """Binary DRAT written by hand from its definition, the test's own encoder."""
    out = bytearray()
    for deletion, literals in steps:
        out.append(ord("d") if deletion else ord("a"))
        for literal in literals:
            value = 2 * abs(literal) + (literal < 0)
            while value >= 0x80:
                out.append(0x80 | (value & 0x7F))
                value >>= 7
            out.append(value)
        out.append(0)
    return bytes(out)


def test_binary_drat_reads_as_text() -> None:
    data = binary([(False, [1, -2]), (True, [300, -7]), (False, [])])
    assert is_binary(data) and not is_binary(b"1 -2 0\nd 3 0\n")
    assert to_text(data) == b"1 -2 0\nd 300 -7 0\n0\n"


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(1, 100_000) | st.integers(-100_000, -1)))))
def test_binary_drat_round_trips(steps: list[tuple[bool, list[int]]]) -> None:
    expected = b"".join((b"d " if d else b"") + b" ".join(b"%d" % x for x in [*lits, 0]) + b"\n" for d, lits in steps)
    assert to_text(binary(steps)) == expected


@pytest.mark.parametrize("garbage", [b"x\x00", b"a\x05", b"a\x01\x00", b"a\x85\x00"])
def test_binary_drat_that_does_not_parse_is_refused(garbage: bytes) -> None:
    with pytest.raises(DratError):
        to_text(garbage)


def test_placeholders_in_the_command() -> None:
    argv = external_argv("cadical -q {cnf} {proof}", "/t/b.cnf", "/t/b.drup")
    assert argv == ["cadical", "-q", "/t/b.cnf", "/t/b.drup"]
    assert external_argv("kissat -q", "/t/b.cnf", "/t/b.drup") == ["kissat", "-q", "/t/b.cnf"]  # appended
    assert external_argv("s --proof={proof} {cnf}", "c", "p") == ["s", "--proof=p", "c"]
    assert CnfBackend("external", sat_cmd="cadical -q {cnf} {proof}").certifies
    assert not CnfBackend("external", sat_cmd="cadical -q").certifies  # no proof asked for: claims only


def solve_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict]]:
    code = main(["solve", *argv, "--json"])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


@needs_cadical
def test_cadical_with_a_proof_certifies_every_unsolvable_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, records = solve_json(capsys, str(SMALL), "-b", "cnf:external", "--sat-cmd", "cadical -q {cnf} {proof}")
    assert code == 0, records
    refuted = [r for r in records if r["status"] == "unsolvable"]
    assert len(refuted) == 6 and all(r["checked"] for r in refuted), refuted
    by_proof = [r for r in refuted if r["reason"] == "proof"]
    assert by_proof and all(r["certificate"]["kind"] == "drup" for r in by_proof)  # cadical's, checked by ours


@needs_cadical
def test_cadical_without_a_proof_is_a_claim(capsys: pytest.CaptureFixture[str]) -> None:
    code, records = solve_json(capsys, str(SMALL), "-b", "cnf:external", "--sat-cmd", "cadical -q", "--time-limit", "5")
    assert code == 1
    claims = [r for r in records if r["status"] == "unknown"]
    assert claims and all(c["claims"][0]["status"] == "unsolvable" for c in claims)
    assert not any(r["status"] == "unsolvable" and r["reason"] == "proof" for r in records)


@needs_cadical
def test_sat_cmd_joins_the_default_race(capsys: pytest.CaptureFixture[str]) -> None:
    code, records = solve_json(capsys, str(SMALL), "--sat-cmd", "cadical -q {cnf} {proof}")
    assert code == 0 and len(records) == len(read_boards(SMALL))
    assert all(r["status"] in ("solved", "unsolvable") for r in records)
    assert all(r["checked"] for r in records if r["status"] == "unsolvable")


LIAR = """
import sys
open(sys.argv[-1], "wb").write(sys.argv[1].encode("latin-1").decode("unicode_escape").encode("latin-1"))
print("s UNSATISFIABLE")
"""


@pytest.mark.parametrize("proof", ["1 2 0\\n0\\n", "not a proof at all\\n", "a\\x05", "\\x00\\x00"])
def test_a_solver_with_a_garbage_proof_never_gives_a_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], proof: str
) -> None:
    """It says UNSAT on every board, solvable or not, with a proof that is not one.  On a solvable board it is
    always rejected; on an unsolvable one whose formula unit propagation refutes by itself, "1 2 0 / 0" is
    in fact a valid proof (its one lemma is never used), and then the checked "no" is right."""
    script = tmp_path / "liar.py"
    script.write_text(LIAR)
    command = f"{sys.executable} {script} '{proof}' {{cnf}} {{proof}}"
    code, records = solve_json(capsys, str(SMALL), "-b", "cnf:external", "--sat-cmd", command, "--time-limit", "10")
    assert code == 1
    assert any(r["status"] == "unknown" and "[solvable]" in r["board"] for r in records)
    for record in records:
        if record["status"] == "unsolvable":
            assert "[unsolvable" in record["board"] and record["checked"], record
            continue
        assert record["status"] == "unknown", record
        (claim,) = record["claims"]
        assert claim["checked"] is False and "rejected" in claim["message"], claim


def test_a_missing_program_is_exit_2_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-board-file.txt"  # never read: the command is refused first
    for command in ("no-such-solver -q {cnf} {proof}", "cadical -q {proof}"):
        assert main(["solve", str(missing), "--sat-cmd", command]) == 2
        err = capsys.readouterr().err
        assert "--sat-cmd" in err and "no-such-board-file" not in err, err


def test_bench_repeats_grade_a_lying_outside_solver_as_wrong_or_claimed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench --repeat: in every repetition, cnf:external's "no" with a proof that is not one is wrong on a
    solvable board and never correct on an unsolvable one (its certificate was rejected: a claim at most)."""
    from sigmar.runners.bench import read_csv

    script = tmp_path / "liar.py"
    script.write_text(LIAR)
    command = f"{sys.executable} {script} 'not a proof at all\\n' {{cnf}} {{proof}}"
    out = tmp_path / "bench.csv"
    argv = ["bench", str(SMALL), "-b", "search", "--sat-cmd", command, "--repeat", "2", "--time-limit", "10"]
    assert main([*argv, "--out", str(out)]) == 3  # it said no on solvable boards
    capsys.readouterr()
    rows = [r for r in read_csv(out) if r["backend"] == "cnf:external"]
    assert {r["repeat"] for r in rows} == {"1", "2"} and len(rows) == 2 * len(read_boards(SMALL))
    for row in rows:
        assert row["status"] == "unsolvable", row
        if row["certificate"] == "counts":  # the cnf backend's own precheck, before the solver is asked
            assert "[unsolvable" in row["board"] and (row["certified"], row["grade"]) == ("yes", "correct"), row
            continue
        assert row["certified"] == "no", row
        assert row["grade"] == ("wrong" if "[solvable]" in row["board"] else "unconfirmed"), row
    assert sum(r["certificate"] != "counts" for r in rows) > len(rows) / 2  # mostly the liar's own answers
