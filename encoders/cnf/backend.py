"""The ``cnf`` backend: hand-written CNF encodings solved by python-sat (or an external solver).

Names (docs/formats.md#backend-names): ``cnf`` is our default encoding on ``DEFAULT_SOLVER``, the
proof-logging solver measured fastest at solve, proof and check together
(``cnf:glucose42``; docs/cnf.md).  The sub-name is ``[VARIANT+]SOLVER`` or ``VARIANT``:

- ``cnf:glucose4``, ``cnf:cadical195``: the default encoding on that python-sat solver;
- ``cnf:thesis``: the Leiden thesis's encoding (section 6.3) on glucose4;
- ``cnf:thesis+cadical195``: the thesis's encoding on CaDiCaL 1.9.5;
- ``cnf:steps``: our encoding with one move per step (a classic timestep encoding);
- ``cnf:external``, ``cnf:thesis+external``: an external DIMACS solver, the command
  taken from ``$SIGMAR_SAT_CMD`` (or ``CnfBackend(sub, sat_cmd="kissat")``).  In the
  command ``{cnf}`` stands for the formula's path (appended when the command has no
  ``{cnf}``) and ``{proof}`` for the path where the solver writes its DRAT/DRUP proof
  (``cadical -q {cnf} {proof}``): with ``{proof}`` its "no" comes with a ``drup``
  certificate (binary DRAT is read too, :mod:`sigmar.models.drat_binary`), without it the
  "no" is a claim.

Encoding variants: ``default`` (ours, :mod:`.default`), ``steps`` (the
same with one move per step, a classic timestep encoding kept for comparison), ``thesis``
(:mod:`.thesis`, with one repaired horizon), ``thesis-literal`` (the
thesis exactly as printed, which is unsatisfiable on every board with gold;
kept to show why the repair is needed).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sigmar.encoders.backend import Backend
from sigmar.encoders.cnf.external import EXTERNAL, PROOF_PLACEHOLDER, SAT_CMD_ENV, solve_external
from sigmar.encoders.cnf.formula import Formula
from sigmar.encoders.cnf.variants import OUR_VARIANTS, VARIANTS, build_formula
from sigmar.encoders.processes import guard
from sigmar.encoders.processes.forked import Forked
from sigmar.models.board import Board
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.tiles import QUINTESSENCE

# What ``cnf`` alone means: the proof-logging solver that scripts/bench/sat_provers.py measures
# fastest on hard refutations, solve + proof text + check (docs/cnf.md, "The default prover").
DEFAULT_SOLVER = "glucose42"
# The solver of a variant named alone (``cnf:steps``, ``cnf:thesis``): Glucose 4.1, as these names
# have always meant; the default's measurement was of the default encoding only.
VARIANT_SOLVER = "glucose4"
DEFAULT_CARD = "seqcounter"  # the cardinality encoding the certificate checker re-encodes with
# Solvers whose native code ignores interrupt(): run them in a child process we can kill.
UNINTERRUPTIBLE = ("cadical", "kissat", "lingeling")
# The python-sat solvers offered as names (any other works through build_formula);
# the listing stays short enough for `sigmar backends`.
LISTED_SOLVERS = (
    "glucose4",
    "glucose42",
    "cadical195",
    "cadical153",
    "kissat404",
    "minisat22",
    "maplechrono",
    "lingeling",
)


def _pysat_solvers() -> tuple[str, ...]:
    from pysat.solvers import SolverNames

    return tuple(name for name in vars(SolverNames) if not name.startswith("_"))


def split_sub(sub: str | None) -> tuple[str, str]:
    """(variant, solver) from a sub-name such as ``thesis+cadical195``, ``cadical195``, ``thesis`` or ``default``."""
    if not sub:
        return "default", DEFAULT_SOLVER
    variant, plus, solver = sub.partition("+")
    if plus:
        return variant, solver
    if sub == "default":
        return sub, DEFAULT_SOLVER
    if sub in VARIANTS:
        return sub, VARIANT_SOLVER
    return "default", sub


def _solve_in_child(clauses: list[list[int]], solver: str) -> tuple[bool, list[int] | None, dict[str, Any]]:
    """The solve of a solver that cannot be interrupted, in a forked child (:class:`Forked`)."""
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=clauses) as sat:
        ok = bool(sat.solve())
        return ok, sat.get_model() if ok else None, _stats(sat)


def _prove_in_child(
    clauses: list[list[int]], solver: str, options: dict[str, int] | None = None
) -> tuple[bool, list[int] | None, dict[str, Any], str | None]:
    """The partner's solve in a forked child (:class:`Partner`): its answer, model, counters and DRUP proof.
    ``options`` are set before the clauses are added (CaDiCaL takes some only then)."""
    from pysat.solvers import Solver

    with Solver(name=solver, with_proof=True) as sat:
        if options:
            sat.configure(options)
        sat.append_formula(clauses)
        ok = bool(sat.solve())
        proof = None if ok else proof_text(list(sat.get_proof() or []))
        return ok, sat.get_model() if ok else None, _stats(sat), proof


class Partner:
    """The proof-logging solver of large formulas, in a forked child: alone, or beside Glucose in this
    process (``GLUCOSE_BESIDE``; then the first answer wins: the partner's interrupts Glucose, Glucose's
    stops the partner).

    Why: on dense side-10 deals (1.2 million clauses) Glucose found no solution of dense-10-s1-24 in
    120 s, CaDiCaL one in 4-6 s, and configured as below CaDiCaL refutes about as fast as Glucose
    (24 of the 26 side-10 refutations tried; 206 and 297 4-5 s slower).
    Only formulas of at least ``PARTNER_FROM_CLAUSES`` clauses get one: a smaller board is settled
    before a fork and a second copy of the clauses pay.
    """

    SOLVER = "cadical153"
    # CaDiCaL's own "sat" configuration (its --sat: stabilizing phases only, less elimination and
    # subsumption): Glucose beside it refutes most of these boards, and the partner is there for the
    # solvable ones that Glucose does not find.  Solve CPU on the dense side-10 deals (python-sat,
    # with the proof logged, docs/measured/side10-300.md): deal 257 3.4-8.9 s over four seeds against
    # 26.7 s for CaDiCaL 1.5.3 unconfigured and 13.8-29.4 s for 1.9.5 (31.6 s in the race's old
    # partner); deal 72, which no SAT solver found in 150 s, 16 s.
    OPTIONS = {"stabilizeonly": 1, "elimreleff": 10, "subsumereleff": 60}

    def __init__(self, forked: Forked, clauses: list[list[int]], limit: float | None) -> None:
        """``limit``: the partner's own seconds, those a "yes" still has (it needs no check after it)."""
        self.forked, self.clauses, self.limit = forked, clauses, limit
        self.outcome: Any = None
        self._thread = threading.Thread(target=self._run, name="sigmar-cnf-partner", daemon=True)
        self._interrupt: Any = None

    def start(self, interrupt: Any) -> None:
        """Start the child; ``interrupt()`` is called once it has an answer (it stops Glucose)."""
        self._interrupt = interrupt
        self._thread.start()

    def _run(self) -> None:
        outcome = self.forked.call(_prove_in_child, (self.clauses, self.SOLVER, self.OPTIONS), self.limit)
        self.outcome = outcome
        if outcome.returned:
            self._interrupt()

    def answer(self) -> tuple[bool, list[int] | None, dict[str, Any], str | None] | None:
        """The partner's answer once it has one (after :meth:`finish`), else None."""
        outcome = self.outcome
        return outcome.value if outcome is not None and outcome.returned else None

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the child's answer, or for its limit or a stop to end it (or ``timeout`` seconds)."""
        if self._thread.ident is not None:
            self._thread.join(timeout)

    def finish(self) -> None:
        """Stop the child if it still runs, and wait for its thread (if it was started: a stop may come first)."""
        if self._thread.ident is None:
            return
        if self._thread.is_alive():
            self.forked.stop()
        self._thread.join()
        self.forked.reset()


