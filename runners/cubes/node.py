"""One node of a cube-and-conquer split, worked where a worker runs it (:mod:`sigmar.runners.cubes.split`).

A node is the board's formula under a cube (a few literals, given to the
solver as unit clauses) together with the clauses its ancestors passed on.
The solver logs a DRUP proof (to memory: :mod:`sigmar.encoders.cnf.proof_log`)
and runs for at most ``budget`` conflicts:

- it refutes the node: the node's proof is the stretch of the log it wrote,
  ended by the empty clause, and the node is a cube of the certificate;
- it runs out of budget: the node *splits*.  What it learnt is not thrown
  away: the clauses still alive at the end are passed on to both children (a
  child starts where its parent stopped), and the proof stretch derives them.
  (With them go, as unit clauses, the literals the solver holds true at the
  top level whose clause it deleted once satisfied, :func:`_fixed`.)  The
  split variable is chosen among those the proof used most, by a lookahead:
  the one whose two values propagate most (the product of the literals each
  fixes), so that neither child is trivial;
- it finds an assignment: the board's solution, decoded here and replayed by the runner.

**Warm solvers.**  A worker keeps the solver of the node it split, and the
node's *first* child (its cube with the split variable true) goes on in that
solver, the split literal added as one more unit clause: no formula to load
again, no clauses to pass in, and every clause the solver still holds is the
formula's, a unit of the cube, or one an ancestor passed on, so the child's
proof checks against exactly what the certificate gives it
(docs/formats.md#cubes).  Why units and not assumptions (which would let one
solver serve every cube): under assumptions Glucose learns clauses that carry
the cube's literals and cannot simplify the formula by them; measured on
side-8 deal 455, the split took 88,000 conflicts that way against 77,000 with
units (docs/measured/cubes.md).  The second child starts a
solver of its own (the formula and every clause its ancestors passed on, and its parent's variable
activities, so that it does not learn again from nothing which variables matter: on side-8 deals 212
and 455 the split's conflicts fell from 0.93x and 1.15x the single proof's to 0.86x and 1.07x, and on
the other eleven deals of docs/measured/cubes.md they stayed as they were, in sum), so
which worker takes it changes nothing: the split (its cubes, and each leaf's proof)
is the same whatever the number of workers, as long as the first child reaches its
parent's worker (the pools send it there; elsewhere it starts afresh, and its
proof is another, as sound).

The proofs are checked by :func:`check`, a task of its own, so that a node's
children start while its proof is checked on another core.
"""

from __future__ import annotations

import atexit
import hashlib
import time
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.result import Move
from sigmar.runners.checking.cubes_check import premises
from sigmar.runners.checking.rup_check import CheckReport, check_proof, loaded_base, unflatten

_core: ModuleType | None
try:
    from sigmar.runners.checking import _drup as _core
except ImportError:  # not built: a node reads its proof in Python (_stretch_in_python)
    _core = None

# How many of the variables its proof used most a node weighs by lookahead for its split.
LOOKAHEAD_CANDIDATES = 50
# How many times a node whose budget ran out goes on instead of splitting, a side of its split refuted at
# once (_try_sides): once, so that a node's task stays within two budgets and the tries (the longest task
# stays bounded).
MAX_GOING_ON = 1
# A split is weak, and not made, when its best variable's score by lookahead (choose_split: the product of the
# literals its two values fix, plus their sum) is under (variables / WEAK_SPLIT) ** 2, i.e. the two sides fix
# fewer than a 150th of the board's variables (geometric mean): the node goes on instead, as when a side is
# refuted at once (within MAX_GOING_ON, and only where the sides are tried).  Why: where neither value of the
# best variable fixes much, each child repeats nearly all of what is left.  Counted on the 13 deals of
# docs/measured/cubes.md (checks aside, load-free): 8:338's root scored 2,379 (its sides fix 27 and 84 of 9,843
# variables; the bar 4,306) and split into 21,688 conflicts against the single proof's 16,818; going on, 13,503.
# Of the other first choices only 8:924's root is under the bar (3,199: 6,139 -> 6,229 conflicts, refuted alone
# either way); the others are over it by half again or more (side 7: 6,999 and more against a bar of 1,556;
# side 8: 6,419 and more against 4,300; 8:455's nodes 13,983 and more).
WEAK_SPLIT = 150


