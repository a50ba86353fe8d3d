"""The proved hint (runners/design/hint.py, ``sigmar hint``): every mark against brute force, every proof checked."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders.search import SearchBackend
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards
from sigmar.models.counting import Notion, reference_count
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.result import CertificateKind, Move, Status
from sigmar.models.rules import Position, verify
from sigmar.models.solution import format_moves, read_solutions, to_moves
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.replay import run_replayed
from sigmar.runners.cli import main
from sigmar.runners.design.hint import PositionError, dead_states_after, hint, hint_json, position_board
from tests.conftest import INSTANCES, ROOT


def clearable(board: Board, occupied: frozenset) -> bool:  # type: ignore[type-arg]
    return reference_count(position_board(board, occupied), Notion.SEQUENCES).value > 0


@st.composite
def positions(draw: st.DrawFn) -> tuple[Board, list[Move]]:
    """A fuzz deal of side 3 at most and a few random legal moves played on it."""
    board = fuzz_board(draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6)), 19, "both")
    assume(board.dim <= 3)
    rng = random.Random(draw(st.integers(0, 2**32)))
    position, played = Position.start(board), []
    for _ in range(draw(st.integers(0, 4))):
        moves = position.legal_moves()
        if not moves:
            break
        played.append(rng.choice(moves))
        position = position.play(played[-1])
    return board, played


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_mark_is_the_truth_and_carries_its_proof(position_and_moves: tuple[Board, list[Move]]) -> None:
    board, played = position_and_moves
    with ProofStore() as store:
        found = hint(board, played, time_limit=30, proofs=store)
        position = Position.start(board)
        for move in played:
            position = position.play(move)
        assert [m.move for m in found.moves] == position.legal_moves()
        for item in found.moves:
            after = position.occupied - set(item.move.cells)
            assert item.mark != "unknown"
            assert (item.mark == "safe") == (not after or clearable(board, after)), item
            if item.mark == "safe":  # the whole line replays from the start
                assert verify(board, [*played, item.move, *item.answer.moves]).valid
            else:
                answer = item.answer
                assert answer.status is Status.UNSOLVABLE and answer.checked
                if answer.certificate is not None and answer.certificate.file is not None:
                    record = {**answer.certificate.json(), "file": answer.certificate.file}
                    assert check_certificate(position_board(board, after), record).valid
    expected = "cleared" if not found.left else "clearable" if clearable(board, found.left) else "lost"
    assert found.status == expected


def test_a_position_with_no_legal_move_is_lost_with_its_own_certificate() -> None:
    board = parse_boards("# air and earth\n  a .\n . . e\n  . .\n")[0]
    found = hint(board, [], time_limit=10)
    assert not found.moves and found.status == "lost"
    assert found.stuck is not None and found.stuck.checked and "odd count" in found.stuck.explanation
    assert hint_json(found)["stuck"]["status"] == "unsolvable"


def test_the_hint_json_and_text_of_a_real_game_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = parse_boards((INSTANCES / "real-game.txt").read_text())[0]
    solution = read_solutions(ROOT / "tests" / "data" / "real-game-0.solution.txt")[0]
    played = to_moves(board, solution)[:6]  # the start of a solution: clearable
    position = Position.start(board)
    for move in played:
        position = position.play(move)
    moves = tmp_path / "played.txt"
    moves.write_text(format_moves(board, played))
    boards = tmp_path / "board.txt"
    boards.write_text(format_board(board))
    assert main(["hint", str(boards), "--played", str(moves), "--json", "--time-limit", "30"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["played"] == 6 and record["tiles_left"] == len(position.occupied)
    assert record["safe"] + record["losing"] == len(record["moves"]) == len(position.legal_moves())
    assert record["unknown"] == 0 and record["status"] == "clearable"
    for item in record["moves"]:
        assert item["mark"] in ("safe", "losing")
        if item["mark"] == "safe":
            assert item["replayed"] and item["solution"]
        else:
            assert item["certificate"]["checked"] and item["why"]
    assert main(["hint", str(boards), "--played", str(moves), "--time-limit", "30"]) == 0
    text = capsys.readouterr().out
    assert f"after 6 moves, {len(position.occupied)} tiles left: clearable" in text
    assert "safe " in text


def test_a_lost_position_has_every_move_losing_each_with_a_checked_certificate() -> None:
    board = parse_boards((INSTANCES / "real-game.txt").read_text())[0]
    position, played = Position.start(board), []
    rng = random.Random(3)
    for _ in range(6):  # this random play loses the board
        played.append(rng.choice(position.legal_moves()))
        position = position.play(played[-1])
    found = hint(board, played, time_limit=30)
    assert found.status == "lost" and found.moves
    assert all(m.mark == "losing" and m.answer.checked for m in found.moves)


@pytest.mark.parametrize(
    ("played", "says"),
    [
        ("3,4 5,6\n", "move 1 of the moves played: not a pair"),  # a metal with air
        ("0,0 0,1\n", "move 1"),  # cells off the board's tiles
        ("99,99 1,1\n", "move 1"),  # a cell off the board
        ("not a move\n", "played"),  # malformed
    ],
)
def test_an_illegal_or_malformed_position_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: str, says: str
) -> None:
    moves = tmp_path / "played.txt"
    moves.write_text(played)
    assert main(["hint", f"{INSTANCES / 'real-game.txt'}:0", "--played", str(moves)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and says in captured.err


def test_position_after_names_the_first_move_the_rules_refuse() -> None:
    board = parse_boards((INSTANCES / "real-game.txt").read_text())[0]
    legal = Position.start(board).legal_moves()[0]
    with pytest.raises(PositionError, match="move 2 of the moves played: tile missing"):
        hint(board, [legal, legal], time_limit=1)


def test_hint_json_counts_agree_with_the_marks() -> None:
    board = parse_boards((INSTANCES / "small.txt").read_text())[3]
    found = hint(board, [], time_limit=10)
    record = hint_json(found)
    assert record["safe"] == sum(1 for m in record["moves"] if m["mark"] == "safe") == found.count("safe")
    assert record["status"] == found.status == "clearable"


def test_a_lost_positions_own_refutation_serves_every_move(tmp_path: Path) -> None:
    """One search of a lost position refutes each of its moves: its dead-states file cut to the tiles a move leaves
    is a dead-states file of the position after it (checked here again), and the hint marks every move losing with
    certificates so made, not with a search of each move."""
    board = parse_boards((INSTANCES / "generated-unsolvable.txt").read_text())[6]
    own = run_replayed(SearchBackend(), board, 60)
    assert own.certificate is not None and own.certificate.kind is CertificateKind.DEAD_STATES
    text = own.certificate.texts[".dead.jsonl"]
    start = Position.start(board)
    assert len(start.legal_moves()) > 1
    for number, move in enumerate(start.legal_moves()):
        after = position_board(board, start.occupied - set(move.cells))
        cut = dead_states_after(text, board, after)
        assert cut is not None and 1 < cut.count("\n") < text.count("\n")
        path = tmp_path / f"{number}.dead.jsonl"
        path.write_text(cut)
        assert check_certificate(after, {"kind": "dead-states", "file": str(path)}).valid
        # the position after the move not listed: no file
        gone = sum(1 << t for t, tile in enumerate(board.tiles) if tile.cell in move.cells)
        state = '{"state":"%x"' % (((1 << len(board.tiles)) - 1) & ~gone)
        (line,) = (line for line in text.splitlines() if line.startswith((state + "}", state + ",")))
        assert dead_states_after(text.replace(line + "\n", ""), board, after) is None
    assert dead_states_after(text, board, parse_boards((INSTANCES / "real-game.txt").read_text())[0]) is None
    with ProofStore() as store:
        found = hint(board, (), 60, store)
        assert found.status == "lost"
        assert all(m.mark == "losing" and m.answer.backend == "hint" for m in found.moves)
        for item in found.moves:
            certificate = item.answer.certificate
            assert certificate is not None and certificate.file is not None
            after = position_board(board, start.occupied - set(item.move.cells))
            assert check_certificate(after, {**certificate.json(), "file": certificate.file}).valid
