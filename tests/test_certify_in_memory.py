"""Certificates checked where the runner made them: from the texts it holds, not its own files read back.

The runner writes a certificate's files once (for the user with ``--proof-dir``, for a second checker)
and checks the very texts it wrote, in memory; a drcp certificate's order model is built once per
answer, for its file and its check.  Counted here: the files opened (Python's audit hook sees every
``open``, whichever function makes it) and the builds of the order model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sigmar.encoders import order_model
from sigmar.models.boardfile import read_boards
from sigmar.models.deal import deal
from sigmar.models.result import Certificate, CertificateKind, Result, Status
from sigmar.runners.checking.certify import ProofStore, certify, with_formula
from sigmar.runners.race import Race

ROOT = Path(__file__).resolve().parents[1]

_WATCHED: list[list[tuple[str, bool]]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED:
        path, mode, flags = args
        if isinstance(path, str | bytes | os.PathLike):
            _WATCHED[-1].append((os.fsdecode(path), _reads(mode, flags)))


def _reads(mode: str | None, flags: int) -> bool:
    """An open that reads a file that is there: not one that creates a file (a write's own temporary
    file is opened read-write, but created)."""
    if flags & os.O_CREAT:
        return False
    if mode is not None and mode != "":
        return "r" in mode
    return flags & os.O_ACCMODE in (os.O_RDONLY, os.O_RDWR)


sys.addaudithook(_audit)  # an audit hook stays for the process: it records only while a test watches


def read_in(folder: Path, opened: list[tuple[str, bool]]) -> list[str]:
    return [path for path, reads in opened if reads and Path(path).resolve().is_relative_to(folder.resolve())]


def test_a_race_on_a_drup_refuted_deal_reads_no_certificate_file_it_wrote(tmp_path: Path) -> None:
    board = deal("dense", 6, 1, 0)
    opened: list[tuple[str, bool]] = []
    with ProofStore(tmp_path) as proofs, Race(["cnf"], proofs=proofs) as race:
        _WATCHED.append(opened)
        try:
            outcome = race.solve(board, 600)
        finally:
            _WATCHED.remove(opened)
    result = outcome.result
    assert result.status is Status.UNSOLVABLE and result.checked, result
    assert result.certificate is not None and result.certificate.kind is CertificateKind.DRUP
    written = sorted(p.name for p in tmp_path.iterdir())
    assert [Path(name).suffix for name in written] == [".cnf", ".drup", ".json"], written
    assert [p for p, reads in opened if not reads and Path(p).parent == tmp_path], "the files were written here"
    assert read_in(tmp_path, opened) == [], "the runner read back a certificate file it wrote"
    # The formula a user keeps is the runner's own encoding, byte for byte.
    own = with_formula(board, Certificate(CertificateKind.DRUP, texts={".drup": ""})).texts
    stem = Path(result.certificate.file or "").with_suffix("")
    assert stem.with_suffix(".cnf").read_text() == own[".cnf"]
    assert Path(f"{stem}.vars.json").read_text() == own[".vars.json"]


def test_the_drcp_model_is_built_once_per_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built for the file and checked against the same object; the kept model file is that model's text."""
    pytest.importorskip("pumpkin_solver", reason="pumpkin-solver is not installed (install.sh installs it)")
    from sigmar.encoders.pumpkin import PumpkinBackend

    board = next(b for b in read_boards(ROOT / "instances" / "small.txt") if b.name.startswith("four tiles"))
    raw = PumpkinBackend().solve(board, 600)
    assert raw.status is Status.UNSOLVABLE and raw.certificate is not None, raw
    builds: list[int] = []
    real = order_model.build

    def counted(board: object) -> order_model.OrderModel:
        builds.append(1)
        return real(board)  # type: ignore[arg-type]

    monkeypatch.setattr(order_model, "build", counted)
    opened: list[tuple[str, bool]] = []
    with ProofStore(tmp_path) as store:
        _WATCHED.append(opened)
        try:
            answer = certify(
                board, Result(raw.status, raw.backend, reason=raw.reason, certificate=raw.certificate), store
            )
        finally:
            _WATCHED.remove(opened)
    assert answer.checked, answer
    assert len(builds) == 1, f"the order model was built {len(builds)} times for one answer"
    assert read_in(tmp_path, opened) == [], "the runner read back a certificate file it wrote"
    kept = Path(answer.certificate.file or "")  # type: ignore[union-attr]
    assert kept.read_text() == raw.certificate.texts[".drcp"]
    assert kept.with_suffix(".drcp-model").read_text() == real(board).text()


def test_a_tampered_text_is_still_refused_in_memory(tmp_path: Path) -> None:
    """The in-memory check is the check: a proof that does not refute the board is rejected."""
    board = next(b for b in read_boards(ROOT / "instances" / "small.txt") if b.name.startswith("one pair of air"))
    forged = Result(
        Status.UNSOLVABLE, "cnf", certificate=Certificate(CertificateKind.DRUP, texts={".drup": "1 0\n0\n"})
    )
    with ProofStore(tmp_path) as store:
        answer = certify(board, forged, store)
    assert not answer.checked and "rejected" in answer.message, answer