@dataclass(frozen=True)
class NodeJob:
    """What a worker needs for one node: the board (it encodes it once), the cube, its ancestors' clauses.

    ``warm``: the node may go on in the solver its parent left on this worker (the parent's first child).
    """

    board: Board
    run: str  # the split's token: a solver kept warm serves the run that made it only
    node: int
    parent: int | None
    cube: tuple[int, ...]
    passed_on: tuple[array, ...]  # the clauses each ancestor passed on, flat (each clause ended by 0)
    budget: int | None  # conflicts before the node splits; None: to the end
    prover: str
    warm: bool = False
    activities: array | None = None  # the parent's variable activities (a cold child starts from them)
    sides: int = 0  # conflicts for each side of the split before it is made (_try_sides); 0: none tried


@dataclass(frozen=True)
class NodeDone:
    """A node's outcome: ``refuted``, ``split`` (with ``split`` and ``passes_on``) or ``solved`` (``moves``)."""

    node: int
    outcome: str
    job: str  # job_digest of the job answered: the runner takes no answer meant for another board or cube
    proof: bytes = b""
    passes_on: array = field(default_factory=lambda: array("i"))
    split: int | None = None
    moves: tuple[Move, ...] = ()
    conflicts: int = 0
    solve_seconds: float = 0.0  # the solver, and for a split the choice of variable
    cpu_seconds: float = 0.0  # the worker's CPU for the node: solve, proof, split (its check is apart)
    warm: bool = False  # it went on in its parent's solver
    activities: array | None = None  # a split's variable activities at its end, for its cold child
    went_on: int = 0  # how many times its budget ran out and it went on, one side of its split refuted at once


@dataclass(frozen=True)
class CheckJob:
    """A node's proof to check against the formula, its cube and its ancestors' clauses (and its goals)."""

    board: Board
    node: int
    cube: tuple[int, ...]
    passed_on: tuple[array, ...]
    goals: array | None  # a split's clauses passed on, flat; None for a leaf (its proof must refute)
    proof: bytes
    known: str = ""  # lemmas of the proof already checked (a split's first part's core), given as clauses


@dataclass(frozen=True)
class CheckDone:
    """A node's check.  ``used``: for each ancestor's clauses passed on (``CheckJob.passed_on``, in order), the
    indexes of those the checked proof rested on (only those need the ancestor's own check derive);
    ``core``: the lemmas checked, the node's proof as the certificate gives it (see :func:`check`)."""

    node: int
    job: str
    report: CheckReport
    seconds: float
    cpu_seconds: float
    used: tuple[array, ...] = ()
    core: str = ""


_encoded: tuple[str, Any] | None = None  # the last board's (key, formula), kept across its nodes
_flat: tuple[str, array] | None = None  # its clauses flat, made at its first check


def _formula(board: Board) -> Any:
    """The board's default encoding (the formula of the certificate), made once per board."""
    global _encoded
    key = format_board(board, with_name=False)
    if _encoded is None or _encoded[0] != key:
        from sigmar.encoders.cnf import build_formula

        _encoded = (key, build_formula(board))
    return _encoded[1]


def _clauses_flat(board: Board) -> array:
    """The board's formula's clauses flat (each ended by 0), what the checks start from, made once per board.

    Not with the formula: the split's root solves first, and its worker's 40 ms of making this (side 8)
    were on the path of every node below it.  By the encoder's compiled writer where it was built, as the
    runner's own check encoding (fresh_formula) makes it.
    """
    global _flat
    key = format_board(board, with_name=False)
    if _flat is None or _flat[0] != key:
        from sigmar.encoders.cnf.formula import flat_clauses

        _flat = (key, flat_clauses(_formula(board).clauses))
    return _flat[1]


_base: tuple[str, Any] | None = None  # the last board's formula loaded by the C checker, kept across its checks


