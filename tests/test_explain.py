"""``sigmar explain``: the deepest play against an exhaustive search, its play-bound certificate, and the repair.

The properties draw boards of side 2-3 (the fuzzer's dealer: counts that pair up, loose
multisets, the encodings' edge cases, quintessence) and settle them with the rule engine
alone: the deepest play must be the exhaustive maximum, its certificate must check, and a
"no repair with one change" must hold for every board one change away.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders.search.deepest import DeepestPlay, deepest_play, play_bound_text
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards
from sigmar.models.deal import deal
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.rules import Position, verify
from sigmar.models.solution import Solution, to_moves
from sigmar.models.stuck_sets import explain_dead_end
from sigmar.models.truth import settle
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.play_bound_check import check_play_bound
from sigmar.runners.checking.verdict import CertificateError
from sigmar.runners.cli import main
from sigmar.runners.design.explain import deepest, replayed
from sigmar.runners.design.repair import Change, candidates, smallest_repair
from tests.conftest import INSTANCES


def most_cleared(board: Board) -> int:
    """The rule engine's exhaustive maximum: every reachable state, the one with the fewest tiles."""
    start = Position.start(board).occupied
    seen = {start}
    stack = [start]
    fewest = len(start)
    while stack:
        occupied = stack.pop()
        fewest = min(fewest, len(occupied))
        for move in Position(board, occupied).legal_moves():
            child = occupied - set(move.cells)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return len(board.tiles) - fewest


@st.composite
def small_deals(draw: st.DrawFn) -> Board:
    """A fuzz deal of side 2 or 3 (the dealer's own mix of recipes and both variants)."""
    board = fuzz_board(draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6)), 19, "both")
    assume(board.dim <= 3)
    return board


def write_bound(tmp_path: Path, board: Board, play: DeepestPlay, text: str | None = None) -> Path:
    path = tmp_path / "deepest.bound.jsonl"
    path.write_text(text if text is not None else play_bound_text(board, play))
    return path


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_deals())
def test_the_deepest_play_is_the_exhaustive_maximum_and_its_bound_checks(tmp_path: Path, board: Board) -> None:
    play = deepest_play(board, time_limit=60)
    assert play.proved, board
    assert play.cleared == most_cleared(board), format_board(board)
    _, left = replayed(board, play.moves)  # every move legal by the rule engine
    assert len(board.tiles) - left.bit_count() == play.cleared
    if play.cleared == len(board.tiles):  # a solvable board: a bound of every tile claims nothing (issue 47, S1)
        with pytest.raises(CertificateError, match="claims nothing"):
            check_play_bound(board, write_bound(tmp_path, board, play))
        return
    verdict = check_play_bound(board, write_bound(tmp_path, board, play))
    assert verdict.valid, verdict.reason
    # the position left has no move, and the sentence says why
    assert not Position(
        board, frozenset(board.tiles[t].cell for t in range(len(board.tiles)) if left >> t & 1)
    ).legal_moves()
    assert explain_dead_end(board, left)[1]


@settings(max_examples=60, deadline=None)
@given(small_deals())
def test_no_repair_with_one_change_is_never_wrong(board: Board) -> None:
    assume(not settle(board).solvable)
    repair = smallest_repair(board, time_limit=60)
    if repair.found:
        assert repair.board is not None and repair.solution is not None
        assert verify(repair.board, repair.solution.moves).valid
        assert repair.changes[0].apply(board) == repair.board
        return
    assert repair.none_with_one, repair.why
    for change in candidates(board):
        assert not settle(change.apply(board)).solvable, change.describe(board)


def test_candidates_are_every_swap_and_move_once() -> None:
    board = parse_boards("  a 1\n . e .\n  . q\n", "t")[0]
    found = list(candidates(board))
    assert len(found) == len(set(found))
    swaps = [c for c in found if c.kind == "swap"]
    moves = [c for c in found if c.kind == "move"]
    assert len(swaps) == 6  # four tiles, all different: every pair once
    assert len(moves) == 4 * 3  # each tile to each of the three empty cells
    assert {frozenset(c.cells) for c in swaps} == {
        frozenset((a, b)) for a in board.symbol_at for b in board.symbol_at if a != b
    }
    moved = Change("move", (next(iter(board.symbol_at)), moves[0].cells[1])).apply(board)
    assert sorted(t.symbol for t in moved.tiles) == sorted(t.symbol for t in board.tiles)


def test_counts_that_cannot_pair_up_need_no_search_for_a_repair() -> None:
    board = next(b for b in parse_boards((INSTANCES / "small.txt").read_text(), "small") if "odd fire" in b.name)
    repair = smallest_repair(board, time_limit=5)
    assert repair.none_with_one and repair.tried == 0
    assert "keep the tile counts" in repair.why


