"""The ``search`` backend: every solution replayed by the rule engine, every verdict
checked against an exhaustive brute force on small random boards."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sigmar.encoders.search import SearchBackend
from sigmar.encoders.search.engine import ORDERS, Engine, luby
from sigmar.encoders.search.state import SYMBOL_MASKS
from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.facts import facts_of
from sigmar.models.hexgrid import cells
from sigmar.models.result import Move, Reason, Status
from sigmar.models.rules import Position, count_problem, verify
from sigmar.models.stuck_sets import held, largest_stuck_set
from tests.bruteforce import is_solvable
from tests.conftest import random_board
from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]

# Lead (1) in the middle, every side held by quicksilver or a later metal.
RINGED = """
  6 . a
 . q q .
4 q 1 q 3
 . q 2 .
  a . 5
"""


brute_solvable = is_solvable  # the shared brute force over the rule engine


def small_random(rng: random.Random) -> Board:
    """A small board of side 2-4: mostly well-counted pairs, sometimes not."""
    return random_board(rng, rng.randint(2, 4), rng.randint(2, 12), miscount=0.15)


def check(board: Board, result, label: str) -> None:
    if result.status is Status.SOLVED:
        verdict = verify(board, result.moves)
        assert verdict.valid, f"{label} on {board.name}: {verdict}"


@pytest.mark.parametrize("sub", ["dfs", "sleep"])
def test_agrees_with_brute_force_on_random_small_boards(sub: str) -> None:
    rng = random.Random(20261122)
    seen = {Status.SOLVED: 0, Status.UNSOLVABLE: 0}
    for number in range(600):
        board = small_random(rng)
        expected = brute_solvable(board)
        order = ORDERS[number % len(ORDERS)]
        backend = SearchBackend(sub, order=order, safe=number % 3 != 1, locks=number % 5 != 2, stuck=number % 7 != 3)
        result = backend.solve(board, time_limit=10)
        label = f"search:{sub} order={order} board #{number}"
        assert result.status is (Status.SOLVED if expected else Status.UNSOLVABLE), label
        check(board, result, label)
        if result.status is Status.UNSOLVABLE:
            assert result.reason is not None, label
            if count_problem(board) is None:
                assert result.reason in (Reason.EXHAUSTED, Reason.STATIC), label
        seen[result.status] += 1
    # The generator must exercise both answers, or the agreement says little.
    assert seen[Status.SOLVED] > 30 and seen[Status.UNSOLVABLE] > 30, seen


def test_solves_the_bundled_public_boards() -> None:
    for name in ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt", "real-game.txt"):
        path = ROOT / "instances" / name
        for board in read_boards(path)[:25]:
            result = SearchBackend().solve(board, time_limit=10)
            assert result.status is Status.SOLVED, board.name
            check(board, result, "search")
            assert result.statistics["nodes"] >= 1


def test_the_moves_shared_by_answers_are_kept_within_their_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answers of a process share each side's moves, a side's table at most MOVES_KEPT (plus one answer's)
    and at most SIDES_KEPT sides (side 16 has 260,281 pairs of cells: 59 MB); every answer still verified."""
    from sigmar.encoders.search import backend

    monkeypatch.setattr(backend, "_SIDE_MOVES", {})
    monkeypatch.setattr(backend, "MOVES_KEPT", 40)
    monkeypatch.setattr(backend, "SIDES_KEPT", 1)
    boards = read_boards(ROOT / "instances" / "hexmatch-easy-100.txt")[:8]
    boards += read_boards(ROOT / "instances" / "generated-dim8.txt")[:4]
    seen_sides = set()
    for board in boards:
        result = SearchBackend().solve(board, time_limit=10)
        if result.status is not Status.SOLVED:
            continue
        check(board, result, "search")
        seen_sides.add(board.dim)
        assert len(backend._SIDE_MOVES) <= 1
        assert len(backend._SIDE_MOVES[board.dim]) < 40 + len(result.moves)
    assert seen_sides == {6, 8}, "both sides' tables made, one after the other"


