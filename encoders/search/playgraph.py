"""The play graph of a board: every position legal play reaches, which of them can still be cleared, and
random play's exact chance of clearing the board.

A designer asks how hard a board is.  Sampling random games answers
roughly; the graph of positions answers exactly.  A position (a *state*, the
tiles still on the board as a mask) is **alive** when some play clears it
and **dead** otherwise; a move is **safe** when the position after it is
alive.  Over the graph, memoised, in one depth-first walk:

- ``win(s)``: the chance that a player choosing uniformly among the legal
  moves of each position clears the board from ``s``: 1 for the empty
  board, 0 for a dead one, else the mean of ``win`` over the positions after
  each legal move (an exact :class:`~fractions.Fraction`);
- ``sequences(s)``: the move sequences that clear ``s``;
- ``safe_sum(s)``: over those sequences, the safe moves of every position
  along them, summed; so ``safe_sum / (sequences * moves)`` is the mean
  number of safe moves a player has at each step of a solution;
- the **deepest trap**: the losing move played latest, that is the dead
  position after a move from an alive one, with the most moves played.

Every state is dead for good once shown dead, so dead states are cut as
soon as a sound argument says so (docs/explain.md#difficulty): the tile
counts of the position after a move (they cannot pair up), or a stuck set
of the search's worklist (:meth:`Pruning.stuck_set_fast`) or its locked
metals.  Those are the same arguments the search prunes with.

States are shared across move orders, and further: two positions that
differ only in *loose* tiles of the same kinds have the same future.  A
loose tile is free and lies in no window of a tile that is not free: it
stays free, and taking it frees nothing, so what matters of it is its kind
alone.  The memo's key is then the other tiles (the *core*: tiles not
free, the tiles in their windows, the metals) and the count of loose tiles
of each kind (:func:`key`).  Swapping two loose tiles of a kind maps the
moves of one position onto the other's one to one, and keeps them loose
in every later position, so every figure above is the same for both.

A walk stopped by its time or state limit says so (``complete`` False);
its figures are then unknown, and ``sigmar.runners.design.difficulty``
samples random play instead.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

from sigmar.encoders.search.certificates import legal_moves
from sigmar.encoders.search.engine import Engine
from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.tiles import ELEMENTS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

if TYPE_CHECKING:
    from sigmar.encoders.search._playgraph import Spec as _Spec
try:
    from sigmar.encoders.search import _playgraph
except ImportError:  # not built (no C compiler at install): the Python walk does it all, slower
    _playgraph = None  # type: ignore[assignment]

# Positions memoised before the walk gives up: each costs about 300 bytes in Python, 100 to 140 in the C core
# (its tiles, its moves' ends as 4-byte indexes into the next layer, its share of the largest layer's table;
# the figures of two layers at a time: 14.5 million positions of 13 moves each peaked at 1.4 GB with the
# interpreter, 30.4 million of 18 moves each at 4.1 GB).  Twenty million keep a walk within some 2 to 2.8 GB;
# on side 6 they take some 15 to 25 s of CPU.
MAX_STATES = 1_000_000
MAX_STATES_COMPILED = 20_000_000
BYTES_PER_STATE_COMPILED = 140
# How many tiles of one kind a key counts (8 bits each): more than any board side up to 10 has.
_COUNT_BITS = 8
_ZERO = Fraction(0)
_ONE = Fraction(1)


class Stopped(Exception):
    """The walk's time or state limit ran out."""


@dataclass(frozen=True)
class Trap:
    """The deepest trap: ``moves`` from the start, the last one losing, played in the alive position ``before``."""

    moves: tuple[int, ...]
    before: int
    after: int

    @property
    def depth(self) -> int:
        return len(self.moves)


@dataclass(frozen=True)
class PlayGraph:
    """What a walk of the play graph found (module docstring); the figures are None unless ``complete``.

    ``states`` counts the memoised positions (keys), ``alive`` those that can be cleared, ``edges``
    the moves followed from expanded positions, ``cut`` the positions shown dead without walking on
    (tile counts, stuck sets, locked metals); ``compiled`` says which walk ran (the C core or Python),
    ``stopped_by`` what ended an incomplete one (``limit``: the time or the state limit).
    """

    tiles: int
    moves: int  # moves in every solution (docs/formats.md#the-rules: pairs, gold alone, quintessence with four)
    complete: bool
    win: Fraction | None
    first_moves: int
    safe_first: int | None
    sequences: int | None
    mean_safe: float | None  # safe moves per position along the solutions, each clearing sequence weighted alike
    trap: Trap | None
    states: int
    alive: int
    edges: int
    cut: int
    seconds: float
    compiled: bool = False
    stopped_by: str = ""

    @property
    def solvable(self) -> bool | None:
        return None if self.win is None else self.win > 0