# Glucose beside the partner on large formulas, each with a core of its own on 2 cores.  False: Glucose first
# for GLUCOSE_FIRST_CONFLICTS conflicts (0: not at all), then the partner alone, so that in the race the
# search's copy and the partner each have a core.  Beside the search in the race
# (issue 49, load 11-15, one run each): the two boards the 300-deal run left unknown were answered alone and
# not beside (257 solved in 56.9 s, 206 refuted in 45.6 s, checked; unknown at 60 s beside), search's 72 in
# 14.6 s against 21.3; Glucose's quick refutations took 2-4 s more alone (9: 12.4 against 10.7 s, 261:
# 15.8 against 11.4, 40: 17.3 against 14.1, 149: 10.6 against 6.6).
GLUCOSE_BESIDE = False
# The quick refutations of the 300 dense side-10 deals take Glucose 272-1,579 conflicts (0.6-0.9 s of CPU
# with the formula's load); on one of them (297) the partner needs 10,367 (5.9 s; 30.0 s against 9.4 in the
# race at load 9).  A board past this budget is a hard one, the partner's.
GLUCOSE_FIRST_CONFLICTS = 3000

# Formulas from this many clauses up get a Partner (dense side-9 and side-10 deals; side 8: about 160,000 at most).
PARTNER_FROM_CLAUSES = 500_000


