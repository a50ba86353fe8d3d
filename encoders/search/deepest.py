"""The deepest play of a board: the most tiles any line of play clears, one play that clears them, and the bound.

A designer whose board cannot be cleared asks how far the best play gets.
Every state names the tiles cleared to reach it, so the answer is the reachable
state with the fewest tiles.  This module finds it by a depth-first walk over
the states (every legal move, no pruning that assumes the board is cleared),
cut by a bound: in a state S with a stuck set K, no tile of K ever leaves and
the rest can leave only among themselves, so at least ``|K| + leftover(S - K)``
tiles stay (:func:`leftover`: vitae against mors, quicksilver against the
metals but gold, odd elements against salt).  A state whose bound is no better
than the best state found is a leaf.

When the walk ends, its states are a certificate that no play clears more
(docs/formats.md#play-bound-files): every expanded state with all its moves,
every leaf with the tiles that stay.  :mod:`sigmar.runners.checking.play_bound_check`
checks it with the certificate checker's own reading of the rules; nothing
here is trusted.  When the time or the state limit runs out first, the best
play found stands as "at least".
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from sigmar.encoders.search.certificates import legal_moves
from sigmar.encoders.search.engine import Engine
from sigmar.models.bits import tile_ids
from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.stuck_sets import largest_stuck_set

PLAY_BOUND_FORMAT = "sigmar-play-bound"
# States walked before the bound is given up (each costs about 150 bytes here and 30 in the file).
MAX_STATES = 400_000


@dataclass(frozen=True)
class DeepestPlay:
    """The best play found: its moves (removal masks, in order), the tiles it clears, whether that is the most.

    ``listed`` (only when ``proved``): every state of the certificate, the start first, each with the
    tiles that stay when it is a leaf, or None when all its moves were followed.
    """

    moves: tuple[int, ...]
    cleared: int
    tiles: int
    proved: bool
    states: int
    seconds: float
    listed: dict[int, int | None] = field(default_factory=dict, repr=False)

    @property
    def end(self) -> int:
        """The state the play leaves: the tiles still on the board."""
        state = (1 << self.tiles) - 1
        for move in self.moves:
            state &= ~move
        return state


def leftover(engine: Engine, tiles: int) -> int:
    """How many of ``tiles`` must stay, at least, when moves may take only tiles of ``tiles``.

    (The checker reads the same bound on its own: ``sigmar.runners.checking.play_bound_check.leftover``.)
    """
    stays = abs((tiles & engine.vitae_mask).bit_count() - (tiles & engine.mors_mask).bit_count())
    stays += abs((tiles & engine.q_mask).bit_count() - (tiles & engine.metal_mask & ~engine.gold_bit).bit_count())
    if not tiles & engine.x_mask:
        odd = sum((tiles & mask).bit_count() & 1 for mask in engine.el_masks_all)
        salt = (tiles & engine.salt_mask).bit_count()
        stays += odd - salt if odd > salt else (salt - odd) & 1
    return stays


class _Walk:
    """One board's walk: the states seen (with how each was first reached) and the best one."""

    def __init__(self, board: Board, deadline: float, max_states: int) -> None:
        self.engine = Engine(board)
        self.facts = facts_of(board)
        self.deadline = deadline
        self.max_states = max_states
        self.reached: dict[int, tuple[int, int]] = {}  # state -> (parent, move); the start: (-1, 0)
        self.leaves: dict[int, int] = {}  # state -> the tiles that stay
        self.best = self.engine.full

    def bound(self, state: int, free: int, *, thorough: bool = False) -> tuple[int, int]:
        """(tiles that stay at least, the stuck set that says so): the counts alone, or with a stuck set.

        The stuck set is the search's worklist one (rules (a), (b), (e): a tenth of the cost of the
        full finder, and on the hardest dense deals about as many states walked), or with
        ``thorough`` the largest one under every rule (for the start, once).
        """
        plain = leftover(self.engine, state)
        if plain >= self.best.bit_count():
            return plain, 0
        stuck = largest_stuck_set(self.facts, state) if thorough else self.engine.stuck_set_fast(state, free)
        with_stuck = stuck.bit_count() + leftover(self.engine, state & ~stuck) if stuck else plain
        return (with_stuck, stuck) if with_stuck > plain else (plain, 0)

    def run(self) -> bool:
        """Walk every state the bound does not cut; False when the time or the state limit ran out."""
        engine = self.engine
        start = engine.full
        floor, _ = self.bound(start, engine.free_set(start), thorough=True)  # no state ever holds fewer tiles
        stack = [(start, engine.free_set(start), -1, 0)]
        while stack:
            state, free, parent, move = stack.pop()
            if state in self.reached:
                continue
            self.reached[state] = (parent, move)
            if state.bit_count() < self.best.bit_count():
                self.best = state
                if state.bit_count() <= floor:
                    return True  # as deep as the start's own bound allows: nothing to walk
            if len(self.reached) >= self.max_states or (
                not len(self.reached) & 63 and time.perf_counter() > self.deadline
            ):
                return False
            stays, stuck = self.bound(state, free)
            if stays >= self.best.bit_count():
                self.leaves[state] = stuck
                continue
            children = []
            for removal in legal_moves(engine, state, free):
                child = state & ~removal
                if child not in self.reached:
                    children.append((child, engine._child_free(state, free, removal), state, removal))
            # The move that frees the most tiles is tried first (it is popped last-pushed-first).
            children.sort(key=lambda c: c[1].bit_count())
            stack.extend(children)
        return True

    def out_of_budget(self) -> bool:
        seen = len(self.reached)
        return seen >= self.max_states or (not seen & 63 and time.perf_counter() > self.deadline)

    def play_to(self, state: int) -> tuple[int, ...]:
        moves: list[int] = []
        while True:
            parent, move = self.reached[state]
            if parent < 0:
                return tuple(reversed(moves))
            moves.append(move)
            state = parent


