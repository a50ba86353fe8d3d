"""``search``: the native solver, a depth-first search needing no encoding.

It is the baseline every encoding is measured against, and the only backend
that proves a board unsolvable by exhausting it (reason ``exhausted``).  The
engine lives in :mod:`sigmar.encoders.search.engine`; this module adapts it to
the :class:`~sigmar.encoders.backend.Backend` interface.

Subs: ``search`` (plain DFS with the dead-state table) and ``search:sleep``
(the same with sleep sets, a partial-order reduction).  Options: ``order``
(one of :data:`~sigmar.encoders.search.engine.ORDERS`), ``safe``, ``locks`` and
``stuck`` (switch the safe moves, the locked-metal pruning and the stuck-set check
at the start off, for measuring).
"""

from __future__ import annotations

import gc
import sys
import time

from sigmar.encoders.backend import Backend
from sigmar.encoders.search.engine import Engine, Outcome
from sigmar.models.bits import tile_ids
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.records import Frozen
from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status, new_move
from sigmar.models.rules import count_problem

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any


# Boards from this many tiles go to the compiled finder first (:mod:`.bigsearch`; imported only then): a
# dense side-9 deal has 169 tiles, side 10 217; side 8 127, a standard board 55 (whose solve is as before).
FINDER_FROM_TILES = 150


class SearchOptions(Frozen):
    """``order``: the move order (``engine.ORDERS``); the rest switch pruning rules off, to measure them."""

    __slots__ = __match_args__ = ("order", "safe", "locks", "stuck")
    order: str
    safe: bool
    locks: bool
    stuck: bool

    def __init__(self, order: str = "restarts", safe: bool = True, locks: bool = True, stuck: bool = True) -> None:
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "safe", safe)
        object.__setattr__(self, "locks", locks)
        object.__setattr__(self, "stuck", stuck)


class SearchBackend(Backend):
    family = "search"
    default_sub = None
    description = "native depth-first search: bitmask states, dead-state table, sound pruning"
    options_type = SearchOptions
    plays_quintessence = True

    @property
    def certifies(self) -> bool:
        return True

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        if sub not in (None, "dfs", "sleep"):
            raise ValueError(f"search has no variant '{sub}' (choose from dfs, sleep)")
        super().__init__(None if sub == "dfs" else sub, **options)
        self._engine: Engine | None = None
        self._counting: Any = None  # the count running now (``count``), for stop()
        self._stopped = False
        self._finder_stop = bytearray(1)  # read by the compiled finder of big boards (:mod:`.bigsearch`)

    @classmethod
    def version(cls) -> str:
        return f"sigmar-search 1 (Python {sys.version.split()[0]})"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return ("dfs", "sleep")

    def stop(self) -> None:
        self._stopped = True
        self._finder_stop[0] = 1
        if self._engine is not None:
            self._engine.stop()
        if self._counting is not None:
            self._counting.stopped = True

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        # The search allocates ints, sets and lists, never reference cycles; a cyclic collection
        # set off by its allocations would only rescan the caller's heap (with 22,000 boards
        # loaded a full collection took 1.3 s here), so the collector waits until the answer is ready.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._solve(board, time_limit)
        finally:
            self._stopped = False  # a stop() ends one solve, not the backend
            self._finder_stop[0] = 0
            self._engine = None
            if collecting:
                gc.enable()

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """Its own count over its bitmask states (:mod:`.counting`); a lower bound when stopped."""
        from sigmar.encoders.search.counting import Counting

        start = time.perf_counter()
        if count_problem(board) is not None:
            return 0, True
        deadline = None if time_limit is None else start + time_limit
        counting = Counting(Engine(board), deadline)
        self._counting = counting
        try:
            if self._stopped:
                counting.stopped = True
            return counting.count(of)
        finally:
            self._counting = None
            self._stopped = False

    def _solve(self, board: Board, time_limit: float | None) -> Result:
        start = time.perf_counter()
        refuted = self.counts_refutation(board, start)
        if refuted is not None:
            return refuted
        if not board.tiles:  # already clear: solved by no move (the engine looks for the empty board after a move)
            return Result(Status.SOLVED, self.name, time.perf_counter() - start, moves=())
        engine = Engine(
            board,
            order=self.options.order,
            safe=self.options.safe,
            locks=self.options.locks,
            stuck=self.options.stuck,
            by_cell=True,
        )
        self._engine = engine
        if self._stopped:
            engine.stop()
        remaining = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
        found = self._big_board(engine, remaining, start)
        if found is not None:
            return found
        remaining = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
        outcome = engine.run(remaining, sleep=self.sub == "sleep")
        seconds = time.perf_counter() - start
        stats = outcome.statistics
        if outcome.status is Status.SOLVED:
            made = _side_moves(board.dim) if engine.by_cell else {}
            moves = _moves(engine.cells, outcome.solution, made)
            return Result(Status.SOLVED, self.name, seconds, moves=moves, statistics=stats)
        if outcome.status is Status.UNSOLVABLE:
            return self._refutation(engine, outcome, start, time_limit)
        return Result(
            Status.UNKNOWN, self.name, seconds, message="time limit reached before the search ended", statistics=stats
        )

    def _big_board(self, engine: Engine, remaining: float | None, start: float) -> Result | None:
        """A big board's answer from the compiled finder (:mod:`.bigsearch`): solved, or unknown at the time
        limit or a stop; None for the engine to answer (a small board, a refutation at the start, or every
        state searched: the engine's "no" comes with its certificate)."""
        board = engine.board
        if len(board.tiles) < FINDER_FROM_TILES or self.sub == "sleep" or self.options != SearchOptions():
            return None
        from sigmar.encoders.search import bigsearch

        if not bigsearch.usable(board):
            return None
        full = engine.full
        if engine.lock_problem(full) is not None or engine.stuck_set_fast(full, engine.free_set(full)):
            return None  # refuted at the start: the engine says so at once, with the stuck set
        seconds = 1e9 if remaining is None else remaining
        found = bigsearch.find(board, seconds, engine.seed, self._finder_stop)
        if found is False:
            return None
        stats = {"finder": "compiled", "search_seconds": round(time.perf_counter() - start, 6)}
        if found is None:
            message = "stopped" if self._stopped else "time limit reached before the search ended"
            return Result(Status.UNKNOWN, self.name, time.perf_counter() - start, message=message, statistics=stats)
        return Result(Status.SOLVED, self.name, time.perf_counter() - start, moves=found, statistics=stats)

    def _refutation(self, engine: Engine, outcome: Outcome, start: float, time_limit: float | None) -> Result:
        """The search's "unsolvable" with its certificate: a stuck set, else the closed dead states.

        (The certificate kinds: docs/formats.md#certificates.)

        The search itself prunes with safe moves and arguments a reader cannot
        check; the certificate is derived again without them.  When the dead
        states outgrow the time or the size limit, the answer carries no
        certificate and the runner treats it as a claim.
        """
        stats = outcome.statistics
        board = engine.board

        def unsolvable(reason: Reason, **extra: Any) -> Result:
            seconds = time.perf_counter() - start
            return Result(
                Status.UNSOLVABLE, self.name, seconds, reason=reason, explanation=outcome.explanation, **extra
            )

        # Imported only for an "unsolvable": a solvable board's run does not pay for the certificates.
        from sigmar.encoders.search.certificates import (
            Solvable,
            Stopped,
            TooLarge,
            dead_states,
            dead_states_text,
            stuck_witness,
        )

        reason = Reason.EXHAUSTED if outcome.why == "exhausted" else Reason.STATIC
        stuck = stuck_witness(engine, engine.full)
        if stuck:
            cells = tuple(board.rowcol(tile.cell) for t, tile in enumerate(board.tiles) if stuck >> t & 1)
            return unsolvable(reason, statistics=stats, certificate=Certificate(CertificateKind.STUCK, cells))
        if engine.by_cell:  # the dead states are written by tile id, the numbering of the certificates
            engine = Engine(board, order=self.options.order, safe=self.options.safe, locks=self.options.locks)
            self._engine = engine  # a stop() reaches the listing
            if self._stopped:
                engine.stop()
        try:
            dead = dead_states(engine, None if time_limit is None else start + time_limit)
        except Stopped:
            message = "stopped while listing the dead states of its certificate"
            return Result(Status.UNKNOWN, self.name, time.perf_counter() - start, message=message, statistics=stats)
        except Solvable:
            message = "the search said unsolvable, but listing its dead states reached the empty board"
            return Result(Status.ERROR, self.name, time.perf_counter() - start, message=message, statistics=stats)
        except TooLarge as exc:
            return unsolvable(reason, statistics=stats, message=f"no certificate: {exc}")
        stats["certificate_states"] = len(dead)
        texts = {".dead.jsonl": dead_states_text(engine, dead)}
        return unsolvable(reason, statistics=stats, certificate=Certificate(CertificateKind.DEAD_STATES, texts=texts))


