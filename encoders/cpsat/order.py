"""``cpsat:order``: a leave step per tile, a Boolean matching, precedence for freeness; and its canonical
form for counting pairings (each move at the first step it is legal).

Each class writes one board as a CP-SAT model (``.model``), in the OR-Tools samples' order:
variables, constraints, decode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sigmar.encoders.cpsat.data import BoardData
from sigmar.models.result import Move
from sigmar.models.tiles import ELEMENTS

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


@dataclass
class OrderFormulation:
    """``cpsat:order``: a leave step per tile, a Boolean matching, precedence for freeness."""

    data: BoardData
    model: cp_model.CpModel = field(init=False)
    step: list[cp_model.IntVar] = field(init=False)
    pair: dict[tuple[int, int], cp_model.IntVar] = field(init=False)
    takes: dict[tuple[int, int], cp_model.IntVar] = field(init=False)
    before: dict[tuple[int, int], cp_model.IntVar] = field(init=False)

    def __post_init__(self) -> None:
        from ortools.sat.python import cp_model

        data = self.data
        self.model = cp_model.CpModel()
        self.model.name = f"sigmar order model of {data.board.name or 'a board'}"
        self._variables()
        if data.count_problem:  # counts that cannot pair up, stated as an empty clause
            self.model.add_bool_or([]).with_name("counts cannot pair up")
        self._one_partner_each()
        self._freeness()
        # The metals leave in a strict chain (gold, the last, alone at its step).
        for a, b in zip(data.metal_chain, data.metal_chain[1:], strict=False):
            self.model.add(self.step[a] < self.step[b])

    def _variables(self) -> None:
        """step[i] (tile i's leave step), pair[i,j] (i and j leave together), takes[x,t] (quintessence
        x leaves with element t: the variant); before[a,b] are made as freeness needs them."""
        data, model = self.data, self.model
        horizon = max(data.moves, 1)
        self.step = [model.new_int_var(0, horizon - 1, f"step[{i}]") for i in range(data.n)]
        self.pair = {(i, j): model.new_bool_var(f"pair[{i},{j}]") for i, j in data.pairs}
        self.before = {}
        fives = data.facts.quintessence
        self.takes = {(x, t): model.new_bool_var(f"takes[{x},{t}]") for x in fives for t in data.facts.partners_of(x)}

    def _leaves_before(self, a: int, b: int) -> cp_model.IntVar:
        """The literal "tile a leaves at an earlier step than tile b"."""
        before, model = self.before, self.model
        if (a, b) not in before:
            lit = model.new_bool_var(f"before[{a},{b}]")
            model.add(self.step[a] < self.step[b]).only_enforce_if(lit)
            before[(a, b)] = lit
            if (b, a) in before:
                model.add_bool_or([~lit, ~before[(b, a)]])
        return before[(a, b)]

    def _one_partner_each(self) -> None:
        """Every tile but gold has exactly one partner, leaving with it; a quintessence takes one tile
        of each element, and they leave in its step."""
        data, model = self.data, self.model
        fives = data.facts.quintessence
        incident: list[list[cp_model.IntVar]] = [[] for _ in range(data.n)]
        for (i, j), lit in self.pair.items():
            incident[i].append(lit)
            incident[j].append(lit)
            model.add(self.step[i] == self.step[j]).only_enforce_if(lit)
        for (x, t), lit in self.takes.items():
            incident[t].append(lit)
            model.add(self.step[x] == self.step[t]).only_enforce_if(lit)
        for i in range(data.n):
            if i != data.gold and i not in fives:
                model.add_exactly_one(incident[i])
        for x in fives:
            for element in sorted(ELEMENTS):
                model.add_exactly_one(
                    lit for (y, t), lit in self.takes.items() if y == x and data.symbols[t] == element
                )

    def _freeness(self) -> None:
        """Freeness as precedence: some run of three neighbours has left before the tile."""
        model = self.model
        for i, runs in enumerate(self.data.windows):
            if runs is None:
                continue
            options = []
            for k, run in enumerate(runs):
                lits = [self._leaves_before(nb, i) for nb in run]
                if len(lits) == 1:
                    options.append(lits[0])
                    continue
                window = model.new_bool_var(f"window[{i},{k}]")
                for lit in lits:
                    model.add_implication(window, lit)
                options.append(window)
            model.add_bool_or(options)

    def decode(self, solver: cp_model.CpSolver) -> tuple[Move, ...]:
        """Moves sorted by leave step; inside a step any order is legal."""
        cells = [t.cell for t in self.data.board.tiles]
        keyed: list[tuple[int, int, Move]] = []
        for (i, j), lit in self.pair.items():
            if solver.boolean_value(lit):
                keyed.append((solver.value(self.step[i]), i, Move((cells[i], cells[j]))))
        gold = self.data.gold
        if gold is not None:
            keyed.append((solver.value(self.step[gold]), gold, Move((cells[gold],))))
        for x in self.data.facts.quintessence:
            taken = [t for (y, t), lit in self.takes.items() if y == x and solver.boolean_value(lit)]
            keyed.append((solver.value(self.step[x]), x, Move(tuple(cells[i] for i in (x, *taken)))))
        return tuple(move for _, _, move in sorted(keyed, key=lambda x: (x[0], x[1])))


class CanonicalOrderFormulation(OrderFormulation):
    """The order model with each move at the first step it is legal: one solution per pairing (``pairings``).

    Removing tiles only frees others and a legal move stays legal until one of its tiles leaves, so
    a pairing that some order clears is cleared fastest by playing each move at the first step all
    its tiles are free and its metal is current.  ``ready[i]`` is that step for tile ``i`` (one past
    the latest leave of its earliest cleared window, and of the metal before it); a move's step is
    the ``ready`` of one of its tiles and at least every one's, so the steps follow from the matching.
    """

    def _freeness(self) -> None:
        data, model, step = self.data, self.model, self.step
        horizon = max(data.moves, 1)
        previous = dict(zip(data.metal_chain[1:], data.metal_chain, strict=False))
        self.ready = []
        for i, runs in enumerate(data.windows):
            bounds: list[Any] = []
            if runs == ():
                model.add_bool_or([]).with_name(f"tile {i} can never be freed")
            elif runs is not None:
                cleared = []
                for k, run in enumerate(runs):
                    at = model.new_int_var(1, horizon, f"cleared[{i},{k}]")
                    model.add_max_equality(at, [step[nb] + 1 for nb in run])
                    cleared.append(at)
                free_at = model.new_int_var(1, horizon, f"free_at[{i}]")
                model.add_min_equality(free_at, cleared)
                bounds.append(free_at)
            if i in previous:
                bounds.append(step[previous[i]] + 1)
            ready = model.new_int_var(0, horizon, f"ready[{i}]")
            model.add_max_equality(ready, bounds or [0])
            model.add(step[i] >= ready)
            self.ready.append(ready)
        self._first_legal_step()

    def _first_legal_step(self) -> None:
        """Each move leaves at the ``ready`` step of one of its tiles (``at_ready`` says which are)."""
        data, model, step = self.data, self.model, self.step
        at_ready = []
        for i in range(data.n):
            lit = model.new_bool_var(f"at_ready[{i}]")
            model.add(step[i] == self.ready[i]).only_enforce_if(lit)
            model.add(step[i] != self.ready[i]).only_enforce_if(~lit)
            at_ready.append(lit)
        for (i, j), lit in self.pair.items():
            model.add_bool_or([at_ready[i], at_ready[j]]).only_enforce_if(lit)
        if data.gold is not None:
            model.add(at_ready[data.gold] == 1)
        for x in data.facts.quintessence:
            options = [at_ready[x]]
            for (y, t), took in self.takes.items():
                if y == x:
                    both = model.new_bool_var(f"takes_at_ready[{x},{t}]")
                    model.add_bool_and([took, at_ready[t]]).only_enforce_if(both)
                    model.add_bool_or([~took, ~at_ready[t]]).only_enforce_if(~both)
                    options.append(both)
            model.add_bool_or(options)