def test_hard_tail_boards() -> None:
    """The boards a public Python DFS with memo needed 10-40 s for (bundled in instances/)."""
    wanted = {"easy 3", "easy 477", "hard 30", "ondrovo 326"}
    found = set()
    for name in ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt"):
        path = ROOT / "instances" / name
        if not path.exists():
            continue
        for board in read_boards(path):
            if board.name in wanted:
                found.add(board.name)
                result = SearchBackend().solve(board, time_limit=20)
                assert result.status is Status.SOLVED, board.name
                check(board, result, "search")
    assert found == wanted


@pytest.mark.parametrize("sub", ["dfs", "sleep"])
def test_a_board_without_tiles_is_solved_in_no_move(sub: str) -> None:
    """An empty board is cleared already (the workbench's blank board); the search once called it exhausted."""
    (board,) = parse_boards("  . .\n . . .\n  . .\n")
    result = SearchBackend(sub).solve(board, time_limit=10)
    assert result.status is Status.SOLVED and result.moves == ()
    assert verify(board, result.moves).valid


def test_metal_ringed_by_quicksilver_and_later_metals() -> None:
    (board,) = parse_boards(RINGED)
    assert count_problem(board) is None
    result = SearchBackend().solve(board, time_limit=10)
    assert result.status is Status.UNSOLVABLE
    assert result.reason is Reason.STATIC
    assert "metal 1" in result.explanation
    assert result.statistics["nodes"] == 0, "answered before any search"
    # Without the static arguments the search itself must exhaust the board.
    plain = SearchBackend(locks=False, stuck=False).solve(board, time_limit=10)
    assert plain.status is Status.UNSOLVABLE
    assert plain.reason is Reason.EXHAUSTED
    assert plain.statistics["nodes"] > 1


def test_deadlock_found_only_by_searching_is_exhausted() -> None:
    small = ROOT / "instances" / "small.txt"
    searched = [b for b in read_boards(small) if "[unsolvable: search]" in b.name]
    assert searched, "instances/small.txt marks boards [unsolvable: search]"
    for board in searched:
        # With the stuck-set check at the start the answer may come before any search.
        result = SearchBackend().solve(board, time_limit=10)
        assert result.status is Status.UNSOLVABLE, board.name
        assert result.reason in (Reason.STATIC, Reason.EXHAUSTED), board.name
        result = SearchBackend(locks=False, stuck=False).solve(board, time_limit=10)
        assert result.status is Status.UNSOLVABLE, board.name
        assert result.reason is Reason.EXHAUSTED, board.name


def test_time_limit_gives_unknown() -> None:
    # A full standard-size board with lead locked in, but the lock rule switched off:
    # the search must wade through every order of the other tiles, far beyond 0.2 s.
    rng = random.Random(7)
    board = _big_locked_board(rng)
    result = SearchBackend(locks=False, stuck=False).solve(board, time_limit=0.2)
    assert result.status is Status.UNKNOWN
    assert result.seconds < 0.2 + 5.0, "stopped within 5 s of its limit"
    assert result.statistics["nodes"] > 0


def _big_locked_board(rng: random.Random) -> Board:
    """55 standard tiles on a side-6 board with lead in a cell whose ring is quicksilver and tin."""
    board_cells = list(cells(6))
    centre = board_cells.index((1, 0))
    ring = [board_cells.index(c) for c in ((2, 0), (2, -1), (1, -1), (0, 0), (0, 1), (1, 1))]
    others = [i for i in range(len(board_cells)) if i != centre and i not in ring]
    rest = list("aaaaaaaaeeeeeeeeffffffffwwwwwwwwssssvvvvmmmm") + ["3", "4", "5", "6"]
    placed = {centre: "1"}
    for i, s in zip(ring, ["q", "q", "q", "q", "q", "2"], strict=True):
        placed[i] = s
    for i, s in zip(rng.sample(others, len(rest)), rest, strict=True):
        placed[i] = s
    tiles = tuple(Tile(board_cells[i], placed[i]) for i in sorted(placed))
    return Board(6, tiles, "lead locked")