def _moves(cells: tuple[Hex, ...], removals: list[int], made: dict[int, Move]) -> tuple[Move, ...]:
    """The solution's removal masks (last first) as moves; a pair's or a single tile's move taken from ``made``
    (by its mask, on the numbering of ``cells``), made and kept there when first seen."""
    try:  # every move made before (most of a batch's answers): looked up in one loop in C
        return tuple(map(made.__getitem__, reversed(removals)))
    except KeyError:
        pass
    moves = []
    get = made.get
    for r in reversed(removals):
        move = get(r)
        if move is None:
            low = r & -r
            rest = r ^ low
            if not rest:
                move = made[r] = new_move((cells[low.bit_length() - 1],))
            elif not rest & (rest - 1):
                move = made[r] = new_move((cells[low.bit_length() - 1], cells[rest.bit_length() - 1]))
            else:  # quintessence's five: not kept (too many sets of five)
                move = new_move(tuple([cells[p] for p in tile_ids(r)]))
        moves.append(move)
    return tuple(moves)


# Per side, the moves of one or two tiles by their mask of cells (``by_cell``), made once: a Move cannot
# change, so the answers of a batch share them (issue 48: 28 moves a side-6 board, 17 -> 4 us).  At most
# one per pair of cells: 4,186 on side 6 (0.7 MB), 36,856 on side 10 (6.5 MB), but 260,281 on side 16 (59 MB),
# so a long-lived process (a survey, the workbench) keeps at most MOVES_KEPT a side, of at most SIDES_KEPT
# sides: past that a side's table, or the others', starts again empty (a move is then made afresh, 17 us).
_SIDE_MOVES: dict[int, dict[int, Move]] = {}
MOVES_KEPT = 40_000  # every pair of side 10's cells
SIDES_KEPT = 2


def _side_moves(dim: int) -> dict[int, Move]:
    """Side ``dim``'s table of moves, within the bounds above."""
    made = _SIDE_MOVES.get(dim)
    if made is None or len(made) >= MOVES_KEPT:
        if made is None and len(_SIDE_MOVES) >= SIDES_KEPT:
            _SIDE_MOVES.clear()
        made = _SIDE_MOVES[dim] = {}
    return made
