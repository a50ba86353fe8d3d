"""Cube-and-conquer: one hard board's refutation split into cubes refuted side by side (``prove --cubes N``).

Why: the hardest refutations are global (no small part of the board is
unsolvable on its own), so one solver on one core is the limit.  Here the
board's formula is split into cubes, and the cubes go to many cores at once:
this machine's, or a Dask cluster's (:mod:`sigmar.runners.cubes.pools`).

How the split grows (each node is worked by :mod:`sigmar.runners.cubes.node`):
the root is the whole formula.  A node runs the prover for a budget of
conflicts; if it refutes its cube, the cube is done; if not, it splits on a
variable into two children that start from the clauses it learnt: the first
goes on in the node's own solver, kept warm on its worker (the pool sends it
there), the second starts a solver of its own with every clause passed on.  A node
less than log2(N) splits deep has a short budget (``probe`` conflicts), so
there are soon N cubes and work for every worker (fewer where a node is
refuted within its probe); a deeper one runs for ``budget`` conflicts before
it splits in turn, which bounds the largest task.  So N is the number of
cubes aimed at: fewer where a node (or one side of its split, tried first) is
refuted within its probe, more where a hard cube splits again.  The budgets go by depth, not
by what finished first, and a node goes on in its parent's solver only as its
first child (sent to the worker that keeps it), so a board's split (its cubes,
and each leaf's proof) is the same whatever the number of workers; a split
node's proof is made of its check's parts, which run as workers come free.

The answer is ``unsolvable`` with a ``cubes`` certificate (docs/formats.md#cubes)
once every leaf is refuted and every node's proof checked.  The checks are
tasks of the pool too, run after the solving that waits for a free worker (a
node's children do not wait for its check).  A leaf is checked once refuted; a
split once every node below it is, deriving only the clauses it passed on that
their checks rested on (in parts, each asked of a worker that is free: :class:`_Checks`),
and the certificate gives each node's
proof as the lemmas its check used and each split's clauses as those it
derived (so it holds what was checked, no more); here the runner checks that the
leaves cover every assignment, writes the files, and the answer is
``checked``.  A cube with an assignment gives the board's solution, replayed
by the rule engine like any other.
"""

from __future__ import annotations

import errno
import queue
import time
import uuid
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import Any, Protocol

from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.models.output_files import OutputError
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.runners.checking import fresh_formula
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.cubes_check import SplitNode, node_suffixes, render_split, shape
from sigmar.runners.checking.replay import replayed
from sigmar.runners.checking.rup_check import CheckReport, render_goals, unflatten
from sigmar.runners.cubes.node import CheckDone, CheckJob, NodeDone, NodeJob, check, job_digest, prepare, work
from sigmar.runners.cubes.pools import ClusterLost

DEFAULT_CUBES = 8
# The budgets, in conflicts (so a board's split is the same on any machine), measured in
# docs/measured/cubes.md and cubes-probe.md: shorter probes give the N cubes sooner, and a smaller
# budget bounds the largest task better, but every node more repeats work its siblings also do
# (a probe of 1,000 conflicts: the 13 deals' median 1.23x the single proof's conflicts and 2.2x its
# CPU; 5,000: 1.02x and 1.6x, fewer cubes where a probe refutes its node).
PROBE_CONFLICTS = 5_000  # a node's budget above depth log2(N)
CUBE_CONFLICTS = 10_000  # a deeper node's; past it, the cube splits again
# Each side of a split's variable, in the node's own solver before the split is made: a side refuted within
# them makes no cube of its own, the node goes on (runners/cubes/node.py _try_sides).  Measured alone on the
# 13 deals of docs/measured/cubes.md: 19 of their 36 cold children took 2-186 conflicts.
SIDE_CONFLICTS = 100


# Of the calls waiting for a worker, the lowest priority runs first: the solving, then the checks, the
# deepest node's first (check_priority).
SOLVE, CHECK = 0, 1_000


