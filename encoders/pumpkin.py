"""The ``pumpkin`` backend: the order model on Pumpkin, whose "no" comes with a DRCP proof.

Pumpkin (``pumpkin-solver`` on PyPI) is a lazy-clause-generation CP solver
that logs its refutations as DRCP proofs.  It is given the order model of
:mod:`sigmar.encoders.order_model` constraint by constraint, in the model's
order, so that Pumpkin's constraint tag ``k`` is the model's constraint ``k``
and its variables carry the model's names: that is what lets the suite's own
checker (:mod:`sigmar.runners.checking.drcp_check`) read the proof against the
model the runner builds itself.

Proof logging costs: on side-6 dense deals Pumpkin searched 5-10 times more
slowly while writing its proof (docs/pumpkin.md).  So by default it solves
without a proof and, only when that run refutes the board, solves again with
one (``proof="after"``); ``proof="always"`` logs from the start.

Pumpkin holds the GIL while it searches and cannot be interrupted, so every
solve runs in a forked child process (:mod:`sigmar.encoders.processes.forked`),
which a stop or the time limit kills.

It counts ``pairings`` (docs/formats.md#counts-of-solutions), not ``sequences``:
a solution of the order model is a pairing with *some* order that clears it
(steps may tie or skip), so it enumerates solutions and blocks each one's
pairing (:func:`sigmar.encoders.order_model.count_pairings`).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

from sigmar.encoders.order_backend import Call, OrderModelBackend
from sigmar.encoders.order_model import Atom, Clause, OrderModel, Tally, build, count_pairings
from sigmar.encoders.processes.forked import time_left
from sigmar.models.board import Board
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status

PROOF_MODES = ("after", "always", "never")


@dataclass(frozen=True)
class PumpkinOptions:
    """``proof``: "after" (solve, then prove a refutation again with logging), "always" or "never";
    ``seed``: Pumpkin's random seed."""

    proof: str = "after"
    seed: int = 0


class PumpkinBackend(OrderModelBackend):
    family = "pumpkin"
    default_sub = "order"
    description = "Pumpkin (lazy clause generation) on the order model; its refutations are DRCP proofs we check"
    encode_targets = ("drcp-model",)
    encode_variants = ("order",)
    options_type = PumpkinOptions

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        if self.sub != "order":
            raise ValueError(f"unknown pumpkin formulation '{self.sub}' (choose from order)")
        if self.options.proof not in PROOF_MODES:
            raise ValueError(f"pumpkin: proof must be one of {', '.join(PROOF_MODES)}, not {self.options.proof!r}")

    @classmethod
    def available(cls) -> tuple[bool, str]:
        if find_spec("pumpkin_solver") is None:
            return False, "needs the Python package 'pumpkin-solver' (install.sh installs it)"
        return True, ""

    @classmethod
    def version(cls) -> str:
        from importlib.metadata import version

        return f"pumpkin-solver {version('pumpkin-solver')}"

    @property
    def certifies(self) -> bool:
        return self.options.proof != "never"

    def encode(self, board: Board, target: str) -> dict[str, str]:
        if target != "drcp-model":
            return super().encode(board, target)
        return {".drcp-model": build(board).text()}

    def empty_clause_certificate(self) -> Certificate:
        """Pumpkin refuses a model with the empty clause; the proof is the conclusion alone."""
        return Certificate(CertificateKind.DRCP, texts={".drcp": "c UNSAT\n"})

    def scratch(self) -> tempfile.TemporaryDirectory[str]:
        """Where Pumpkin writes its proof."""
        return tempfile.TemporaryDirectory(prefix="sigmar-pumpkin-", ignore_cleanup_errors=True)

    def solve_call(self, model: OrderModel, folder: str | None, limit: float | None) -> Call:
        return solve_model, (model, _proof_path(folder), self.options.proof, self.options.seed, limit)

    def count_call(self, model: OrderModel, limit: float | None) -> Call:
        """No proof is logged while counting."""
        return count_model, (model, self.options.seed, limit)

    def refutation(self, model: OrderModel, folder: str | None, seconds: float, stats: dict[str, Any]) -> Result:
        explanation = (
            f"Pumpkin refuted the order model ({len(model.variables)} variables, {len(model.constraints)} "
            f"constraints; horizon {model.horizon} steps, which every solution fits)"
        )
        certificate = None
        message = ""
        if stats.get("proved"):
            with open(_proof_path(folder), encoding="utf-8") as handle:
                text = handle.read()
            stats["proof_bytes"] = len(text)
            certificate = Certificate(CertificateKind.DRCP, texts={".drcp": text})
        elif self.certifies:
            message = "the run that logs the proof did not finish in time"
        return Result(
            Status.UNSOLVABLE,
            self.name,
            seconds,
            reason=Reason.PROOF,
            explanation=explanation,
            message=message,
            statistics=stats,
            certificate=certificate,
        )


def _proof_path(folder: str | None) -> str:
    assert folder is not None
    return os.path.join(folder, "board.drcp")


# ---------------------------------------------------------------------------- in the child process


