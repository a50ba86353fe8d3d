"""The ``cpmpy:SOLVER`` family: one CPMpy version of the order model, on every solver CPMpy reaches here.

CPMpy models once and hands the model to many solvers, which is what a
comparison suite wants: the same order model (:mod:`sigmar.encoders.order_model`,
also Pumpkin's and the one a DRCP certificate is checked against) on OR-Tools,
Choco, Exact, Z3, python-sat and Pumpkin, so the solvers differ and nothing
else does.  Each sub-name is available where its solver's package is installed
(``pip install 'sigmar[cpmpy]'``; install.sh installs them); ``sigmar
backends`` names the missing ones and why.

Their "no" is a claim: none comes with a certificate the suite can check
(``pumpkin`` itself, built directly, does).  Every solution is replayed as usual.

They count ``pairings`` (docs/formats.md#counts-of-solutions), as ``pumpkin``
does: solutions of the order model, each one's pairing blocked by a clause
once found (:func:`sigmar.encoders.order_model.count_pairings`), which every
solver here takes between two solves.

Each solve runs in a forked child process (:mod:`sigmar.encoders.processes.forked`):
most of these solvers hold the GIL and ignore interrupts, and the child is
killed when the time limit, counted from the start of the solve, is up.
CPMpy and the solver's interface are imported when the backend is made, which
the race does in its own process before it forks the workers: a fresh worker
(or the replacement of a killed one) starts with them, rather than paying the
import (about 0.4 s of CPU) out of its first board's time, which at niceness 10
on a loaded machine is more than a fuzz board's whole time limit.  The solver
itself is given no time limit, so that a "no" is never a time-out that a
wrapper misread (Choco's wrapper calls a search stopped just short of its
limit unsatisfiable).
"""

from __future__ import annotations

import time
from importlib.util import find_spec
from typing import Any

from sigmar.encoders.order_backend import Call, OrderModelBackend
from sigmar.encoders.order_model import Atom, Clause, OrderModel, Tally, count_pairings
from sigmar.models.result import Reason, Result, Status

# The solvers, in the order ``sigmar backends`` lists them, each with the Python package it needs.
SOLVERS = {
    "ortools": "ortools",
    "exact": "exact",
    "z3": "z3",
    "choco": "pychoco",
    "pysat": "pysat",
    "pumpkin": "pumpkin_solver",
}
# PyPI's names where they differ from the import names.
DISTRIBUTIONS = {"z3": "z3-solver", "pychoco": "pychoco", "pysat": "python-sat", "pumpkin_solver": "pumpkin-solver"}
# The solvers whose CPMpy interface does not solve again after a constraint is added (Choco answered
# "unsatisfiable" to the second solve of every board tried): a count makes them afresh for each solution.
REBUILT = frozenset({"choco"})
# The family's default where installed (scripts/bench/cp_solvers.py, docs/measured/cpmpy.md: fewest unknown on dense
# deals, then least time), else the first installed solver in this order.
DEFAULT_ORDER = ("pumpkin", "ortools", "exact", "z3", "choco", "pysat")


def installed() -> tuple[str, ...]:
    """The solvers whose package is installed here (found, not imported: listing them costs nothing)."""
    return tuple(name for name, package in SOLVERS.items() if find_spec(package) is not None)


class CpmpyBackend(OrderModelBackend):
    family = "cpmpy"
    default_sub = "pumpkin"
    description = "the order model through CPMpy on any solver it reaches (choco, exact, z3, pysat, ortools, pumpkin)"

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        if self.sub not in SOLVERS:
            raise ValueError(f"unknown cpmpy solver '{self.sub}' (choose from {', '.join(SOLVERS)})")
        self._unusable = ""
        try:
            preload(self.sub)
        except (ImportError, RuntimeError) as exc:  # each solve answers it as an error
            self._unusable = f"{type(exc).__name__}: {exc}"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        if find_spec("cpmpy") is None:
            return False, "needs the Python package 'cpmpy' (pip install 'sigmar[cpmpy]'; install.sh does)"
        if not installed():
            return False, f"CPMpy finds none of its solvers' packages ({', '.join(SOLVERS.values())})"
        return True, ""

    @classmethod
    def version(cls) -> str:
        from importlib.metadata import PackageNotFoundError, version

        parts = [f"cpmpy {version('cpmpy')}"]
        for solver in installed():
            package = SOLVERS[solver]
            try:
                parts.append(f"{solver} {version(DISTRIBUTIONS.get(package, package))}")
            except PackageNotFoundError:
                parts.append(solver)
        return ", ".join(parts)

    @classmethod
    def default(cls) -> str | None:
        found = installed()
        return next((name for name in DEFAULT_ORDER if name in found), None)

    @classmethod
    def default_note(cls) -> str:
        if cls.default() == cls.default_sub:
            return ""
        return f"the best, {cls.default_sub}, needs the package '{SOLVERS[cls.default_sub or '']}', not installed here"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return installed()

    @classmethod
    def missing_subs(cls) -> dict[str, str]:
        found = installed()
        return {
            name: f"needs the Python package '{DISTRIBUTIONS.get(package, package)}'"
            for name, package in SOLVERS.items()
            if name not in found
        }

    def unusable(self) -> str:
        return self._unusable

    def solve_call(self, model: OrderModel, folder: str | None, limit: float | None) -> Call:
        """No time limit for the solver: the child is killed at ours."""
        return solve_model, (model, self.sub or "pumpkin")

    def count_call(self, model: OrderModel, limit: float | None) -> Call:
        return count_model, (model, self.sub or "pumpkin")

    def refutation(self, model: OrderModel, folder: str | None, seconds: float, stats: dict[str, Any]) -> Result:
        explanation = f"CPMpy's {self.sub} found the order model unsatisfiable (horizon {model.horizon} steps)"
        return Result(
            Status.UNSOLVABLE, self.name, seconds, reason=Reason.PROOF, explanation=explanation, statistics=stats
        )

    def unknown(self, answer: str) -> str:
        return f"{self.sub}: {answer}"


