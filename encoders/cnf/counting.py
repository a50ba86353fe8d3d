"""``cnf`` counts by projected model counting of its own CNF (Ganak, through ``pyganak``).

Each notion is counted on a formula whose models, projected on a set of its
variables, are that notion's objects one to one (docs/cnf.md#counting):

- ``sequences``: the ``steps`` variant (one move per step), projected on the
  leave steps and mates; the thesis's encoding, projected on its
  ``pair(i, j, t)`` variables.  The default encoding's own models are parallel
  plans (several moves a step), so it counts sequences through ``steps``.
- ``pairings``: our encodings projected on the ``mate`` and ``takes``
  variables (who leaves with whom).  Every pairing that some order clears has
  a sequential plan, which fits the horizon, so each such pairing is the
  projection of at least one model, and every model's pairing is cleared by
  its steps.  The thesis's: a variable per pair of tiles, true exactly when
  the pair is played at some move, added for the count and projected on.

Ganak has no time limit of its own and does not listen to interrupts, so it
runs in a child process that is killed at the limit (the count is then a
lower bound of 0: nothing was counted).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import Any

from sigmar.encoders.cnf.formula import Formula
from sigmar.encoders.processes import guard
from sigmar.models.board import Board


def counting_formula(
    board: Board, variant: str, notion: str, build: Callable[..., Formula]
) -> tuple[Formula, list[int]]:
    """The formula that counts ``notion`` for ``variant`` and the variables to project on.

    ``build(board, variant)`` builds an encoding (``build_formula`` with the backend's options).
    """
    if notion == "sequences":
        formula = build(board, "steps" if variant == "default" else variant)
        return formula, list(formula.projection)
    formula = build(board, variant)
    if variant.startswith("thesis"):
        return formula, pairs_played(formula)
    chosen = [var for obj, var in formula.pool.obj2id.items() if isinstance(obj, tuple) and obj[0] in ("mate", "takes")]
    return formula, sorted(chosen)


def pairs_played(formula: Formula) -> list[int]:
    """For the thesis's encoding: one new variable per pair of tiles, true exactly when some move plays it."""
    moves: dict[tuple[int, int], list[int]] = {}
    for obj, var in formula.pool.obj2id.items():
        if isinstance(obj, tuple) and obj[0] == "pair":
            moves.setdefault((obj[1], obj[2]), []).append(var)
    played = []
    for pair, at in sorted(moves.items()):
        var = formula.pool.id(("played", *pair))
        formula.clauses.append([-var, *at])
        formula.clauses.extend([[-t, var] for t in at])
        played.append(var)
    return played


def ganak_count(clauses: list[list[int]], projection: list[int], variables: int) -> int:
    """Models of ``clauses`` projected on ``projection`` (exact; a Python int of any size)."""
    if any(not clause for clause in clauses):
        return 0
    if not projection:  # a single projected model, or none: a SAT question
        from pysat.solvers import Solver

        with Solver(name="glucose4", bootstrap_with=clauses) as sat:
            return 1 if sat.solve() else 0
    from pyganak import Counter

    counter = Counter()
    if variables:
        counter.new_vars(variables)
    counter.add_clauses(clauses)
    counter.set_sampling_set(projection)
    return int(counter.count())


def _count_in_child(args: tuple[list[list[int]], list[int], int], conn: Any, parent: int) -> None:
    """Child-process body: one count; it dies with the worker that forked it."""
    guard.die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # Ganak prints progress lines ("c o ...") on standard output, which is the runner's JSON
    try:
        conn.send(("counted", ganak_count(*args)))
    except Exception as exc:  # reported by the parent as an error answer
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


def count_in_child(
    formula: Formula,
    projection: list[int],
    limit: float | None,
    started: Callable[[Any], None],
    stopped: Callable[[], bool],
) -> int | None:
    """The projected count in a forked child; None when ``limit`` passes or ``stop()`` killed the child.

    ``started(process)`` hands the child to the backend, whose ``stop()`` kills it (and then
    ``stopped()`` says so).  A child that fails or dies otherwise raises RuntimeError with why.
    """
    ctx: Any = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    receive, send = ctx.Pipe(duplex=False)
    payload = (formula.clauses, projection, formula.nv)
    process = ctx.Process(target=_count_in_child, args=(payload, send, os.getpid()), daemon=True)
    process.start()
    send.close()
    started(process)
    try:
        if stopped() or not receive.poll(limit):
            return None
        kind, value = receive.recv()
    except EOFError:  # killed by stop(), or crashed
        if stopped():
            return None
        process.join(1)
        raise RuntimeError(f"the counting process died (exit status {process.exitcode})") from None
    finally:
        started(None)
        if process.is_alive():
            process.kill()
        process.join(1)
        receive.close()
    if kind == "error":
        raise RuntimeError(f"ganak failed: {value}")
    return int(value)
