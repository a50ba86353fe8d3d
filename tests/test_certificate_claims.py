"""Each certificate kind proves one thing, and is accepted only for that (issue 47, S1).

A play-bound file of ``explain`` says "no play clears more than C tiles": true of every board when C
is its tile count, and never a proof that a board is unsolvable.  Every path from a certificate to a
checked "no" is tried with one: ``sigmar check`` of an answers file, the one dispatcher
(``check_certificate``), the runner's ``certify``, and a backend's answer (taken in, so the race,
crosscheck, bench, prove, fuzz and the workbench, which all take answers in, never see the kind).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.runners.checking.certificates import PROVES, check_certificate, check_claim
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.intake import taken_in
from sigmar.runners.checking.verdict import PLAY_BOUND, UNSOLVABLE, CertificateError, Verdict
from sigmar.runners.cli import main
from sigmar.runners.design.explain import deepest
from tests.conftest import INSTANCES, REAL_GAME

SMALL = INSTANCES / "small.txt"


def bound_of_every_tile(board: Board, path: Path, cleared: int | None = None) -> Path:
    """The S1 forgery: a play-bound file whose one state (the whole board) is a leaf where nothing stays."""
    tiles = [list(board.rowcol(t.cell)) for t in board.tiles]
    n = len(tiles)
    header = {"format": "sigmar-play-bound", "version": 1, "board": board.name, "tiles": tiles}
    header["cleared"] = n if cleared is None else cleared
    path.write_text(json.dumps(header) + "\n" + json.dumps({"state": format((1 << n) - 1, "x"), "stays": []}) + "\n")
    return path


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, Path]:
    """An unsolvable board of small.txt and explain's own play-bound file for it, which checks for its bound."""
    board = next(b for b in parse_boards(SMALL.read_text(), "small") if "salt must take" in b.name)
    with ProofStore(tmp_path_factory.mktemp("proofs")) as proofs:
        found = deepest(board, 30, proofs)
    assert found.proved and found.certificate_file is not None
    return board, Path(found.certificate_file)


def test_every_kind_says_what_it_proves() -> None:
    assert {PROVES[str(kind)] for kind in CertificateKind} == {UNSOLVABLE}
    assert PROVES["play-bound"] == PLAY_BOUND


def test_s1_the_issues_forged_answers_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The first board of real-game.txt (solvable), "unsolvable" with a bound of all its 55 tiles: exit 3 or 2,
    never "valid" (on main it was "play-bound certificate valid", exit 0)."""
    board = read_boards(REAL_GAME)[0]
    bound = bound_of_every_tile(board, tmp_path / "all.bound.jsonl")
    answers = tmp_path / "s1.jsonl"
    certificate = {"kind": "play-bound", "file": bound.name}
    answers.write_text(json.dumps({"board": board.name, "status": "unsolvable", "certificate": certificate}) + "\n")
    code = main(["check", f"{REAL_GAME}:0", str(answers)])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "INVALID" in out and "does not prove a board unsolvable" in out, out


def test_s1_a_genuine_bound_on_an_unsolvable_board_is_still_no_unsolvable_certificate(
    genuine: tuple[Board, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A true statement that does not prove the answer: the board is unsolvable, the bound checks, yet the
    answer's "no" needs a certificate of unsolvability."""
    board, bound = genuine
    assert check_claim(board, {"kind": "play-bound", "file": str(bound)}).valid
    answers = tmp_path / "answers.jsonl"
    certificate = {"kind": "play-bound", "file": str(bound)}
    answers.write_text(json.dumps({"board": board.name, "status": "unsolvable", "certificate": certificate}) + "\n")
    code = main(["check", f"{SMALL}:{board.name}", str(answers)])
    out = capsys.readouterr().out
    assert code == 3 and "play-bound certificate INVALID" in out, out


def test_s1_the_dispatcher_refuses_a_play_bound_for_unsolvable(genuine: tuple[Board, Path]) -> None:
    board, bound = genuine
    verdict = check_certificate(board, {"kind": "play-bound", "file": str(bound)})
    assert not verdict.valid and not verdict.unsolvable
    claim = check_claim(board, {"kind": "play-bound", "file": str(bound)})
    assert claim.valid and claim.proves == PLAY_BOUND and not claim.unsolvable


def test_s1_a_lone_play_bound_is_checked_for_its_bound_and_says_so(
    genuine: tuple[Board, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    board, bound = genuine
    assert main(["check", str(SMALL), str(bound), "--board", board.name, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["valid"] is True and record["proves"] == "play-bound", record


def test_s1_a_bound_of_every_tile_claims_nothing_and_is_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = read_boards(REAL_GAME)[0]
    bound = bound_of_every_tile(board, tmp_path / "all.bound.jsonl")
    assert main(["check", f"{REAL_GAME}:0", str(bound)]) == 2
    assert "below the 55 tiles" in capsys.readouterr().err
    with pytest.raises(CertificateError):
        check_claim(board, {"kind": "play-bound", "file": str(bound)})
    # one below every tile, on a solvable board: the bound is false, and the check says so
    short = bound_of_every_tile(board, tmp_path / "short.bound.jsonl", cleared=54)
    assert not check_claim(board, {"kind": "play-bound", "file": str(short)}).valid


def test_s1_certify_only_stamps_checked_on_a_proof_of_unsolvability(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's gate: a certificate is checked only when its verdict proves unsolvability, not when it is
    merely valid (a verdict of a play-bound, were one ever to reach it)."""
    from sigmar.runners.checking import certificates  # certify imports its check_certificate when it checks

    board = next(b for b in parse_boards(SMALL.read_text(), "small") if "salt must take" in b.name)
    claim = Result(Status.UNSOLVABLE, "x", reason=Reason.STATIC, certificate=Certificate(CertificateKind.COUNTS))
    with ProofStore(tmp_path) as store:
        counts = certify(board, claim, store)
        assert not counts.checked and "counts alone prove nothing" in counts.message
        monkeypatch.setattr(certificates, "check_certificate", lambda *_, **__: Verdict(True, "a bound", PLAY_BOUND))
        assert not certify(board, claim, store).checked
        monkeypatch.setattr(certificates, "check_certificate", lambda *_, **__: Verdict(True, "shown", UNSOLVABLE))
        assert certify(board, claim, store).checked


def test_s1_a_backend_cannot_hand_in_a_play_bound(genuine: tuple[Board, Path]) -> None:
    """Every engine takes a backend's answer in first: a kind outside CertificateKind is an error there."""
    board, bound = genuine
    lie = Certificate("play-bound", texts={".bound.jsonl": bound.read_text()})  # type: ignore[arg-type]
    answer = taken_in(Result(Status.UNSOLVABLE, "liar", reason=Reason.PROOF, certificate=lie), "liar")
    assert answer.status is Status.ERROR and "certificate kind" in answer.message