def _stopped(
    board: Board, moves: int, first_moves: int, sizes: Sizes, seconds: float, stopped_by: str, *, compiled: bool
) -> PlayGraph:
    """An incomplete walk (the Python walk's and the C core's alike): its sizes, no figure."""
    return PlayGraph(
        len(board.tiles),
        moves,
        False,
        None,
        first_moves,
        None,
        None,
        None,
        None,
        *sizes,
        seconds=seconds,
        compiled=compiled,
        stopped_by=stopped_by,
    )


class Sizes(NamedTuple):
    """The play graph's size, in :class:`PlayGraph`'s order."""

    states: int
    alive: int
    edges: int
    cut: int


class _Walk:
    def __init__(self, board: Board, deadline: float, max_states: int) -> None:
        engine = Engine(board)
        self.engine = engine
        self.deadline = deadline
        self.max_states = max_states
        n = engine.n
        self.n = n
        # Per tile, every tile in one of its minimal windows: those a tile that is not free waits on.
        self.waits_on = [sum_masks(engine.windows[i]) for i in range(n)]
        self.metals = engine.metal_mask
        self.kinds = _kinds(engine)
        self.x_mask = engine.x_mask
        self.gold_bit = engine.gold_bit
        self.memo: dict[int, tuple[Fraction, int, int] | None] = {}
        self.edges = 0
        self.cut = 0
        self.alive = 0
        self.trap_depth = -1
        self.trap: tuple[int, int] | None = None  # (alive position, losing move)

    def key(self, occ: int, free: int) -> int:
        """The memo's key of a position: its core tiles, and how many loose tiles of each kind (module docstring)."""
        blocked = occ & ~free
        core = blocked | (occ & self.metals)
        waits_on = self.waits_on
        rest = blocked
        while rest:
            low = rest & -rest
            rest ^= low
            core |= waits_on[low.bit_length() - 1]
        loose = occ & ~core
        if not loose:
            return occ
        key = occ & core
        shift = self.n
        for mask in self.kinds:
            key |= (loose & mask).bit_count() << shift
            shift += _COUNT_BITS
        return key

    def depth(self, occ: int) -> int:
        """Moves played to reach ``occ``: a function of the tiles left (each move's size is fixed by its kind)."""
        return _depth(self.engine, occ)

    @staticmethod
    def moves_of(engine: Engine) -> int:
        """Moves in every solution: the depth of the empty position."""
        return _depth(engine, 0) if engine.full else 0

    def counts_dead(self, occ: int) -> bool:
        """The tile counts of ``occ`` cannot pair up (:func:`sigmar.models.rules.counts_problem`, on masks)."""
        engine = self.engine
        fives = (occ & self.x_mask).bit_count()
        odd = 0
        for mask in engine.el_masks_all:
            left = (occ & mask).bit_count() - fives
            if left < 0:
                return True
            odd += left & 1
        salt = (occ & engine.salt_mask).bit_count()
        return (
            salt < odd
            or (salt - odd) & 1 == 1
            or (occ & engine.vitae_mask).bit_count() != (occ & engine.mors_mask).bit_count()
            or (occ & engine.q_mask).bit_count() != (occ & self.metals & ~self.gold_bit).bit_count()
        )

    def dead_now(self, occ: int, free: int) -> bool:
        """A sound argument that ``occ`` is dead without expanding it: a stuck set or locked metals."""
        engine = self.engine
        return engine.lock_problem(occ) is not None or bool(engine.stuck_set_fast(occ, free))

    def walk(self, occ: int, free: int) -> tuple[Fraction, int, int] | None:
        """(win, sequences, safe_sum) of ``occ``, or None when it is dead."""
        key = self.key(occ, free)
        memo = self.memo
        if key in memo:
            return memo[key]
        if len(memo) >= self.max_states or (not len(memo) & 1023 and time.perf_counter() > self.deadline):
            raise Stopped
        engine = self.engine
        if self.dead_now(occ, free):
            self.cut += 1
            memo[key] = None
            return None
        moves = list(legal_moves(engine, occ, free))
        self.edges += len(moves)
        win = _ZERO
        sequences = safe_sum = safe = 0
        dead: list[int] = []
        for move in moves:
            child = occ & ~move
            if not child:
                found: tuple[Fraction, int, int] | None = (_ONE, 1, 0)
            elif self.counts_dead(child):
                self.cut += 1
                found = None
            else:
                found = self.walk(child, engine._child_free(occ, free, move))
            if found is None:
                dead.append(move)
                continue
            safe += 1
            win += found[0]
            sequences += found[1]
            safe_sum += found[2]
        if not safe:
            memo[key] = None
            return None
        self.alive += 1
        if dead:
            depth = self.depth(occ) + 1
            if depth > self.trap_depth:
                self.trap_depth, self.trap = depth, (occ, dead[0])
        result = (win / len(moves), sequences, safe_sum + safe * sequences)
        memo[key] = result
        return result