def _stats(sat: Any) -> dict[str, Any]:
    """The solver's counters; some (Kissat) expose none."""
    try:
        return dict(sat.accum_stats() or {})
    except NotImplementedError:
        return {}


# python-sat solvers that run in this process and can log a DRUP proof (``with_proof=True``).
PROOF_SOLVERS = frozenset({"glucose3", "glucose4", "glucose42"})


# What checking a refutation costs the runner, in units this backend measures as it goes: the runner encodes
# the board again, writes it as DIMACS and loads it into the checker (CHECK_PER_ENCODE times our encode),
# then checks the lemmas, a share of the proof the solve wrote (CHECK_PER_SOLVE times its seconds).  A
# dense side-10 board, quiet: encode 0.8 s, solve 0.2-3 s, the check 1.0-2.2 s plus the runner's own
# encoding 1.1 s; at load 18 all of it ten times as long (docs/measured/side10.md).
CHECK_PER_ENCODE = 2.5
CHECK_PER_SOLVE = 0.15


def solve_budget(time_limit: float, encode_seconds: float, certifies: bool) -> float:
    """The solver's seconds: what the limit leaves after the encoding, and after the check of a refutation.

    The time limit is the board's, to a checked answer; a refutation that arrives at the limit is
    checked after it (a side-10 one took 24 s past a 60 s limit at load 18, docs/measured/side10.md).
    So a proof-logging solve stops where the check still fits: with ``L`` its limit, the answer is
    checked by ``encode + L + CHECK_PER_ENCODE * encode + CHECK_PER_SOLVE * L``, which is the limit.
    """
    left = time_limit - encode_seconds
    if certifies:
        left = (left - CHECK_PER_ENCODE * encode_seconds) / (1 + CHECK_PER_SOLVE)
    return max(left, 0.0)


def proof_text(lines: list[str]) -> str:
    """A solver's DRUP lines, ending in the empty clause (some solvers leave it implicit)."""
    body = [line.strip() for line in lines if line.strip()]
    if not body or body[-1] != "0":
        body.append("0")
    return "\n".join(body) + "\n"


@dataclass(frozen=True)
class CnfOptions:
    """``sat_cmd``: an external DIMACS solver (``cnf:external``); ``card``: the exactly-one encoding."""

    sat_cmd: str | None = None
    card: str = DEFAULT_CARD


