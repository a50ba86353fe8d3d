"""The search's compiled finder for big boards (encoders/search/bigsearch.py, _bigsearch.c)."""

from __future__ import annotations

import signal

import pytest

from sigmar.encoders.search import bigsearch
from sigmar.encoders.search.backend import FINDER_FROM_TILES, SearchBackend
from sigmar.models.deal import deal
from sigmar.models.result import CertificateKind, Status
from sigmar.models.rules import verify

pytestmark = pytest.mark.skipif(
    bigsearch._find is None, reason="the compiled finder was not built (no C compiler at install)"
)

HARD = deal("dense", 7, 1, 4)  # neither the finder nor the engine settles it in seconds


@pytest.mark.parametrize("index", range(8))
def test_the_finder_agrees_with_the_engine_on_small_dense_deals(index: int) -> None:
    board = deal("dense", 6, 1, index)
    found = bigsearch.find(board, 60, index, bytearray(1))
    engine = SearchBackend().solve(board, 60)
    if isinstance(found, tuple):
        assert verify(board, list(found)).valid
        assert engine.status is Status.SOLVED
    else:
        assert found is False  # every state searched: no solution
        assert engine.status is Status.UNSOLVABLE


def test_a_stop_ends_the_finder() -> None:
    assert bigsearch.find(HARD, 1000, 1, bytearray(b"\x01")) is None


def test_a_signal_handler_runs_while_the_finder_searches_and_may_end_it() -> None:
    """The race runs search in its own process and joins the others on a timer's signal (runners/race.py)."""

    class Tick(BaseException):
        pass

    def handler(signum: int, frame: object) -> None:
        raise Tick

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(Tick):
            bigsearch.find(HARD, 1000, 1, bytearray(1))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_bad_spec_is_refused() -> None:
    with pytest.raises(ValueError):
        bigsearch._find(b"\x05\x00", 1, 1, bytearray(1), 20)


def test_a_big_board_is_solved_by_the_finder_and_replayed() -> None:
    board = deal("dense", 10, 1, 24)  # the engine alone took 46 s at load 20 (docs/measured/side10.md)
    assert bigsearch.usable(board)
    result = SearchBackend().solve(board, 60)
    assert result.status is Status.SOLVED
    assert result.statistics["finder"] == "compiled"
    assert verify(board, list(result.moves)).valid


def test_a_big_board_refuted_at_the_start_keeps_the_engines_certificate() -> None:
    board = deal("dense", 10, 1, 0)
    result = SearchBackend().solve(board, 60)
    assert result.status is Status.UNSOLVABLE
    assert result.certificate is not None and result.certificate.kind is CertificateKind.STUCK
    assert "finder" not in result.statistics


def test_small_boards_and_the_other_options_stay_with_the_engine() -> None:
    small = deal("dense", 8, 1, 1)  # 127 tiles
    assert len(small.tiles) < FINDER_FROM_TILES
    assert "finder" not in SearchBackend().solve(small, 0.5).statistics
    board = deal("dense", 10, 1, 24)
    result = SearchBackend(order="neighbours").solve(board, 0.5)
    assert "finder" not in result.statistics
