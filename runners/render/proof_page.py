"""The page ``show --html`` writes for a board given without a solution: ``prove``'s answer, drawn.

A solvable board is solved and replayed; an unsolvable one shows its checked
certificate: a stuck set marked tile by tile, or the size of the dead states or
the DRUP proof that a person cannot read on a board anyway.
"""

from __future__ import annotations

from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.hexgrid import from_rowcol
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners.checking.stuck_check import holding_rules
from sigmar.runners.checking.trust import accepted
from sigmar.runners.render.board_pages import replay_page, stuck_page, verdict_page


def page_for(board: Board, result: Result, time_limit: float) -> str:
    if result.status is Status.SOLVED and result.verified:
        return replay_page(board, result.moves, f"Solved by {result.backend} in {result.seconds:.2f} s.")
    if result.status is Status.UNKNOWN:
        return verdict_page(board, f"No answer within {time_limit:g} s.", result.message)
    certificate = result.certificate
    if not accepted(result) or certificate is None:  # the policy's word: a checked certificate, not wrong
        what = result.message or result.explanation or "no checked answer"
        return verdict_page(board, f"No trusted answer ({result.status}): {what}")
    checked = f"checked in {result.check_seconds:.2f} s" if result.check_seconds is not None else "checked"
    if certificate.kind is CertificateKind.STUCK:
        # The certificate names K by [row, col]; the rules work on axial cells.
        cells = [from_rowcol(row, col, board.dim) for row, col in certificate.cells]
        return stuck_page(board, holding_rules(board, cells), result.explanation)
    if certificate.kind is CertificateKind.COUNTS:
        return verdict_page(board, f"Unsolvable from its tile counts: {result.explanation}")
    size = certificate_size(certificate.kind, Path(certificate.file or ""))
    return verdict_page(
        board,
        f"Unsolvable: {result.explanation}",
        f"Certificate: {certificate.kind} ({size}), {checked} by code independent of {result.backend}. "
        "It is not a set of tiles, so nothing is marked on the board; 'sigmar prove --proof-dir D' keeps the file.",
    )


def certificate_size(kind: CertificateKind, path: Path) -> str:
    """How big a certificate file is, in the units a reader of docs/formats.md#certificates counts."""
    if not path.is_file():
        return "file not kept"
    text = path.read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    if kind is CertificateKind.DEAD_STATES:
        return f"{max(len(lines) - 1, 0)} states, {len(text.encode())} bytes"
    return f"{len(lines)} proof lines, {len(text.encode())} bytes"
