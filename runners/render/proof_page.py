"""The page ``show --html`` writes for a board given without a solution: ``prove``'s answer, drawn.

A solvable board is solved and replayed; an unsolvable one shows its checked
certificate: a stuck set marked tile by tile, or the size of the dead states or
the DRUP proof that a person cannot read on a board anyway.  ``show`` adds the
board's deepest play and smallest repair below it (``sigmar.runners.design.explain_page``),
whatever the certificate.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, from_rowcol
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners.checking.stuck_check import holding_rules
from sigmar.runners.checking.trust import accepted
from sigmar.runners.render.board_pages import board_box, replay_page, stuck_page, stuck_section, verdict_page
from sigmar.runners.render.svg import board_svg


def page_for(board: Board, result: Result, time_limit: float) -> str:
    if result.status is Status.SOLVED and result.verified:
        return replay_page(board, result.moves, f"Solved by {result.backend} in {result.seconds:.2f} s.")
    if result.status is Status.UNKNOWN:
        return verdict_page(board, f"No answer within {time_limit:g} s.", result.message)
    certificate = result.certificate
    if not accepted(result) or certificate is None:  # the policy's word: a checked certificate, not wrong
        what = result.message or result.explanation or "no checked answer"
        return verdict_page(board, f"No trusted answer ({result.status}): {what}")
    if certificate.kind is CertificateKind.STUCK:
        return stuck_page(board, held_cells(board, result), result.explanation)
    verdict, detail = certificate_sentences(board, result)
    return verdict_page(board, verdict, detail)


def held_cells(board: Board, result: Result) -> dict[Hex, str]:
    """A stuck certificate's set K, each cell with the rule that holds it (the certificate names K by [row, col])."""
    assert result.certificate is not None
    cells = [from_rowcol(row, col, board.dim) for row, col in result.certificate.cells]
    return holding_rules(board, cells)


def certificate_sentences(board: Board, result: Result) -> tuple[str, str]:
    """What a checked certificate that is not a stuck set says: the verdict, and a note on the certificate."""
    certificate = result.certificate
    assert certificate is not None
    if certificate.kind is CertificateKind.COUNTS:
        return f"Unsolvable from its tile counts: {result.explanation}", ""
    checked = f"checked in {result.check_seconds:.2f} s" if result.check_seconds is not None else "checked"
    size = certificate_size(certificate.kind, Path(certificate.file or ""))
    return (
        f"Unsolvable: {result.explanation}",
        f"Certificate: {certificate.kind} ({size}), {checked} by code independent of {result.backend}. "
        "It is not a set of tiles, so nothing is marked on the board; 'sigmar prove --proof-dir D' keeps the file.",
    )


def certificate_section(board: Board, result: Result, *, drawing: bool = True) -> str:
    """The checked certificate of an unsolvable board as part of a page: a stuck set drawn, else the sentences
    (below the board's drawing unless ``drawing`` is False: a page that draws the board anyway)."""
    certificate = result.certificate
    if certificate is not None and certificate.kind is CertificateKind.STUCK:
        return stuck_section(board, held_cells(board, result))
    verdict, detail = certificate_sentences(board, result)
    more = f'<p class="note">{escape(detail)}</p>' if detail else ""
    drawn = board_box(board, board_svg(board)) if drawing else ""
    return f"{drawn}<p>{escape(verdict)}</p>{more}"


def certificate_size(kind: CertificateKind, path: Path) -> str:
    """How big a certificate file is, in the units a reader of docs/formats.md#certificates counts."""
    if not path.is_file():
        return "file not kept"
    text = path.read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    if kind is CertificateKind.DEAD_STATES:
        return f"{max(len(lines) - 1, 0)} states, {len(text.encode())} bytes"
    return f"{len(lines)} proof lines, {len(text.encode())} bytes"
