"""Our CNF encoding (``cnf`` default): parallel steps with leave times in the order encoding.

Why parallel steps: removing tiles only ever frees others, so moves whose
tiles are all free at the start of a step can be played in that step in any
order.  Each tile gets a leave step in ``1..K`` where ``K`` is the number of
moves a sequential solution needs (``(tiles - 1) / 2 + 1`` with gold): a
sequential solution is a parallel plan with one move per step, so
**UNSAT at horizon K proves the board unsolvable**, and every model sorts
into a legal move sequence (by step; within a step any order).

Glossary (variables, named by tuples through ``IDPool``):

- ``("gone", i, s)``: tile ``i`` has left by the end of step ``s`` (order
  encoding: monotone in ``s``).  Only for ``s`` between the tile's earliest
  and latest possible leave step (reachability pruning); outside that window
  the value is a constant and never becomes a variable.
- ``("mate", i, j)``: tiles ``i < j`` leave together as one move (a static
  perfect matching: exactly one mate per tile except gold, via ``pysat.card``).
- ``("before", m, i)``: neighbour ``m`` leaves in an earlier step than tile ``i``.
- ``("window", i, (m, ...))``: tile ``i`` is freed by that window of three
  consecutive neighbours (empty cells dropped): all of them leave before it.

Clauses: monotone leave times; every tile not free from the start picks a
window whose tiles all leave before it (``before`` is tied to the leave
steps, so this is freeness at the end of the previous step, said once per
neighbour instead of once per step and window); mates leave in the same
step; metals leave in strictly increasing steps (so quicksilver, which leaves
with its metal, always meets the current metal; gold after every other metal).

Sizes on standard boards (600 public boards): 19,400-20,200 clauses median,
22,200 at most, against 237,951 for the thesis's encoding.  The options of
:func:`build` keep the alternatives we measured (docs/cnf.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.result import Move

from .cnf_formula import ClauseSink, Formula, Lit, neg

CARD_ENCODINGS = {
    "seqcounter": EncType.seqcounter,
    "ladder": EncType.ladder,
    "pairwise": EncType.pairwise,
    "totalizer": EncType.totalizer,
    "cardnetwrk": EncType.cardnetwrk,
}


def freeing_windows(board: Board) -> list[tuple[tuple[int, ...], ...] | None]:
    """Per tile, its minimal windows (``sigmar.models.facts``); None when it is free from the start."""
    return [None if runs == ((),) else runs for runs in facts_of(board).minimal_windows]


def windows(board: Board, K: int) -> tuple[list[int], list[int]]:
    """Earliest and latest leave step of each tile (``K + 1`` earliest: it can never leave).

    Both are fixpoints of sound bounds: a tile leaves after every tile of some
    neighbour window and with a mate; metals leave one after another.  Latest:
    a tile lying in every window of another must leave before it.
    """
    n = len(board.tiles)
    sets = freeing_windows(board)
    mates: list[list[int]] = [[] for _ in range(n)]
    for i, j in facts_of(board).partner_pairs:
        mates[i].append(j)
        mates[j].append(i)
    metals = list(facts_of(board).metal_chain)
    gold_tile = metals[-1] if metals else None
    previous_metal = {b: a for a, b in zip(metals, metals[1:], strict=False)}
    never = K + 1

    early = [1] * n
    changed = True
    while changed:
        changed = False
        for i in range(n):
            best = 1 if sets[i] is None else 1 + min(max(early[m] for m in s) for s in sets[i] or [])
            if i != gold_tile:
                best = max(best, min((early[j] for j in mates[i]), default=never))
            if i in previous_metal:
                best = max(best, early[previous_metal[i]] + 1)
            best = min(best, never)
            if best > early[i]:
                early[i] = best
                changed = True

    late = [K] * n
    must_precede: list[list[int]] = [[] for _ in range(n)]  # i must leave before each j listed
    for j, s in enumerate(sets):
        if s:
            for m in set(s[0]).intersection(*map(set, s[1:])):
                must_precede[m].append(j)
    next_metal = {a: b for b, a in previous_metal.items()}
    changed = True
    while changed:
        changed = False
        for i in range(n):
            best = late[i]
            for j in must_precede[i]:
                best = min(best, late[j] - 1)
            if i in next_metal:
                best = min(best, late[next_metal[i]] - 1)
            if i != gold_tile:
                best = min(best, max((late[j] for j in mates[i]), default=0))
            if best < late[i]:
                late[i] = best
                changed = True
    return early, late


def build(
    board: Board,
    card: str = "seqcounter",
    prune: bool = True,
    one_move_per_step: bool = False,
    sync: str = "order",
    free: str = "precede",
) -> Formula:
    """The default encoding of one board (see the module docstring).

    The options exist to measure what each idea buys (scripts/bench_cnf.py):
    ``card`` picks the ``pysat.card`` encoding of exactly-one mate, ``prune``
    the reachability windows, ``sync`` how mates share a step (``order``:
    the order-encoded leave steps agree; ``bits``: binary leave steps agree),
    ``free`` how freeness is said (``precede``: a tile picks a window whose
    tiles leave before it; ``clear``: per step, some window is clear), and
    ``one_move_per_step`` turns the parallel
    steps into a classic timestep encoding (variant ``steps``).
    """
    # -- data
    n = len(board.tiles)
    K = facts_of(board).horizon
    early, late = windows(board, K) if prune else ([1] * n, [K] * n)
    sets = freeing_windows(board)
    metals = list(facts_of(board).metal_chain)
    gold_tile = metals[-1] if metals else None
    pool = IDPool()
    sink = ClauseSink()

    # -- variables
    def gone(i: int, s: int) -> Lit:
        if s < early[i] or s < 1:
            return False
        if s >= late[i]:
            return True
        return pool.id(("gone", i, s))

    for i in range(n):  # every leave-step variable exists, even one no clause needs (gold, often)
        for s in range(early[i], late[i]):
            gone(i, s)

    cleared: dict[tuple[tuple[int, ...], int], Lit] = {}

    def clear(tiles: tuple[int, ...], t: int) -> Lit:
        lits = [gone(m, t) for m in tiles]
        if any(lit is False for lit in lits):
            return False
        open_ = tuple(sorted(m for m, lit in zip(tiles, lits, strict=True) if lit is not True))
        if not open_:
            return True
        if len(open_) == 1:
            return gone(open_[0], t)
        key = (open_, t)
        if key not in cleared:
            aux = pool.id(("clear", open_, t))
            cleared[key] = aux
            sink.group("clear")
            for m in open_:
                sink.add([-aux, gone(m, t)])
        return cleared[key]

    # -- constraints
    sink.group("impossible")
    for i in range(n):
        if early[i] > late[i]:
            sink.add([])  # the tile can never leave: unsolvable outright

    sink.group("monotone")
    for i in range(n):
        for s in range(early[i], late[i] - 1):
            sink.add([neg(gone(i, s)), gone(i, s + 1)])

    if free == "clear":
        # Per step: a tile gone by s had a clear window at the end of s - 1.
        for i in range(n):
            if sets[i] is None:
                continue
            for s in range(early[i], late[i] + 1):
                cleared_now = [clear(tiles, s - 1) for tiles in sets[i] or []]
                sink.group("free")
                sink.add([neg(gone(i, s)), *cleared_now])
    else:
        # Precedence: a tile picks a window whose tiles all leave strictly before it.
        def before(m: int, i: int) -> Lit:
            """``("before", m, i)``: tile m leaves in an earlier step than its neighbour i."""
            if early[m] >= late[i]:
                return False
            if late[m] < early[i]:
                return True
            key = ("before", m, i)
            if key not in precedes:
                var = pool.id(key)
                precedes[key] = var
                sink.group("before")
                if early[m] >= early[i]:  # i cannot be gone by early[m] (nor earlier, by monotony)
                    sink.add([-var, neg(gone(i, early[m]))])
                for s in range(max(early[i], early[m] + 1), min(late[i], late[m]) + 1):
                    sink.add([-var, neg(gone(i, s)), gone(m, s - 1)])
            return precedes[key]

        precedes: dict[tuple[str, int, int], Lit] = {}
        for i in range(n):
            if sets[i] is None:
                continue
            options: list[Lit] = []
            for tiles in sets[i] or []:
                lits = [before(m, i) for m in tiles]
                if any(lit is False for lit in lits):
                    continue
                open_ = [lit for lit in lits if lit is not True]
                if len(open_) <= 1:
                    options.append(open_[0] if open_ else True)
                    continue
                window = pool.id(("window", i, tiles))
                sink.group("window")
                for lit in open_:
                    sink.add([-window, lit])
                options.append(window)
            sink.group("free")
            sink.add(options)
        sink.group("before")
        for (_, m, i), var in list(precedes.items()):
            other = precedes.get(("before", i, m))
            if other is not None and m < i:
                sink.add([-var, -other])

    sink.group("metal order")
    for a, b in zip(metals, metals[1:], strict=False):
        for s in range(early[b], late[b] + 1):
            sink.add([neg(gone(b, s)), gone(a, s - 1)])

    mate_vars: dict[tuple[int, int], int] = {}
    for i, j in facts_of(board).partner_pairs:
        if max(early[i], early[j]) <= min(late[i], late[j]):
            mate_vars[(i, j)] = pool.id(("mate", i, j))
    sink.group("same step")
    if sync == "bits":
        # Leave steps in binary: leaving at s fixes the tile's bits; mates have equal bits.
        width = max(K, 1).bit_length()
        bits = {i: [pool.id(("bit", i, k)) for k in range(width)] for i in by_mate_tiles(mate_vars)}
        for i, tile_bits in bits.items():
            for s in range(early[i], late[i] + 1):
                for k, bit in enumerate(tile_bits):
                    sink.add([neg(gone(i, s)), gone(i, s - 1), bit if (s >> k) & 1 else -bit])
        for (i, j), m in mate_vars.items():
            for bi, bj in zip(bits[i], bits[j], strict=True):
                sink.add([-m, -bi, bj])
                sink.add([-m, bi, -bj])
    else:
        # Order encoding: equal over the windows' overlap, and outside it one clause each way.
        for (i, j), m in mate_vars.items():
            lo, hi = max(early[i], early[j]), min(late[i], late[j])
            for s in range(lo, hi):
                sink.add([-m, neg(gone(i, s)), gone(j, s)])
                sink.add([-m, neg(gone(j, s)), gone(i, s)])
            for t in (i, j):
                sink.add([-m, neg(gone(t, lo - 1))])
                sink.add([-m, gone(t, hi)])
    sink.group("one mate")
    by_tile: dict[int, list[int]] = {i: [] for i in range(n) if i != gold_tile}
    for (i, j), m in mate_vars.items():
        by_tile[i].append(m)
        by_tile[j].append(m)
    for lits in by_tile.values():
        if not lits:
            sink.add([])
            continue
        encoded = CardEnc.equals(lits=lits, bound=1, vpool=pool, encoding=CARD_ENCODINGS[card])
        sink.extend(encoded.clauses)

    if one_move_per_step:
        # At most two tiles leave in a step: with K steps for K moves, exactly one move each.
        sink.group("one move per step")
        for s in range(1, K + 1):
            leaving = []
            for i in range(n):
                now, prev = gone(i, s), gone(i, s - 1)
                if now is False or prev is True:
                    continue
                if prev is False:
                    leaving.append(now)
                    continue
                event = pool.id(("leaves", i, s))
                sink.add([-event, now])
                sink.add([-event, neg(prev)])
                sink.add([event, neg(now), prev])
                leaving.append(event)
            if len(leaving) > 2:
                ints = [lit for lit in leaving if not isinstance(lit, bool)]
                constant = len(leaving) - len(ints)
                if constant > 2:
                    sink.add([])
                elif ints:
                    enc = CardEnc.atmost(lits=ints, bound=2 - constant, vpool=pool, encoding=CARD_ENCODINGS[card])
                    sink.extend(enc.clauses)

    # -- decode
    def decoder(true: set[int]) -> list[Move]:
        def leave(i: int) -> int:
            for s in range(early[i], late[i] + 1):
                lit = gone(i, s)
                if lit is True or (lit is not False and lit in true):
                    return s
            return late[i]

        moves: list[tuple[int, Move]] = []
        for (i, j), m in mate_vars.items():
            if m in true:
                moves.append((leave(i), Move((board.tiles[i].cell, board.tiles[j].cell))))
        if gold_tile is not None:
            moves.append((leave(gold_tile), Move((board.tiles[gold_tile].cell,))))
        moves.sort(key=lambda item: item[0])
        return [move for _, move in moves]

    projection = sorted(set(mate_vars.values()) | {v for v in range(1, pool.top + 1) if _kind(pool, v) == "gone"})
    return Formula(
        board=board,
        variant="steps" if one_move_per_step else "default",
        clauses=sink.clauses,
        pool=pool,
        decoder=decoder,
        horizon=K,
        groups=dict(sink.groups),
        describe=describer(board),
        projection=projection,
    )


def by_mate_tiles(mate_vars: dict[tuple[int, int], int]) -> list[int]:
    return sorted({t for pair in mate_vars for t in pair})


def _kind(pool: IDPool, var: int) -> str | None:
    obj = pool.obj(var)
    return obj[0] if isinstance(obj, tuple) else None


def describer(board: Board) -> Callable[[tuple[Any, ...]], str]:
    """Human names for the default encoding's variables."""

    def tile(i: int) -> str:
        t = board.tiles[i]
        row, col = board.rowcol(t.cell)
        return f"tile {i} '{t.symbol}' [{row}, {col}]"

    def describe(obj: tuple[Any, ...]) -> str:
        kind = obj[0]
        if kind == "gone":
            return f"gone({tile(obj[1])}, by the end of step {obj[2]})"
        if kind == "mate":
            return f"mates({tile(obj[1])}, {tile(obj[2])}: they leave together)"
        if kind == "before":
            return f"before({tile(obj[1])} leaves in an earlier step than {tile(obj[2])})"
        if kind == "window":
            return f"window({tile(obj[1])} is freed by tiles {', '.join(map(str, obj[2]))})"
        if kind == "bit":
            return f"bit {obj[2]} of the leave step of {tile(obj[1])}"
        if kind == "leaves":
            return f"leaves({tile(obj[1])}, in step {obj[2]})"
        if kind == "clear":
            return f"clear(tiles {', '.join(map(str, obj[1]))} all gone by the end of step {obj[2]})"
        return repr(obj)

    return describe
