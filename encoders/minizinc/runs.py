"""One MiniZinc run of the model on a solver, and a count of its solutions: what the backend awaits.

``minizinc.Instance`` runs the compiler once just to learn the model's interface; that is done
once per model, solver and thread (:func:`base_instance`) and each board runs in a branch of it.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sigmar.encoders.minizinc.data import FIND, MODELS, data_text
from sigmar.encoders.minizinc.solvers import (
    GECODE_CONFIG,
    NOGOODS,
    from_wasm,
    has_presolver_library,
    installed_solvers,
)
from sigmar.models.board import Board
from sigmar.models.facts import facts_of

# Extra seconds allowed after MiniZinc's own time limit before Python cancels.
GRACE = 1.0
# Distinct solutions a count keeps before it stops with a lower bound.
COUNT_CAP = 2_000_000
# Seconds before the time limit at which a count asks MiniZinc to stop, and half of it to wait for MiniZinc
# to print its last solutions: the runner kills a worker half a second past the limit.
COUNT_MARGIN = 0.3


async def run_once(
    board: Board,
    solver: str,
    strategy: int,
    seconds: float | None,
    variant: str,
    model: Path,
    off: frozenset[str],
    solving: float | None = None,
) -> tuple[str, Any, dict[str, Any]]:
    """One MiniZinc run: ("solved", solution, stats), ("unsat", None, stats) or ("unknown", None, stats).

    ``seconds`` bounds the whole run (set-up, flattening, solving); ``solving`` the solver's own part."""
    setting_up = time.perf_counter()
    base = base_instance(solver, str(model), threading.get_ident())
    if seconds is not None:  # a solver's first run in this thread also pays for looking it up
        seconds -= time.perf_counter() - setting_up
    kwargs: dict[str, Any] = {}
    if seconds is not None:
        kwargs["time_limit"] = timedelta(seconds=max(seconds, 0.05))
    if solving is not None:
        kwargs["solver-time-limit"] = str(max(int(solving * 1000), 50))
    if strategy in NOGOODS and solver == "gecode":
        kwargs["fzn-flags"] = "-nogoods"

    from sigmar.encoders.minizinc.driver import NOTES

    notes: list[str] = []  # MiniZinc's warnings ("model inconsistency detected"): statistics, not stderr

    async def run() -> Any:
        NOTES.set(notes)  # this run's task only
        with base.branch() as child:
            with_data(base, child, data_text(board, variant, strategy, off))
            return await child.solve_async(**kwargs)

    try:
        if seconds is None:
            result = await run()
        else:
            result = await asyncio.wait_for(run(), timeout=seconds + GRACE)
    except TimeoutError:
        return "unknown", None, {"timeout": True} | ({"notes": notes} if notes else {})
    import minizinc

    stats = plain_stats(result.statistics) | ({"notes": notes} if notes else {})
    if result.status.has_solution():
        return "solved", result.solution, stats
    if result.status == minizinc.Status.UNSATISFIABLE:
        return "unsat", None, stats
    return "unknown", None, stats


async def list_solutions(
    board: Board, of: str, solver: str, time_limit: float | None, seen: set[tuple[int, ...]]
) -> bool:
    """Adds each solution's projection to ``seen``; True when the solver has listed them all.

    ``sequences``: the steps model, projected on its moves; ``pairings``: the order model (every move in
    the first round it is legal) without the symmetry breaking, which drops pairings, projected on the mates.
    """
    import minizinc

    variant = "steps" if of == "sequences" else "order"
    base = base_instance(solver, str(MODELS[variant]), threading.get_ident())
    kwargs: dict[str, Any] = {"all_solutions": True}
    if time_limit is not None:  # MiniZinc's own limit a little early: the partial count must reach the runner
        time_limit = max(time_limit - COUNT_MARGIN, 0.05)
        kwargs["time_limit"] = timedelta(seconds=time_limit)
    takes = facts_of(board).quintessence

    def projected(solution: Any) -> tuple[int, ...]:
        chosen = solution.move if variant == "steps" else solution.mate
        return (*map(int, chosen), *(int(t) for row in (solution.takes if takes else []) for t in row))

    async def listed() -> bool:
        with base.branch() as child:
            with_data(base, child, data_text(board, variant, FIND, frozenset({"symmetry"})))
            async for result in child.solutions(**kwargs):
                if result.solution is not None:
                    seen.add(projected(result.solution))
                    if len(seen) >= COUNT_CAP:
                        return False
                elif result.status in (minizinc.Status.ALL_SOLUTIONS, minizinc.Status.UNSATISFIABLE):
                    return True
        return False

    if time_limit is None:
        return await listed()
    try:
        return await asyncio.wait_for(listed(), timeout=time_limit + COUNT_MARGIN / 2)
    except TimeoutError:
        return False


