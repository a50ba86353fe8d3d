"""Our CNF encoding (``cnf`` default): parallel steps with leave times in the order encoding.

Why parallel steps: removing tiles only ever frees others, so moves whose
tiles are all free at the start of a step can be played in that step in any
order.  Each tile gets a leave step in ``1..K`` where ``K`` is the number of
moves a sequential solution needs (``(tiles - 1) / 2 + 1`` with gold): a
sequential solution is a parallel plan with one move per step, so
**UNSAT at horizon K proves the board unsolvable**, and every assignment sorts
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
from dataclasses import dataclass, fields
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from sigmar.encoders.cnf.formula import ClauseSink, Formula, Lit, collector_paused, neg
from sigmar.encoders.cnf.leave_steps import freeing_windows, leave_step_bounds
from sigmar.encoders.cnf.names import describer
from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.result import Move
from sigmar.models.stopped import Stopped
from sigmar.models.tiles import ELEMENTS

CARD_ENCODINGS = {
    "seqcounter": EncType.seqcounter,
    "ladder": EncType.ladder,
    "pairwise": EncType.pairwise,
    "totalizer": EncType.totalizer,
    "cardnetwrk": EncType.cardnetwrk,
}


@dataclass(frozen=True)
class Options:
    """The default encoding's switches; all but ``card`` exist to measure an idea (scripts/bench/cnf_encodings.py).

    ``card`` picks the ``pysat.card`` encoding of exactly-one mate, ``prune``
    the reachability windows, ``sync`` how mates share a step (``order``:
    the order-encoded leave steps agree; ``bits``: binary leave steps agree),
    ``free`` how freeness is said (``precede``: a tile picks a window whose
    tiles leave before it; ``clear``: per step, some window is clear), and
    ``one_move_per_step`` turns the parallel steps into a classic timestep
    encoding (variant ``steps``).
    """

    card: str = "seqcounter"
    prune: bool = True
    one_move_per_step: bool = False
    sync: str = "order"
    free: str = "precede"

    def __post_init__(self) -> None:
        choices = {"card": tuple(CARD_ENCODINGS), "sync": ("order", "bits"), "free": ("precede", "clear")}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"cnf option {name}={getattr(self, name)!r}: choose from {', '.join(allowed)}")


def build(board: Board, should_stop: Callable[[], bool] | None = None, **options: Any) -> Formula:
    """The default encoding of one board (see the module docstring); ``options`` as in :class:`Options`.

    ``should_stop`` is asked between constraint groups and every few cardinality
    constraints; when it says yes, :class:`~sigmar.models.stopped.Stopped` ends the build, so a backend's stop()
    is honoured within its contract even before the solver starts.  The build takes 0.06 s of CPU on a
    side-8 board and 0.45 s on a side-10 one (1.2 million clauses; 1.6 s before the bulk of the clauses
    were made by arithmetic on the leave-step variables' numbers, with the cycle collector held off).
    """
    known = {f.name for f in fields(Options)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown cnf option {', '.join(unknown)} (valid: {', '.join(sorted(known))})")
    with collector_paused():
        return _Builder(board, Options(**options), should_stop).formula()


class _Builder:
    """One board's default encoding, one method per constraint group (the groups of docs/cnf.md)."""

    def __init__(self, board: Board, options: Options, should_stop: Callable[[], bool] | None = None) -> None:
        facts = facts_of(board)
        self.should_stop = should_stop
        self.board = board
        self.options = options
        self.n = n = facts.size
        self.K = K = facts.horizon
        self.early, self.late = leave_step_bounds(board, K) if options.prune else ([1] * n, [K] * n)
        self.sets = freeing_windows(board)
        self.metals = list(facts.metal_chain)
        self.gold_tile = self.metals[-1] if self.metals else None
        self.pool = IDPool()
        self.sink = ClauseSink()
        self.cleared: dict[tuple[tuple[int, ...], int], Lit] = {}
        self.precedes: dict[tuple[str, int, int], Lit] = {}
        self.mate_vars: dict[tuple[int, int], int] = {}
        # ("takes", x, t): quintessence x leaves with element tile t (one of each element per x).
        self.takes: dict[tuple[int, int], int] = {}
        self.first_gone = [0] * n  # tile i's first leave-step variable once formula() has made them all

    # -- variables
    def gone(self, i: int, s: int) -> Lit:
        """Tile i has left by the end of step s: a constant outside its reachable window."""
        if s < self.early[i] or s < 1:
            return False
        if s >= self.late[i]:
            return True
        first = self.first_gone[i]
        if first:  # made by formula(), numbered one after another from step early[i]
            return first + s - max(self.early[i], 1)
        return self.pool.id(("gone", i, s))

    def clear(self, tiles: tuple[int, ...], t: int) -> Lit:
        """Every tile of ``tiles`` has left by the end of step t."""
        lits = [self.gone(m, t) for m in tiles]
        if any(lit is False for lit in lits):
            return False
        open_ = tuple(sorted(m for m, lit in zip(tiles, lits, strict=True) if lit is not True))
        if not open_:
            return True
        if len(open_) == 1:
            return self.gone(open_[0], t)
        key = (open_, t)
        if key not in self.cleared:
            aux = self.pool.id(("clear", open_, t))
            self.cleared[key] = aux
            self.sink.group("clear")
            for m in open_:
                self.sink.add([-aux, self.gone(m, t)])
        return self.cleared[key]

    def before(self, m: int, i: int) -> Lit:
        """``("before", m, i)``: tile m leaves in an earlier step than its neighbour i."""
        early, late, sink = self.early, self.late, self.sink
        if early[m] >= late[i]:
            return False
        if late[m] < early[i]:
            return True
        key = ("before", m, i)
        if key not in self.precedes:
            var = self.pool.id(key)
            self.precedes[key] = var
            sink.group("before")
            if early[m] >= early[i]:  # i cannot be gone by early[m] (nor earlier, by monotony)
                sink.add([-var, neg(self.gone(i, early[m]))])
            lo, hi = max(early[i], early[m] + 1), min(late[i], late[m])
            # Below late[i] both literals are variables (gone(m, s - 1) with early[m] <= s - 1 < late[m]).
            di, dm = self.first_gone[i] - early[i], self.first_gone[m] - early[m] - 1
            sink.add_plain([[-var, -(di + s), dm + s] for s in range(lo, min(hi, late[i] - 1) + 1)])
            if lo <= hi == late[i]:
                sink.add([-var, neg(self.gone(i, hi)), self.gone(m, hi - 1)])
        return self.precedes[key]

    # -- constraints
    def formula(self) -> Formula:
        for i in range(self.n):  # every leave-step variable exists, even one no clause needs (gold, often)
            for s in range(self.early[i], self.late[i]):
                self.gone(i, s)
        # IDPool numbers them one after another, so gone(i, s) is arithmetic from here on: the pool's
        # lookup was a third of a side-10 build (2.3 million calls for 40,000 variables).
        self.first_gone = [
            self.pool.id(("gone", i, max(self.early[i], 1))) if max(self.early[i], 1) < self.late[i] else 0
            for i in range(self.n)
        ]
        free = self.free_by_clear_windows if self.options.free == "clear" else self.free_by_precedence
        groups = [self.impossible, self.monotone, free, self.metal_order, self.mates_leave_together, self.one_mate_each]
        if self.options.one_move_per_step:
            groups.append(self.one_move_per_step)
        for group in groups:
            self.checkpoint()
            group()
        return self._formula()

    def checkpoint(self) -> None:
        """Raise :class:`~sigmar.models.stopped.Stopped` when the caller has asked to stop."""
        if self.should_stop is not None and self.should_stop():
            raise Stopped

    def impossible(self) -> None:
        self.sink.group("impossible")
        for i in range(self.n):
            if self.early[i] > self.late[i]:
                self.sink.add([])  # the tile can never leave: unsolvable outright

    def monotone(self) -> None:
        self.sink.group("monotone")
        for i in range(self.n):
            first, steps = self.first_gone[i], self.late[i] - 1 - self.early[i]
            self.sink.add_plain([[-v, v + 1] for v in range(first, first + steps)])

    def free_by_clear_windows(self) -> None:
        """Per step: a tile gone by s had a clear window at the end of s - 1."""
        for i in range(self.n):
            if self.sets[i] is None:
                continue
            for s in range(self.early[i], self.late[i] + 1):
                cleared_now = [self.clear(tiles, s - 1) for tiles in self.sets[i] or []]
                self.sink.group("free")
                self.sink.add([neg(self.gone(i, s)), *cleared_now])

    def free_by_precedence(self) -> None:
        """A tile picks a window whose tiles all leave strictly before it."""
        sink = self.sink
        for i in range(self.n):
            if self.sets[i] is None:
                continue
            options: list[Lit] = []
            for tiles in self.sets[i] or []:
                lits = [self.before(m, i) for m in tiles]
                if any(lit is False for lit in lits):
                    continue
                open_ = [lit for lit in lits if lit is not True]
                if len(open_) <= 1:
                    options.append(open_[0] if open_ else True)
                    continue
                window = self.pool.id(("window", i, tiles))
                sink.group("window")
                for lit in open_:
                    sink.add([-window, lit])
                options.append(window)
            sink.group("free")
            sink.add(options)
        sink.group("before")
        for (_, m, i), var in list(self.precedes.items()):
            other = self.precedes.get(("before", i, m))
            if other is not None and m < i:
                sink.add([-var, -other])

    def metal_order(self) -> None:
        self.sink.group("metal order")
        for a, b in zip(self.metals, self.metals[1:], strict=False):
            for s in range(self.early[b], self.late[b] + 1):
                self.sink.add([neg(self.gone(b, s)), self.gone(a, s - 1)])

    def mates_leave_together(self) -> None:
        early, late = self.early, self.late
        facts = facts_of(self.board)
        for i, j in facts.partner_pairs:
            if max(early[i], early[j]) <= min(late[i], late[j]):
                self.mate_vars[(i, j)] = self.pool.id(("mate", i, j))
        for x in facts.quintessence:
            for t in facts.partners_of(x):
                if max(early[x], early[t]) <= min(late[x], late[t]):
                    self.takes[(x, t)] = self.pool.id(("takes", x, t))
        self.sink.group("same step")
        if self.options.sync == "bits":
            self._same_step_in_binary()
        else:
            self._same_step_in_order_encoding()

    def _same_step_in_binary(self) -> None:
        """Leave steps in binary: leaving at s fixes the tile's bits; mates have equal bits."""
        sink = self.sink
        width = max(self.K, 1).bit_length()
        together = self._together()
        bits = {i: [self.pool.id(("bit", i, k)) for k in range(width)] for i in by_mate_tiles(together)}
        for i, tile_bits in bits.items():
            for s in range(self.early[i], self.late[i] + 1):
                for k, bit in enumerate(tile_bits):
                    sink.add([neg(self.gone(i, s)), self.gone(i, s - 1), bit if (s >> k) & 1 else -bit])
        for (i, j), m in together.items():
            for bi, bj in zip(bits[i], bits[j], strict=True):
                sink.add([-m, -bi, bj])
                sink.add([-m, bi, -bj])

    def _same_step_in_order_encoding(self) -> None:
        """Equal over the windows' overlap, and outside it one clause each way."""
        sink, gone, early, first = self.sink, self.gone, self.early, self.first_gone
        for (i, j), m in self._together().items():
            lo, hi = max(early[i], early[j]), min(self.late[i], self.late[j])
            # Within [lo, hi) both tiles' leave steps are variables, gone(t, s) = first[t] + s - early[t]:
            # over a million clauses on a side-10 board, made without a look at each literal.
            di, dj = first[i] - early[i], first[j] - early[j]
            sink.add_plain([c for s in range(lo, hi) for c in ([-m, -(di + s), dj + s], [-m, -(dj + s), di + s])])
            for t in (i, j):
                sink.add([-m, neg(gone(t, lo - 1))])
                sink.add([-m, gone(t, hi)])

    def _together(self) -> dict[tuple[int, int], int]:
        """Every pair of tiles chosen to leave in one step: mates, and quintessence with its elements."""
        return {**self.mate_vars, **self.takes}

    def one_mate_each(self) -> None:
        """Each tile but gold and quintessence has one mate or one quintessence that takes it;
        each quintessence takes exactly one tile of each element."""
        self.sink.group("one mate")
        fives = set(facts_of(self.board).quintessence)
        by_tile: dict[int, list[int]] = {i: [] for i in range(self.n) if i != self.gold_tile and i not in fives}
        for (i, j), m in self.mate_vars.items():
            by_tile[i].append(m)
            by_tile[j].append(m)
        for (_, t), var in self.takes.items():
            by_tile[t].append(var)
        groups = list(by_tile.values())
        symbols = facts_of(self.board).symbols
        for x in sorted(fives):
            for element in sorted(ELEMENTS):
                groups.append([v for (y, t), v in self.takes.items() if y == x and symbols[t] == element])
        for k, lits in enumerate(groups):
            if k % 16 == 0:
                self.checkpoint()
            if not lits:
                self.sink.add([])
                continue
            encoded = CardEnc.equals(lits=lits, bound=1, vpool=self.pool, encoding=CARD_ENCODINGS[self.options.card])
            self.sink.extend(encoded.clauses)

    def one_move_per_step(self) -> None:
        """At most two tiles leave in a step: with K steps for K moves, exactly one move each.

        A quintessence move takes five tiles, so on a board of the variant a step is said to hold
        some leaving tile instead: K steps that each hold a move, for K moves, hold one each.
        """
        sink, pool, gone = self.sink, self.pool, self.gone
        sink.group("one move per step")
        fives = bool(facts_of(self.board).quintessence)
        for s in range(1, self.K + 1):
            leaving: list[Lit] = []
            for i in range(self.n):
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
            if fives:
                sink.add(leaving)  # some move in every step
                continue
            if len(leaving) > 2:
                ints = [lit for lit in leaving if not isinstance(lit, bool)]
                constant = len(leaving) - len(ints)
                if constant > 2:
                    sink.add([])
                elif ints:
                    card = CARD_ENCODINGS[self.options.card]
                    sink.extend(CardEnc.atmost(lits=ints, bound=2 - constant, vpool=pool, encoding=card).clauses)

    # -- decode
    def decode(self, true: set[int]) -> list[Move]:
        """Moves in playing order from an assignment's true variables (by leave step; any order within one)."""
        board = self.board

        def leave(i: int) -> int:
            for s in range(self.early[i], self.late[i] + 1):
                lit = self.gone(i, s)
                if lit is True or (lit is not False and lit in true):
                    return s
            return self.late[i]

        moves: list[tuple[int, Move]] = []
        for (i, j), m in self.mate_vars.items():
            if m in true:
                moves.append((leave(i), Move((board.tiles[i].cell, board.tiles[j].cell))))
        if self.gold_tile is not None:
            moves.append((leave(self.gold_tile), Move((board.tiles[self.gold_tile].cell,))))
        for x in facts_of(board).quintessence:
            taken = [t for (y, t), var in self.takes.items() if y == x and var in true]
            moves.append((leave(x), Move(tuple(board.tiles[i].cell for i in (x, *taken)))))
        moves.sort(key=lambda item: item[0])
        return [move for _, move in moves]

    def _formula(self) -> Formula:
        pool = self.pool
        gone_vars = {v for v in range(1, pool.top + 1) if _kind(pool, v) == "gone"}
        return Formula(
            board=self.board,
            variant="steps" if self.options.one_move_per_step else "default",
            clauses=self.sink.clauses,
            pool=pool,
            decoder=self.decode,
            horizon=self.K,
            groups=dict(self.sink.groups),
            describe=describer(self.board),
            projection=sorted(set(self.mate_vars.values()) | set(self.takes.values()) | gone_vars),
        )


def by_mate_tiles(mate_vars: dict[tuple[int, int], int]) -> list[int]:
    return sorted({t for pair in mate_vars for t in pair})


def _kind(pool: IDPool, var: int) -> str | None:
    obj = pool.obj(var)
    return obj[0] if isinstance(obj, tuple) else None
