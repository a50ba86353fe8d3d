"""Certificates from the search engine: stuck sets and dead-states files.

The search prunes with arguments that are sound but not all checkable by a
reader (safe moves, a dead table filled under them, locked quicksilver).  A
certificate may use only what docs/formats.md#certificates defines, so this module re-derives the
refutation in those terms once the search has said "no":

- :func:`stuck_witness` is the largest stuck set of a state under rules
  (a)-(e) (``sigmar.models.stuck_sets``, the suite's one stuck-set finder);
- :func:`dead_states` lists the states reachable from the start, closed under
  every legal move: a state with a stuck set is listed with it and not
  expanded; a state whose counts cannot pair up is left out (the checker
  recomputes that); every other state is listed and all its successors
  followed.  Reaching the empty state means the board was solvable after all,
  and is raised, never written.

The file is then checked by :mod:`sigmar.runners.checking.dead_states_check`, which shares no
code with this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from sigmar.encoders.search.engine import Engine
from sigmar.models.bits import single_bits, tile_ids
from sigmar.models.facts import facts_of
from sigmar.models.rules import counts_problem
from sigmar.models.stuck_sets import largest_stuck_set, metal_lock
from sigmar.models.tiles import ELEMENTS

# A closure larger than this is given up (the answer stays the search's, unchecked): on a
# side-6 board 300,000 states are about 8 MB, within the 10 MB a certificate file may take.
MAX_DEAD_STATES = 300_000


class Solvable(Exception):
    """The closure reached the empty state: the search's "unsolvable" was wrong."""


class TooLarge(Exception):
    """The closure outgrew :data:`MAX_DEAD_STATES` or its time."""


class Stopped(Exception):
    """The engine was asked to stop (:meth:`Engine.stop`) while its dead states were listed."""


@dataclass(frozen=True)
class DeadStates:
    """A closed set of states: each state with its stuck set (0 when expanded instead)."""

    states: dict[int, int]

    def __len__(self) -> int:
        return len(self.states)


def stuck_witness(engine: Engine, occ: int) -> int:
    """The largest stuck set of state ``occ`` (the engine's bits) under rules (a)-(e) of
    docs/formats.md#stuck-sets, as a mask of tile ids (0: none)."""
    return largest_stuck_set(facts_of(engine.board), engine.in_tiles(occ))


def _metal_lock(engine: Engine, occ: int, cache: dict[int, int]) -> int:
    """:func:`sigmar.models.stuck_sets.metal_lock`, cached on the metals and quicksilver present."""
    key = occ & (engine.metal_mask | engine.q_mask)
    if key not in cache:
        cache[key] = metal_lock(facts_of(engine.board), occ)
    return cache[key]


def counts_dead(engine: Engine, occ: int) -> bool:
    """The rule engine's count test (:func:`sigmar.models.rules.counts_problem`) on a state's masks."""
    metals = (occ & engine.metal_mask & ~engine.gold_bit).bit_count()
    return (
        counts_problem(
            (occ & engine.x_mask).bit_count(),
            {e: (occ & mask).bit_count() for e, mask in zip(sorted(ELEMENTS), engine.el_masks_all, strict=True)},
            (occ & engine.salt_mask).bit_count(),
            (occ & engine.vitae_mask).bit_count(),
            (occ & engine.mors_mask).bit_count(),
            (occ & engine.q_mask).bit_count(),
            metals + (1 if occ & engine.gold_bit else 0),
            metals,
        )
        is not None
    )


def legal_moves(engine: Engine, occ: int, free: int) -> Iterator[int]:
    """Every legal move of state ``occ`` (docs/formats.md#the-rules) as a removal mask: no safe move, no pruning."""
    salt = free & engine.salt_mask
    salts = single_bits(salt)
    for em in engine.el_masks:
        elems = single_bits(free & em)
        yield from _pairs(elems)
        for s in salts:
            for e in elems:
                yield s | e
    yield from _pairs(salts)
    mors = single_bits(free & engine.mors_mask)
    for v in single_bits(free & engine.vitae_mask):
        for m in mors:
            yield v | m
    current = engine.current_metal(occ)
    if current and free & current:
        if current == engine.gold_bit:
            yield current
        else:
            for q in single_bits(free & engine.q_mask):
                yield current | q
    if free & engine.x_mask:
        yield from engine._quintessence_moves(occ, free)


def _pairs(bits: list[int]) -> Iterator[int]:
    for i in range(len(bits) - 1):
        for j in range(i + 1, len(bits)):
            yield bits[i] | bits[j]


def dead_states(engine: Engine, deadline: float | None = None, limit: int = MAX_DEAD_STATES) -> DeadStates:
    """The states reachable from the start that need listing, closed under every legal move.

    Raises :class:`Solvable` if the empty state is reachable, :class:`TooLarge`
    past ``limit`` states or ``deadline`` (``time.perf_counter()`` seconds), and :class:`Stopped` once the
    engine is asked to stop (a race that heard another backend's answer: the listing can take seconds
    where the search itself took a millisecond, and no answer is heard until it ends).
    """
    import time

    listed: dict[int, int] = {}
    locks: dict[int, int] = {}
    stack = [(engine.full, engine.free_set(engine.full))]
    while stack:
        occ, free = stack.pop()
        if occ in listed:
            continue
        if not len(listed) & 255:
            if engine._stop:
                raise Stopped(f"stopped after {len(listed)} states")
            if deadline is not None and time.perf_counter() > deadline:
                raise TooLarge(f"more than {len(listed)} states to list")
        if len(listed) >= limit:
            raise TooLarge(f"more than {len(listed)} states to list")
        stuck = stuck_witness(engine, occ) if occ == engine.full else _metal_lock(engine, occ, locks)
        listed[occ] = stuck
        if stuck:
            continue
        for move in legal_moves(engine, occ, free):
            child = occ & ~move
            if not child:
                raise Solvable("the empty state is reachable")
            if child in listed or counts_dead(engine, child):
                continue
            stack.append((child, engine._child_free(occ, free, move)))
    return DeadStates(listed)


def dead_states_text(engine: Engine, dead: DeadStates) -> str:
    """The file of docs/formats.md#dead-states-files: a header naming the board and its tiles, then a state a line."""
    board = engine.board
    tiles = [list(board.rowcol(tile.cell)) for tile in board.tiles]
    header = {"format": "sigmar-dead-states", "version": 1, "board": board.name, "tiles": tiles}
    lines = [json.dumps(header, separators=(",", ":"))]
    for occ, stuck in dead.states.items():  # the start was listed first
        if stuck:
            lines.append(f'{{"state":"{occ:x}","stuck":{json.dumps(tile_ids(stuck))}}}')
        else:
            lines.append(f'{{"state":"{occ:x}"}}')
    return "\n".join(lines) + "\n"