def test_stop_from_outside_gives_unknown() -> None:
    board = _big_locked_board(random.Random(3))
    backend = SearchBackend(locks=False, stuck=False)
    backend.stop()  # a stop before the start is honoured at the first check
    assert backend.solve(board, time_limit=30).status is Status.UNKNOWN
    # The stop ended that solve only: the same backend answers the next board.
    (small,) = parse_boards(RINGED)
    assert backend.solve(small, time_limit=10).status is Status.UNSOLVABLE


def test_a_stop_while_the_dead_states_are_listed_gives_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing the dead states of a certificate can take seconds where the search took a millisecond (a race's
    dense deal: a static refutation without a stuck witness); a stop meanwhile (the race heard another
    backend's answer) ends it, and the answer is unknown, not a claim without its certificate."""
    from sigmar.encoders.search import certificates
    from sigmar.models.result import CertificateKind

    small = read_boards(ROOT / "instances" / "small.txt")
    listed = [b for b in small if "[unsolvable: search]" in b.name]
    kinds = {b.name: SearchBackend().solve(b, 10).certificate for b in listed}
    board = next(b for b in listed if getattr(kinds[b.name], "kind", None) is CertificateKind.DEAD_STATES)
    backend = SearchBackend()
    listing = certificates.dead_states

    def stopped_meanwhile(engine: Engine, deadline: float | None = None) -> certificates.DeadStates:
        backend.stop()  # as the race's timer does when a worker answers
        return listing(engine, deadline)

    monkeypatch.setattr(certificates, "dead_states", stopped_meanwhile)
    result = backend.solve(board, time_limit=10)
    assert (result.status, result.certificate) == (Status.UNKNOWN, None), result
    assert "stopped" in result.message
    monkeypatch.undo()
    assert backend.solve(board, time_limit=10).status is Status.UNSOLVABLE, "the stop outlived its solve"


def test_engine_statistics_and_free_set() -> None:
    (board,) = parse_boards(RINGED)
    engine = Engine(board)
    occ = engine.full
    free = engine.free_set(occ)
    position = Position.start(board)
    expected = {board.index_of[c] for c in position.free_cells()}
    assert {i for i in range(len(board)) if free >> i & 1} == expected


def test_current_metal_is_the_lowest_metal_left_for_every_set_of_metals() -> None:
    board = read_boards(ROOT / "instances" / "real-game.txt")[0]
    engine = Engine(board)
    metals = [i for i in range(len(board)) if board.tiles[i].symbol.isdigit()]
    assert len(metals) == 6
    for subset in range(1 << len(metals)):
        left = [metals[k] for k in range(len(metals)) if subset >> k & 1]
        occ = engine.full & ~engine.metal_mask | sum(1 << i for i in left)
        lowest = min(left, key=lambda i: board.tiles[i].symbol, default=None)
        assert engine.current_metal(occ) == (0 if lowest is None else 1 << lowest), left


def fixed_point_stuck_set(engine: Engine, occ: int, free: int) -> int:
    """The oracle for ``stuck_set_fast``: the greatest fixed point, shrunk from all tiles (0: none).

    The argument of ``sigmar.models.stuck_sets`` (issue 8), on bitmasks and for any state: a
    set S of tiles still on the board where every tile is *locked* (each of its windows
    holds a tile of S, or it is a metal with a lower metal in S) or *waits for a locked
    partner* (it is not gold and every tile left that it could ever pair with is a locked
    tile of S).  The first move to take a tile of S would need a free tile of S, or a
    partner of one outside the locked part: neither exists, so S never shrinks.  Using
    a superset of the true partners (quicksilver: every non-gold metal) only makes the
    rule harder to meet, so it stays sound.  The greatest such S is found by shrinking
    from all tiles; a free tile is never walled, so only ``~free`` needs the window scan.
    """
    windows = engine.windows
    lower = engine.lower
    partners = engine.partners
    gold = engine.gold_tile
    stuck = occ
    while stuck:
        locked = 0
        rest = stuck
        while rest:
            low = rest & -rest
            rest ^= low
            t = low.bit_length() - 1
            if lower[t] & stuck:
                locked |= low
            elif not free & low:
                for m in windows[t]:
                    if not m & stuck:
                        break
                else:
                    locked |= low
        kept = locked
        rest = stuck & ~locked
        while rest:
            low = rest & -rest
            rest ^= low
            t = low.bit_length() - 1
            if t != gold and not partners[t] & occ & ~locked:
                kept |= low
        if kept == stuck:
            return stuck
        stuck = kept
    return 0


def test_stuck_set_worklist_matches_the_fixed_point() -> None:
    """The fast stuck-set search must find exactly the greatest fixed point, state by state."""
    rng = random.Random(5)
    boards = [small_random(rng) for _ in range(200)] + [_big_locked_board(random.Random(k)) for k in range(5)]
    checked_states = stuck_states = 0
    for board in boards:
        engine = Engine(board)
        for _ in range(20):
            occ = 0
            for i in range(engine.n):
                if rng.random() < 0.7:
                    occ |= 1 << i
            free = engine.free_set(occ)
            expected = fixed_point_stuck_set(engine, occ, free)
            assert engine.stuck_set_fast(occ, free) == expected
            checked_states += 1
            stuck_states += expected != 0
    assert checked_states > 1000 and stuck_states > 20, (checked_states, stuck_states)


def test_the_search_finds_only_stuck_sets_that_the_one_argument_holds() -> None:
    """Every set ``stuck_set_fast`` finds is stuck by ``models/stuck_sets`` (each tile held by (a)-(e)),
    and lies inside the largest stuck set that module finds: the search adds no argument of its own."""
    rng = random.Random(7)
    boards = [small_random(rng) for _ in range(200)] + [_big_locked_board(random.Random(k)) for k in range(5)]
    found = 0
    for board in boards:
        engine = Engine(board)
        facts = facts_of(board)
        for _ in range(20):
            occ = sum(1 << i for i in range(engine.n) if rng.random() < 0.7)
            stuck = engine.stuck_set_fast(occ, engine.free_set(occ))
            assert held(facts, occ, stuck) == stuck, (board.name, bin(occ), bin(stuck))
            assert stuck & ~largest_stuck_set(facts, occ) == 0, (board.name, bin(occ))
            found += stuck != 0
    assert found > 20, found


def test_stuck_set_in_search_keeps_answers() -> None:
    """Looking for stuck sets in every state (off by default) must not change any verdict."""
    rng = random.Random(11)
    for number in range(150):
        board = small_random(rng)
        engine = Engine(board, order="none")
        engine.stuck_min = 0
        outcome = engine.run(10)
        assert (outcome.status is Status.SOLVED) == brute_solvable(board), f"board #{number}"


def test_forgetting_the_dead_table_keeps_answers() -> None:
    """A tiny memory cap empties the tables often; the answers must not change."""
    rng = random.Random(13)
    for number in range(80):
        board = small_random(rng)
        engine = Engine(board, order="none", stuck=False)
        engine.max_dead = 2
        engine.nodes = 255  # the next node is a checkpoint
        outcome = engine.run(10)
        assert (outcome.status is Status.SOLVED) == brute_solvable(board), f"board #{number}"
    # A board big enough to pass several checkpoints really does empty them.
    engine = Engine(_big_locked_board(random.Random(1)), order="none", locks=False, stuck=False)
    engine.max_dead = 50
    assert engine.run(0.5).status is Status.UNKNOWN
    assert engine.table_clears > 0


def test_luby_sequence() -> None:
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError):
        SearchBackend("nonsense")