def _loaded(board: Board) -> Any:
    """The board's formula loaded by the C checker once, each node's check starting from a copy of it (None
    where the C checker cannot): some 15 ms of a side-8 check's loading, which most small nodes' proofs
    did not take to check."""
    global _base
    key = format_board(board, with_name=False)
    if _base is None or _base[0] != key:
        _base = None  # the last board's goes first
        _base = (key, loaded_base(_clauses_flat(board), _formula(board).nv))
    return _base[1]


def prepare(board: Board) -> None:
    """Encode the board, import the solver and load the formula for the checks here ahead of this worker's
    first node of it.

    Why: the split's root runs its probe alone; a worker that would otherwise wait for it encodes the
    board meanwhile (0.12 s of CPU on side 8) instead of when its first node comes, which on a split
    whose hard branch is the root's second child delays the whole chain by as much.
    """
    _formula(board)
    from pysat.solvers import Solver  # noqa: F401  (imported once a process; the first node's would wait for it)

    _loaded(board)


def job_digest(board: Board, node: int, cube: tuple[int, ...]) -> str:
    """What a node's answer must be about: this board, this node, this cube."""
    text = f"{format_board(board, with_name=False)}\n{node}\n{list(cube)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _Solver:
    """A solver of the board's formula under a cube with the clauses passed in, its proof logged to memory.

    A new solver takes the unit clauses first (its cube's literals, and those passed on), then the
    formula, then the other clauses passed on, and starts its log after them.  Why: Glucose drops a
    clause it is given that the literals fixed so far satisfy, without a word, but deletes one they
    satisfy once it holds it, and logs each such deletion; given the formula first and the cube after,
    a cold node's first solve wrote a line for every clause of the formula its cube satisfies (side-8
    deal 890: 0.8-3.2 MB of deletions, 35-110 ms of a node's 45-120 ms of solving for 3-118
    conflicts).  A clause shortened on the way in by a literal already false is not logged either:
    every clause the solver then holds follows by unit propagation from the formula, the cube and the
    clauses passed on, which is what the node's proof is checked against, so each lemma it logs is
    still one the check derives (:func:`check`).  The formula keeps its place before the clauses
    passed on (the solver's order of watches, so its search, stays closer to the single proof's).
    """

    def __init__(
        self, run: str, formula: Any, prover: str, passed_on: tuple[array, ...], cube: tuple[int, ...] = ()
    ) -> None:
        from pysat.solvers import Solver

        from sigmar.encoders.cnf.proof_log import ProofLog, clause_adder

        self.run, self.node = run, -1
        self.cube = cube  # the literals given as unit clauses so far
        self.sat = Solver(name=prover)
        try:
            add = clause_adder(self.sat, prover)
            units = [[literal] for literal in cube]
            rest: list[list[int]] = []
            for clauses in passed_on:
                for clause in unflatten(clauses):
                    (units if len(clause) == 1 else rest).append(clause)
            deque(map(add, units), maxlen=0)
            deque(map(add, formula.clauses), maxlen=0)
            deque(map(add, rest), maxlen=0)
            self.log = ProofLog(self.sat, prover)
        except BaseException:
            self.sat.delete()
            raise

    def close(self) -> None:
        self.sat.delete()
        self.log.close()


# The solvers of the nodes this worker split, each kept for its first child (which the pool sends here),
# oldest first.  A worker keeps a few: the child may come after another node the worker took meanwhile.
_kept: dict[tuple[str, int], _Solver] = {}
MAX_KEPT = 4


@atexit.register
def _drop_kept() -> None:
    """Delete the kept solvers while python-sat can still do it (not in the interpreter's last moments)."""
    while _kept:
        _kept.popitem()[1].close()


def _solver_for(job: NodeJob, formula: Any) -> tuple[_Solver, bool]:
    """The parent's solver when the job may go on in it and this worker has it; else a new one."""
    for key in [key for key in _kept if key[0] != job.run]:  # another split's: it is over
        _kept.pop(key).close()
    kept = _kept.pop((job.run, job.parent), None) if job.warm and job.parent is not None else None
    if kept is not None:
        return kept, True
    solver = _Solver(job.run, formula, job.prover, job.passed_on, job.cube)
    if job.activities is not None:  # scaled to at most 1: the child's own first bumps weigh as much
        top = max(job.activities, default=0.0) or 1.0
        solver.sat.set_activities({v: a / top for v, a in enumerate(job.activities, 1) if a})
    return solver, False