def solve_model(model: OrderModel, proof: str, mode: str, seed: int, limit: float | None) -> tuple[str, Any, dict]:
    """("solved", values, stats), ("unsolvable", None, stats) or ("unknown", None, stats).

    ``stats["proved"]`` says whether ``proof`` holds a finished DRCP proof of the refutation.
    """
    start = time.perf_counter()
    stats: dict[str, Any] = {}
    first = solve_once(model, proof if mode == "always" else None, seed, limit)
    stats["solve_seconds"] = round(time.perf_counter() - start, 4)
    if first[0] != "unsolvable" or mode == "never":
        stats["proved"] = mode == "always" and first[0] == "unsolvable"
        return (*first, stats)
    if mode == "always":
        stats["proved"] = True
        return (*first, stats)
    left = None if limit is None else limit - (time.perf_counter() - start)
    if left is not None and left <= 0:
        stats["proved"] = False
        return ("unsolvable", None, stats)
    proving = time.perf_counter()
    again = solve_once(model, proof, seed, left)
    stats["proof_seconds"] = round(time.perf_counter() - proving, 4)
    stats["proved"] = again[0] == "unsolvable"
    if again[0] == "solved":  # cannot be, unless the solver contradicts itself
        raise RuntimeError("Pumpkin refuted the model, then solved it when asked again with a proof")
    return ("unsolvable", None, stats)


def solve_once(model: OrderModel, proof: str | None, seed: int, limit: float | None) -> tuple[str, Any]:
    import pumpkin_solver as pumpkin

    solver = pumpkin.Model(proof=proof, seed=seed) if proof else pumpkin.Model(seed=seed)
    variables = _variables(pumpkin, solver, model)
    _constraints(pumpkin, solver, model, variables)
    return _satisfy(pumpkin, solver, model, variables, limit)


def count_model(model: OrderModel, seed: int, limit: float | None, tally: Tally) -> tuple[int, bool]:
    """The pairings, one solve each on one Pumpkin model, each found pairing blocked by a clause of its own."""
    import pumpkin_solver as pumpkin
    from pumpkin_solver import constraints

    start = time.perf_counter()
    solver = pumpkin.Model(seed=seed)
    variables = _variables(pumpkin, solver, model)
    _constraints(pumpkin, solver, model, variables)

    def solve() -> tuple[str, Any]:
        left = time_left(limit, start)
        return ("unknown", None) if left == 0 else _satisfy(pumpkin, solver, model, variables, left)

    def block(chosen: list[int]) -> None:
        negations = [variables[var].negate() for var in chosen]
        solver.add_constraint(constraints.Clause(negations, solver.new_constraint_tag()))

    return count_pairings(model, solve, block, tally)


def _satisfy(
    pumpkin: Any, solver: Any, model: OrderModel, variables: list[Any], limit: float | None
) -> tuple[str, Any]:
    """One ``satisfy`` of ``solver``: ("solved", values), ("unsolvable", None) or ("unknown", None)."""
    result = solver.satisfy(timeout=limit) if limit is not None else solver.satisfy()
    if isinstance(result, pumpkin.SatisfactionResult.Satisfiable):
        solution = result._0
        values = {
            i: int(solution.bool_value(v) if model.variables[i].boolean else solution.int_value(v))
            for i, v in enumerate(variables)
        }
        return "solved", values
    if isinstance(result, pumpkin.SatisfactionResult.Unsatisfiable):
        return "unsolvable", None
    return "unknown", None


def _variables(pumpkin: Any, solver: Any, model: OrderModel) -> list[Any]:
    out = []
    for v in model.variables:
        if v.boolean:
            out.append(solver.new_boolean_variable(name=v.name))
        else:
            out.append(solver.new_integer_variable(v.low, v.high, name=v.name))
    return out


def _constraints(pumpkin: Any, solver: Any, model: OrderModel, variables: list[Any]) -> None:
    """Each constraint with a tag of its own, made in the model's order: tag k is constraint k."""
    from pumpkin_solver import constraints

    def integer(i: int) -> Any:
        return variables[i].as_integer() if model.variables[i].boolean else variables[i]

    def literal(atom: Atom) -> Any:
        """A Boolean literal.  Any other atom Pumpkin would reify through a variable of its own, which its
        proof names but the model does not: the order model has none, and none is accepted here."""
        variable = variables[atom.variable]
        if model.variables[atom.variable].boolean and (atom.op, atom.value) in ((">=", 1), ("<=", 0)):
            return variable if atom.op == ">=" else variable.negate()
        raise ValueError(f"pumpkin takes Boolean literals only in clauses and conditions, not {model.atom_text(atom)}")

    for constraint in model.constraints:
        tag = solver.new_constraint_tag()
        if isinstance(constraint, Clause):
            solver.add_constraint(constraints.Clause([literal(a) for a in constraint.atoms], tag))
            continue
        terms = [integer(x) if c == 1 else integer(x).scaled(c) for c, x in constraint.terms]
        linear = constraints.LessThanOrEquals(terms, constraint.bound, tag)
        if constraint.condition is None:
            solver.add_constraint(linear)
        else:
            solver.add_implication(linear, literal(constraint.condition))
