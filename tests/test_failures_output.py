"""Fuzz and crosscheck output you can act on (issue 52, item 5): failures grouped by backend, kind and message
(one bug, one group, whichever cells it showed on); --max-failures exact; a rejected certificate kept beside its
failure in the output folder; a wrong answer reported once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sigmar.runners import cli
from sigmar.runners.fuzz import FailureGroups, message_shape

FAILURE = {"backend": "b", "failure": "rejected-solution", "shrunk": "# x\na a\n", "shrunk_tiles": 2}


def test_one_bug_on_other_cells_and_tiles_is_one_group() -> None:
    a = {**FAILURE, "message": "invalid: move 1: not a pair: air cannot leave alone; only gold can"}
    b = {**FAILURE, "message": "invalid: move 4: not a pair: earth cannot leave alone; only gold can", "shrunk": "e e"}
    c = {**FAILURE, "message": "invalid: move 2: metal out of order: gold must wait until metal 1 has left"}
    assert FailureGroups.key(a) == FailureGroups.key(b) != FailureGroups.key(c)
    assert FailureGroups.key({**a, "backend": "other"}) != FailureGroups.key(a)
    shaped = message_shape("rejected: /tmp/sigmar-fuzz-proofs-1/x-ab.dead.jsonl: state [2, 3] of 'fuzz 7' is open")
    assert "/tmp" not in shaped and "[row, col]" in shaped and "fuzz 7" not in shaped, shaped


def fuzz(tmp_path: Path, capsys, *argv: str) -> tuple[int, list[dict]]:
    code = cli.main(["fuzz", "--output-dir", str(tmp_path / "out"), "--json", *argv])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_fuzz_groups_a_consistent_bug_into_one_group(fakes, tmp_path: Path, capsys) -> None:
    code, records = fuzz(tmp_path, capsys, "-b", "broken:wrong", "--count", "16", "--seed", "3", "--max-failures", "0")
    failures = [f for r in records for f in r["failures"]]
    assert code == 3 and len(failures) >= 5
    reports = sorted(p for p in (tmp_path / "out").glob("*.json") if not p.name.endswith(".witness.json"))
    shapes = {FailureGroups.key(f) for f in failures}
    assert len(reports) == len(shapes) <= 2, [r.name for r in reports]  # one bug: a solution of one lone tile
    assert sum(json.loads(r.read_text())["count"] for r in reports) == len(failures)


@pytest.mark.parametrize("most", [1, 3, 5])
def test_max_failures_is_exact(most: int, fakes, tmp_path: Path, capsys) -> None:
    # three backends that each fail on every board: a board brings up to three failures at once
    argv = ["-b", "broken:wrong,broken:crash,broken:unknown", "--count", "10", "--max-failures", str(most)]
    code, records = fuzz(tmp_path, capsys, *argv, "--time-limit", "10")
    assert code == 3
    assert sum(len(r["failures"]) for r in records) == most, records


def test_a_rejected_certificate_is_kept_beside_its_failure(fakes, tmp_path: Path, capsys) -> None:
    code, records = fuzz(
        tmp_path, capsys, "-b", "honest:badcert", "--count", "30", "--seed", "1", "--max-failures", "2"
    )
    rejected = [f for r in records for f in r["failures"] if f["failure"] == "rejected-certificate"]
    assert code == 3 and rejected, records
    kept = rejected[0]["certificate"]
    assert kept["kind"] == "dead-states" and kept["files"], kept
    for path in kept["files"]:
        assert Path(path).is_file() and Path(path).parent == tmp_path / "out", path
    report = json.loads(Path(rejected[0]["files"][1]).read_text())
    assert report["certificate"]["files"] == kept["files"]
    assert "sigmar-fuzz-proofs" not in report["message"], report["message"]  # no removed temporary file named
    assert kept["check"].startswith("sigmar check ")
    # the kept certificate is the one that was rejected: checking it again rejects it again
    board_file, certificate = kept["check"].split()[2:4]
    assert cli.main(["check", board_file, certificate]) != 0


def test_crosscheck_reports_a_wrong_answer_once(fakes, board_file: Path, capsys) -> None:
    assert cli.main(["crosscheck", str(board_file), "-b", "honest,broken:wrong"]) == 3
    out = capsys.readouterr().out
    assert "disagree" not in out.split("agree ┃")[-1].split("boards,")[0], out  # no second report of it
    for board in ("pair", "stuck", "counts"):
        lines = [line for line in out.splitlines() if line.startswith(f"{board}: ")]
        assert len(lines) == 1 and "broken:wrong returned a solution the rule engine rejects" in lines[0], lines
    assert "0 disagreements" in out


def test_a_real_disagreement_is_still_one(fakes, board_file: Path, capsys) -> None:
    """Two claims that cannot both hold, neither shown wrong: still a disagreement."""
    assert cli.main(["crosscheck", str(board_file), "-b", "honest:proof,broken:proof"]) == 3
    out = capsys.readouterr().out
    assert "pair: backends disagree: honest:proof=solvable, broken:proof=unsolvable" in out or "wrong" in out, out