def deepest_play(board: Board, time_limit: float | None = None, max_states: int = MAX_STATES) -> DeepestPlay:
    """The deepest play of ``board`` (see the module docstring); ``proved`` when the walk ended."""
    start = time.perf_counter()
    deadline = start + time_limit if time_limit is not None else float("inf")
    walk = _Walk(board, deadline, max_states)
    proved = walk.run()
    n = len(board.tiles)
    listed: dict[int, int | None] = {}
    if proved:
        full = walk.engine.full
        floor, stuck = walk.bound(full, walk.engine.free_set(full), thorough=True)
        if walk.best.bit_count() <= floor:  # the start alone says it
            listed = {full: stuck}
        else:
            listed = {state: walk.leaves.get(state) for state in walk.reached}
    return DeepestPlay(
        moves=walk.play_to(walk.best),
        cleared=n - walk.best.bit_count(),
        tiles=n,
        proved=proved,
        states=len(walk.reached),
        seconds=time.perf_counter() - start,
        listed=listed,
    )


def play_bound_text(board: Board, play: DeepestPlay) -> str:
    """The certificate file (docs/formats.md#play-bound-files) of a proved deepest play."""
    if not play.proved:
        raise ValueError("only a proved deepest play has a certificate")
    tiles = [list(board.rowcol(tile.cell)) for tile in board.tiles]
    header = {"format": PLAY_BOUND_FORMAT, "version": 1, "board": board.name, "cleared": play.cleared, "tiles": tiles}
    lines = [json.dumps(header, separators=(",", ":"))]
    for state, stays in play.listed.items():
        if stays is None:
            lines.append(f'{{"state":"{state:x}"}}')
        else:
            lines.append(f'{{"state":"{state:x}","stays":{json.dumps(tile_ids(stays))}}}')
    return "\n".join(lines) + "\n"
