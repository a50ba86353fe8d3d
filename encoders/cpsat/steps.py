"""``cpsat:steps``: the timestep formulation of the design card, one move per step; and its exact form for
counting sequences (every window variable equal to its conjunction).
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
class StepsFormulation:
    """``cpsat:steps``: exactly one move per step over the fixed horizon, tile presence per step."""

    data: BoardData
    model: cp_model.CpModel = field(init=False)
    candidates: list[tuple[int, ...]] = field(init=False)
    move: dict[tuple[int, int], cp_model.IntVar] = field(init=False)
    five: dict[tuple[int, int], cp_model.IntVar] = field(init=False)
    takes: dict[tuple[int, int, int], cp_model.IntVar] = field(init=False)
    present: dict[tuple[int, int], cp_model.IntVar] = field(init=False)
    removed: dict[tuple[int, int], cp_model.IntVar] = field(init=False)

    def __post_init__(self) -> None:
        from ortools.sat.python import cp_model

        data = self.data
        self.model = cp_model.CpModel()
        self.model.name = f"sigmar steps model of {data.board.name or 'a board'}"
        self.candidates = [*data.pairs, *([(data.gold,)] if data.gold is not None else [])]
        self._variables()
        self._start_and_end()
        self._one_move_per_step()
        self._frame()
        self._quintessence_takes()
        self._freeness()
        self._redundant()
        self._metal_order()

    def _variables(self) -> None:
        """move[m,t] (candidate m is the move of step t), five[x,t] (quintessence x leaves at step t,
        the variant), takes[x,i,t] (with element tile i), present[i,t] (tile i is on the board
        before step t; t = horizon is the end), removed[i,t] (tile i leaves at step t)."""
        model, n, horizon, facts = self.model, self.data.n, self.data.moves, self.data.facts
        self.move = {
            (m, t): model.new_bool_var(f"move[{m},{t}]") for m in range(len(self.candidates)) for t in range(horizon)
        }
        self.five = {(x, t): model.new_bool_var(f"five[{x},{t}]") for x in facts.quintessence for t in range(horizon)}
        self.takes = {
            (x, i, t): model.new_bool_var(f"takes[{x},{i},{t}]")
            for x in facts.quintessence
            for i in facts.partners_of(x)
            for t in range(horizon)
        }
        self.present = {(i, t): model.new_bool_var(f"present[{i},{t}]") for i in range(n) for t in range(horizon + 1)}
        self.removed = {(i, t): model.new_bool_var(f"removed[{i},{t}]") for i in range(n) for t in range(horizon)}

    def _start_and_end(self) -> None:
        """Counts that cannot pair up, as an empty clause; the full board at the start, empty at the end."""
        if self.data.count_problem:
            self.model.add_bool_or([]).with_name("counts cannot pair up")
        for i in range(self.data.n):
            self.model.add(self.present[(i, 0)] == 1)
            self.model.add(self.present[(i, self.data.moves)] == 0)

    def _one_move_per_step(self) -> None:
        fives = self.data.facts.quintessence
        for t in range(self.data.moves):
            pairs = [self.move[(m, t)] for m in range(len(self.candidates))]
            self.model.add_exactly_one(pairs + [self.five[(x, t)] for x in fives])

    def _frame(self) -> None:
        """Explanatory frame: a tile disappears at step t exactly when a move of t takes it."""
        n, horizon = self.data.n, self.data.moves
        takers: list[list[tuple[dict[Any, cp_model.IntVar], tuple[int, ...]]]] = [[] for _ in range(n)]
        for m, tiles in enumerate(self.candidates):
            for i in tiles:
                takers[i].append((self.move, (m,)))
        for x in self.data.facts.quintessence:
            takers[x].append((self.five, (x,)))
            for i in self.data.facts.partners_of(x):
                takers[i].append((self.takes, (x, i)))
        present, removed = self.present, self.removed
        for i in range(n):
            for t in range(horizon):
                self.model.add(removed[(i, t)] == sum(lits[(*key, t)] for lits, key in takers[i]))
                self.model.add(present[(i, t)] - present[(i, t + 1)] == removed[(i, t)])

    def _quintessence_takes(self) -> None:
        """A quintessence move takes exactly one tile of each element, in its step (none in any other)."""
        data = self.data
        for x in data.facts.quintessence:
            partners = data.facts.partners_of(x)
            for element in sorted(ELEMENTS):
                tiles = [i for i in partners if data.symbols[i] == element]
                for t in range(data.moves):
                    taken = sum(self.takes[(x, i, t)] for i in tiles)
                    self.model.add(taken == self.five[(x, t)])

    def _freeness(self) -> None:
        """A tile leaves only when free: some window of it is already gone."""
        model, present = self.model, self.present
        self.window_vars: dict[tuple[int, int, int], cp_model.IntVar] = {}  # (tile, window, step)
        for i, runs in enumerate(self.data.windows):
            if runs is None:
                continue
            for t in range(self.data.moves):
                options = []
                for k, run in enumerate(runs):
                    if len(run) == 1:
                        options.append(~present[(run[0], t)])
                        continue
                    window = model.new_bool_var(f"window[{i},{k},{t}]")
                    self.window_vars[(i, k, t)] = window
                    for nb in run:
                        model.add_implication(window, ~present[(nb, t)])
                    options.append(window)
                model.add_bool_or(options).only_enforce_if(self.removed[(i, t)])

    def _redundant(self) -> None:
        """For propagation: each tile leaves at exactly one step; a metal still present keeps every
        later metal present; quicksilver leaves only with a metal other than gold, and vitae only
        with mors, so at every step as many of one as of the other have gone (this lets the solver
        see at once that a metal ringed by quicksilver waits for the quicksilver forever)."""
        data, model, present, horizon = self.data, self.model, self.present, self.data.moves
        chain = data.metal_chain
        for i in range(data.n):
            model.add_exactly_one(self.removed[(i, t)] for t in range(horizon))
        for a, b in zip(chain, chain[1:], strict=False):
            for t in range(1, horizon):
                model.add_implication(present[(a, t)], present[(b, t)])
        quicksilver = [i for i in range(data.n) if data.symbols[i] == "q"]
        vitae = [i for i in range(data.n) if data.symbols[i] == "v"]
        mors = [i for i in range(data.n) if data.symbols[i] == "m"]
        for t in range(1, horizon):
            model.add(sum(present[(i, t)] for i in quicksilver) == sum(present[(i, t)] for i in chain[:-1]))
            model.add(sum(present[(i, t)] for i in vitae) == sum(present[(i, t)] for i in mors))

    def _metal_order(self) -> None:
        """A metal leaves only once every earlier metal has gone."""
        chain = self.data.metal_chain
        rank = {tile: k for k, tile in enumerate(chain)}
        for m, tiles in enumerate(self.candidates):
            metal = next((i for i in tiles if i in rank), None)
            if metal is None or rank[metal] == 0:
                continue
            for t in range(self.data.moves):
                earlier = [~self.present[(chain[k], t)] for k in range(rank[metal])]
                self.model.add_bool_and(earlier).only_enforce_if(self.move[(m, t)])

    def decode(self, solver: cp_model.CpSolver) -> tuple[Move, ...]:
        cells = [t.cell for t in self.data.board.tiles]
        moves = []
        for t in range(self.data.moves):
            tiles = next((c for m, c in enumerate(self.candidates) if solver.boolean_value(self.move[(m, t)])), None)
            if tiles is None:  # a quintessence move: the quintessence and the element tiles it takes
                x = next(x for x in self.data.facts.quintessence if solver.boolean_value(self.five[(x, t)]))
                taken = (i for i in self.data.facts.partners_of(x) if solver.boolean_value(self.takes[(x, i, t)]))
                tiles = (x, *taken)
            moves.append(Move(tuple(cells[i] for i in tiles)))
        return tuple(moves)


class ExactStepsFormulation(StepsFormulation):
    """The steps model with every window variable equal to its conjunction: one solution per sequence."""

    def _freeness(self) -> None:
        super()._freeness()
        runs = self.data.windows
        for (i, k, t), window in self.window_vars.items():
            self.model.add_bool_or([window, *(self.present[(nb, t)] for nb in runs[i][k])])  # type: ignore[index]