def _keep(solver: _Solver, node: int) -> None:
    while len(_kept) >= MAX_KEPT:
        _kept.pop(next(iter(_kept))).close()
    solver.node = node
    _kept[(solver.run, node)] = solver


def work(job: NodeJob) -> NodeDone:
    """Solve one node (in a worker's host process); its proof is checked by :func:`check`."""
    formula = _formula(job.board)
    cpu = time.process_time()
    start = time.perf_counter()
    solver: _Solver | None
    solver, warm = _solver_for(job, formula)
    try:
        sat = solver.sat
        before = int((sat.accum_stats() or {}).get("conflicts", 0))
        for literal in job.cube[len(solver.cube) :]:  # a solver kept for this child has its parent's already
            sat.add_clause([literal])
        solver.cube = job.cube
        if job.budget is None:
            answer = sat.solve()
        else:
            sat.conf_budget(job.budget)
            answer = sat.solve_limited()
        text = solver.log.read()
        split, going_on = 0, 0
        while answer is None:  # the budget ran out: split, unless a side is refuted at once or the split is weak
            split, score = choose_split(sat, job.cube, ranked(text, formula.nv), formula.nv)
            if going_on == MAX_GOING_ON or not job.sides:
                break
            if score >= (formula.nv / WEAK_SPLIT) ** 2:  # else a weak split, not made: the node goes on
                answer, refuted = _try_sides(sat, split, job.sides)
                text += solver.log.read()
                if answer is not None or not refuted:
                    break
            going_on += 1
            sat.conf_budget(job.budget or 0)
            answer = sat.solve_limited()
            text += solver.log.read()
        conflicts = int((sat.accum_stats() or {}).get("conflicts", 0)) - before
        common: dict[str, Any] = {"job": job_digest(job.board, job.node, job.cube), "conflicts": conflicts}
        if answer:
            moves = tuple(formula.decode(sat.get_model() or []))
            return NodeDone(job.node, "solved", moves=moves, warm=warm, **_timed(start, cpu), **common)
        proof, passes_on, _, deleted = stretch(text, formula.nv, split=answer is None)
        if answer is False:  # the cube's units, then a conflict
            return NodeDone(
                job.node, "refuted", proof=proof + b"0\n", warm=warm, went_on=going_on, **_timed(start, cpu), **common
            )
        activities = array("d", sat.get_activities(range(1, formula.nv + 1)).values())
        for literal in _fixed(sat, deleted):
            passes_on.extend((literal, 0))
        _keep(solver, job.node)  # for the first child
        solver = None
        return NodeDone(
            job.node,
            "split",
            proof=proof,
            passes_on=passes_on,
            split=split,
            activities=activities,
            warm=warm,
            went_on=going_on,
            **_timed(start, cpu),
            **common,
        )
    finally:
        if solver is not None:
            solver.close()


def _try_sides(sat: Any, split: int, conflicts: int) -> tuple[bool | None, bool]:
    """Each side of ``split`` given ``conflicts`` in the node's own solver, as an assumption: (True, _) when
    one has a model (the node's: the board's solution), (None, True) when one is refuted, else (None, False).

    Why: a side refuted in a few hundred conflicts is not worth a cube of its own (on side 8, a solver loaded
    with the formula and the clauses passed on, the split's look for its variable and fixed literals, two
    checks more: 100-200 ms of CPU, against 2-200 conflicts for the cold children of the small deals of
    docs/measured/cubes.md); refuted here, its literal is false at the top level (the solver found it so
    when it came to assume it), and the node goes on with the other side fixed, in the same solver.  The
    lemmas learnt meanwhile follow from the node's clauses (an assumption is a decision), so they are
    part of its proof, checked with it, and passed on when it splits after all.
    """
    for side in (-split, split):
        sat.conf_budget(conflicts)
        answer = sat.solve_limited(assumptions=[side])
        if answer is not None:
            return (True, False) if answer else (None, True)
    return None, False