def check_priority(depth: int) -> int:
    """A node's check's priority: the deeper the node, the sooner.

    Why: a split's check waits for every check below it, so the checks left when the last cubes are
    refuted are a chain, shortest when the checks nearer its bottom go first.  Computed from the
    measured CPU times of deal 8:455's nodes and checks on 2 workers (the benchmark's list
    scheduling): 0.62x the single proof's CPU with the oldest check first, 0.59x with the deepest; the
    other twelve deals of docs/measured/cubes.md unchanged.
    """
    return max(SOLVE + 1, CHECK - depth)


# Why a worker's write failed: a full, read-only or forbidden disk is "cannot write", exit 2.
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG})


class Pool(Protocol):
    def submit(self, fn: Any, *args: Any, key: str = "", prefer: Any = None, priority: int = 0) -> Any: ...

    def where(self, future: Any) -> Any: ...

    def cancel(self) -> None: ...

    def describe(self) -> str: ...


@dataclass
class _Node:
    node: int
    cube: tuple[int, ...]
    parent: int | None
    passed_on: tuple[array, ...]
    budget: int | None
    submitted: float
    done: NodeDone | None = None
    finished: float = 0.0
    checked: CheckDone | None = None
    derived: int | None = None  # of a split, how many clauses it passes on its check derived (those used below)
    goals_text: str = ""  # those clauses, one a line (the split's lemmas file in the certificate)
    first: CheckDone | None = None  # of a split, the first part of its check (see _Checks), once done
    parting: bool = False  # that first part is being checked
    final_due: bool = False  # ... and the rest of the check waits for it
    goal_indexes: set[int] = field(default_factory=set)  # the clauses it passes on its checks were asked to derive
    goal_clauses: list[list[int]] = field(default_factory=list)  # those clauses, in the order asked


