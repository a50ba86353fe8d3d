"""The ``cpsat`` backend: two OR-Tools CP-SAT formulations of a Sigmar's Garden board.

``cpsat:order`` (the default) gives each tile an integer *leave step*; a
Boolean matching pairs the tiles, partners leave at the same step, a tile
leaves only after three consecutive neighbours have left (or are empty or
off the board), and the metals leave in a strict chain.  Pairs that are free
together may share a step: removing tiles only ever frees others, so any
order inside a step is legal, which makes the model exact and small.

``cpsat:steps`` is the timestep model of the design card: one Boolean per
candidate move per step with exactly one move per step, tile presence per
step tied to the moves by explanatory frame constraints, freeness and the
metal order as enforcement literals, and the fixed horizon of one step per
move.  It is the model to compare with the CNF and MiniZinc timestep models.
A quintessence move (the variant) is one Boolean per quintessence and step,
with the element tiles it takes chosen by "takes" Booleans, rather than one
candidate per five tiles (8^4 per quintessence on a full board).

Both follow the OR-Tools samples: data, variables, constraints, solve,
decode; every variable is named with its indices so a dumped model
(``sigmar encode FILE --to cpsat``) can be read.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.facts import Facts, facts_of
from sigmar.models.result import Move, Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.tiles import ELEMENTS, METALS, name_of

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

FORMULATIONS = ("order", "steps")
# Solutions a count enumerates before it stops with a lower bound (each costs a Python callback).
COUNT_CAP = 10_000_000


# ----------------------------------------------------------------------------- data


@dataclass
class BoardData:
    """What both formulations need from a board: tiles, pairs, metals, freeing windows."""

    board: Board

    @cached_property
    def facts(self) -> Facts:
        return facts_of(self.board)

    @property
    def n(self) -> int:
        return self.facts.size

    @property
    def symbols(self) -> tuple[str, ...]:
        return self.facts.symbols

    @property
    def metal_chain(self) -> tuple[int, ...]:
        return self.facts.metal_chain

    @property
    def gold(self) -> int | None:
        return self.facts.gold if self.facts.gold >= 0 else None

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        return self.facts.partner_pairs

    @property
    def moves(self) -> int:
        return self.facts.horizon

    def cannot_precede(self, n: int, i: int) -> bool:
        """Neighbour ``n`` can never leave before tile ``i``: both metals and ``n`` is the later one."""
        a, b = self.symbols[n], self.symbols[i]
        return a in METALS and b in METALS and a > b

    @cached_property
    def windows(self) -> tuple[tuple[tuple[int, ...], ...] | None, ...]:
        """Per tile, the neighbour tiles of each run of three ring neighbours that could free it.

        None: the tile is free from the start (a run with no tile at all).
        A run holding a neighbour that can never leave first is dropped, so an
        empty tuple means the tile can never be freed; the model then says so
        and the solver reports it, rather than a check outside the model.
        """
        out: list[tuple[tuple[int, ...], ...] | None] = []
        for i, windows in enumerate(self.facts.windows):
            runs: list[tuple[int, ...]] = []
            always = False
            for run in windows:
                if not run:
                    always = True
                    break
                if any(self.cannot_precede(n, i) for n in run) or run in runs:
                    continue
                runs.append(run)
            out.append(None if always else tuple(runs))
        return tuple(out)

    def where(self, i: int) -> str:
        row, col = self.board.rowcol(self.board.tiles[i].cell)
        return f"{name_of(self.symbols[i])} at [{row}, {col}]"

    @cached_property
    def count_problem(self) -> str | None:
        """Why the tile counts cannot pair up, else None.

        The models would refute such a board too, but a parity argument can take
        CDCL search a long time, so the model states it as an empty clause.
        """
        return count_problem(self.board)

    def build_notes(self) -> list[str]:
        """Facts found while building that make the model infeasible (reported only through the solver)."""
        notes = [self.count_problem] if self.count_problem else []
        partnered = {i for pair in self.pairs for i in pair}
        for i in range(self.n):
            if i != self.gold and i not in partnered and not self.facts.partners[i]:
                notes.append(f"{self.where(i)} has no tile it could ever pair with")
            if self.windows[i] == ():
                notes.append(f"{self.where(i)} can never be freed: every three neighbours in a row hold a later metal")
        return notes


# ------------------------------------------------------------------ the order model


@dataclass
class OrderModel:
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


# ------------------------------------------------------------------ the steps model


@dataclass
class StepsModel:
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


# ------------------------------------------------------------------ counting


class CanonicalOrderModel(OrderModel):
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


class ExactStepsModel(StepsModel):
    """The steps model with every window variable equal to its conjunction: one solution per sequence."""

    def _freeness(self) -> None:
        super()._freeness()
        runs = self.data.windows
        for (i, k, t), window in self.window_vars.items():
            self.model.add_bool_or([window, *(self.present[(nb, t)] for nb in runs[i][k])])  # type: ignore[index]


def count_solutions(
    built: OrderModel | StepsModel, time_limit: float | None, cap: int, backend: Any
) -> tuple[int, bool]:
    """Every solution of ``built`` through a solution callback; a lower bound at the limit, the cap or a stop."""
    from ortools.sat.python import cp_model

    class Tally(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found = 0

        def on_solution_callback(self) -> None:
            self.found += 1
            if self.found >= cap:
                self.stop_search()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1  # enumeration is single-threaded in CP-SAT
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(time_limit, 0.001)
    tally = Tally()
    with backend._lock:
        if backend._stopped:
            return 0, False
        backend._solver = solver
    try:
        status = solver.solve(built.model, tally)
    finally:
        with backend._lock:
            backend._solver = None
    complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and tally.found < cap and not backend._stopped
    return tally.found, complete


@dataclass(frozen=True)
class CpsatOptions:
    """``num_workers``: CP-SAT's threads (default: the cores); ``probing_level``: presolve probing (0: off)."""

    num_workers: int | None = None
    seed: int = 0
    probing_level: int = 0