def _depth(engine: Engine, occ: int) -> int:
    gone = engine.full & ~occ
    fives = (gone & engine.x_mask).bit_count()
    gold = 1 if gone & engine.gold_bit else 0
    return fives + gold + (gone.bit_count() - 5 * fives - gold) // 2


def sum_masks(masks: tuple[int, ...]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


def play_to(engine: Engine, target: int) -> tuple[int, ...]:
    """A legal play from the start to the position ``target`` (known to be reachable), as removal masks.

    Depth first over the positions holding ``target``: a move may take only tiles that ``target``
    lacks; positions from which ``target`` proved out of reach are remembered.
    """
    failed: set[int] = set()
    path: list[int] = []

    def reach(occ: int, free: int) -> bool:
        if occ == target:
            return True
        if occ in failed:
            return False
        for move in legal_moves(engine, occ, free):
            if move & target:
                continue
            path.append(move)
            if reach(occ & ~move, engine._child_free(occ, free, move)):
                return True
            path.pop()
        failed.add(occ)
        return False

    if not reach(engine.full, engine.free_set(engine.full)):
        raise ValueError("the position is not reachable from the start")
    return tuple(path)


def play_graph(
    board: Board,
    time_limit: float | None = None,
    max_states: int | None = None,
    *,
    compiled: bool | None = None,
    keep: bool = False,
) -> PlayGraph:
    """Walk ``board``'s play graph (module docstring); stopped by ``time_limit`` seconds or ``max_states``
    positions (default: the walk's own limit, :data:`MAX_STATES` or :data:`MAX_STATES_COMPILED`).

    The compiled core walks when it is built and the board has at most 64 tiles (``compiled`` False
    forces the Python walk, True requires the core); both give the same figures.  ``keep``, for a caller that
    walks many boards in one process: the core keeps its largest buffers for the next walk that keeps (hundreds
    of megabytes on a large graph, which the kernel may take back; a walk without ``keep`` frees them).
    """
    engine = Engine(board)
    usable = _playgraph is not None and engine.n <= 64
    if compiled and not usable:
        raise ValueError("the play graph's compiled core is not built, or the board has more than 64 tiles")
    if usable if compiled is None else compiled:
        limit = MAX_STATES_COMPILED if max_states is None else max_states
        return _compiled_walk(board, engine, time_limit, limit, keep)
    return _python_walk(board, time_limit, MAX_STATES if max_states is None else max_states)


def _python_walk(board: Board, time_limit: float | None, max_states: int) -> PlayGraph:
    start = time.perf_counter()
    deadline = start + time_limit if time_limit is not None else float("inf")
    walk = _Walk(board, deadline, max_states)
    engine = walk.engine
    full, free = engine.full, engine.free_set(engine.full)
    first = list(legal_moves(engine, full, free)) if full else []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * engine.n + 100))  # one frame per move of the deepest play
    try:
        found = (_ONE, 1, 0) if not full else None if walk.counts_dead(full) else walk.walk(full, free)
        complete = True
    except Stopped:
        complete = False
    finally:
        sys.setrecursionlimit(limit)
    seconds = time.perf_counter() - start
    sizes = Sizes(len(walk.memo), walk.alive, walk.edges, walk.cut)
    moves = walk.depth(0) if full else 0
    if not complete:
        return _stopped(board, moves, len(first), sizes, seconds, "limit", compiled=False)
    trap = None
    if found is None:  # lost from the start: the trap is the start itself
        trap = Trap((), full, full)
    elif walk.trap is not None:
        before, move = walk.trap
        trap = Trap((*play_to(engine, before), move), before, before & ~move)
    safe_first = sum(1 for move in first if _alive(walk, full, free, move))
    win, sequences, safe_sum = found if found is not None else (_ZERO, 0, 0)
    mean = safe_sum / (sequences * moves) if sequences and moves else None
    return PlayGraph(
        len(board.tiles), moves, True, win, len(first), safe_first, sequences, mean, trap, *sizes, seconds=seconds
    )