class CubeProver:
    """Splits each board it is given into about ``cubes`` cubes on ``pool``; certificates go to ``proofs``."""

    def __init__(
        self,
        pool: Pool,
        proofs: ProofStore,
        *,
        cubes: int = DEFAULT_CUBES,
        prover: str = "glucose42",
        probe: int = PROBE_CONFLICTS,
        budget: int | None = CUBE_CONFLICTS,
        sides: int = SIDE_CONFLICTS,
    ) -> None:
        self.pool, self.proofs, self.cubes, self.prover = pool, proofs, cubes, prover
        self.probe, self.budget, self.sides = probe, budget, sides
        self.backend = f"cnf:{prover}"
        self.nodes: list[dict[str, Any]] = []  # the last board's nodes, for the benchmark (see node_record)

    def prove(self, board: Board, time_limit: float | None) -> Result:
        """The board's answer: unsolvable with a checked ``cubes`` certificate, a verified solution, or unknown."""
        start = time.perf_counter()
        deadline = None if time_limit is None else start + time_limit
        finished: queue.SimpleQueue[tuple[int, str, Any]] = queue.SimpleQueue()
        run = uuid.uuid4().hex[:12]  # in every task key: no two boards' (or runs') nodes share one
        nodes: dict[int, _Node] = {}
        probing = max(1, (self.cubes - 1).bit_length())  # the depths that split after a probe: 2**probing >= N

        def submit(
            cube: tuple[int, ...],
            parent: int | None,
            passed_on: tuple[array, ...],
            where: Any = None,
            activities: array | None = None,
        ) -> None:
            number = len(nodes)
            budget = self.probe if len(cube) < probing else self.budget
            nodes[number] = _Node(number, cube, parent, passed_on, budget, time.perf_counter() - start)
            job = NodeJob(
                board,
                run,
                number,
                parent,
                cube,
                passed_on,
                budget,
                self.prover,
                where is not None,
                activities,
                self.sides,
            )
            future = self.pool.submit(work, job, key=f"{run}-{number}", prefer=where, priority=SOLVE)
            future.add_done_callback(lambda f, n=number: finished.put((n, "solve", f)))

        def send_check(node: _Node, goals: array | None, known: str, task: str) -> None:
            assert node.done is not None
            job = CheckJob(board, node.node, node.cube, node.passed_on, goals, node.done.proof, known)
            future = self.pool.submit(
                check, job, key=f"{run}-{node.node}-{task}", priority=check_priority(len(node.cube))
            )
            future.add_done_callback(lambda f, n=node.node: finished.put((n, task, f)))

        width = getattr(self.pool, "width", None)  # None: a pool that runs each call at once, here
        checks = _Checks(nodes, send_check, eager=width is None)
        submit((), None, ())
        running = 1
        self._encode(board, run, finished, width() if width is not None else 1)
        try:
            while running:
                if width is not None:  # a worker with nothing to do checks what the splits' checks can derive now
                    running += checks.spare(width() - running)
                wait = None if deadline is None else deadline - time.perf_counter()
                if wait is not None and wait <= 0:
                    self._still_there(board)
                    return self._unknown(board, start, nodes, "time limit")
                try:
                    number, task, future = finished.get(timeout=wait)
                except queue.Empty:
                    return self._unknown(board, start, nodes, "time limit")
                if task == "prepared":  # a worker has encoded the board: the runner's turn
                    fresh_formula.prepare(board)
                    continue
                running -= 1
                node = nodes[number]
                if task != "solve":
                    ended = self._checked(board, node, future, task == "part")
                    if ended is not None:
                        return self._end(ended, board, start, nodes)
                    running += checks.closed(node) if task == "check" else checks.part_done(node)
                    continue
                node.finished = time.perf_counter() - start
                ended = self._settle(board, node, future)
                if ended is not None:
                    return self._end(ended, board, start, nodes)
                assert node.done is not None
                if node.done.outcome == "split":
                    assert node.done.split is not None
                    passed_on = (*node.passed_on, node.done.passes_on)
                    where = getattr(self.pool, "where", lambda _: None)(future)
                    submit((*node.cube, node.done.split), number, passed_on, where)  # in the node's own solver
                    submit((*node.cube, -node.done.split), number, passed_on, activities=node.done.activities)
                    running += 2
                if node.done.outcome != "split":
                    running += checks.submit(node)
            return self._end(self._certificate(board, nodes), board, start, nodes)
        finally:
            if running:
                self.pool.cancel()
            fresh_formula.release(board)

    def _encode(self, board: Board, run: str, finished: queue.SimpleQueue[tuple[int, str, Any]], width: int) -> None:
        """The other workers encode the board while the root solves; the runner's own encoding (the certificate's
        NAME.cnf, and its check's) is asked once one of them is done (``prepared`` comes to ``finished``).

        Why not at once: beside the root's probe and the other worker's encoding it made three CPU-bound threads
        on 2 cores, and the root, on the path of every node below it, lost a share of that (chain10's trace,
        wave 10); the runner's encoding is wanted only at the end.
        """
        for slot in range(1, width):
            ready = self.pool.submit(prepare, board, key=f"{run}-prepare-{slot}", priority=SOLVE)
            ready.add_done_callback(lambda f: finished.put((-1, "prepared", f)))
        if width < 2:
            fresh_formula.prepare(board)  # no other worker: made meanwhile, beside the root

    def _still_there(self, board: Board) -> None:
        """ClusterLost when the pool's cluster is gone: a split that ran out of time there was not refused."""
        lost = getattr(self.pool, "lost", None)
        why = lost() if lost is not None else ""
        if why:
            raise ClusterLost(f"board {board.name}: {why}")

    def _settle(self, board: Board, node: _Node, future: Any) -> Result | None:
        """Take a node's answer (``node.done``); the board's answer when that ends the split, else None."""
        done = self._taken(board, node, future, "answer")
        if isinstance(done, Result):
            return done
        assert isinstance(done, NodeDone)
        node.done = done
        if done.outcome == "solved":
            return replayed(board, Result(Status.SOLVED, self.backend, moves=done.moves))
        return None

    def _checked(self, board: Board, node: _Node, future: Any, part: bool = False) -> Result | None:
        """Take a node's check (``node.checked``, with its first part if it had one) or a split's first part
        (``node.first``, ``part``); a wrong answer when it rejected the proof, else None."""
        done = self._taken(board, node, future, "check")
        if isinstance(done, Result):
            return done
        assert isinstance(done, CheckDone)
        if part:
            node.first = _joined(node.first, done)
        else:
            node.checked = _joined(node.first, done)
        if not done.report.valid:
            message = f"the proof of node {node.node} (cube {list(node.cube)}) was rejected: {done.report.message}"
            return Result(Status.UNKNOWN, self.backend, wrong=True, message=message)
        return None

    def _taken(self, board: Board, node: _Node, future: Any, what: str) -> Result | NodeDone | CheckDone:
        """A node's finished task (its ``what``: answer or check), or the answer that ends the split when the
        task failed or came back for another board or cube (the pool mixed up its tasks)."""
        failed = _failure(self.backend, node, future, "the check of " if what == "check" else "")
        if failed is not None:
            return failed
        done: NodeDone | CheckDone = future.result()
        if done.job != job_digest(board, node.node, node.cube):
            message = f"node {node.node}'s {what} is for another board or cube: the pool mixed up its tasks"
            return Result(Status.ERROR, self.backend, message=message)
        return done

    def _certificate(self, board: Board, nodes: dict[int, _Node]) -> Result:
        """Every leaf refuted: the tree checked for a gap, the files written, the answer.

        The nodes are numbered in the certificate level by level, the positive side first, so the
        files do not depend on which worker finished first.
        """
        in_order = sorted(nodes.values(), key=lambda n: (len(n.cube), tuple(x < 0 for x in n.cube)))
        split = [
            SplitNode(number, n.cube, n.done.split if n.done is not None and n.done.outcome == "split" else None)
            for number, n in enumerate(in_order)
        ]
        _, gap = shape(split)
        if gap is not None:  # the runner built the tree: a gap is a bug, and no certificate
            return Result(Status.UNKNOWN, self.backend, wrong=True, message=f"the split leaves a gap: {gap}")
        own = fresh_formula.fresh(board)
        texts = {".cubes": render_split(board.name, split), ".cnf": own.text, ".vars.json": own.sidecar}
        for number, n in enumerate(in_order):
            assert n.done is not None and n.checked is not None
            proof_suffix, lemmas_suffix = node_suffixes(number)
            texts[proof_suffix] = n.checked.core  # the lemmas checked: a proof from the clauses kept below
            if n.done.outcome == "split":
                texts[lemmas_suffix] = n.goals_text
        certificate = self.proofs.write(board, Certificate(CertificateKind.CUBES, texts=texts))
        checks = [n.checked for n in nodes.values() if n.checked is not None]
        cubes = sum(1 for n in split if n.split is None)
        return Result(
            Status.UNSOLVABLE,
            self.backend,
            reason=Reason.PROOF,
            explanation=f"the default CNF encoding is unsatisfiable under each of {cubes} cubes that together "
            f"cover every assignment ({self.prover}; each cube's proof checked)",
            certificate=certificate,
            checked=True,
            check_seconds=sum(c.seconds for c in checks),
        )

    def _unknown(self, board: Board, start: float, nodes: dict[int, _Node], why: str) -> Result:
        return self._end(Result(Status.UNKNOWN, self.backend, message=why), board, start, nodes)

    def _end(self, result: Result, board: Board, start: float, nodes: dict[int, _Node]) -> Result:
        """The answer with its wall time and the split's numbers; the nodes kept for the benchmark."""
        self.nodes = [node_record(n) for n in nodes.values()]
        done = [n.done for n in nodes.values() if n.done is not None]
        checks = [n.checked for n in nodes.values() if n.checked is not None]
        statistics = {
            "cubes": sum(1 for n in done if n.outcome != "split"),
            "nodes": len(nodes),
            "conflicts": sum(n.conflicts for n in done),
            "cpu_seconds": round(sum(n.cpu_seconds for n in done) + sum(c.cpu_seconds for c in checks), 3),
            "largest_node_seconds": round(max((_node_seconds(n) for n in nodes.values()), default=0.0), 3),
            "workers": self.pool.describe(),
        }
        return result.with_(seconds=time.perf_counter() - start, statistics={**result.statistics, **statistics})