def test_benchmark_script_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A smoke run of scripts/bench/search_public_boards.py: CSV rows and a summary for every board."""

    monkeypatch.syspath_prepend(str(ROOT / "scripts" / "bench"))  # the scripts' shared helper, benchlib
    bench = load_script("search_public_boards")
    monkeypatch.setattr(bench, "DATA", ROOT / "instances", raising=False)  # where real-game.txt ships
    out = tmp_path / "bench.csv"
    assert bench.main(["--sets", "real-game", "--shuffled", "3", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("board,status,seconds,nodes")
    assert len(lines) == 1 + 2 + 3
    assert all(",solved," in line for line in lines[1:3])
    boards = bench.shuffled_boards(2, 0)
    assert all(len(b.tiles) == 55 for b in boards)
    locked = bench.deadlocked(read_boards(ROOT / "instances" / "real-game.txt")[0])
    if locked is not None:
        assert SearchBackend().solve(locked, 10).reason is Reason.STATIC


def _every_tile_free(engine: Engine) -> None:
    engine.windows = [(0,) for _ in engine.windows]


def _highest_metal_first(engine: Engine) -> None:
    highest = list(reversed(engine.metal_bits))
    engine.current_of = type(engine.current_of)(highest)  # every set of metals asked of the reversed chain


@pytest.mark.parametrize("mutant", [_every_tile_free, _highest_metal_first], ids=["every-tile-free", "gold-first"])
def test_a_search_that_breaks_a_rule_is_caught_by_the_replay(mutant, monkeypatch) -> None:
    """The replay reads the rules apart from the search: a search that takes a tile that is not free, or
    a metal out of its order, answers "solved" with an illegal move, and the replay rejects it (in the
    race too, where search runs in the runner's own process)."""
    from sigmar.runners.checking.replay import replayed
    from sigmar.runners.race import Race

    keys = Engine._order_keys  # made after the masks, in either numbering of the tiles

    def mutated(engine: Engine, *args: object) -> None:
        mutant(engine)
        keys(engine, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "_order_keys", mutated)
    boards = read_boards(ROOT / "instances" / "hexmatch-hard-100.txt")[:8]
    caught = 0
    for board in boards:
        claimed = SearchBackend().solve(board, 1.0)
        if claimed.status is not Status.SOLVED or verify(board, claimed.moves).valid:
            continue
        checked = replayed(board, claimed, "search")
        assert checked.status is Status.ERROR and checked.wrong and "rule engine rejects" in checked.message
        with Race(["search"]) as race:
            raced = race.solve(board, 1.0)
        assert raced.result.status is Status.ERROR and raced.result.wrong and "search" in raced.wrong
        caught += 1
    assert caught >= 2  # the mutant does break the rules on these boards


def test_a_wrong_table_of_the_sides_geometry_is_caught_by_the_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search reads the geometry made once per side (``hexgrid.side``); the replay makes its own from
    ``ring_neighbours``.  With the side's windows wrong (every window empty: every tile free) the search
    answers "solved" with moves that take tiles that are not free, and the replay still rejects them."""
    import dataclasses

    from sigmar.encoders.search import state
    from sigmar.models import facts, hexgrid
    from sigmar.runners.checking.replay import replayed

    real = hexgrid.side

    def wrong(dim: int) -> hexgrid.Side:
        geometry = real(dim)
        empty = tuple((0,) * 6 for _ in geometry.cells)
        return dataclasses.replace(geometry, runs=empty, windows=empty)

    for module in (hexgrid, state, facts):
        monkeypatch.setattr(module, "side", wrong)
    monkeypatch.setattr(facts, "_CELL_WINDOWS", {})
    monkeypatch.setattr(facts, "_PATTERN_WINDOWS", {})  # the compiled set-up's windows too
    facts.layout_of.cache_clear()
    try:
        caught = 0
        for board in read_boards(ROOT / "instances" / "hexmatch-hard-100.txt")[:8]:
            claimed = SearchBackend().solve(board, 1.0)
            if claimed.status is not Status.SOLVED:
                continue
            verdict = verify(board, claimed.moves)
            first = _first_illegal(board, claimed.moves)  # found move by move
            if first is None:
                continue
            assert not verdict.valid and verdict.move_number == first
            checked = replayed(board, claimed, "search")
            assert checked.status is Status.ERROR and checked.wrong and "rule engine rejects" in checked.message
            caught += 1
        assert caught >= 2  # the wrong tables do make the search break the rules on these boards
    finally:
        facts.layout_of.cache_clear()


SET_UP = (
    "positions",
    "sym",
    "mask",
    "full",
    "metal_tiles",
    "windows",
    "key_nbrs",
    "key_bias",
    "partners",
    "lower",
    *SYMBOL_MASKS,
)


def _set_up_both_ways(board: Board) -> tuple[Engine, Engine]:
    compiled = Engine(board, by_cell=True)
    read = Engine.__new__(Engine)
    read.board = board
    read._cell_masks_read(board)
    return compiled, read


@given(st.integers(0, 2**32), st.integers(1, 9), st.integers(0, 120), st.sampled_from(["", "x", "xx", "z", "ab"]))
def test_the_compiled_set_up_makes_the_tables_the_python_set_up_makes(
    seed: int, dim: int, tiles: int, odd: str
) -> None:
    """``_cellmasks.c`` makes every table of a board (``SET_UP``) as ``_cell_masks_read`` does: boards of sides 1-9,
    with quintessence (x), a symbol that is no tile's (z), or one that is no one-character string (left to Python)."""
    from sigmar.encoders.search import state

    if state.compiled_masks(at_once=True) is None:
        pytest.skip("the compiled set-up was not built here (no C compiler or Python headers): nothing to compare")
    rng = random.Random(seed)
    board = random_board(rng, dim, tiles, metals=rng.randint(0, 9))
    if odd and board.tiles:
        kept = list(board.tiles)
        for symbol in odd if odd != "ab" else [odd]:
            k = rng.randrange(len(kept))
            kept[k] = Tile(kept[k].cell, symbol)
        board = Board(board.dim, tuple(kept), board.name)
    compiled, read = _set_up_both_ways(board)
    for name in SET_UP:
        assert getattr(compiled, name) == getattr(read, name), name
    assert list(compiled.mask) == list(read.mask)  # the symbols in the same order
    assert compiled.gold_tile == read.gold_tile and compiled.gold_bit == read.gold_bit
    assert compiled.current_of == read.current_of


def test_the_compiled_set_up_agrees_on_the_public_boards_and_leaves_a_tile_off_its_side_to_python() -> None:
    from sigmar.encoders.search import state

    if state.compiled_masks(at_once=True) is None:
        pytest.skip("the compiled set-up was not built here (no C compiler or Python headers): nothing to compare")
    for board in read_boards(ROOT / "instances" / "hexmatch-hard-100.txt")[:40]:
        compiled, read = _set_up_both_ways(board)
        assert all(getattr(compiled, name) == getattr(read, name) for name in SET_UP)
    off = Board(2, (Tile((0, 0), "a"), Tile((5, 0), "a")), "off")  # a tile off its side: numbered by tile
    assert not Engine(off, by_cell=True).by_cell


def _first_illegal(board: Board, moves: tuple[Move, ...]) -> int | None:
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        if position.why_illegal(move) is not None:
            return number
        position = position.play(move)
    return None


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_the_restarts_draw_what_random_would(seed: int) -> None:
    """The search draws its random orders from random's generator without the random module (state.draw16):
    the same weights for a seed as ``random.Random(seed).randrange(1 << 16)``, so the orders stay as measured."""
    from _random import Random

    from sigmar.encoders.search.state import draw16

    ours, theirs = Random(seed), random.Random(seed)
    assert [draw16(ours) for _ in range(50)] == [theirs.randrange(1 << 16) for _ in range(50)]