def spec(engine: Engine) -> _Spec:
    """The board's masks as the compiled core reads them (encoders/search/_playgraph.c)."""
    elements = engine.el_masks_all
    return (
        engine.n,
        (elements[0], elements[1], elements[2], elements[3]),
        engine.salt_mask,
        engine.vitae_mask,
        engine.mors_mask,
        engine.q_mask,
        engine.x_mask,
        tuple(engine.metal_tiles),
        tuple(tuple(masks) for masks in engine.windows),
        tuple(engine.nbr),
        tuple(_kinds(engine)),
    )


class RandomPlays:
    """Games of uniformly random legal moves on one board, as many as asked at a time (``plays(runs, seed)``:
    how many cleared it): the compiled core's when it is built and the board has at most 64 tiles, else
    :func:`sigmar.models.difficulty.random_play_clears`."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._spec = board_spec(board) if _playgraph is not None and len(board.tiles) <= 64 else None

    def __call__(self, runs: int, seed: int) -> int:
        if self._spec is not None:
            assert _playgraph is not None
            return _playgraph.playouts(self._spec, runs, seed)
        import random

        from sigmar.models.difficulty import Play, random_play_clears

        play, rng = Play(self.board), random.Random(seed)
        return sum(random_play_clears(play, rng) for _ in range(runs))


def random_plays(board: Board, runs: int, seed: int) -> int:
    """How many of ``runs`` games of uniformly random legal moves clear ``board`` (:class:`RandomPlays`)."""
    return RandomPlays(board)(runs, seed)


def board_spec(board: Board) -> _Spec:
    """:func:`spec` from the board's facts alone (no search engine made: the screen of ``generate --difficulty``
    reads thousands of boards)."""
    facts = facts_of(board)
    masks = facts.symbol_masks
    elements = [masks.get(e, 0) for e in sorted(ELEMENTS)]
    metals = facts.metal_mask
    return (
        facts.size,
        (elements[0], elements[1], elements[2], elements[3]),
        masks.get(SALT, 0),
        masks.get(VITAE, 0),
        masks.get(MORS, 0),
        masks.get(QUICKSILVER, 0),
        masks.get(QUINTESSENCE, 0),
        tuple(facts.metal_chain),
        tuple(tuple(w) for w in facts.window_masks),
        tuple(facts.neighbour_masks),
        tuple(mask for _symbol, mask in sorted(masks.items()) if mask & ~metals),
    )


def _kinds(engine: Engine) -> list[int]:
    """The kinds a key counts loose tiles of: every kind but the metals (which are always core)."""
    return [mask for _symbol, mask in sorted(engine.mask.items()) if mask & ~engine.metal_mask]


def _compiled_walk(board: Board, engine: Engine, time_limit: float | None, max_states: int, keep: bool) -> PlayGraph:
    assert _playgraph is not None
    start = time.perf_counter()
    full = engine.full
    first = list(legal_moves(engine, full, engine.free_set(full))) if full else []
    seconds = 1e9 if time_limit is None else max(time_limit, 0.0)
    found = _playgraph.walk(spec(engine), seconds, max_states, 0, True, keep)
    complete, stopped_by, numerator, denominator, sequences, sequences_float, safe_sum = found[:7]
    _first, safe_first, trap_found, states, alive, edges, cut, _walked, _exact = found[7:]
    moves = _Walk.moves_of(engine)
    sizes = Sizes(states, alive, edges, cut)
    elapsed = time.perf_counter() - start
    if not complete:
        return _stopped(board, moves, len(first), sizes, elapsed, stopped_by, compiled=True)
    assert numerator is not None and denominator is not None
    win = Fraction(numerator, denominator)
    trap = None
    if not win:
        trap = Trap((), full, full)
        safe_first = 0
    elif trap_found is not None:
        before, move = trap_found
        trap = Trap((*play_to(engine, before), move), before, before & ~move)
    mean = safe_sum / (sequences_float * moves) if win and moves else None
    return PlayGraph(
        len(board.tiles),
        moves,
        True,
        win,
        len(first),
        safe_first,
        sequences if win else 0,
        mean,
        trap,
        *sizes,
        seconds=time.perf_counter() - start,
        compiled=True,
    )


def _alive(walk: _Walk, occ: int, free: int, move: int) -> bool:
    """Whether the position after ``move`` is alive, read from the finished walk's memo."""
    child = occ & ~move
    if not child:
        return True
    if walk.counts_dead(child):
        return False
    return walk.memo.get(walk.key(child, walk.engine._child_free(occ, free, move))) is not None
