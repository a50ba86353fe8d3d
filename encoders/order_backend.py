"""What every backend that solves the order model in a forked child shares: ``pumpkin`` and ``cpmpy:*``.

Why one base: the two families differ only in how a model becomes a solver's and what their "no"
carries (Pumpkin's a DRCP proof, CPMpy's solvers nothing checkable).  The rest is one piece of
logic, written once here: the solve wrapped so that a stop ends one solve and not the backend
(:class:`~sigmar.encoders.processes.forked.Forked`), the board's counts and the model's empty
clause answered without a solver, the child's outcome turned into a :class:`Result`, and the
count of ``pairings`` (:func:`sigmar.encoders.order_model.count_pairings`, in the child).

CP-SAT's order formulation (:mod:`sigmar.encoders.cpsat.order`) is not built on this base: CP-SAT
releases the GIL and stops when asked, so it solves in the worker's own thread with no child to
fork, and it builds its formulation straight into OR-Tools' model (its optional intervals and
channelling are not the order model's clauses and linear constraints).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from sigmar.encoders.backend import Backend
from sigmar.encoders.order_model import OrderModel, build
from sigmar.encoders.processes.forked import Forked, count_in_child, time_left
from sigmar.models.board import Board
from sigmar.models.result import Certificate, Reason, Result, Status
from sigmar.models.rules import count_problem

EMPTY_CLAUSE = "the order model holds the empty clause: some tile can never be freed"

# What runs in the child: a function and its arguments.
Call = tuple[Callable[..., Any], tuple[Any, ...]]


class OrderModelBackend(Backend):
    """A backend whose solver takes the order model in a forked child that a stop or the time limit kills.

    A subclass says what runs in the child (:meth:`solve_call`, :meth:`count_call`) and what its "no"
    is (:meth:`refutation`); the child's solve returns ``(answer, values, stats)``, ``answer`` being
    "solved", "unsolvable" or a word for why it stopped short.
    """

    plays_quintessence = True
    count_notions = ("pairings",)

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        self._forked = Forked()

    # ------------------------------------------------------------------ what a subclass says

    def unusable(self) -> str:
        """Why this backend cannot solve here (answered as an error), or "" when it can."""
        return ""

    def scratch(self) -> contextlib.AbstractContextManager[str | None]:
        """A folder the child may write in for the length of one solve (None: it needs none)."""
        return contextlib.nullcontext(None)

    def solve_call(self, model: OrderModel, folder: str | None, limit: float | None) -> Call:
        raise NotImplementedError

    def count_call(self, model: OrderModel, limit: float | None) -> Call:
        raise NotImplementedError

    def refutation(self, model: OrderModel, folder: str | None, seconds: float, stats: dict[str, Any]) -> Result:
        raise NotImplementedError

    def empty_clause_certificate(self) -> Certificate | None:
        """The certificate of a model holding the empty clause (None: the "no" is a claim)."""
        return None

    def unknown(self, answer: str) -> str:
        """The message of an answer that is neither "solved" nor "unsolvable"."""
        return "time limit" if answer == "unknown" else answer

    # ------------------------------------------------------------------ the one logic

    def stop(self) -> None:
        self._forked.stop()

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        try:
            return self._solve(board, time_limit)
        finally:
            self._forked.reset()

    def _solve(self, board: Board, time_limit: float | None) -> Result:
        start = time.perf_counter()
        refuted = self.counts_refutation(board, start)
        if refuted is not None:
            return refuted
        unusable = self.unusable()
        if unusable:
            return Result(Status.ERROR, self.name, time.perf_counter() - start, message=unusable)
        model = build(board)
        if model.refuted:  # no solver needed (Pumpkin refuses a model with the empty clause)
            return Result(
                Status.UNSOLVABLE,
                self.name,
                time.perf_counter() - start,
                reason=Reason.PROOF,
                explanation=EMPTY_CLAUSE,
                certificate=self.empty_clause_certificate(),
            )
        with self.scratch() as folder:
            left = time_left(time_limit, start)
            function, args = self.solve_call(model, folder, left)
            outcome = self._forked.call(function, args, left)
            seconds = time.perf_counter() - start
            if outcome.stopped:
                return Result(Status.UNKNOWN, self.name, seconds, message="stopped")
            if outcome.timed_out:
                return Result(Status.UNKNOWN, self.name, seconds, message="time limit")
            if outcome.error:
                return Result(Status.ERROR, self.name, seconds, message=outcome.error)
            answer, values, stats = outcome.value
            stats = {"variables": len(model.variables), "constraints": len(model.constraints), **stats}
            if answer == "solved":
                return Result(Status.SOLVED, self.name, seconds, moves=model.decode(values), statistics=stats)
            if answer == "unsolvable":
                return self.refutation(model, folder, seconds, stats)
            return Result(Status.UNKNOWN, self.name, seconds, message=self.unknown(answer), statistics=stats)

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """The board's ``pairings``, each a solution of the order model blocked once found."""
        if of not in self.count_notions:
            raise ValueError(f"{self.name} counts {', '.join(self.count_notions)}, not {of}")
        try:
            start = time.perf_counter()
            if count_problem(board) is not None:
                return 0, True
            unusable = self.unusable()
            if unusable:
                raise RuntimeError(unusable)
            model = build(board)
            if model.refuted:
                return 0, True
            left = time_left(time_limit, start)
            function, args = self.count_call(model, left)
            return count_in_child(self._forked, function, args, left)
        finally:
            self._forked.reset()