class CnfBackend(Backend):
    family = "cnf"
    default_sub = DEFAULT_SOLVER
    description = "hand-written CNF (parallel-step leave times; or the thesis's timestep encoding) on python-sat"
    encode_targets = ("dimacs",)
    encode_variants = VARIANTS
    options_type = CnfOptions
    plays_quintessence = True  # our encodings (default and steps); the thesis's refuses such boards (see refusal)

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        self.variant, self.solver = split_sub(self.sub)
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown cnf variant '{self.variant}' (choose from {', '.join(VARIANTS)})")
        self.sat_cmd: str | None = self.options.sat_cmd
        if self.solver == EXTERNAL:
            self.sat_cmd = self.sat_cmd or os.environ.get(SAT_CMD_ENV)
            if not self.sat_cmd:
                raise ValueError(f"cnf:{EXTERNAL} needs the solver command in ${SAT_CMD_ENV} (e.g. 'cadical -q')")
        self.card: str = self.options.card
        self._stop = threading.Event()
        self._live: Any = None  # the running pysat solver or a Popen
        self._forked = Forked(slack=0.0)  # the solve of a solver that ignores interrupt(), or a count
        self._proof: str | None = None  # the DRUP text of the last refutation, when logged

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import pysat.solvers  # noqa: F401
        except ImportError:
            return False, "needs the Python package 'python-sat'"
        return True, ""

    @classmethod
    def version(cls) -> str:
        import pysat

        return f"python-sat {pysat.__version__}"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        installed = set(_pysat_solvers())
        solvers = [s for s in LISTED_SOLVERS if s in installed]
        if os.environ.get(SAT_CMD_ENV):
            solvers.append(EXTERNAL)
        out = [*solvers, "steps", "thesis"]
        # The thesis on the two solvers measured against glucose4 (docs/cnf.md).  ``thesis-literal``
        # is not offered: it is unsatisfiable on every board with gold (build_formula and encode have it).
        out.extend(f"thesis+{s}" for s in ("glucose42", "cadical195", EXTERNAL) if s in solvers)
        return tuple(out)

    # -- encode
    def encode(self, board: Board, target: str) -> dict[str, str]:
        if target != "dimacs":
            raise NotImplementedError(f"cnf cannot encode to {target}")
        formula = build_formula(board, self.variant, **self._build_options())
        return {".cnf": formula.to_dimacs(), ".vars.json": formula.sidecar()}

    def refusal(self, board: Board) -> Result | None:
        if self.variant not in OUR_VARIANTS and QUINTESSENCE in board.counts:
            message = f"{self.name}: only our encodings (default, steps) play the quintessence variant (symbol x)"
            return Result(Status.ERROR, self.name, message=message)
        return None

    @property
    def certifies(self) -> bool:
        """DRUP proofs of the default encoding only: that is the formula the checker rebuilds.  An external
        solver certifies when its command says where to write the proof (``{proof}``)."""
        if self.variant != "default" or self.card != DEFAULT_CARD:
            return False
        if self.sat_cmd:
            return PROOF_PLACEHOLDER in self.sat_cmd
        return self.solver in PROOF_SOLVERS

    def _build_options(self) -> dict[str, Any]:
        return {"card": self.card} if self.variant in OUR_VARIANTS else {}

    # -- count
    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """Projected model counting of this variant's CNF (:mod:`.counting`); at the limit, "at least 0"."""
        from sigmar.encoders.cnf.counting import count_in_child, counting_formula

        self._stop.clear()
        self._forked.reset()
        start = time.perf_counter()
        if count_problem(board) is not None:
            return 0, True

        def build(board: Board, variant: str) -> Formula:
            options = {"card": self.card} if variant in OUR_VARIANTS else {}
            return build_formula(board, variant, self._stop.is_set, **options)

        from sigmar.models.stopped import Stopped

        try:
            formula, projection = counting_formula(board, self.variant, of, build)
        except Stopped:
            return 0, False
        remaining = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 0.0)
        counted = count_in_child(self._forked, formula, projection, remaining)
        return (0, False) if counted is None else (counted, True)

    def _set_live(self, process: Any) -> None:
        self._live = process

    # -- solve
    def stop(self) -> None:
        self._stop.set()
        self._forked.stop()
        live = self._live
        if live is None:
            return
        if hasattr(live, "interrupt"):
            live.interrupt()
        elif isinstance(live, subprocess.Popen):
            guard.stop(live)
        elif hasattr(live, "kill"):
            live.kill()
        elif hasattr(live, "terminate"):
            live.terminate()

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        refused = self.refusal(board)
        if refused is not None:
            return refused
        start = time.perf_counter()
        self._stop.clear()
        self._forked.reset()
        refuted = self.counts_refutation(board, start)
        if refuted is not None:
            return refuted
        from sigmar.models.stopped import Stopped

        try:
            formula = build_formula(board, self.variant, self._stop.is_set, **self._build_options())
        except Stopped:
            return Result(Status.UNKNOWN, self.name, time.perf_counter() - start, message="stopped")
        encode_seconds = time.perf_counter() - start
        stats: dict[str, Any] = {
            "variant": self.variant,
            "solver": self.sat_cmd or self.solver,
            "variables": formula.nv,
            "clauses": len(formula.clauses),
            "horizon": formula.horizon,
            "encode_seconds": round(encode_seconds, 4),
        }
        remaining = None if time_limit is None else solve_budget(time_limit, encode_seconds, self.certifies)
        if remaining is not None:
            stats["solve_limit"] = round(remaining, 4)
        t0 = time.perf_counter()
        if self.sat_cmd:
            answer, assignment, solver_stats = self._solve_external(formula, remaining)
        elif self.solver.startswith(UNINTERRUPTIBLE):
            answer, assignment, solver_stats = self._solve_child(formula, remaining)
        else:
            yes_limit = None if time_limit is None else solve_budget(time_limit, encode_seconds, certifies=False)
            answer, assignment, solver_stats = self._solve_pysat(formula, remaining, yes_limit)
        stats["solve_seconds"] = round(time.perf_counter() - t0, 4)
        stats.update(solver_stats)
        seconds = time.perf_counter() - start
        name = self.answered_name(stats)
        if answer is True:
            assert assignment is not None
            return Result(Status.SOLVED, name, seconds, moves=tuple(formula.decode(assignment)), statistics=stats)
        if answer is False:
            if self.variant == "thesis-literal":
                return Result(
                    Status.UNKNOWN,
                    self.name,
                    seconds,
                    message="the literal thesis encoding is unsatisfiable on every board with gold; no proof",
                    statistics=stats,
                )
            return Result(
                Status.UNSOLVABLE,
                name,
                seconds,
                reason=Reason.PROOF,
                explanation=f"the {self.variant} CNF encoding (horizon {formula.horizon} steps, which every "
                f"solution fits) is unsatisfiable ({self.sat_cmd or stats.get('answered_by') or self.solver})",
                statistics=stats,
                certificate=self._certificate(formula),
            )
        if "error" in stats:
            return Result(Status.ERROR, self.name, seconds, message=str(stats["error"]), statistics=stats)
        return Result(Status.UNKNOWN, self.name, seconds, message="time limit", statistics=stats)

    def answered_name(self, stats: dict[str, Any]) -> str:
        """The backend an answer names: this one, or where another solver than this one's answered (CaDiCaL
        on a large formula, ``answered_by``) the default encoding on that solver, ``cnf:cadical153``, so that
        every table, JSON line and CSV row says which solver settled the board.  The family stays ``cnf``:
        the race keys its lanes, and bench its rows, by the name they asked for."""
        by = stats.get("answered_by")
        if by and by != self.solver and self.variant == "default" and not self.sat_cmd:
            return f"{self.family}:{by}"
        return self.name

    def _certificate(self, formula: Formula) -> Certificate | None:
        """The refutation as a ``drup`` certificate (docs/formats.md#drup-proofs), when the solver logged a proof.

        Only the proof: the formula it refutes is the board's default encoding, which the
        runner builds itself for the check and writes beside the proof as ``NAME.cnf`` and
        ``NAME.vars.json`` (``runners/checking/certify.with_formula``).  Printing it here took
        0.04-0.06 s of every DRUP answer on a side-6 board.
        """
        proof, self._proof = self._proof, None
        if proof is None:
            return None
        return Certificate(CertificateKind.DRUP, texts={".drup": proof})

    @contextlib.contextmanager
    def _interrupting(self, sat: Any, limit: float | None) -> Iterator[None]:
        """``sat`` is the live solver (``stop`` interrupts it) and is interrupted after ``limit`` seconds:
        python-sat's own solve takes no time limit."""
        self._live = sat
        timer = None
        if limit is not None:
            timer = threading.Timer(limit, sat.interrupt)
            timer.daemon = True
            timer.start()
        try:
            yield
        finally:
            if timer is not None:
                timer.cancel()
            self._live = None

    def _solve_pysat(
        self, formula: Formula, limit: float | None, yes_limit: float | None = None
    ) -> tuple[bool | None, list[int] | None, dict]:
        """``limit``: the solve's budget (a refutation's check still fits after it); ``yes_limit``: the
        partner's, where a "yes" still counts (no check follows it)."""
        from pysat.solvers import Solver

        # Only the default encoding is certified: the checker re-encodes the board with it.
        logging = self.certifies
        self._proof = None
        partner = None
        if logging and len(formula.clauses) >= PARTNER_FROM_CLAUSES and self.solver != Partner.SOLVER:
            partner_limit = limit if yes_limit is None else max(yes_limit, limit or 0)
            if not GLUCOSE_BESIDE and self.solver == DEFAULT_SOLVER:  # another solver named is used as asked
                return self._solve_large(formula, limit, partner_limit)
            partner = Partner(self._forked, formula.clauses, partner_limit)
        with Solver(name=self.solver, bootstrap_with=formula.clauses, with_proof=logging) as sat:
            try:
                with self._interrupting(sat, limit):
                    if self._stop.is_set():
                        return None, None, {}
                    late = False
                    if partner is not None:
                        partner.start(sat.interrupt)
                        # With no time left for a refutation's check, only the partner's "yes" can count.
                        spent = limit is not None and limit <= 0
                        answer = None if spent else sat.solve_limited(expect_interrupt=True)
                        # Glucose's budget ran out first: the partner goes on while a "yes" still counts (a
                        # "no" heard now is not taken: its check would end past the time limit).
                        late = answer is None and partner.outcome is None and not self._stop.is_set()
                        if late:
                            partner.wait()
                    else:
                        answer = sat.solve_limited(expect_interrupt=True)
            finally:
                if partner is not None:
                    partner.finish()
            heard = partner.answer() if partner is not None else None
            if heard is not None and late and not heard[0]:
                heard = None
            if answer is None and heard is not None and not self._stop.is_set():
                ok, assignment, stats, self._proof = heard
                return ok, assignment, {**stats, "answered_by": Partner.SOLVER}
            assignment = sat.get_model() if answer else None
            if answer is False and logging:
                self._proof = proof_text(list(sat.get_proof() or []))
            stats = _stats(sat)
            if partner is not None:
                stats["answered_by"] = self.solver
            return answer, assignment, stats

    def _solve_large(
        self, formula: Formula, limit: float | None, partner_limit: float | None
    ) -> tuple[bool | None, list[int] | None, dict]:
        """Glucose for a few conflicts, then the partner alone (``GLUCOSE_BESIDE`` False)."""
        began = time.perf_counter()
        if GLUCOSE_FIRST_CONFLICTS > 0 and (limit is None or limit > 0):
            first = self._glucose_first(formula, limit)
            if first is not None or self._stop.is_set():
                return first or (None, None, {})
        spent = time.perf_counter() - began
        if limit is not None:
            limit = max(limit - spent, 0.0)
        if partner_limit is not None:
            partner_limit = max(partner_limit - spent, 0.0)
        return self._solve_alone(Partner(self._forked, formula.clauses, partner_limit), limit)

    def _glucose_first(
        self, formula: Formula, limit: float | None
    ) -> tuple[bool | None, list[int] | None, dict] | None:
        """Glucose for ``GLUCOSE_FIRST_CONFLICTS`` conflicts at most (the quick refutations of a large
        formula): its answer, else None."""
        from pysat.solvers import Solver

        with Solver(name=self.solver, bootstrap_with=formula.clauses, with_proof=True) as sat:
            with self._interrupting(sat, limit):
                if self._stop.is_set():
                    return None
                sat.conf_budget(GLUCOSE_FIRST_CONFLICTS)
                answer = sat.solve_limited(expect_interrupt=True)
            if answer is None:
                return None
            if answer is False:
                self._proof = proof_text(list(sat.get_proof() or []))
            return answer, sat.get_model() if answer else None, {**_stats(sat), "answered_by": self.solver}

    def _solve_alone(self, partner: Partner, limit: float | None) -> tuple[bool | None, list[int] | None, dict]:
        """The partner without Glucose: its "no" counts until ``limit``, its "yes" until its own limit."""
        if self._stop.is_set():
            return None, None, {}
        try:
            partner.start(lambda: None)
            partner.wait(None if limit is None else max(limit, 0.0))
            late = partner.outcome is None and not self._stop.is_set()
            if late:
                partner.wait()
        finally:
            partner.finish()
        heard = partner.answer()
        if heard is None or self._stop.is_set() or (late and not heard[0]):
            error = getattr(partner.outcome, "error", None)
            return None, None, {"error": error} if error and not self._stop.is_set() else {}
        ok, assignment, stats, self._proof = heard
        return ok, assignment, {**stats, "answered_by": Partner.SOLVER}

    def _solve_child(self, formula: Formula, limit: float | None) -> tuple[bool | None, list[int] | None, dict]:
        """CaDiCaL and friends ignore interrupt(): solve in a forked child (it needs only the clauses, and
        starts in milliseconds), killed at the limit or by stop()."""
        if self._stop.is_set():
            return None, None, {}
        outcome = self._forked.call(_solve_in_child, (formula.clauses, self.solver), limit)
        if outcome.returned:
            ok, assignment, stats = outcome.value
            return ok, assignment, dict(stats or {})
        if outcome.error and not self._stop.is_set():
            return None, None, {"error": outcome.error}
        return None, None, {}

    def _solve_external(self, formula: Formula, limit: float | None) -> tuple[bool | None, list[int] | None, dict]:
        """The external solver's answer (:mod:`.external`), its proof kept for the certificate."""
        assert self.sat_cmd is not None
        answer, assignment, stats, self._proof = solve_external(
            self.sat_cmd, formula, limit, self.certifies, self._set_live, self._stop.is_set
        )
        return answer, assignment, stats
