"""Hypothesis properties of the rule engine, against an oracle written from docs/formats.md#the-rules alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sigmar.models import rules
from sigmar.models.board import Board, Tile
from sigmar.models.hexgrid import cells, distance
from sigmar.models.result import Move
from sigmar.models.rules import Fault, Position, verify
from sigmar.models.tiles import pairs_with
from tests.bruteforce import solve_by_brute_force
from tests.conftest import small_boards as boards

RING = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def oracle_legal(board: Board, occupied: set, cells_: tuple) -> bool:
    """docs/formats.md#the-rules, written again without the engine's code."""
    symbol = {t.cell: t.symbol for t in board.tiles}
    if len(cells_) not in (1, 2) or len(set(cells_)) != len(cells_) or not all(c in occupied for c in cells_):
        return False

    def free(c: tuple[int, int]) -> bool:
        empty = [(c[0] + dq, c[1] + dr) not in occupied for dq, dr in RING]
        return any(all(empty[(i + k) % 6] for k in range(3)) for i in range(6))

    if not all(free(c) for c in cells_):
        return False
    metals = sorted(symbol[c] for c in occupied if symbol[c].isdigit())
    gold = max(t.symbol for t in board.tiles if t.symbol.isdigit()) if metals else None
    if len(cells_) == 1:
        return symbol[cells_[0]] == gold and metals == [gold]
    a, b = sorted(symbol[c] for c in cells_)
    if a in "aefw" and b in "aefw":
        return a == b
    if "s" in (a, b):
        other = b if a == "s" else a
        return other in "aefws"
    if (a, b) == ("m", "v"):
        return True
    if a.isdigit() and b == "q":
        return a == metals[0] and a != gold
    return False


def random_play(board: Board, rng: random.Random) -> list[Move]:
    position = Position.start(board)
    played = []
    while True:
        moves = position.legal_moves()
        if not moves:
            return played
        move = rng.choice(moves)
        played.append(move)
        position = position.play(move)