class _Checks:
    """Which node's check is due, and what a split's check must derive.

    A split derives only the clauses it passed on that the checks below it rested on (each check names
    them, by ancestor), so its check waits for theirs.  It is made in parts: on a pool that runs calls side
    by side, a part whenever a worker is free and the checks below have used clauses no part derives yet
    (:meth:`spare`); on one that runs each call at once (``eager``), the first once one child's subtree is
    checked (it is then *closed*), deriving what the checks so far used.  The rest once both children's
    subtrees are, deriving what is left; each part is given the lemmas of those before it as clauses
    (they are checked).
    Why: the checks left when the last cubes are refuted are a chain, each split's waiting for the one
    below it; the first parts are made while the other subtree is still solved, so the chain's checks
    derive only what the last subtree added (list-scheduled from the measured CPU times of 8:212 on 2
    workers: 2.27 s -> 2.00 s, for 0.09 s more of the splits' checks' CPU; docs/measured/cubes-checks.md).
    The certificate gives the node's proof as each part's lemmas checked, in order: each follows from
    the clauses given and those before it.
    """

    def __init__(
        self, nodes: dict[int, _Node], send: Callable[[_Node, array | None, str, str], None], eager: bool = True
    ) -> None:
        self.nodes = nodes
        self.eager = eager  # the first part asked once one child's subtree is checked, else by spare
        self.send = send  # asks the pool for a check: (node, goals, the lemmas known, "check" or "part")
        self.needed: dict[int, set[int]] = {}  # per split node, the indexes of its clauses used below it
        self.shut: set[int] = set()

    def submit(self, node: _Node, part: bool = False) -> int:
        """A node's check (or a split's first ``part``) asked of the pool: how many calls that made (0 or 1).

        A leaf's is asked once it is refuted, a split's once every node below it is checked (the rest,
        once its first part is back); a split with nothing (more) to derive is closed at once."""
        done = node.done
        assert done is not None
        goals = None
        if done.outcome == "split":
            if not part and node.parting:  # the first part's end asks for the rest
                node.final_due = True
                return 0
            goals = self.goals_of(node)
            if not goals:
                if part:
                    return 0
                node.checked = node.first or CheckDone(node.node, "", _NOTHING_USED, 0.0, 0.0)
                return self.closed(node)
        known = node.first.core if node.first is not None else ""
        self.send(node, goals, known, "part" if part else "check")
        node.parting = part
        return 1

    def closed(self, node: _Node) -> int:
        """``node`` checked, with all below it: its parent's check, or (``eager``) the first part of it, asked if
        due."""
        parent = self.close(node)
        if parent is not None:
            return self.submit(parent)
        if not self.eager:  # parts go to idle workers (spare)
            return 0
        first = self.first_part_due(node)
        return self.submit(first, part=True) if first is not None else 0

    def part_done(self, node: _Node) -> int:
        """A split's first part checked: what it used is noted, and the rest asked if it waits."""
        assert node.first is not None
        node.parting = False
        self.note(node, node.first)
        return self.submit(node) if node.final_due else 0

    def goals_of(self, node: _Node) -> array:
        """The clauses the split's check (or part of it) must derive: those used below it so far that no part
        derives yet (kept on the node for the certificate)."""
        assert node.done is not None
        wanted = sorted(self.needed.get(node.node, set()) - node.goal_indexes)
        goals, clauses = _subset(node.done.passes_on, wanted)
        node.goal_indexes.update(wanted)
        node.goal_clauses.extend(clauses)
        node.derived, node.goals_text = len(node.goal_clauses), render_goals(node.goal_clauses).decode()
        return goals

    def note(self, node: _Node, done: CheckDone) -> None:
        """What a check (or part) of ``node`` used of its ancestors' clauses: those the ancestors derive."""
        for above, used in zip(_ancestors(self.nodes, node), done.used, strict=False):
            self.needed.setdefault(above.node, set()).update(used)

    def close(self, node: _Node) -> _Node | None:
        """The node is checked (so are all below it): what its check used is noted; its parent when the
        parent's check is due now."""
        assert node.checked is not None
        self.note(node, node.checked)
        self.shut.add(node.node)
        if node.parent is None:
            return None
        below = [n.node for n in self.nodes.values() if n.parent == node.parent]
        return self.nodes[node.parent] if len(below) == 2 and all(b in self.shut for b in below) else None

    def spare(self, free: int) -> int:
        """Parts of the splits' checks for ``free`` idle workers, the deepest split's first: how many were asked.

        A split takes a part when what the checks below it used has grown past what its parts derive so
        far, none of its parts is at work and its check is not yet due (then the rest is asked).  Why
        only for an idle worker, and not once one child's subtree is checked (``eager``): a part asked
        then waited behind the solving and the leaves' checks, and derived only what was known when it
        was asked, so the rest, on the chain of checks at the end, derived what came in meanwhile
        (8:455's node 1: 1.1 s of its check's 4.1 s in the first part at load 10, the rest after the
        last leaf's check); asked when a worker is free, a part derives all that is known then, and a
        split whose needs grow again takes another (each part is given the lemmas of those before it).
        """
        if free <= 0:
            return 0
        due = [n for n in self.nodes.values() if self._may_part(n)]
        asked = 0
        for node in sorted(due, key=lambda n: -len(n.cube))[:free]:
            asked += self.submit(node, part=True)
        return asked

    def _may_part(self, node: _Node) -> bool:
        if node.done is None or node.done.outcome != "split" or node.parting or node.node in self.shut:
            return False
        below = [n.node for n in self.nodes.values() if n.parent == node.node]
        if len(below) == 2 and all(b in self.shut for b in below):  # its check is due: the rest is asked
            return False
        return bool(self.needed.get(node.node, set()) - node.goal_indexes)

    def first_part_due(self, node: _Node) -> _Node | None:
        """The parent of ``node`` (just closed) when the first part of its check is due: its other child's
        subtree is still at work, and no part of its check was asked yet."""
        if node.parent is None:
            return None
        parent = self.nodes[node.parent]
        if parent.parting or parent.first is not None or parent.goal_indexes:
            return None
        return parent if self.needed.get(parent.node) else None


