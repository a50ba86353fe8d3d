"""One node of a cube-and-conquer split, worked where a worker runs it (:mod:`sigmar.runners.cubes`).

A node is the board's formula under a cube (a few literals, given to the
solver as unit clauses) together with the clauses its ancestors passed on.
The solver logs a DRUP proof and runs for at most ``budget`` conflicts:

- it refutes the node: the proof is the node's, and the node is a cube of the
  certificate;
- it runs out of budget: the node *splits*.  What it learnt is not thrown
  away: the clauses still alive at the end are passed on to both
  children (a child starts where its parent stopped), and the proof so far is
  the node's, deriving them.  The split variable is chosen among those the
  proof used most, by a lookahead: the one whose two values propagate most
  (the product of the literals each fixes), so that neither child is trivial;
- it finds an assignment: the board's solution, decoded here and replayed by the runner.

The proof is checked here, by the suite's own checker, right after the
solver: on a cluster the checks run on the workers, side by side, as the
solving does (docs/formats.md#cubes says what a node's proof must show).
"""

from __future__ import annotations

import hashlib
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.result import Move
from sigmar.runners.checking.cubes_check import premises
from sigmar.runners.checking.rup_check import CheckReport, check_proof, unflatten

# The longest clause a node passes on.  Passing on every clause still alive measured best: with only
# those of at most 10 literals the children redid more work (92k conflicts against 67k on side-8 deal
# 455, where the single proof takes 61k).
PASS_ON_MAX_LITERALS = 10_000
# How many of the variables its proof used most a node weighs by lookahead for its split.
LOOKAHEAD_CANDIDATES = 50


@dataclass(frozen=True)
class NodeJob:
    """What a worker needs for one node: the board (it encodes it once), the cube, its ancestors' clauses."""

    board: Board
    node: int
    cube: tuple[int, ...]
    passed_on: tuple[array, ...]  # the clauses each ancestor passed on, flat (each clause ended by 0)
    budget: int | None  # conflicts before the node splits; None: to the end
    prover: str


@dataclass(frozen=True)
class NodeDone:
    """A node's outcome: ``refuted``, ``split`` (with ``split`` and ``passes_on``) or ``solved`` (``moves``)."""

    node: int
    outcome: str
    job: str  # job_digest of the job answered: the runner takes no answer meant for another board or cube
    proof: str = ""
    passes_on: array = field(default_factory=lambda: array("i"))
    split: int | None = None
    moves: tuple[Move, ...] = ()
    check: CheckReport | None = None
    conflicts: int = 0
    solve_seconds: float = 0.0  # the solver, and for a split the choice of variable
    check_seconds: float = 0.0
    cpu_seconds: float = 0.0  # the worker's CPU for the whole node: encoding aside, solve, proof, check, split


_encoded: tuple[str, Any, array] | None = None  # the last board's (key, formula, flat clauses), kept across its nodes


def _formula(board: Board) -> tuple[Any, array]:
    """The board's default encoding (the formula of the certificate) and its clauses flat, made once per board."""
    global _encoded
    key = format_board(board, with_name=False)
    if _encoded is None or _encoded[0] != key:
        from sigmar.encoders.cnf import build_formula

        formula = build_formula(board)
        flat = array("i")
        for clause in formula.clauses:
            flat.extend(clause)
            flat.append(0)
        _encoded = (key, formula, flat)
    return _encoded[1], _encoded[2]