@settings(max_examples=300, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_random_play_is_legal_by_the_oracle(board: Board, rng: random.Random) -> None:
    occupied = {t.cell for t in board.tiles}
    removed: list[str] = []
    for move in random_play(board, rng):
        assert oracle_legal(board, occupied, move.cells), move
        removed.extend(board.symbol_at[c] for c in move.cells)
        occupied -= set(move.cells)
    left = sorted(board.symbol_at[c] for c in occupied)
    assert sorted(removed + left) == sorted(t.symbol for t in board.tiles)
    # The engine offers every move the oracle allows, and no other.
    position = Position(board, frozenset(occupied))
    assert position.legal_moves() == []
    assert not any(oracle_legal(board, occupied, (a, b)) for a in occupied for b in occupied if a != b)


@settings(max_examples=300, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_verify_accepts_random_play(board: Board, rng: random.Random) -> None:
    moves = random_play(board, rng)
    verdict = verify(board, moves)
    left = len(board) - sum(len(m.cells) for m in moves)
    if left == 0:
        assert verdict.valid
    else:
        assert not verdict.valid and verdict.fault is Fault.TILES_LEFT and verdict.move_number == 0


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(boards(), st.data())
def test_verify_rejects_swaps_that_break_a_move(board: Board, data: st.DataObject) -> None:
    solution = solve_by_brute_force(board)
    assume(solution is not None and len(solution) >= 2)
    assert solution is not None
    assert verify(board, solution).valid
    i = data.draw(st.integers(0, len(solution) - 2))
    j = data.draw(st.integers(i + 1, len(solution) - 1))
    swapped = list(solution)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    occupied = {t.cell for t in board.tiles}
    first_bad = None
    for number, move in enumerate(swapped, start=1):
        if not oracle_legal(board, occupied, move.cells):
            first_bad = number
            break
        occupied -= set(move.cells)
    verdict = verify(board, swapped)
    if first_bad is None:
        assert verdict.valid
    else:
        assert not verdict.valid and verdict.move_number == first_bad


def played_or_made_up(board: Board, rng: random.Random) -> list[Move]:
    """Moves from the start: mostly legal ones, some made up (any one, two or five cells, on the board or
    off it, with a tile or not, repeated or not), so that a sequence breaks any rule at any point, or none."""
    position = Position.start(board)
    every = [*cells(board.dim), (board.dim, 0)]  # and one cell off the board
    played: list[Move] = []
    for _ in range(rng.randrange(1, len(board) + 3)):
        legal = position.legal_moves()
        held = sorted(position.occupied)
        chance = rng.random()
        if legal and chance < 0.7:
            move = rng.choice(legal)
        elif chance < 0.9 and held:  # tiles still there, whether free, paired or in order or not
            move = Move(tuple(rng.sample(held, min(len(held), rng.choice((1, 2, 2, 5))))))
        elif chance < 0.93 and held:
            move = Move((rng.choice(held),) * 2)  # one tile twice
        elif chance < 0.97 and held:  # a pair by the symbols, free or not (one may be free only once the other left)
            symbol, current, gold = board.symbol_at, position.current_metal, board.gold
            pairs = [(a, b) for a in held for b in held if a != b and pairs_with(symbol[a], symbol[b], current, gold)]
            beside = [(a, b) for a, b in pairs if distance(a, b) == 1]
            move = Move(rng.choice(beside or pairs)) if pairs else Move((rng.choice(held),))
        else:
            move = Move(tuple(rng.choice(every) for _ in range(rng.choice((1, 2, 2, 2, 3, 5)))))
        played.append(move)
        if position.why_illegal(move) is None:
            position = position.play(move)
    return played


@st.composite
def boards_with_quintessence(draw: st.DrawFn) -> Board:
    """Small boards that may hold quintessence (with the four elements it takes), on a side of 2-4."""
    dim = draw(st.integers(2, 4))
    rng = random.Random(draw(st.integers(0, 2**32)))
    spots = list(cells(dim))
    rng.shuffle(spots)
    pool = ["x", "a", "e", "f", "w", *rng.sample("aaeeffwwssvvmmqq1234", 8)]
    symbols = pool[: draw(st.integers(1, min(len(spots), len(pool))))]
    tiles = sorted((Tile(c, s) for c, s in zip(spots, symbols, strict=False)), key=lambda t: (t.cell[1], t.cell[0]))
    return Board(dim, tuple(tiles), "hypothesis")


@settings(max_examples=300, deadline=None)
@given(st.one_of(boards(), boards_with_quintessence()), st.integers(0, 2**32))
def test_the_counts_quick_look_says_fine_only_where_the_counts_test_does(board: Board, seed: int) -> None:
    """``rules._counts_pair_up`` (the counts test's common case, read with ``str.count``) is True exactly where
    the test itself finds nothing wrong on a board without quintessence, boards with a tile taken away or
    given an odd symbol included; with quintessence it always hands over to the test.  The compiled look
    (``_replay.c counts_pair_up``) says what the Python one says, or (a symbol of several characters) leaves it
    to Python."""
    rng = random.Random(seed)
    tiles = list(board.tiles)
    if tiles and rng.random() < 0.4:
        tiles.pop(rng.randrange(len(tiles)))
    if tiles and rng.random() < 0.1:
        k = rng.randrange(len(tiles))
        tiles[k] = Tile(tiles[k].cell, rng.choice(["z", "ab", "", "\u00e9", "\x00"]))
    board = Board(board.dim, tuple(tiles), board.name)
    full = rules.count_problem(Board(board.dim, board.tiles, board.name + " "))  # a fresh board: nothing kept
    quick = rules._counts_pair_up_read(board)
    compiled = rules._compiled_counts(at_once=True)
    if compiled is not None:
        said = compiled(board.tiles)
        assert said == quick or (said is None and not all(len(t.symbol) == 1 for t in board.tiles))
    assert rules._counts_pair_up(board) == quick
    plain = all(t.symbol in "aefwsvmq123456789" and len(t.symbol) == 1 for t in board.tiles)
    assert quick == (full is None and plain) if plain else not quick
    assert rules.count_problem(board) == full


def _odd(move: Move, rng: random.Random) -> Move:
    """A move the compiled replay does not read itself (it hands it to the Python reading): cells in a list, or an
    unhashable cell; or one it reads: a cell of bools, a cell repeated, three cells."""
    cells_ = list(move.cells)
    choice = rng.randrange(5)
    if choice == 0:
        return Move(cells_)  # type: ignore[arg-type]
    if choice == 1 and cells_:
        cells_[rng.randrange(len(cells_))] = [0, 0]  # type: ignore[call-overload]
    elif choice == 2 and cells_:
        cells_[0] = (bool(cells_[0][0] % 2), bool(cells_[0][1] % 2))
    elif choice == 3 and cells_:
        cells_.append(cells_[0])
    else:
        cells_ = cells_[:3]
    return Move(tuple(cells_))


@settings(max_examples=400, deadline=None)
@given(st.one_of(boards(), boards_with_quintessence()), st.randoms(use_true_random=False))
def test_the_compiled_replay_agrees_with_the_python_reading(board: Board, rng: random.Random) -> None:
    """``models/_replay.c`` must find the first bad move exactly where ``rules._bad_move_read`` finds it, on legal and
    illegal sequences alike, and on odd moves either say the same or hand them to the Python reading (which then
    raises, or answers, as it always did): a wrong None would let a bad solution through."""
    if rules._compiled_replay(at_once=True) is None:
        pytest.skip("the compiled replay was not built here (no C compiler or Python headers): nothing to compare")
    moves = played_or_made_up(board, rng)
    odd = bool(moves) and rng.random() < 0.3
    if odd:
        k = rng.randrange(len(moves))
        moves[k] = _odd(moves[k], rng)
    index, ring = rules._replay_ring(board.dim)
    try:
        expected: object = rules._bad_move_read(board, moves)
    except TypeError:
        expected = TypeError
    compiled = rules._compiled_replay.loaded(index, ring, board.tiles, moves)
    assert compiled == expected or (odd and compiled == -2)  # -2: handed to the Python reading
    if compiled != -2:
        assert rules.first_bad_move(board, moves) == expected
    # an iterator is left to Python, not used up
    assert rules._compiled_replay.loaded(index, ring, board.tiles, iter(moves)) == -2


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 99), st.randoms(use_true_random=False))
def test_the_compiled_replay_agrees_on_side_6_solutions_and_their_mutants(k: int, rng: random.Random) -> None:
    """On full side-6 boards (hexmatch-easy-100), the search's solution and that solution broken (two moves
    swapped, one dropped, one cell moved): the compiled replay and the Python reading find the same first bad move."""
    if rules._compiled_replay(at_once=True) is None:
        pytest.skip("the compiled replay was not built here (no C compiler or Python headers): nothing to compare")
    from sigmar.encoders.search.backend import SearchBackend
    from sigmar.models.boardfile import read_boards
    from tests.conftest import INSTANCES

    board = read_boards(INSTANCES / "hexmatch-easy-100.txt")[k]
    moves = list(SearchBackend().solve(board).moves)
    assume(len(moves) > 2)
    i, j = sorted(rng.sample(range(len(moves)), 2))
    broken = rng.randrange(4)
    if broken == 1:
        moves[i], moves[j] = moves[j], moves[i]
    elif broken == 2:
        del moves[i]
    elif broken == 3:
        cells_ = list(moves[i].cells)
        cells_[0] = rng.choice(cells(board.dim))
        moves[i] = Move(tuple(cells_))
    index, ring = rules._replay_ring(board.dim)
    expected = rules._bad_move_read(board, moves)
    assert rules._compiled_replay.loaded(index, ring, board.tiles, moves) == expected
    assert broken or expected is None


@settings(max_examples=400, deadline=None)
@given(st.one_of(boards(), boards_with_quintessence()), st.randoms(use_true_random=False))
def test_the_replay_over_bit_masks_agrees_with_the_replay_move_by_move(board: Board, rng: random.Random) -> None:
    """``verify`` decides over bit masks and names a fault through ``Position``: both must find the same
    first bad move in every sequence, legal or not (a wrong "valid" would let a bad solution through)."""
    moves = played_or_made_up(board, rng)
    verdict = rules._first_fault(board, moves)
    assert rules.first_bad_move(board, moves) == (None if verdict.valid else verdict.move_number)
    solution = solve_by_brute_force(board) if len(board) <= 8 else None
    if solution is not None:
        assert rules.first_bad_move(board, solution) is None and verify(board, solution).valid
