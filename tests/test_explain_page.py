"""``show --html`` of an unsolvable board: its deepest play and repair in words, whatever certificate refuted it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigmar.models.boardfile import read_boards
from sigmar.models.result import Certificate, CertificateKind, Result, Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli import main
from sigmar.runners.design.explain import explain
from sigmar.runners.design.explain_page import explained_page
from tests.conftest import INSTANCES


@pytest.mark.parametrize("index", [0, 6])  # refuted by a stuck set; by an exhausted search (dead states or DRUP)
def test_the_page_of_an_unsolvable_board_gives_its_deepest_play_and_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: int
) -> None:
    out = tmp_path / "page.html"
    status = main(["show", f"{INSTANCES / 'generated-unsolvable.txt'}:{index}", "--html", str(out)])
    assert status == 0
    page = out.read_text()
    assert "<h2>The deepest play</h2>" in page and "The most tiles any play clears:" in page
    assert "no play clears more (play-bound certificate checked" in page
    assert '<div class="wrap replay">' in page and 'data-end-say="it leaves' in page
    assert "<h2>The smallest repair</h2>" in page and "Smallest repair: " in page


def test_a_drup_refuted_board_gets_the_same_explanation() -> None:
    """The certificate's kind changes only the first section: the page of a DRUP "no" explains it in words too."""
    board = read_boards(INSTANCES / "generated-unsolvable.txt")[6]
    verdict = Result(
        Status.UNSOLVABLE,
        "cnf:glucose4",
        explanation="the CNF of the board is unsatisfiable",
        certificate=Certificate(CertificateKind.DRUP, file="gone.drup"),
        checked=True,
        check_seconds=0.5,
    )
    with ProofStore() as proofs:
        page = explained_page(board, verdict, explain(board, verdict, 20, proofs))
    assert "Certificate: drup (file not kept), checked in 0.50 s" in page
    assert "The most tiles any play clears:" in page and "Smallest repair: " in page