def build(board: Board, formulation: str) -> OrderModel | StepsModel:
    data = BoardData(board)
    if formulation == "order":
        return OrderModel(data)
    if formulation == "steps":
        return StepsModel(data)
    raise ValueError(f"unknown cpsat formulation '{formulation}' (choose from {', '.join(FORMULATIONS)})")


# ------------------------------------------------------------------------ backend


class CpsatBackend(Backend):
    """OR-Tools CP-SAT on the order model (default) or the timestep model.

    Options: ``num_workers`` (default: the machine's cores; more workers than
    cores made CP-SAT 2-3 times slower in our trials) and ``seed``.
    """

    family = "cpsat"
    default_sub = "order"
    description = "OR-Tools CP-SAT: leave-step order model (default) or one-move-per-step timestep model"
    encode_targets = ("cpsat",)
    encode_variants = FORMULATIONS
    options_type = CpsatOptions
    plays_quintessence = True  # both models

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        if self.sub not in FORMULATIONS:
            raise ValueError(f"unknown cpsat formulation '{self.sub}' (choose from {', '.join(FORMULATIONS)})")
        self._lock = threading.Lock()
        self._solver: cp_model.CpSolver | None = None
        self._stopped = False

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import ortools.sat.python.cp_model  # noqa: F401
        except ImportError:
            return False, "needs the Python package 'ortools'"
        return True, ""

    @classmethod
    def version(cls) -> str:
        from importlib.metadata import version

        return f"ortools {version('ortools')}"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return FORMULATIONS

    def stop(self) -> None:
        """Stop a running solve from another thread (a race's loser)."""
        with self._lock:
            self._stopped = True
            if self._solver is not None:
                self._solver.stop_search()

    def encode(self, board: Board, target: str) -> dict[str, str]:
        if target != "cpsat":
            return super().encode(board, target)
        built = build(board, self.sub or self.default_sub or "order")
        return {".pbtxt": str(built.model.proto)}

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        try:
            return self._solve(board, time_limit)
        finally:
            with self._lock:
                self._stopped = False  # a stop() ends one solve, not the backend

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """Enumeration with a solution callback: ``sequences`` on the steps model, ``pairings`` on the
        order model with every move at its first legal step (docs/cpsat.md#counting), whichever sub."""
        try:
            if count_problem(board) is not None:
                return 0, True
            start = time.perf_counter()
            data = BoardData(board)
            built = ExactStepsModel(data) if of == "sequences" else CanonicalOrderModel(data)
            left = None if time_limit is None else time_limit - (time.perf_counter() - start)
            return count_solutions(built, left, COUNT_CAP, self)
        finally:
            with self._lock:
                self._stopped = False

    def _solve(self, board: Board, time_limit: float | None) -> Result:
        from ortools.sat.python import cp_model

        start = time.perf_counter()
        formulation = self.sub or "order"

        # Data, variables and constraints.
        built = build(board, formulation)
        build_seconds = time.perf_counter() - start
        proto = built.model.proto
        stats: dict[str, Any] = {
            "variables": len(proto.variables),
            "constraints": len(proto.constraints),
            "build_seconds": round(build_seconds, 4),
        }

        # Solve.
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = int(self.options.num_workers or os.cpu_count() or 1)
        solver.parameters.random_seed = int(self.options.seed)
        # Probing in presolve took most of the time on these small, easy models (about half the
        # CPU time of cpsat:steps on standard boards); the search finds what it would fix anyway.
        solver.parameters.cp_model_probing_level = int(self.options.probing_level)
        if time_limit is not None:
            solver.parameters.max_time_in_seconds = max(time_limit - build_seconds, 0.001)
        with self._lock:
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, time.perf_counter() - start, message="stopped before solving")
            self._solver = solver
        try:
            status = solver.solve(built.model)
        finally:
            with self._lock:
                self._solver = None
        stats.update(
            status=solver.status_name(status),
            conflicts=solver.num_conflicts,
            branches=solver.num_branches,
            solver_wall=round(solver.wall_time, 4),
        )

        # Decode.
        seconds = time.perf_counter() - start
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            moves = built.decode(solver)
            return Result(Status.SOLVED, self.name, seconds, moves=moves, statistics=stats)
        if status == cp_model.INFEASIBLE:
            explanation = f"CP-SAT proved the {formulation} model infeasible: no legal move sequence clears the board"
            notes = built.data.build_notes()
            if notes:
                explanation += f" ({'; '.join(notes[:3])})"
            return Result(
                Status.UNSOLVABLE, self.name, seconds, reason=Reason.PROOF, explanation=explanation, statistics=stats
            )
        if status == cp_model.MODEL_INVALID:
            message = f"CP-SAT rejected the model: {built.model.validate()}"
            return Result(Status.ERROR, self.name, seconds, message=message, statistics=stats)
        return Result(Status.UNKNOWN, self.name, seconds, message="no answer within the time limit", statistics=stats)
