"""The order model of a board as plain data: named integer variables, clauses and linear inequalities.

Why plain data: three readers need the very same model.  ``pumpkin`` hands it
to Pumpkin constraint by constraint; the ``cpmpy`` family hands it to CPMpy;
and a ``drcp`` certificate (docs/formats.md#drcp-proofs) is checked against it,
so the runner builds it again from the board alone and writes it beside the
proof (``NAME.model``).  A DRCP proof names variables by their names and
constraints by their tags; both are fixed here, in the order of building, so
the model a solver was given and the one the checker rebuilds are the same.

The formulation is the order model of ``cpsat:order`` (docs/cpsat.md), written
with two kinds of constraint only, which a small checker can judge:

- a **clause**: at least one of its atoms holds;
- a **linear** inequality ``sum(coefficient * variable) <= bound``, optionally
  only where an atom (its *condition*) holds.

An atom is ``[variable OP value]`` with OP one of ``>=``, ``<=``, ``==``, ``!=``;
a Boolean is a variable of domain 0..1, true as ``[b >= 1]``.

Variables:

- ``step_i`` in ``0 .. horizon-1``: the step at which tile ``i`` leaves;
- ``pair_i_j``: tiles ``i < j`` leave together, as a pair;
- ``takes_x_t``: quintessence ``x`` leaves with element tile ``t`` (the variant);
- ``before_a_i``: tile ``a`` leaves at an earlier step than tile ``i``;
- ``window_i_k``: every tile of the ``k``-th freeing window of tile ``i`` leaves before it.

Constraints, built in this order (the tags count from 1):

1. every tile but gold and quintessence leaves with exactly one partner (a clause
   for "at least one", a linear for "at most one");
2. each quintessence takes exactly one tile of each element;
3. partners leave at the same step (two linears each, conditional on ``pair``/``takes``);
4. freeness as precedence: some minimal window of the tile leaves before it (a clause
   over the windows; a window of one tile is its ``before`` literal; a longer one a
   ``window`` Boolean implying each ``before``), and ``before_a_i`` implies
   ``step_a - step_i <= -1``;
5. the metals leave in a strict chain: ``step_a - step_b <= -1``.

A window holding a metal later than the tile (itself a metal) can never clear
first and is left out; a tile left with no window gets the empty clause, which
is how the model says such a board is unsolvable.  Every legal solution gives a
solution of the model (the steps of its moves), so a model without solutions
is a board without one: this file is what a ``drcp`` certificate trusts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from sigmar.models.board import Board
from sigmar.models.facts import Facts, facts_of
from sigmar.models.result import Move
from sigmar.models.tiles import ELEMENTS, METALS, name_of

# The comparisons of an atom, as DRCP writes them.
OPERATORS = (">=", "<=", "==", "!=")


@dataclass(frozen=True)
class Variable:
    name: str
    low: int
    high: int
    meaning: str
    boolean: bool = False  # made as a Boolean (a solver may take it as one); its domain is 0..1 all the same


@dataclass(frozen=True)
class Atom:
    """``[variable OP value]``: ``variable`` is an index into the model's variables."""

    variable: int
    op: str
    value: int


@dataclass(frozen=True)
class Clause:
    tag: int
    atoms: tuple[Atom, ...]


@dataclass(frozen=True)
class Linear:
    """``sum(c * x for c, x in terms) <= bound``, only where ``condition`` holds (always, when None)."""

    tag: int
    terms: tuple[tuple[int, int], ...]  # (coefficient, variable index)
    bound: int
    condition: Atom | None = None


Constraint = Clause | Linear