def _timed(start: float, cpu: float) -> dict[str, Any]:
    return {"solve_seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu}


def stretch(text: bytes, variables: int, split: bool) -> tuple[bytes, array, list[int], list[int]]:
    """A node's proof stretch as the solver wrote it, and for a node that splits (``split``) what it
    passes on and weighs its split by:

    - its proof: its lines but the blank ones, the bare ``0`` ones, and the deletions that take off no
      clause it added (a premise's: the formula's, a cube unit's, an ancestor's);
    - the lemmas alive at its end, flat, each once (a clause is its set of literals), in the order each
      was first added, as first written;
    - the variables its lemmas name, the most often named first (ties: the first named first);
    - the literals of the deletions that took an alive copy off, each once (see :func:`_fixed`).

    Glucose writes ``0`` whenever a call ends unsatisfiable, under assumptions too, where no empty
    clause follows; a refuted node's proof gets its own ``0`` at the end.  A premise's deletion is left
    out because keeping a clause is sound, and Glucose's deletions of the formula's clauses satisfied
    once a cube's literals are fixed were most of a node's proof (side-8 deal 455: 3 MB for a node of 25
    conflicts), sent to the runner, to the check, and read there.  Read by the C checker's module when
    it is built (a tenth of a side-8 node's CPU in Python), else by :func:`_stretch_in_python`; the two
    give the same.
    """
    compiled = getattr(_core, "stretch", None)
    if compiled is None:
        return _stretch_in_python(text, split)
    proof, alive, ranked, deleted = compiled(text, variables, split)
    flat = array("i")
    if not split:
        return proof, flat, [], []
    flat.frombytes(alive)
    return proof, flat, _ints(ranked), _ints(deleted)


def ranked(text: bytes, variables: int) -> list[int]:
    """:func:`stretch`'s ranking alone (``stretch(text, variables, split=True)[2]``): what a node whose budget
    ran out weighs its split by, before its sides are tried.

    Why apart: the stretch itself is read once, at the node's end (the tries add to it); read for the ranking
    too, a split node's text was hashed and copied twice.  The compiled pass parses the lines and keeps nothing
    else: 3-5 ms against 12-23 ms for the whole stretch on side-8 nodes' 0.9-1.7 MB (load 19).
    """
    compiled = getattr(_core, "ranked", None)
    if compiled is None:
        return stretch(text, variables, split=True)[2]
    return _ints(compiled(text, variables))


def _ints(data: bytes) -> list[int]:
    values = array("i")
    values.frombytes(data)
    return values.tolist()


def _stretch_in_python(text: bytes, split: bool) -> tuple[bytes, array, list[int], list[int]]:
    """:func:`stretch` in Python, line by line."""
    kept: list[bytes] = []
    alive: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}  # the clause -> ([alive copies], first written)
    used: Counter[int] = Counter()
    deleted: dict[int, None] = {}
    for line in (raw.strip() for raw in text.split(b"\n")):
        if not line or line == b"0":
            continue
        deletion = line[:1] == b"d"
        literals = list(map(int, (line[1:] if deletion else line).split()[:-1]))
        key = tuple(sorted(literals))
        if deletion:
            copies = alive.get(key)
            if copies is not None and copies[0][0] > 0:
                copies[0][0] -= 1
                deleted.update(dict.fromkeys(literals))
                kept.append(line)
            continue
        kept.append(line)
        alive.setdefault(key, ([0], literals))[0][0] += 1
        used.update(abs(x) for x in literals)
    proof = b"".join(line + b"\n" for line in kept)
    flat = array("i")
    if not split:
        return proof, flat, [], []
    for (count,), literals in alive.values():
        if count > 0:
            flat.extend(literals)
            flat.append(0)
    return proof, flat, [v for v, _ in used.most_common()], list(deleted)