@pytest.fixture(scope="module")
def dense_unsolvable() -> Board:
    """A side-6 dense deal whose deepest play takes a walk of some 2,000 states (seed 1, board 3)."""
    return deal("dense", 6, 1, 3)


def test_a_damaged_play_bound_file_is_rejected(tmp_path: Path, dense_unsolvable: Board) -> None:
    board = dense_unsolvable
    play = deepest_play(board, time_limit=120)
    assert play.proved and play.cleared < len(board.tiles)
    text = play_bound_text(board, play)
    header, *states = text.splitlines()
    assert check_play_bound(board, write_bound(tmp_path, board, play)).valid
    # a bound below the play's own: its states clear too much
    record = json.loads(header)
    record["cleared"] = play.cleared - 2
    lowered = json.dumps(record) + "\n" + "\n".join(states) + "\n"
    verdict = check_play_bound(board, write_bound(tmp_path, board, play, lowered))
    assert not verdict.valid
    if len(states) > 2:  # a walked state dropped: the closure opens
        expanded = [i for i, line in enumerate(states) if "stays" not in line and i > 0]
        cut = states[: expanded[0]] + states[expanded[0] + 1 :]
        verdict = check_play_bound(board, write_bound(tmp_path, board, play, header + "\n" + "\n".join(cut) + "\n"))
        assert not verdict.valid and "not listed" in verdict.reason
    # a leaf whose tiles that stay are not a stuck set
    start = json.loads(states[0])
    start["stays"] = [0]
    forged = header + "\n" + json.dumps(start) + "\n"
    verdict = check_play_bound(board, write_bound(tmp_path, board, play, forged))
    assert not verdict.valid
    # another board's file is malformed, not invalid
    with pytest.raises(CertificateError):
        check_play_bound(deal("dense", 6, 1, 0), write_bound(tmp_path, board, play))


def test_a_dead_states_claim_is_a_play_bound_of_one_less(tmp_path: Path) -> None:
    """The board only a search refutes (instances/small.txt): its deepest play, proved, clears fewer than all."""
    board = next(b for b in parse_boards((INSTANCES / "small.txt").read_text(), "small") if "salt must take" in b.name)
    with ProofStore(tmp_path / "proofs") as proofs:
        found = deepest(board, 10, proofs)
    assert found.proved and found.cleared == most_cleared(board) < len(board.tiles)
    assert found.certificate_file is not None and Path(found.certificate_file).name.endswith(".bound.jsonl")
    assert main(["check", str(INSTANCES / "small.txt"), found.certificate_file, "--board", board.name]) == 0


def test_explain_json_has_the_deepest_play_and_a_replayed_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boards = [deal("dense", 6, 1, 0), deal("dense", 6, 1, 1)]
    path = tmp_path / "two.txt"
    path.write_text("\n".join(format_board(b) for b in boards))
    code = main(["explain", str(path), "--json", "--time-limit", "60", "--proof-dir", str(tmp_path / "p")])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    by_status = {r["status"]: r for r in records}
    unsolvable = by_status["unsolvable"]
    assert unsolvable["checked"] is True
    found = unsolvable["deepest"]
    assert found["proved"] is True and found["certificate"]["checked"] is True
    assert 0 < found["cleared"] < found["tiles"] and len(found["moves"]) * 2 == found["cleared"]
    assert found["stuck"] and found["why"]
    repair = unsolvable["repair"]
    assert len(repair["changes"]) == 1 and repair["verified"] is True
    changed = parse_boards(repair["board"], "repair")[0]
    moves = to_moves(changed, Solution(None, tuple(tuple(map(tuple, m["cells"])) for m in repair["moves"])))
    assert verify(changed, moves).valid
    solved = by_status["solved"]
    assert solved["deepest"] is None and solved["repair"] is None


def test_a_walk_cut_short_is_at_least_and_writes_no_certificate(tmp_path: Path) -> None:
    """Dense deal 12 of seed 1 needs a walk of some 119,000 positions: cut at 50, its play stands as 'at least'."""
    board = deal("dense", 6, 1, 12)
    play = deepest_play(board, time_limit=60, max_states=50)
    assert not play.proved and not play.listed and play.states <= 50
    assert 0 < play.cleared < len(board.tiles)
    with pytest.raises(ValueError):
        play_bound_text(board, play)
    with ProofStore(tmp_path) as proofs:
        found = deepest(board, 0.001, proofs)
    assert not found.proved and found.certificate_file is None and not found.wrong
    assert not list(tmp_path.iterdir())  # nothing written for an unproved bound