def _joined(first: CheckDone | None, rest: CheckDone) -> CheckDone:
    """A split's check from its two parts (``first`` None: it had one): both valid or the one that is not,
    their times added, the clauses used by either, the lemmas of the first then the rest's."""
    if first is None:
        return rest
    if not first.report.valid:
        return first
    used = tuple(array("i", sorted(set(a) | set(b))) for a, b in zip_longest(first.used, rest.used, fillvalue=()))
    report = replace(rest.report, checked=first.report.checked + rest.report.checked)
    return replace(
        rest,
        report=report,
        seconds=first.seconds + rest.seconds,
        cpu_seconds=first.cpu_seconds + rest.cpu_seconds,
        used=used,
        core=first.core + rest.core,
    )


# A split node none of whose clauses passed on was used by the checks below it: nothing to derive.
_NOTHING_USED = CheckReport(True, 0, 0, 0, 0.0, "no clause it passes on is used below it: nothing to derive")


def _subset(flat: array, indexes: list[int]) -> tuple[array, list[list[int]]]:
    """The clauses of ``flat`` (each ended by 0) at ``indexes``, flat and as lists (read by the C core's
    unflatten: a split passes on thousands, and its check waits for this at the end of the split)."""
    clauses = unflatten(flat)
    chosen = [clauses[i] for i in indexes]
    out = array("i")
    for clause in chosen:
        out.extend(clause)
        out.append(0)
    return out, chosen