def job_digest(board: Board, node: int, cube: tuple[int, ...]) -> str:
    """What a node's answer must be about: this board, this node, this cube."""
    text = f"{format_board(board, with_name=False)}\n{node}\n{list(cube)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def work(job: NodeJob) -> NodeDone:
    """Solve, prove and check one node (in a worker's host process)."""
    from pysat.solvers import Solver

    from sigmar.encoders.cnf import proof_text

    formula, flat = _formula(job.board)
    cpu = time.process_time()
    base = premises(flat, job.cube, list(job.passed_on))
    start = time.perf_counter()
    with Solver(name=job.prover, bootstrap_with=formula.clauses, with_proof=True) as solver:
        for clauses in job.passed_on:
            solver.append_formula(unflatten(clauses))
        for literal in job.cube:
            solver.add_clause([literal])
        if job.budget is None:
            answer = solver.solve()
        else:
            solver.conf_budget(job.budget)
            answer = solver.solve_limited()
        conflicts = int((solver.accum_stats() or {}).get("conflicts", 0))
        assignment = solver.get_model() if answer else None
        lines = list(solver.get_proof() or []) if not answer else []
        alive: list[list[int]] = []
        split: int | None = None
        if answer is None:  # the split is chosen by the solver's own propagation, on all it has learnt
            alive, used = _alive_lemmas(lines)
            split = choose_split(solver, job.cube, used, formula.nv)
    solve_seconds = time.perf_counter() - start  # the choice of split included
    common: dict[str, Any] = {
        "job": job_digest(job.board, job.node, job.cube),
        "conflicts": conflicts,
        "solve_seconds": solve_seconds,
    }
    if answer:
        assert assignment is not None
        moves = tuple(formula.decode(assignment))
        return NodeDone(job.node, "solved", moves=moves, cpu_seconds=time.process_time() - cpu, **common)
    start = time.perf_counter()
    if answer is False:
        proof = proof_text(lines)
        report = check_proof(base, proof.encode(), formula.nv)
        return NodeDone(
            job.node,
            "refuted",
            proof=proof,
            check=report,
            check_seconds=time.perf_counter() - start,
            cpu_seconds=time.process_time() - cpu,
            **common,
        )
    proof = "".join(line.strip() + "\n" for line in lines if line.strip())
    passes_on = [clause for clause in alive if len(clause) <= PASS_ON_MAX_LITERALS]
    report = check_proof(base, proof.encode(), formula.nv, goals=passes_on)
    check_seconds = time.perf_counter() - start
    flat_on = array("i")
    for clause in passes_on:
        flat_on.extend(clause)
        flat_on.append(0)
    return NodeDone(
        job.node,
        "split",
        proof=proof,
        passes_on=flat_on,
        split=split,
        check=report,
        check_seconds=check_seconds,
        cpu_seconds=time.process_time() - cpu,
        **common,
    )


def _alive_lemmas(lines: list[str]) -> tuple[list[list[int]], Counter[int]]:
    """The proof's lemmas not deleted by its end, and how often each variable occurs in its lemmas."""
    alive: Counter[tuple[int, ...]] = Counter()
    used: Counter[int] = Counter()
    for line in lines:
        text = line.strip()
        if not text:
            continue
        deletion = text[0] == "d"
        literals = tuple(sorted(int(x) for x in (text[1:] if deletion else text).split()[:-1]))
        if deletion:
            if alive[literals] > 0:
                alive[literals] -= 1
            continue
        alive[literals] += 1
        used.update(abs(x) for x in literals)
    return [list(clause) for clause, count in alive.items() for _ in range(count)], used


def choose_split(solver: Any, cube: tuple[int, ...], used: Counter[int], variables: int) -> int:
    """The variable a node splits on: of those its proof used most, the one whose both values propagate most.

    ``solver`` is the node's, after its budget: its propagation knows every clause it learnt.
    A candidate one of whose values fails outright is passed over (that side is empty, and the
    other is the node again); so is one the solver has already fixed.
    """
    fixed = {abs(x) for x in cube}
    candidates = [v for v, _ in used.most_common() if v not in fixed][:LOOKAHEAD_CANDIDATES]
    if not candidates:  # a proof that used no free variable: any free one will do
        return min(set(range(1, variables + 1)) - fixed)
    best, best_score = candidates[0], -1
    assumptions = list(cube)
    _, implied = solver.propagate(assumptions=assumptions)
    base = len(implied or [])
    for v in candidates:
        free_true, with_true = solver.propagate(assumptions=[*assumptions, v])
        free_false, with_false = solver.propagate(assumptions=[*assumptions, -v])
        if not (free_true and free_false):
            continue
        gain_true, gain_false = len(with_true) - base, len(with_false) - base
        score = gain_true * gain_false + gain_true + gain_false
        if score > best_score:
            best, best_score = v, score
    return best
