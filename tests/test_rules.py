"""The rule engine against docs/formats.md#the-rules, rule by rule."""

from __future__ import annotations

import itertools

import pytest

from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards
from sigmar.models.hexgrid import from_rowcol
from sigmar.models.result import Move
from sigmar.models.rules import Fault, Position, count_problem, verify
from sigmar.models.tiles import ELEMENTS, pairs_with
from tests.conftest import real_game_board


def board(text: str) -> Board:
    return parse_boards(text, "test")[0]


def move(b: Board, *rowcols: tuple[int, int]) -> Move:
    return Move(tuple(from_rowcol(r, c, b.dim) for r, c in rowcols))


# Two tiles on the top corners of a side-2 board: always free.
def two(a: str, b: str) -> Board:
    return board(f"{a} {b}\n. . .\n . .")


SYMBOLS = "aefwsvmq"


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations_with_replacement(SYMBOLS, 2)))
def test_pair_table(a: str, b: str) -> None:
    """Every pair of non-metal symbols, against the rules read straight from docs/formats.md#the-rules."""
    expected = (
        (a in ELEMENTS and a == b)
        or (a == "s" and (b == "s" or b in ELEMENTS))
        or (b == "s" and a in ELEMENTS)
        or {a, b} == {"v", "m"}
    )
    assert pairs_with(a, b, "1", "6") is expected
    assert pairs_with(b, a, "1", "6") is expected
    verdict = verify(two(a, b), [move(two(a, b), (0, 0), (0, 1))])
    assert verdict.valid is expected, verdict


def test_quicksilver_pairs_with_current_metal_only() -> None:
    b = board("1 q\n2 . q\n 3 .")
    assert verify(b, [move(b, (0, 1), (0, 0)), move(b, (1, 2), (1, 0)), move(b, (2, 0))]).valid
    wrong = verify(b, [move(b, (0, 1), (1, 0))])
    assert not wrong.valid and wrong.fault is Fault.METAL_ORDER and wrong.move_number == 1


def test_gold_pairs_with_nothing_and_waits_for_the_other_metals() -> None:
    b = board("1 q\n. . .\n 2 .")
    with_q = verify(b, [move(b, (0, 1), (2, 0))])
    assert with_q.fault is Fault.NOT_A_PAIR
    early = verify(b, [move(b, (2, 0))])
    assert not early.valid and early.fault is Fault.METAL_ORDER
    assert verify(b, [move(b, (0, 1), (0, 0)), move(b, (2, 0))]).valid


def test_gold_alone_when_only_metal() -> None:
    b = board("1 q\n. . .\n 2 .")
    after_lead = Position.start(b).play(move(b, (0, 0), (0, 1)))
    assert after_lead.why_illegal(move(b, (2, 0))) is None
    gold_only = board("6 q\n. 3 .\n . .")
    q_with_gold = Position.start(gold_only).why_illegal(move(gold_only, (0, 1), (0, 0)))
    assert q_with_gold is not None and q_with_gold.fault is Fault.NOT_A_PAIR  # 6 is gold
    q_with_iron = Position.start(gold_only).why_illegal(move(gold_only, (0, 1), (1, 1)))
    assert q_with_iron is None


def test_gold_may_leave_while_other_tiles_remain() -> None:
    b = board("6 a\n. . .\n . a")
    assert verify(b, [move(b, (0, 0)), move(b, (0, 1), (2, 1))]).valid


def test_only_gold_leaves_alone() -> None:
    b = board("a a\n. . .\n . .")
    verdict = verify(b, [move(b, (0, 0))])
    assert verdict.fault is Fault.NOT_A_PAIR


def test_metals_need_not_start_at_one() -> None:
    b = board("7 q\n. . .\n 9 .")
    assert b.gold == "9"
    assert verify(b, [move(b, (0, 0), (0, 1)), move(b, (2, 0))]).valid


def test_free_needs_three_consecutive_empty_neighbours() -> None:
    # The centre of a full side-2 board has six neighbours; it is free only
    # once three consecutive ones have left.
    b = board("a f\nw s e\n e w")
    p = Position.start(b)
    centre = from_rowcol(1, 1, 2)
    assert not p.is_free(centre)
    # remove the top two (adjacent on the ring) and one more: not consecutive yet?
    p2 = Position(b, p.occupied - {from_rowcol(0, 0, 2), from_rowcol(0, 1, 2)})
    assert not p2.is_free(centre)
    p3 = Position(b, p2.occupied - {from_rowcol(1, 2, 2)})
    assert p3.is_free(centre)
    p4 = Position(b, p2.occupied - {from_rowcol(2, 0, 2)})  # (2,0) is opposite (0,1): not consecutive
    assert not p4.is_free(centre)