def _ancestors(nodes: dict[int, _Node], node: _Node) -> list[_Node]:
    """The node's ancestors from the root down to its parent (the order of its ``passed_on``)."""
    chain = []
    parent = node.parent
    while parent is not None:
        chain.append(nodes[parent])
        parent = nodes[parent].parent
    return chain[::-1]


def _failure(backend: str, node: _Node, future: Any, what: str) -> Result | None:
    """The answer when a node's task (or its check, ``what``) raised: a write that failed is "cannot write"
    (raised: exit 2, not an answer), anything else an error."""
    if future.cancelled():
        return Result(Status.ERROR, backend, message=f"{what}node {node.node} of the split was cancelled")
    error = future.exception()
    if error is None:
        return None
    if isinstance(error, OutputError):
        raise error
    if isinstance(error, ClusterLost):  # a fault of the cluster is not an answer about the board
        raise ClusterLost(f"{what}node {node.node} of the split: {error}") from None
    if isinstance(error, OSError) and error.errno in _WRITE_ERRNOS:
        where = error.filename or "a worker's temporary folder"
        raise OutputError(f"cannot write {where}: {error.strerror or error}") from None
    if isinstance(error, SigmarError):
        raise error
    message = f"{what}node {node.node} of the split failed: {type(error).__name__}: {error}"
    return Result(Status.ERROR, backend, message=message)


