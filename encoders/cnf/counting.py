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
runs in a forked child (:class:`~sigmar.encoders.processes.forked.Forked`) that
is killed at the limit (the count is then a lower bound of 0: nothing was counted).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from sigmar.encoders.cnf.formula import Formula
from sigmar.encoders.processes.forked import Forked
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


# A count is first tried by listing the projected models one SAT call each, each blocked once found, up to
# ENUMERATE_MODELS of them and for at most ENUMERATE_SECONDS: on small boards Ganak takes seconds where the
# listing takes milliseconds (390 sequences of an 8-tile board: 2.0-5.8 s against 0.05-0.07 s, load 9-12),
# which also put the tests' exact counts past their 30 s limit on a busy machine.  Past either bound the
# listing is dropped and Ganak counts from the start, so a large count costs at most the bound more.
ENUMERATE_MODELS = 1000
ENUMERATE_SECONDS = 0.2


def listed_count(clauses: list[list[int]], projection: list[int]) -> int | None:
    """Models of ``clauses`` projected on ``projection``, listed one by one; None past the bounds above."""
    from pysat.solvers import Solver

    found, until, top = 0, time.perf_counter() + ENUMERATE_SECONDS, max(projection)
    with Solver(name="cadical153", bootstrap_with=clauses) as sat:
        while sat.solve():
            found += 1
            if found > ENUMERATE_MODELS or time.perf_counter() > until:
                return None
            model = sat.get_model()
            if len(model) < top:
                return None  # a projected variable in no clause is free: Ganak counts it
            sat.add_clause([-model[var - 1] for var in projection])  # this projection, never again
    return found


def ganak_count(clauses: list[list[int]], projection: list[int], variables: int) -> int:
    """Models of ``clauses`` projected on ``projection`` (exact; a Python int of any size): listed where
    they are few (:func:`listed_count`), else counted by Ganak."""
    if any(not clause for clause in clauses):
        return 0
    if not projection:  # a single projected model, or none: a SAT question
        from pysat.solvers import Solver

        with Solver(name="glucose4", bootstrap_with=clauses) as sat:
            return 1 if sat.solve() else 0
    listed = listed_count(clauses, projection)
    if listed is not None:
        return listed
    from pyganak import Counter

    counter = Counter()
    if variables:
        counter.new_vars(variables)
    counter.add_clauses(clauses)
    counter.set_sampling_set(projection)
    return int(counter.count())


def _quiet_count(clauses: list[list[int]], projection: list[int], variables: int) -> int:
    """The count in the forked child, its standard output closed: Ganak prints progress lines ("c o ...")
    there, which is the runner's JSON when the count runs in the runner's own process."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    return ganak_count(clauses, projection, variables)


def count_in_child(forked: Forked, formula: Formula, projection: list[int], limit: float | None) -> int | None:
    """The projected count in a forked child (``forked``, whose ``stop()`` kills it); None when ``limit``
    passes or a stop killed the child.  A count that fails or dies otherwise raises RuntimeError with why."""
    outcome = forked.call(_quiet_count, (formula.clauses, projection, formula.nv), limit)
    if outcome.returned:
        return int(outcome.value)
    if outcome.error and not forked.stopped():
        raise RuntimeError(f"ganak failed: {outcome.error}")
    return None