@dataclass
class OrderModel:
    """One board's order model: its variables (index = position) and constraints (tag = position + 1)."""

    board: Board
    horizon: int
    variables: list[Variable] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)  # variable name -> index
    step: list[int] = field(default_factory=list)  # tile -> index of step_i
    pair: dict[tuple[int, int], int] = field(default_factory=dict)
    takes: dict[tuple[int, int], int] = field(default_factory=dict)

    def variable(self, name: str, low: int, high: int, meaning: str, boolean: bool = False) -> int:
        self.index[name] = len(self.variables)
        self.variables.append(Variable(name, low, high, meaning, boolean))
        return self.index[name]

    def boolean(self, name: str, meaning: str) -> int:
        return self.variable(name, 0, 1, meaning, boolean=True)

    def clause(self, atoms: Iterable[Atom]) -> None:
        self.constraints.append(Clause(len(self.constraints) + 1, tuple(atoms)))

    def linear(self, terms: Iterable[tuple[int, int]], bound: int, condition: Atom | None = None) -> None:
        self.constraints.append(Linear(len(self.constraints) + 1, tuple(terms), bound, condition))

    @property
    def pairing(self) -> list[int]:
        """The variables that say which tiles leave together (``pair`` and ``takes``): a solution's pairing."""
        return sorted([*self.pair.values(), *self.takes.values()])

    def blocking(self, value: dict[int, int]) -> list[int]:
        """The pairing variables true in ``value``: a pairing of the board is another one exactly when one of
        them is false (every tile leaves in one move), so their negations, as a clause, block this pairing."""
        return [var for var in self.pairing if value[var]]

    @property
    def refuted(self) -> bool:
        """Whether a constraint is the empty clause: a tile that can never be freed (no solver is needed)."""
        return any(isinstance(c, Clause) and not c.atoms for c in self.constraints)

    def decode(self, value: dict[int, int]) -> tuple[Move, ...]:
        """Moves from a solution (variable index -> value), sorted by leave step: inside a step any order is legal."""
        facts = facts_of(self.board)
        cells = [t.cell for t in self.board.tiles]
        keyed: list[tuple[int, int, Move]] = []
        for (i, j), var in self.pair.items():
            if value[var]:
                keyed.append((value[self.step[i]], i, Move((cells[i], cells[j]))))
        if facts.gold >= 0:
            keyed.append((value[self.step[facts.gold]], facts.gold, Move((cells[facts.gold],))))
        for x in facts.quintessence:
            taken = [t for (y, t), var in self.takes.items() if y == x and value[var]]
            keyed.append((value[self.step[x]], x, Move(tuple(cells[i] for i in (x, *taken)))))
        return tuple(move for _, _, move in sorted(keyed, key=lambda k: (k[0], k[1])))

    def atom_text(self, atom: Atom) -> str:
        """An atom as DRCP writes it: ``[step_3 >= 1]``."""
        return f"[{self.variables[atom.variable].name} {atom.op} {atom.value}]"

    def constraint_text(self, constraint: Constraint) -> str:
        """One constraint as a line of the model file (docs/formats.md#drcp-proofs)."""
        if isinstance(constraint, Clause):
            return " ".join(["clause", str(constraint.tag), *map(self.atom_text, constraint.atoms)])
        terms = " ".join(f"{c} {self.variables[x].name}" for c, x in constraint.terms)
        condition = "" if constraint.condition is None else f" if {self.atom_text(constraint.condition)}"
        return f"linear {constraint.tag} {terms} <= {constraint.bound}{condition}"

    def text(self) -> str:
        """The model file, ``NAME.drcp-model``: what a ``drcp`` certificate's proof refers to."""
        board = self.board
        head = [
            f"{MODEL_FORMAT} {MODEL_VERSION}",
            f"board {json.dumps(board.name)}",
            f"dim {board.dim}",
            f"tiles {len(board.tiles)}",
            f"horizon {self.horizon}",
            f"variables {len(self.variables)}",
            f"constraints {len(self.constraints)}",
        ]
        lines = [f"var {v.name} {v.low} {v.high} {v.meaning}" for v in self.variables]
        lines += [self.constraint_text(c) for c in self.constraints]
        return "\n".join(head + lines) + "\n"


class Tally(Protocol):
    value: int


def count_pairings(
    model: OrderModel,
    solve: Callable[[], tuple[str, dict[int, int] | None]],
    block: Callable[[list[int]], None],
    tally: Tally,
) -> tuple[int, bool]:
    """The pairings of the board (docs/formats.md#counts-of-solutions, ``pairings``) as solutions of its order
    model, each blocked once found: ``(count, exact)``.

    Every solution of the model is a pairing that some order clears (its steps give the order), and every such
    pairing has a solution, so the model's solutions projected on :attr:`OrderModel.pairing` are the pairings.
    ``solve`` answers ("solved", values), ("unsolvable", None) or another word (stopped short: the count so far
    is a lower bound); ``block`` adds a clause of the negations of the variables it is given.  ``tally.value``
    is kept up to date as the count goes, so that a parent that kills the counting process can still read it.
    """
    while True:
        answer, values = solve()
        if answer == "unsolvable":
            return tally.value, True
        if answer != "solved" or values is None:
            return tally.value, False
        tally.value += 1
        chosen = model.blocking(values)
        if not chosen:  # a board whose only move is gold's: one pairing, and no clause can block it
            return tally.value, True
        block(chosen)