def test_both_tiles_must_be_free_before_the_move() -> None:
    # Row of three on a side-2 board's middle row: w s w; the centre salt is
    # blocked by the walls of the rows above and below.
    b = board("a a\nf s f\n e e")
    centre = (1, 1)
    verdict = verify(b, [move(b, (1, 0), centre)])
    assert verdict.fault is Fault.NOT_FREE and verdict.move_number == 1
    # Removing the tile that blocks it in the same move does not count.
    assert Position.start(b).why_illegal(move(b, (1, 0), (1, 2))) is None


def test_missing_tile_and_malformed_moves() -> None:
    b = board("a a\n. . .\n . .")
    assert verify(b, [move(b, (0, 0), (1, 1))]).fault is Fault.MISSING
    assert verify(b, [move(b, (0, 0), (0, 0))]).fault is Fault.MALFORMED
    assert verify(b, [Move(())]).fault is Fault.MALFORMED
    twice = verify(b, [move(b, (0, 0), (0, 1)), move(b, (0, 0), (0, 1))])
    assert twice.fault is Fault.MISSING and twice.move_number == 2


def test_tiles_left_at_the_end() -> None:
    b = board("a a\n. f .\n . f")
    verdict = verify(b, [move(b, (0, 0), (0, 1))])
    assert not verdict.valid and verdict.fault is Fault.TILES_LEFT
    assert "1 tile" not in str(verdict) and "2 tiles left" in str(verdict)


def test_verdict_names_the_first_bad_move() -> None:
    b = board("a a\n. f .\n . f")
    verdict = verify(b, [move(b, (0, 0), (0, 1)), move(b, (1, 1), (0, 0))])
    assert verdict.move_number == 2 and "move 2" in str(verdict)


def test_legal_moves_are_exactly_the_legal_pairs() -> None:
    b = board("a a s\n. v . m\n1 . q . 2\n e . . e\n . . .")
    p = Position.start(b)
    legal = {frozenset(m.cells) for m in p.legal_moves()}
    brute = set()
    for a, c in itertools.combinations(sorted(p.occupied), 2):
        if p.why_illegal(Move((a, c))) is None:
            brute.add(frozenset((a, c)))
    for a in p.occupied:
        if p.why_illegal(Move((a,))) is None:
            brute.add(frozenset((a,)))
    assert legal == brute
    assert frozenset({from_rowcol(2, 0, 3), from_rowcol(2, 2, 3)}) in legal  # q with lead


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f f\nf . .\n . .", "odd count"),
        ("a f\ns s s\n . .", "salt cannot pair up"),
        ("v v\n. m .\n . .", "vitae"),
        ("q q\n. 1 .\n . 2", "quicksilver"),
        ("q .\n. . .\n . .", "quicksilver"),
    ],
)
def test_count_problem(text: str, fragment: str) -> None:
    problem = count_problem(board(text))
    assert problem is not None and fragment in problem


@pytest.mark.parametrize("text", ["a f\ns s .\n . .", "6 .\n. . .\n . .", "1 q\n. 2 .\n . .", "a a\n. v .\n . m"])
def test_count_problem_silent_on_good_counts(text: str) -> None:
    assert count_problem(board(text)) is None


def test_standard_board_counts() -> None:
    b = real_game_board()
    assert len(b) == 55 and b.gold == "6" and count_problem(b) is None
    assert all(b.counts[e] == 8 for e in "aefw")
    assert (b.counts["s"], b.counts["v"], b.counts["m"], b.counts["q"]) == (4, 4, 4, 5)


def test_a_results_copy_is_dataclasses_replace() -> None:
    """``Result.with_`` copies without ``dataclasses.replace`` (every answer is copied a few times on its way
    out): the same fields and values, the original unchanged, an unknown field refused, and a subclass
    (a plugin's) copied by its own class as ``replace`` would."""
    import dataclasses

    from sigmar.models.result import Reason, Result, Status

    answer = Result(Status.UNSOLVABLE, "search", 0.5, reason=Reason.STATIC, statistics={"nodes": 3})
    copy = answer.with_(seconds=0.75, checked=True)
    assert copy == dataclasses.replace(answer, seconds=0.75, checked=True) and type(copy) is Result
    assert (answer.seconds, answer.checked) == (0.5, False)
    with pytest.raises(TypeError, match="no field"):
        answer.with_(second=1.0)

    class Own(Result):
        pass

    own = Own(Status.SOLVED, "toy").with_(seconds=2.0)
    assert type(own) is Own and own.seconds == 2.0
