"""The ``minizinc`` backend: a readable MiniZinc model, on Gecode and Chuffed by default.

The models live next to this file (``sigmar_order.mzn``, ``sigmar_steps.mzn``);
the backend writes a board as MiniZinc data (:mod:`.data`), runs the model through the
``minizinc`` Python package (:mod:`.runs`) on the solvers found here (:mod:`.solvers`) and
turns the answer back into moves (:mod:`.decode`).

Names: ``minizinc:gecode`` (order model on Gecode), ``minizinc:gecode:steps``
(one move per step, the design card's timestep model), ``minizinc:chuffed``
(Chuffed, a solver that learns clauses), ``minizinc:gecode+chuffed`` (Gecode's
finding searches, then Chuffed to refute), and ``minizinc:NAME`` for any other
MiniZinc solver installed here.  ``minizinc`` alone is the first plan of
``DEFAULT_PLANS`` whose solvers are installed: ``gecode+chuffed``, measured
best (docs/minizinc.md), else Gecode alone.  Debian packages no Chuffed; where the
system's MiniZinc has none, Chuffed comes from the WebAssembly build of npm's
``minizinc`` package, run by ``minizinc_wasm.cjs`` (install.sh
installs it).

Solving runs asynchronously: at the time limit, on :meth:`stop` or on
KeyboardInterrupt the task is cancelled, and the ``minizinc`` package then
terminates the driver.  ``minizinc`` runs under a guard process
(:mod:`.driver`), which kills ``fzn-gecode`` and removes the run's
temporary files however ``minizinc`` or the worker above it ends.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.encoders.backend import Backend
from sigmar.encoders.minizinc.data import DEFAULT_VARIANT, FIND, IMPLIED, MODELS, STRATEGY_NAMES, VARIANTS, data_text
from sigmar.encoders.minizinc.decode import decode
from sigmar.encoders.minizinc.runs import list_solutions, run_once
from sigmar.encoders.minizinc.solvers import (
    DEFAULT_PLANS,
    PLANS,
    STAGES,
    Stage,
    default_plan,
    installed_solvers,
    plan_names,
    solver_label,
    version_text,
)
from sigmar.models.board import Board
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import count_problem


@dataclass(frozen=True)
class MinizincOptions:
    """``strategy``: force the search (1 finds, 2 refutes; default: all in turn); ``model``: another .mzn file;
    ``off``: implied constraints to switch off, a comma list of ``IMPLIED`` names (these three for measuring)."""

    strategy: int | None = None
    model: str | None = None
    off: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(self.switched_off() - set(IMPLIED))
        if unknown:
            valid = ", ".join(IMPLIED)
            raise ValueError(f"minizinc option off: no implied constraint {', '.join(unknown)} (valid: {valid})")

    def switched_off(self) -> frozenset[str]:
        """The implied constraints named in ``off``."""
        return frozenset(x.strip() for x in self.off.split(",") if x.strip())


class MinizincBackend(Backend):
    family = "minizinc"
    default_sub = DEFAULT_PLANS[-1]  # where nothing better is installed; default() chooses
    description = "MiniZinc model (round per tile; :steps for one move per step) on Gecode or another MiniZinc solver"
    encode_targets = ("mzn", "dzn")
    encode_variants = VARIANTS
    options_type = MinizincOptions
    plays_quintessence = True  # both models (the five-tile move of docs/formats.md#the-rules)

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        solver, variant = _parse_sub(self.sub or default_plan())
        self.solver_name = solver
        self.variant = variant
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stopped = False

    # ---- discovery

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import minizinc  # noqa: F401
        except ImportError:
            return False, "needs the Python package 'minizinc'"
        if shutil.which("minizinc") is None:
            return False, "the 'minizinc' executable is not on PATH"
        if not installed_solvers():
            return False, "no usable MiniZinc solver (fzn-gecode not found)"
        return True, ""

    @classmethod
    def version(cls) -> str:
        return version_text()

    @classmethod
    def default(cls) -> str:
        return default_plan()

    @classmethod
    def default_note(cls) -> str:
        best = DEFAULT_PLANS[0]
        missing = sorted({stage[0] for stage in PLANS[best]} - set(installed_solvers()))
        if not missing:
            return ""
        lacking = " and ".join(solver_label(name) for name in missing)
        return f"the best, {best}, needs {lacking}, not installed here; install.sh installs it"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        names = list(installed_solvers())
        plans = [name for name in plan_names() if name not in names]
        return tuple(names + plans + [f"{names[0]}:steps"] if names else names)

    # ---- encode

    def encode(self, board: Board, target: str) -> dict[str, str]:
        """``mzn``: the model with the board's data appended (runs alone); ``dzn``: the data only."""
        if target == "dzn":
            return {".dzn": data_text(board, self.variant)}
        if target == "mzn":
            model = MODELS[self.variant].read_text()
            return {".mzn": model + "\n% ---- the board, as data ----\n" + data_text(board, self.variant)}
        raise NotImplementedError(f"minizinc cannot encode to {target}")

    # ---- solve

    def stop(self) -> None:
        """Cancel the run once: a second cancel would interrupt the minizinc package while it waits
        for the killed solver, and the loop would close with the process unreaped (asyncio then
        prints "Event loop is closed" tracebacks at exit)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        refused = self.refusal(board)
        if refused is not None:
            return refused
        start = time.perf_counter()
        self._stopped = False
        refuted = self.counts_refutation(board, start)
        if refuted is not None:
            return refuted
        if not board.tiles:
            return Result(Status.SOLVED, self.name, time.perf_counter() - start)
        from sigmar.encoders.minizinc.driver import quiet_late_exits

        quiet_late_exits()
        try:
            outcome = asyncio.run(self._solve_async(board, time_limit, start))
        except asyncio.CancelledError:
            outcome = Result(Status.UNKNOWN, self.name, message="stopped")
        return outcome.with_(seconds=time.perf_counter() - start)

    # ---- count

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """All-solutions mode, each solution's projection kept once (docs/minizinc.md#counting).

        ``sequences``: the steps model, projected on its moves; ``pairings``: the order model (every
        move in the first round it is legal) without the symmetry breaking, which drops pairings,
        projected on the mates.  Gecode where it is installed, else the sub's solver.
        """
        self._stopped = False
        if count_problem(board) is not None:
            return 0, True
        if not board.tiles:
            return 1, True
        from sigmar.encoders.minizinc.driver import quiet_late_exits

        quiet_late_exits()
        seen: set[tuple[int, ...]] = set()
        try:
            solver = "gecode" if "gecode" in installed_solvers() else self._plan()[-1][0]
            complete = asyncio.run(self._running(list_solutions(board, of, solver, time_limit, seen)))
        except asyncio.CancelledError:
            complete = False
        return len(seen), bool(complete) and not self._stopped

    async def _running(self, work: Any) -> Any:
        """Await ``work`` as the task ``stop()`` cancels; the solver processes are reaped at the end."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            if self._stopped:
                work.close()
                raise asyncio.CancelledError
        try:
            return await work
        finally:
            from sigmar.encoders.minizinc.driver import reap_started

            await asyncio.shield(reap_started())
            with self._lock:
                self._loop = None
                self._task = None

    def _plan(self) -> list[Stage]:
        """The stages to run in turn: a plan of ``PLANS``, or Gecode's for any other solver.

        The option ``strategy=N`` runs one search alone (on a plan's last solver), and
        ``model=PATH`` another model file with the same data (both for measuring).
        """
        stages = PLANS.get(self.solver_name) or tuple((self.solver_name, *stage[1:]) for stage in STAGES)
        solver = stages[-1][0]
        forced = self.options.strategy
        if forced is not None:
            return [(solver, int(forced), float("inf"), 1.0)]
        if self.variant == "steps":
            return [(solver, FIND, float("inf"), 1.0)]
        return list(stages)

    async def _solve_async(self, board: Board, time_limit: float | None, start: float) -> Result:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
        try:
            stats: dict[str, Any] = {"runs": []}
            for solver, strategy, cap, share in self._plan():
                # A slice of Gecode's (cap) bounds its solving alone: MiniZinc's own limit also counts the
                # set-up and the flattening, which on a machine at load 24 ate whole slices, so every board
                # fell to Chuffed, which finds solutions slowly (the real game: nothing in 600 s).
                sliced = cap != float("inf") and solver == "gecode"
                if time_limit is None:
                    seconds = None if cap == float("inf") or sliced else cap
                else:
                    left = time_limit - (time.perf_counter() - start)
                    seconds = share * left if sliced else min(cap, share * left)
                    if seconds <= 0.01:
                        break
                solving = None if not sliced else cap if seconds is None else min(cap, seconds)
                model = Path(self.options.model or MODELS[self.variant])
                off = self.options.switched_off()
                status, solution, run_stats = await run_once(
                    board, solver, strategy, seconds, self.variant, model, off, solving=solving
                )
                name = STRATEGY_NAMES.get(strategy, str(strategy))
                stats["runs"].append({"solver": solver, "strategy": name, **run_stats})
                for key in ("nodes", "failures", "solveTime", "flatTime"):
                    if isinstance(run_stats.get(key), int | float):
                        stats[key] = stats.get(key, 0) + run_stats[key]
                if status == "solved":
                    moves = decode(board, self.variant, solution)
                    return Result(Status.SOLVED, self.name, moves=moves, statistics=stats)
                if status == "unsat":
                    return Result(
                        Status.UNSOLVABLE,
                        self.name,
                        reason=Reason.PROOF,
                        explanation=f"{solver_label(solver)} exhausted the MiniZinc model ({self.variant} "
                        "formulation) without finding a way to clear the board",
                        statistics=stats,
                    )
            return Result(Status.UNKNOWN, self.name, message="time limit", statistics=stats)
        except asyncio.CancelledError:
            # stop() cancels the task: an answer.  Anything else (Ctrl-C cancels
            # the main task of asyncio.run) must go on; the minizinc package has
            # already terminated the solver by then.
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
            raise
        finally:
            from sigmar.encoders.minizinc.driver import reap_started

            await asyncio.shield(reap_started())
            with self._lock:
                self._loop = None
                self._task = None


def _parse_sub(sub: str) -> tuple[str, str]:
    """``gecode`` -> (gecode, order); ``gecode:steps`` -> (gecode, steps); ``steps`` -> (gecode, steps)."""
    solver, _, variant = sub.partition(":")
    if solver in VARIANTS and not variant:
        return "gecode", solver
    variant = variant or DEFAULT_VARIANT
    if variant not in VARIANTS:
        raise ValueError(f"unknown MiniZinc model variant '{variant}' (choose from {', '.join(VARIANTS)})")
    return solver, variant