@functools.cache
def base_instance(solver_name: str, model: str, thread: int) -> Any:
    """The model on its solver, analysed once per thread; each board runs in a branch of it.

    ``minizinc.Instance`` runs the compiler once just to learn the model's
    interface; doing that for every board would add about 0.15 s to each.
    One per thread because ``branch`` holds the parent's (threading) lock for
    the whole solve: shared, it would make a second thread wait, deaf to its
    own time limit.
    """
    import minizinc

    from sigmar.encoders.minizinc.driver import guarded_driver
    from sigmar.encoders.minizinc.wasm import WasmDriver

    warm = solver_name in from_wasm()
    driver = WasmDriver() if warm else guarded_driver(str(minizinc.default_driver.executable))
    if solver_name == "gecode" and has_presolver_library():
        solver = minizinc.Solver.load(GECODE_CONFIG)
    elif solver_name == "gecode":
        solver = minizinc.Solver.lookup("gecode")  # another MiniZinc build: its own Gecode config
    else:
        solver = minizinc.Solver.lookup(installed_solvers().get(solver_name, solver_name), driver=driver)
    if warm and "gecode" in installed_solvers():
        # The model's interface is the same on every solver; the native MiniZinc reads it in 0.15 s,
        # the WebAssembly one in about 1.2 s.  Made first, the native instance also gives the model
        # its output type, so making this one compiles nothing.
        native = base_instance("gecode", model, thread)
        instance = minizinc.Instance(solver, _model(model), driver)
        for cache in ("_method_cache", "_input_cache", "_output_cache", "_has_output_item_cache"):
            setattr(instance, cache, getattr(native, cache))
    else:
        instance = minizinc.Instance(solver, _model(model), driver)
        instance.analyse()
    return instance


@functools.cache
def _model(path: str) -> Any:
    """One ``minizinc.Model`` per file: the first instance made of it learns its output type, and the
    others (on another solver) then need not compile it to learn it again."""
    import minizinc

    return minizinc.Model(Path(path))


def with_data(base: Any, child: Any, data: str) -> None:
    """A branch of ``base`` with the board's data added, knowing what ``base`` knows of the model.

    ``Instance.branch`` copies neither the driver nor whether there is an output item (0.10), and
    ``add_string`` forgets the analysis, which the package would then redo for every board by
    compiling the model once more (0.15 s natively, more on the WebAssembly MiniZinc): data
    changes neither the model's method nor its output.
    """
    child._driver = base._driver
    if getattr(child, "_has_output_item_cache", None) is None and hasattr(base, "_has_output_item_cache"):
        child._has_output_item_cache = base._has_output_item_cache
    child.add_string(data)
    child._method_cache = base._method_cache


def plain_stats(statistics: dict[str, Any]) -> dict[str, Any]:
    """The solver's statistics as JSON-friendly numbers (timedeltas become seconds)."""
    out: dict[str, Any] = {}
    for key, value in statistics.items():
        if isinstance(value, timedelta):
            out[key] = value.total_seconds()
        elif isinstance(value, int | float | str | bool):
            out[key] = value
    return out
