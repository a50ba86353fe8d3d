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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sigmar.encoders.backend import Backend
from sigmar.encoders.cpsat.data import BoardData
from sigmar.encoders.cpsat.order import CanonicalOrderFormulation, OrderFormulation
from sigmar.encoders.cpsat.steps import ExactStepsFormulation, StepsFormulation
from sigmar.models.board import Board
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import count_problem

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

FORMULATIONS = ("order", "steps")
# Solutions a count enumerates before it stops with a lower bound (each costs a Python callback).
COUNT_CAP = 10_000_000


def count_solutions(
    built: OrderFormulation | StepsFormulation, time_limit: float | None, cap: int, backend: Any
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


def build(board: Board, formulation: str) -> OrderFormulation | StepsFormulation:
    data = BoardData(board)
    if formulation == "order":
        return OrderFormulation(data)
    if formulation == "steps":
        return StepsFormulation(data)
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
            built = ExactStepsFormulation(data) if of == "sequences" else CanonicalOrderFormulation(data)
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