# The first line of a model file.
MODEL_FORMAT = "sigmar-drcp-model"
MODEL_VERSION = 1


def true(variable: int) -> Atom:
    return Atom(variable, ">=", 1)


def false(variable: int) -> Atom:
    return Atom(variable, "<=", 0)


@lru_cache(maxsize=8)
def build(board: Board) -> OrderModel:
    """The order model of ``board`` (cached: the backend and the checker of one process share it)."""
    facts = facts_of(board)
    model = OrderModel(board, max(facts.horizon, 1))
    _variables(model, facts)
    _one_partner_each(model, facts)
    _leave_together(model)
    _freeness(model, facts)
    for a, b in zip(facts.metal_chain, facts.metal_chain[1:], strict=False):
        model.linear(((1, model.step[a]), (-1, model.step[b])), -1)
    return model


def _where(board: Board, i: int) -> str:
    row, col = board.rowcol(board.tiles[i].cell)
    return f"tile {i} {name_of(board.tiles[i].symbol)} [{row}, {col}]"


def _variables(model: OrderModel, facts: Facts) -> None:
    board = model.board
    for i in range(facts.size):
        model.step.append(
            model.variable(f"step_{i}", 0, model.horizon - 1, f"the step at which {_where(board, i)} leaves")
        )
    for i, j in facts.partner_pairs:
        model.pair[(i, j)] = model.boolean(f"pair_{i}_{j}", f"{_where(board, i)} and {_where(board, j)} leave together")
    for x in facts.quintessence:
        for t in facts.partners_of(x):
            model.takes[(x, t)] = model.boolean(
                f"takes_{x}_{t}", f"quintessence {_where(board, x)} leaves with {_where(board, t)}"
            )


def _one_partner_each(model: OrderModel, facts: Facts) -> None:
    incident: list[list[int]] = [[] for _ in range(facts.size)]
    for (i, j), var in model.pair.items():
        incident[i].append(var)
        incident[j].append(var)
    for (_, t), var in model.takes.items():
        incident[t].append(var)
    fives = set(facts.quintessence)
    for i in range(facts.size):
        if i != facts.gold and i not in fives:
            _exactly_one(model, incident[i])
    for x in facts.quintessence:
        for element in sorted(ELEMENTS):
            _exactly_one(model, [var for (y, t), var in model.takes.items() if y == x and facts.symbols[t] == element])


def _exactly_one(model: OrderModel, booleans: list[int]) -> None:
    model.clause(true(b) for b in booleans)
    if len(booleans) > 1:
        model.linear(((1, b) for b in booleans), 1)


def _leave_together(model: OrderModel) -> None:
    for (i, j), var in [*model.pair.items(), *model.takes.items()]:
        a, b = model.step[i], model.step[j]
        model.linear(((1, a), (-1, b)), 0, true(var))
        model.linear(((1, b), (-1, a)), 0, true(var))


def _freeing_windows(facts: Facts, i: int) -> tuple[tuple[int, ...], ...] | None:
    """Tile ``i``'s minimal windows that could clear before it; None when it is free from the start."""
    windows = facts.minimal_windows[i]
    if windows == ((),):
        return None
    symbols = facts.symbols

    def later_metal(n: int) -> bool:
        return symbols[n] in METALS and symbols[i] in METALS and symbols[n] > symbols[i]

    return tuple(w for w in windows if not any(later_metal(n) for n in w))


def _freeness(model: OrderModel, facts: Facts) -> None:
    before: dict[tuple[int, int], int] = {}
    board = model.board

    def leaves_before(a: int, i: int) -> int:
        if (a, i) not in before:
            var = model.boolean(f"before_{a}_{i}", f"{_where(board, a)} leaves before {_where(board, i)}")
            before[(a, i)] = var
            model.linear(((1, model.step[a]), (-1, model.step[i])), -1, true(var))
        return before[(a, i)]

    for i in range(facts.size):
        windows = _freeing_windows(facts, i)
        if windows is None:
            continue
        options = []
        for k, window in enumerate(windows):
            if len(window) == 1:
                options.append(true(leaves_before(window[0], i)))
                continue
            var = model.boolean(f"window_{i}_{k}", f"every tile of window {k} of {_where(board, i)} leaves before it")
            for a in window:
                model.clause((false(var), true(leaves_before(a, i))))
            options.append(true(var))
        model.clause(options)
