"""Checking a whole answers file (``sigmar check FILE... ANSWERS``): no line of it is taken on its word.

An answers file is what ``solve``, ``prove``, ``crosscheck`` or ``survey --results`` wrote with
``--json``: one answer a line.  Each answer is checked as if a backend had just sent it:

- a ``solved`` answer's moves are replayed by the rule engine (its ``verified`` is not read);
- an ``unsolvable`` answer's certificate is checked by :func:`check_certificate`, and only a kind
  that proves unsolvability can pass (a play-bound file of ``explain`` bounds a play, nothing more); one that has
  none (a claim, or ``corroborated``) cannot be checked, nor can one whose files were in a
  temporary folder that the run removed (``file`` null, or a path that is gone): both fail,
  and the message says to keep the files with ``--proof-dir``;
- ``unknown`` and ``error`` answers are listed (they claim nothing);
- what ``explain --json`` adds to an answer, its deepest play and its repair, is checked too
  (:mod:`.explain_check`), each part a finding of its own;
- every board of the board files must have an answer: one left out fails, by name.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError
from sigmar.models.result import CERTIFICATE_SUFFIXES
from sigmar.models.rules import verify
from sigmar.models.solution import json_solution, to_moves
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.explain_check import check_parts, is_explained
from sigmar.runners.checking.verdict import PLAY_BOUND, CertificateError

# The prefix of the temporary folder a run writes its certificates to without --proof-dir (certify.ProofStore).
TEMPORARY_PREFIX = "sigmar-proofs-"
KEEP_THEM = "run it again with --proof-dir DIR to keep the certificate files"
FAILING = ("invalid", "unchecked", "missing")
FILED_KINDS = frozenset(str(kind) for kind in CERTIFICATE_SUFFIXES)  # the kinds whose certificate is files


@dataclass(frozen=True)
class Finding:
    """What the check found for one answer (or for a board with none).

    ``outcome``: ``valid``; ``invalid`` (a solution the rule engine rejects, or none; a
    certificate that fails); ``malformed`` (a certificate that does not parse, or names a cell
    the board does not hold: as for a lone certificate, exit 2); ``unchecked`` (an ``unsolvable``
    with nothing that can be checked); ``listed`` (``unknown`` or ``error``: nothing claimed);
    ``missing`` (no answer at all).
    """

    board: str
    status: str  # the answer's status, or "missing"
    outcome: str
    why: str
    kind: str | None = None  # the certificate's kind
    seconds: float = 0.0
    line: int | None = None
    part: str | None = None  # for a part of an explain line: "deepest" or "repair"

    @property
    def fails(self) -> bool:
        return self.outcome in FAILING


def is_answer(record: object) -> bool:
    """A line of an answers file: a JSON object with a ``status``."""
    return isinstance(record, dict) and "status" in record


def check_answer(board: Board, record: dict[str, Any], line: int, base: Path, source: str) -> Finding:
    """One answer of ``board`` checked from scratch."""
    status = str(record.get("status"))
    start = time.perf_counter()
    if status == "solved":
        return _solved(board, record, line, source, start)
    if status == "unsolvable":
        return _unsolvable(board, record, line, base, start)
    why = str(record.get("message") or "no answer in time") if status in ("unknown", "error") else "not a status"
    outcome = "listed" if status in ("unknown", "error") else "invalid"
    return Finding(board.name, status, outcome, why, line=line)


def check_explained(board: Board, record: dict[str, Any], line: int, base: Path, source: str) -> list[Finding]:
    """The parts ``explain --json`` adds to an answer (its deepest play, its repair), each checked
    (:mod:`.explain_check`); none for any other answer."""
    if not is_explained(record):
        return []
    start = time.perf_counter()
    status = str(record.get("status"))
    findings = []
    for part in check_parts(board, record, base, source, line, _temporary_and_gone):
        seconds = time.perf_counter() - start
        findings.append(Finding(board.name, status, part.outcome, part.why, part.kind, seconds, line, part.part))
        start = time.perf_counter()
    return findings


def _solved(board: Board, record: dict[str, Any], line: int, source: str, start: float) -> Finding:
    try:
        moves = to_moves(board, json_solution(record, source, line), source)
    except BoardFileError as exc:
        return Finding(board.name, "solved", "invalid", f"no moves to replay: {exc.message}", line=line)
    verdict = verify(board, moves)
    seconds = time.perf_counter() - start
    count = f"{len(moves)} move{'' if len(moves) == 1 else 's'}"
    said = str(verdict).partition(": ")[2]  # "valid: the board is cleared" -> "the board is cleared"
    if verdict.valid:
        return Finding(board.name, "solved", "valid", f"{count} replayed: {said}", seconds=seconds, line=line)
    return Finding(board.name, "solved", "invalid", f"{count}, rejected by the rule engine: {said}", line=line)


def _unsolvable(board: Board, record: dict[str, Any], line: int, base: Path, start: float) -> Finding:
    certificate = record.get("certificate")
    if not isinstance(certificate, dict):
        reason = record.get("reason") or "no reason"
        why = f"a claim ({reason}) with no certificate: nothing to check"
        return Finding(board.name, "unsolvable", "unchecked", why, line=line)
    kind = str(certificate.get("kind"))
    gone = _temporary_and_gone(certificate)
    if gone:
        return Finding(board.name, "unsolvable", "unchecked", f"{gone}; {KEEP_THEM}", kind, line=line)
    try:
        verdict = check_certificate(board, certificate, base=base)
    except CertificateError as exc:
        return Finding(board.name, "unsolvable", "malformed", str(exc), kind, line=line)
    seconds = time.perf_counter() - start
    outcome = "valid" if verdict.unsolvable else "invalid"  # only a proof of unsolvability checks a "no"
    return Finding(board.name, "unsolvable", outcome, verdict.reason, kind, seconds, line)


def _temporary_and_gone(certificate: dict[str, Any]) -> str:
    """Why a certificate's files cannot be read because its run kept them in a temporary folder, or ''."""
    if certificate.get("kind") not in FILED_KINDS and certificate.get("kind") != PLAY_BOUND:
        return ""
    name = certificate.get("file")
    if name is None:
        return "its files were in a temporary folder, removed when that run ended"
    path = Path(str(name))
    temporary = any(part.startswith(TEMPORARY_PREFIX) for part in path.parts) or _under(path, tempfile.gettempdir())
    if temporary and not path.exists():
        return f"{path} was in a temporary folder that is gone"
    return ""


def _under(path: Path, folder: str) -> bool:
    try:
        return path.is_absolute() and path.is_relative_to(folder)
    except ValueError:
        return False


def missing_boards(boards: Iterable[Board], answered: set[str]) -> list[Finding]:
    """A finding for every board that no answer names."""
    return [Finding(b.name, "missing", "missing", "no answer for this board") for b in boards if b.name not in answered]