def preload(solver: str) -> None:
    """Import CPMpy and the solver's interface, so that a forked child starts with them."""
    from cpmpy.solvers.utils import SolverLookup

    interface = SolverLookup.lookup(solver)
    if not interface.supported():
        raise RuntimeError(f"CPMpy cannot use {solver} here (its package is missing or too old)")


# ---------------------------------------------------------------------------- in the child process


def cpmpy_model(model: OrderModel) -> tuple[Any, list[Any]]:
    """The order model as a CPMpy model, and its variables (index = the order model's)."""
    import cpmpy as cp

    variables = [
        cp.boolvar(name=v.name) if v.boolean else cp.intvar(v.low, v.high, name=v.name) for v in model.variables
    ]

    def literal(atom: Atom) -> Any:
        x = variables[atom.variable]
        if model.variables[atom.variable].boolean and (atom.op, atom.value) in ((">=", 1), ("<=", 0)):
            return x if atom.op == ">=" else ~x
        return {">=": x >= atom.value, "<=": x <= atom.value, "==": x == atom.value, "!=": x != atom.value}[atom.op]

    constraints = []
    for constraint in model.constraints:
        if isinstance(constraint, Clause):
            constraints.append(
                cp.any([literal(a) for a in constraint.atoms]) if constraint.atoms else cp.BoolVal(False)
            )
            continue
        linear = cp.sum([c * variables[x] for c, x in constraint.terms]) <= constraint.bound
        constraints.append(linear if constraint.condition is None else literal(constraint.condition).implies(linear))
    return cp.Model(constraints), variables


def solve_model(model: OrderModel, solver: str) -> tuple[str, Any, dict[str, Any]]:
    """("solved", values, stats), ("unsolvable", None, stats) or (another status word, None, stats)."""
    from cpmpy.solvers.utils import SolverLookup

    start = time.perf_counter()
    cp_model, variables = cpmpy_model(model)
    instance = SolverLookup.get(solver, cp_model)
    stats: dict[str, Any] = {"solver": solver, "transform_seconds": round(time.perf_counter() - start, 4)}
    started = time.perf_counter()
    answer, values = _solve_once(instance, model, variables)
    stats["solve_seconds"] = round(time.perf_counter() - started, 4)
    return answer, values, stats


def count_model(model: OrderModel, solver: str, tally: Tally) -> tuple[int, bool]:
    """The pairings, one solve each on one solver instance, each found pairing blocked by a clause of its own."""
    import cpmpy as cp
    from cpmpy.solvers.utils import SolverLookup

    cp_model, variables = cpmpy_model(model)
    instance = SolverLookup.get(solver, cp_model)

    def block(chosen: list[int]) -> None:
        nonlocal instance
        clause = cp.any([~variables[var] for var in chosen])
        if solver in REBUILT:
            cp_model.constraints.append(clause)
            instance = SolverLookup.get(solver, cp_model)
        else:
            instance.add(clause)

    return count_pairings(model, lambda: _solve_once(instance, model, variables), block, tally)


def _solve_once(instance: Any, model: OrderModel, variables: list[Any]) -> tuple[str, Any]:
    """One solve of ``instance``: ("solved", values), ("unsolvable", None) or (another status word, None)."""
    from cpmpy.solvers.solver_interface import ExitStatus

    instance.solve()  # no time limit: the child is killed at ours
    status = instance.status().exitstatus
    if status in (ExitStatus.FEASIBLE, ExitStatus.OPTIMAL):
        # A variable in no constraint has no value: any value of its domain will do.
        values = {i: model.variables[i].low if v.value() is None else int(v.value()) for i, v in enumerate(variables)}
        return "solved", values
    if status is ExitStatus.UNSATISFIABLE:
        return "unsolvable", None
    return status.name.lower(), None
