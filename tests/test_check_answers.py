"""``sigmar check FILE... ANSWERS``: a whole answers file checked, nothing in it taken on its word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sigmar.models.boardfile import read_boards
from sigmar.runners.cli import main
from tests.conftest import REAL_GAME

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "instances" / "small.txt"
REAL = REAL_GAME


@pytest.fixture(scope="module")
def proved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """``prove small.txt real-game.txt --json --proof-dir`` once: 16 answers over two board files."""
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("proved")
    argv = [sys.executable, "-m", "sigmar.runners.cli", "prove", str(SMALL), str(REAL), "--json"]
    done = subprocess.run(
        [*argv, "--proof-dir", str(folder / "proofs"), "--no-corroborate"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    answers = folder / "answers.jsonl"
    answers.write_text(done.stdout)
    return answers, [json.loads(line) for line in done.stdout.splitlines()]


def check(
    capsys: pytest.CaptureFixture[str], answers: Path, *files: Path, extra: tuple[str, ...] = ()
) -> tuple[int, str]:
    code = main(["check", *map(str, files or (SMALL, REAL)), str(answers), *extra])
    return code, capsys.readouterr().out


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_answers_of_prove_over_two_files_check(proved, capsys) -> None:
    answers, records = proved
    assert len(records) == len(read_boards(SMALL)) + len(read_boards(REAL))
    code, out = check(capsys, answers)
    assert code == 0, out
    lines = out.splitlines()
    assert len(lines) == len(records) and all(" valid: " in line for line in lines), out
    assert sum("replayed" in line for line in lines) == sum(r["status"] == "solved" for r in records)
    code, out = check(capsys, answers, extra=("--json",))
    assert code == 0 and all(json.loads(line)["check"] == "valid" for line in out.splitlines())


def test_a_forged_solved_line_is_exit_3(proved, capsys, tmp_path: Path) -> None:
    _, records = proved
    refuted = next(i for i, r in enumerate(records) if r["status"] == "unsolvable" and r["reason"] == "static")
    for forgery in ({"moves": [{"cells": [[0, 0], [0, 1]]}]}, {"moves": []}, {}):
        forged = [dict(r) for r in records]
        forged[refuted] = {**{k: v for k, v in records[refuted].items() if k != "moves"}, "status": "solved"}
        forged[refuted].update(forgery, verified=True)
        code, out = check(capsys, write(tmp_path / "forged.jsonl", forged))
        assert code == 3, (forgery, out)
        assert f"{records[refuted]['board']}: solved INVALID" in out


def test_an_answers_own_trust_fields_count_for_nothing(proved, capsys, tmp_path: Path) -> None:
    """What a backend could set is what a file can say: ``checked``, ``verified`` and a claim's ``claims`` are
    not read; the certificate is checked, or the answer is not."""
    _, records = proved
    refuted = next(i for i, r in enumerate(records) if r["status"] == "unsolvable")
    changed = [dict(r) for r in records]
    trusted = {"checked": True, "verified": True, "check_seconds": 0.0, "claims": [{"backend": "x", "checked": True}]}
    changed[refuted] = {**records[refuted], "certificate": None, **trusted}
    code, out = check(capsys, write(tmp_path / "trusted.jsonl", changed))
    assert code == 3, out
    line = next(line for line in out.splitlines() if line.startswith(records[refuted]["board"] + ":"))
    assert "NOT CHECKED" in line and "no certificate" in line, line


def test_a_board_left_out_is_exit_3_and_named(proved, capsys, tmp_path: Path) -> None:
    _, records = proved
    left_out = [records[2]["board"], records[-1]["board"]]
    code, out = check(capsys, write(tmp_path / "short.jsonl", [r for r in records if r["board"] not in left_out]))
    assert code == 3
    for name in left_out:
        assert f"{name}: MISSING" in out
    assert "2 boards without an answer" in out


def test_unknown_and_error_answers_are_listed(proved, capsys, tmp_path: Path) -> None:
    _, records = proved
    changed = [dict(r) for r in records]
    changed[0] = {"board": records[0]["board"], "status": "unknown", "backend": "race", "message": "no answer in 1 s"}
    changed[1] = {"board": records[1]["board"], "status": "error", "backend": "x", "message": "boom"}
    code, out = check(capsys, write(tmp_path / "unknown.jsonl", changed))
    assert code == 1  # everything answered is valid; two boards have no answer
    assert f"{records[0]['board']}: unknown listed: no answer in 1 s" in out and "error listed: boom" in out


def test_a_claim_or_a_certificate_in_a_gone_temporary_folder_cannot_be_checked(proved, capsys, tmp_path: Path) -> None:
    _, records = proved
    dead = next(i for i, r in enumerate(records) if (r.get("certificate") or {}).get("kind") == "dead-states")
    for certificate in (None, {"kind": "dead-states", "file": None}):
        changed = [dict(r) for r in records]
        changed[dead] = {**records[dead], "certificate": certificate, "checked": False}
        code, out = check(capsys, write(tmp_path / "gone.jsonl", changed))
        assert code == 3
        line = next(line for line in out.splitlines() if line.startswith(records[dead]["board"]))
        assert "NOT CHECKED" in line
        if certificate is None:
            assert "no certificate" in line
        else:
            assert "temporary folder" in line and "--proof-dir" in line
    gone = {"kind": "dead-states", "file": "/tmp/sigmar-proofs-gone1234/x.dead.jsonl"}
    changed[dead] = {**records[dead], "certificate": gone}
    code, out = check(capsys, write(tmp_path / "gone.jsonl", changed))
    assert code == 3 and "was in a temporary folder that is gone" in out and "--proof-dir" in out


def test_a_tampered_certificate_is_invalid_and_an_unknown_board_is_malformed(proved, capsys, tmp_path: Path) -> None:
    _, records = proved
    stuck = next(i for i, r in enumerate(records) if (r.get("certificate") or {}).get("kind") == "stuck")
    changed = [dict(r) for r in records]
    cells = records[stuck]["certificate"]["cells"]
    changed[stuck] = {**records[stuck], "certificate": {"kind": "stuck", "file": None, "cells": cells[:1]}}
    code, out = check(capsys, write(tmp_path / "cut.jsonl", changed))
    assert code == 3 and "stuck certificate INVALID" in out
    other = [*records, {**records[0], "board": "no such board"}]
    assert main(["check", str(SMALL), str(REAL), str(write(tmp_path / "other.jsonl", other))]) == 2
    assert "no such board" in capsys.readouterr().err


def test_a_prove_without_proof_dir_says_to_keep_the_files(capsys, tmp_path: Path) -> None:
    """prove's JSON names no file for certificates it kept in its temporary folder; check says what to do."""
    assert main(["prove", str(SMALL), "--json", "--no-corroborate"]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text(capsys.readouterr().out)
    records = [json.loads(line) for line in answers.read_text().splitlines()]
    kept_in_temporary = [r for r in records if (r.get("certificate") or {}).get("kind") in ("dead-states", "drup")]
    code, out = check(capsys, answers, SMALL)
    if kept_in_temporary:
        assert code == 3 and "--proof-dir" in out
    else:  # every certificate here was a count or a stuck set: nothing needed a file
        assert code == 0
