"""The console script as a user meets it: verify, show, backends, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sigmar.runners.cli import main
from tests.conftest import REAL_GAME, ROOT

REAL = REAL_GAME
SOLUTION_TXT = ROOT / "tests" / "data" / "real-game-0.solution.txt"
SOLUTION_JSON = ROOT / "tests" / "data" / "real-game-0.solution.json"


def sigmar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_verify_accepts_both_solution_forms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(REAL), str(SOLUTION_TXT)]) == 0
    assert main(["verify", str(REAL), str(SOLUTION_JSON), "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "real game screenshot: valid: the board is cleared"
    assert json.loads(out[1]) == {"board": "real game screenshot", "valid": True, "moves": 28}


def test_verify_rejects_a_reordered_solution_naming_the_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [line for line in SOLUTION_TXT.read_text().splitlines() if not line.startswith("#")]
    gold = next(i for i, line in enumerate(lines) if len(line.split()) == 1)
    reordered = [lines[gold]] + lines[:gold] + lines[gold + 1 :]  # gold first: metals out of order
    path = tmp_path / "reordered.txt"
    path.write_text("\n".join(reordered) + "\n")
    assert main(["verify", str(REAL), str(path)]) == 1
    out = capsys.readouterr().out
    assert "invalid: move 1: metal out of order" in out


def test_verify_rejects_a_short_solution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = SOLUTION_TXT.read_text().splitlines()[:-3]
    path = tmp_path / "short.txt"
    path.write_text("\n".join(lines) + "\n")
    assert main(["verify", str(REAL), str(path)]) == 1
    assert "tiles left at the end" in capsys.readouterr().out


MALFORMED = {
    "short-row": ("a a\n. .\n . .\n", "row 1, column 2"),
    "unknown-symbol": ("a a\n. z .\n . .\n", "row 1, column 1"),
    "metal-twice": ("1 1\n. . .\n . .\n", "row 0, column 1"),
    "too-many-rows": ("a a\n. . .\n . .\n. .\n", "row 3"),
    "empty": ("", "no board"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_exit_2_one_line_no_traceback(tmp_path: Path, case: str) -> None:
    text, where = MALFORMED[case]
    path = tmp_path / f"{case}.txt"
    path.write_text(text)
    for args in (["show", str(path)], ["solve", str(path)], ["verify", str(path), str(SOLUTION_TXT)]):
        done = sigmar(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and where in lines[0], lines


def test_binary_file_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "board.bin"
    path.write_bytes(bytes(range(256)))
    done = sigmar("show", str(path))
    assert done.returncode == 2 and "binary" in done.stderr and "Traceback" not in done.stderr


def test_bad_solution_file_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "sol.txt"
    path.write_text("1,2 nonsense\n")
    done = sigmar("verify", str(REAL), str(path))
    assert done.returncode == 2 and "nonsense" in done.stderr and "line 1" in done.stderr


def test_show_draws_a_hexagon(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(REAL), "--no-color"]) == 0
    lines = capsys.readouterr().out.splitlines()
    body = lines[1:12]
    assert [len(line.split()) for line in body] == [6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6]
    assert body[5].startswith(". . e a m 6")  # the widest row has no indent
    assert body[0].startswith("     ")  # the top row is indented to make the hexagon


def test_show_plays_a_solution(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "show",
                str(REAL),
                "--no-color",
                "--solution",
                str(SOLUTION_TXT),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("move ") == 28 and "\ncleared\n" in out
    assert "real game screenshot2" in out  # the other board is drawn too, without moves


def test_backends_lists_the_six_families(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backends", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["backend"] for r in rows] == ["cpsat", "cnf", "minizinc", "search", "pumpkin", "cpmpy"]
    for row in rows:
        assert row["available"] or row["why_not"], row


def test_help_everywhere() -> None:
    done = sigmar("--help")
    assert done.returncode == 0
    for command in ("solve", "verify", "show", "backends", "encode"):
        assert command in done.stdout
        sub = sigmar(command, "--help")
        assert sub.returncode == 0 and "usage: sigmar" in sub.stdout


def test_an_unsolvable_answer_carries_checked_not_a_verified_false(capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing was replayed for it: `verified: false` beside `checked: true` read as a failure."""
    small = Path(__file__).resolve().parents[1] / "instances" / "small.txt"
    assert main(["solve", str(small), "-b", "search", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    refuted = [r for r in records if r["status"] == "unsolvable"]
    assert refuted and all("verified" not in r and r["checked"] is True for r in refuted), refuted
    assert all(r["verified"] is True for r in records if r["status"] == "solved")