def _fixed(sat: Any, literals: list[int]) -> list[int]:
    """Those of ``literals`` the solver holds true at the top level (the unit clauses to pass on with the rest).

    Why: Glucose deletes a clause once it is satisfied at the top level, the one that fixed a literal
    there included, and keeps the literal; a checker keeps such a clause (deleting the reason of a fixed
    literal is ignored, as drat-trim does), but the clauses alive at the end no longer say it.  The
    node's first child goes on in this solver, which knows the literal, so it is passed on as a unit.
    A literal is fixed true when assuming its negation fails at once, with nothing propagated.
    (One look a variable, assuming it, costs more: on side 8 a variable's positive literal propagates
    more than the deleted lemmas' literals do negated.)
    """
    fixed = []
    for literal in sorted(literals, key=abs):
        free, implied = sat.propagate(assumptions=[-literal])
        if not free and not implied:
            fixed.append(literal)
    return fixed


def check(job: CheckJob) -> CheckDone:
    """Check one node's proof (in a worker's host process): a leaf's must refute, a split's derive its goals.

    What the check names comes back with it: the clauses passed on that the proof rested on (so each
    ancestor derives only those, :mod:`.split`), and the lemmas it checked, with no deletion, as the
    node's proof in the certificate: each follows from the clauses given that the check found it rests
    on and the lemmas before it, as it did from more, so the certificate's check needs no more.
    """
    formula = _formula(job.board)
    cpu = time.process_time()
    start = time.perf_counter()
    loaded = _loaded(job.board)
    given = premises(array("i") if loaded is not None else _clauses_flat(job.board), job.cube, list(job.passed_on))
    if job.known:  # checked by the first part of this split's check: what it rested on is named by that part
        given.extend(_lemma_clauses(job.known, formula.nv))
    goals = None if job.goals is None else unflatten(job.goals)
    report = check_proof(given, job.proof, formula.nv, goals=goals, used=True, base=loaded)
    return CheckDone(
        job.node,
        job_digest(job.board, job.node, job.cube),
        replace(report, used=None, core=None),
        time.perf_counter() - start,
        time.process_time() - cpu,
        _used_by_set(report.used, len(formula.clauses) + len(job.cube), job.passed_on),
        (report.core or b"").decode(),
    )


def _lemma_clauses(text: str, variables: int) -> array:
    """Lemma lines (a check's core: no deletion) as flat clauses, each ended by 0.

    By the C checker's module where it is built: read by ``int`` a token, a side-8 split's first part's
    lemmas took 5-15 ms of the rest of its check, the split's last check (chain10's note, wave 10).
    """
    compiled = getattr(_core, "lemmas", None)
    if compiled is None:
        return array("i", map(int, text.split()))
    flat = array("i")
    flat.frombytes(compiled(text.encode(), variables))
    return flat


def _used_by_set(used: array | None, before: int, passed_on: tuple[array, ...]) -> tuple[array, ...]:
    """The indexes ``used`` (of the premises: ``before`` clauses, then each set of ``passed_on``) per set."""
    out = tuple(array("i") for _ in passed_on)
    if used is None or not passed_on:
        return out
    ends, total = [], before
    for clauses in passed_on:
        total += clauses.count(0)
        ends.append(total)
    # ascending: the formula's and the cube's skipped at once, and any given after the ancestors' (CheckJob.known)
    for index in used[bisect_left(used, before) : bisect_left(used, total)]:
        k = bisect_right(ends, index)
        out[k].append(index - (ends[k - 1] if k else before))
    return out


def choose_split(solver: Any, cube: tuple[int, ...], ranked: list[int], variables: int) -> tuple[int, int]:
    """The variable a node splits on: of those its proof used most (``ranked``: most first), the one whose
    both values propagate most; with its score (-1 where no candidate's two values both hold; see WEAK_SPLIT).

    ``solver`` is the node's, after its budget: its propagation knows every clause it learnt.
    A candidate one of whose values fails outright is passed over (that side is empty, and the
    other is the node again); so is one the solver has already fixed.
    """
    fixed = {abs(x) for x in cube}
    candidates = [v for v in ranked if v not in fixed][:LOOKAHEAD_CANDIDATES]
    if not candidates:  # a proof that used no free variable: any free one will do
        return min(set(range(1, variables + 1)) - fixed), -1
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
    return best, best_score