def _node_seconds(node: _Node) -> float:
    """A node's solve and check, as timed where each ran."""
    solve = node.done.solve_seconds if node.done is not None else 0.0
    return solve + (node.checked.seconds if node.checked is not None else 0.0)


def node_record(node: _Node) -> dict[str, Any]:
    """One node as the benchmark reads it: where it hangs, what it did, how long it took."""
    done = node.done
    record: dict[str, Any] = {
        "node": node.node,
        "parent": node.parent,
        "depth": len(node.cube),
        "budget": node.budget,
        "submitted": round(node.submitted, 4),
        "finished": round(node.finished, 4) if done is not None else None,
        "outcome": done.outcome if done is not None else "unfinished",
    }
    if done is not None:
        checked = node.checked
        record |= {
            "conflicts": done.conflicts,
            "warm": done.warm,
            "went_on": done.went_on,
            "solve_seconds": round(done.solve_seconds, 4),
            "check_seconds": round(checked.seconds, 4) if checked is not None else None,
            "cpu_seconds": round(done.cpu_seconds, 4),
            "check_cpu_seconds": round(checked.cpu_seconds, 4) if checked is not None else None,
            "first_check_seconds": round(node.first.seconds, 4) if node.first is not None else None,
            "first_check_cpu_seconds": round(node.first.cpu_seconds, 4) if node.first is not None else None,
            "passed_on": done.passes_on.count(0),
            "derived": node.derived,
        }
    return record


class CubesEngine:
    """``prove --cubes N``'s engine: the counts first, then cube-and-conquer on the pool, then corroboration.

    It answers like :class:`sigmar.runners.prove.Prover` (``prove(board, time_limit) -> Proved``), and
    closes the pool (and the cluster client, if given) when done.
    """

    def __init__(
        self,
        pool: Any,
        proofs: ProofStore,
        *,
        cubes: int = DEFAULT_CUBES,
        prover: str = "glucose42",
        corroborate_limit: float | None = 5.0,
        client: Any = None,
    ) -> None:
        self.pool, self.client = pool, client
        self.splitter = CubeProver(pool, proofs, cubes=cubes, prover=prover)
        self.corroborate_limit = corroborate_limit

    def __enter__(self) -> CubesEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.pool.close()
        finally:
            if self.client is not None:
                self.client.close()

    def prove(self, board: Board, time_limit: float | None) -> Any:
        from sigmar.runners.checking.replay import counts_answer
        from sigmar.runners.prove import Proved, corroborated

        counted = counts_answer(board)
        if counted is not None:
            return Proved(counted)
        return corroborated(board, self.splitter.prove(board, time_limit), self.corroborate_limit)


def settle_unknowns(
    records: Iterator[dict[str, Any]], deals: Any, prover: CubeProver, time_limit: float | None
) -> Iterator[dict[str, Any]]:
    """A survey's answers as they come, each one the race left ``unknown`` settled by cube-and-conquer first.

    The board's ``seconds`` are the race's and the split's together; a split that settles nothing
    leaves the race's answer as it was.
    """
    from sigmar.runners.render.answer_json import result_json

    try:
        for record in records:
            if record.get("status") == "unknown" and isinstance(record.get("index"), int):
                index = record["index"]
                board = deals.board(index)
                result = prover.prove(board, time_limit)
                if result.status is not Status.UNKNOWN or result.wrong:
                    seconds = float(record.get("seconds", 0.0)) + result.seconds
                    extra = {"wrong": True} if result.wrong else {}
                    record = deals.tags(index) | result_json(board, result.with_(seconds=seconds), **extra)
                if not prover.proofs.kept:  # a side-8 certificate is tens of MB: none is kept for the whole survey
                    for path in prover.proofs.path.iterdir():
                        path.unlink(missing_ok=True)
            yield record
    finally:
        close = getattr(records, "close", None)
        if close is not None:
            close()
