"""The race: several backends on one board, the first answer that passes the checks wins.

Rules (issues 7 and 12; what is trusted is decided in :mod:`sigmar.runners.checking.trust`):

- The count precheck answers before any backend is asked.
- Start-up follows the work: ``search`` leads every board in the runner's own
  process (it finds a stuck set at once, and answers most boards in
  milliseconds); its head start is counted in its own CPU time, so a loaded
  machine does not make an easy board look hard.  On one board, only a board
  it does not answer in that time starts the worker processes and imports the
  other backends; with more than one (:meth:`Race.expect`) the workers start
  ahead and warm up while search works, so no board waits for their start.
- Every backend runs in its own worker process (:mod:`sigmar.runners.workers`);
  the workers live across the boards of a file, so solver imports are paid once.
- ``solved`` wins when the rule engine replays the moves (``replay.replayed`` sets ``verified``).
- ``unsolvable`` wins only with a certificate that code independent of the
  backend has checked (``certify.certify``).  A refutation without one (CP-SAT,
  MiniZinc, a rejected certificate) is a claim: the race waits for a checked
  certificate from another backend until the time limit.  Claims from two
  families then make ``corroborated``, a weaker label; a lone claim is
  ``unknown``, and the answer lists every claim.
- Losers are asked to stop; one that has not stopped within ``grace`` seconds
  when it is next needed is killed and replaced by a fresh worker.
- A crashed or hung backend is an answer (``error``) or nothing; the race goes on.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from bisect import bisect_left, insort
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType

from sigmar.encoders import registry
from sigmar.models.board import Board
from sigmar.models.records import Frozen, Record
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.intake import count_taken_in, crashed
from sigmar.runners.checking.replay import counts_answer, replayed
from sigmar.runners.checking.trust import accepted, claims_message, corroborated

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    import signal
    from typing import Any

    from sigmar.encoders.processes.copies import Copy
    from sigmar.models.counting import Notion
    from sigmar.runners.checking.count_grade import CountVerdict
    from sigmar.runners.workers import Heard, Worker, WorkerSet
else:
    import _signal as signal  # signal's functions without the enums it makes (4 M instructions a solve)

# Certificates whose check can take seconds (a DRUP proof of a side-8 board: up to a minute; a DRCP
# proof of a side-6 one: up to a second or two).  The
# other workers are paused meanwhile: the check is the likely answer, and on a loaded machine it
# ran about twice as slowly next to three solvers as alone.
SLOW_CHECKS = frozenset({CertificateKind.DRUP, CertificateKind.DRCP, CertificateKind.DEAD_STATES})

# The backend that runs in the runner's own process before any worker is started.
INLINE = "search"


class RacePolicy:
    """Who leads, who joins and when, and how long the leader runs alone: the race's decisions.

    Pure bookkeeping over the backends' names and their record of wins, with the tuned
    constants it decides by; :class:`Race` holds one and asks it at every board, and a test
    can ask it without starting a process.
    """

    # Niceness of the workers whose "unsolvable" cannot be checked, when some raced backend's can: on
    # 2 cores they still take idle CPU (and win solvable boards they are fastest on), but no longer
    # halve the time of the backends that bring certificates.
    CLAIMS_ONLY_NICENESS = 10

    # The leader's head start follows its own recent wins: HEAD_START_FACTOR times the 95th percentile of
    # its last RECENT_WINS winning times, at least ``stagger`` and at most HEAD_START_CAP.  A fixed 20 ms
    # was shorter than the leader's slower easy boards once the machine was loaded: the others joined,
    # took the CPU, and those boards took three times as long (hexmatch-easy 400-599: p99 61-66 ms with
    # 20 ms, 15-17 ms with 60 ms, search alone 12-13 ms, in one run on the shared machine).
    HEAD_START_FACTOR = 2.0
    HEAD_START_PERCENTILE = 95
    HEAD_START_CAP = 0.25
    RECENT_WINS = 100

    # Past the leader's head start the board is a hard one.  If another backend has won more such boards
    # (cnf on dense side-8 deals: 42 of the 53 that took over 1 s), the leader runs LATE_NICENESS
    # lower for the rest of the board, so that on 2 cores it does not take half the CPU from that backend.
    # The backends that join at the head start's end, neither leader nor partner, run so too: the
    # leader and its partner have a core each, the others what those two leave.
    LATE_NICENESS = 5
    LATE_WINS_NEEDED = 3
    # The others (neither leader nor partner) join lower still, below the leader held back: CFS shares a core
    # by weight (nice 0: 1024, 5: 335, 15: 36), so at LATE_NICENESS pumpkin beside cnf on one core took a
    # quarter of it (cnf's 148 ms proof of dense deal 31 took 195 ms in the race), and beside search's copy on
    # the other half of that one's (deal 253, which search alone settles in 170 ms, took 60 ms more: issue 48).
    # They still have every cycle the two leave.
    OTHERS_NICENESS = 15
    # Search in the runner's own process goes on in a forked copy of it, held back, past its head start on such
    # a board (``_Heat._hand_over``); False: it starts again in its worker (to measure the difference).
    HAND_OVER = True
    # ... but not while its partner proves on a board of side INLINE_PREPARE_DIM at most: search goes on here as it
    # is, and the others (pumpkin too, not only the claims-only ones) wait until the partner has answered without
    # winning, or CLAIMS_WAIT seconds past the head start; then search is held back and they join.  This machine's
    # two CPUs share one core's units: a process beside another runs at about two thirds of its speed alone (cnf's
    # solve of dense deal 59, 33-41 ms of CPU alone, 55-61 with a busy loop on the other CPU), so a third runner,
    # however low, takes from both; and the fork of the hand-over (4-6 ms of the runner's) and its answer's trip
    # through a pipe were paid on the boards search wins past its head start (dense deals 253, 265).
    STAY_WITH_PARTNER = True

    # The leader's partner (``Race.partner``: the backend that wins the hard boards, cnf on dense deals
    # where the search leads; else the certifying backend with the most wins) joins the leader after
    # PARTNER_DELAY instead of after the whole head start: on 2 cores each has one, and a board the leader
    # cannot settle quickly no longer waits out the head start (up to HEAD_START_CAP) before its likely
    # winner begins, while the leader's easy boards (most within a few ms) are over before the partner
    # starts.  While the partner proves, the backends whose "no" is only a claim wait: they would take the
    # core that the partner's certificate check is prepared on.  They join once the partner has answered
    # without winning, or CLAIMS_WAIT seconds past the head start.  10 ms rather than 30: on the public
    # solver's dense deals the boards cnf wins took 35-43 ms less in the race (the mean and median over 35
    # such boards, two runs each, at load 11), those search wins in over 10 ms 2-5 ms more.
    PARTNER_DELAY = 0.01
    CLAIMS_WAIT = 2.0

    # The DRUP check's own encoding of the board (some 25 ms of CPU on a side-6 board) is made by the runner
    # while the partner still proves: with the leader in a worker, in a thread PREPARE_AFTER seconds into the
    # board; with search leading in the runner's own process, once search has had PREPARE_SHARE of its head
    # start (its own clock; the partner has joined by then), between two of search's steps (_Heat._prepare).
    PREPARE_AFTER = 0.05
    PREPARE_SHARE = 0.5
    # ... and never before search has had INLINE_PREPARE_AFTER of its clock: early in a batch its head start is
    # the 20 ms floor, and boards it settles in 10-20 ms (hexmatch-easy 481: 11-16 ms alone) paid the encoding.
    INLINE_PREPARE_AFTER = 0.02
    # Made while search runs here only when a DRUP proof is likely: when at least half of the last RECENT_HARD
    # hard boards (the leader's head start ran out, or another won) ended "unsolvable" (the public solver's
    # dense deals: nearly all), or none has been seen yet; on a file of solvable boards the partner's wins
    # are solutions, and search's boards past half its head start would pay the encoding for nothing.
    RECENT_HARD = 10

    # How long ``search`` runs in the runner's own process on the first board, before it has won
    # any (afterwards: its head start).  Side-6 boards take it 5-15 ms; a refutation by a stuck set
    # about as long.
    FIRST_HEAD_START = 0.1

    def __init__(self, names: list[str], stagger: float) -> None:
        self.names = names
        # The backend with the most wins so far starts alone and the others join after its head
        # start (``head_start()``: at least ``stagger`` seconds; 0: all start at once).  On 2 cores
        # this keeps a fast leader from sharing the CPU with slow losers on the boards it wins, and
        # costs at most the head start on a board the leader cannot answer quickly.
        self.stagger = stagger
        self.certifying: frozenset[str] = frozenset()  # the backends whose "no" brings a certificate
        self.wins: Counter[str] = Counter()
        self.win_times: dict[str, deque[float]] = {}  # each backend's last RECENT_WINS winning times
        self.late_wins: Counter[str] = Counter()  # wins on boards where the leader's head start ran out
        self.hard_refuted: deque[bool] = deque(maxlen=self.RECENT_HARD)  # per hard board won: "unsolvable"?
        self._typical: dict[str, float] = {}  # per backend, the percentile of its recent wins
        self._ordered: dict[str, list[float]] = {}  # per backend, its ``win_times`` in ascending order
        # This board's leader when a selector named one (``solve --selector``): it leads whatever the wins,
        # for ``lead_seconds`` alone when set (a selector's presolver), with ``second`` (its pick) as partner.
        self.prefer: str | None = None
        self.lead_seconds: float | None = None
        self.second: str | None = None

    def order(self) -> list[str]:
        """Backends by wins so far (most first), the selector's pick first; the leader may get a head start."""
        return sorted(self.names, key=lambda n: (n != self.prefer, -self.wins[n]))

    def won(self, name: str, seconds: float, late: bool = False, refuted: bool = False) -> None:
        self.wins[name] += 1
        self.late_wins[name] += late
        if late:
            self.hard_refuted.append(refuted)
        times = self.win_times.get(name)
        if times is None:
            times = self.win_times[name] = deque(maxlen=self.RECENT_WINS)
            self._ordered[name] = []
        ordered = self._ordered[name]  # the same times, ascending: kept so, not sorted at every board
        if len(times) == self.RECENT_WINS:
            del ordered[bisect_left(ordered, times[0])]  # the oldest leaves the deque below
        times.append(seconds)
        insort(ordered, seconds)
        # The head start's percentile, nearest rank (as runners/statistics/scores.py's), read off the list in order.
        # (``min``/``max`` of two numbers cost some 1.6 k instructions each in Python 3.11, a board's whole race
        # path some 400 k: here, and on the rest of a board's path, a comparison does it.)
        rank = -(-self.HEAD_START_PERCENTILE * len(ordered) // 100)
        count = len(ordered)
        self._typical[name] = ordered[(rank if rank < count else count) - 1 if rank > 1 else 0]

    def refutations_likely(self) -> bool:
        """Whether a hard board is likely to end "unsolvable" (see ``RECENT_HARD``)."""
        return 2 * sum(self.hard_refuted) >= len(self.hard_refuted)

    def late_leader(self, leader: str) -> str | None:
        """The backend that wins the boards ``leader`` does not answer in its head start, if not the leader."""
        best = max(self.names, key=lambda n: self.late_wins[n])
        wins = self.late_wins[best]
        if best == leader or wins < self.LATE_WINS_NEEDED or wins <= self.late_wins[leader]:
            return None
        return best

    def partner(self, leader: str) -> str | None:
        """The backend that starts soon after ``leader``: the winner of the hard boards, else the
        certifying backend with the most wins (so that one leader's early wins do not keep the other
        from ever showing it is faster); a selector's pick after its presolver."""
        if self.second is not None and self.second != leader:
            return self.second
        late = self.late_leader(leader)
        if late is not None:
            return late
        return next((n for n in self.order() if n != leader and n in self.certifying), None)

    def head_start(self, leader: str) -> float:
        """Seconds ``leader`` runs alone: long enough for nearly all of its recent wins."""
        if self.stagger <= 0:
            return 0.0
        if self.lead_seconds is not None and leader == self.prefer:
            return self.lead_seconds if self.lead_seconds > self.stagger else self.stagger
        typical = self._typical.get(leader)  # kept by won()
        if typical is None:
            return self.stagger
        floor, wanted, cap = self.stagger, self.HEAD_START_FACTOR * typical, self.HEAD_START_CAP
        wanted = wanted if wanted > floor else floor  # max(floor, wanted), min(that, max(floor, cap))
        cap = cap if cap > floor else floor
        return cap if cap < wanted else wanted

    def inline_budget(self) -> float:
        """How long ``search``, in the runner's own process, leads alone before the others join (a
        selector's presolving time when it chose search: ``solve --selector``)."""
        if self.lead_seconds is not None and self.prefer == INLINE:
            return self.head_start(INLINE)
        return self.head_start(INLINE) if self.wins[INLINE] else self.FIRST_HEAD_START

    def plan(self, start: float, head_start: bool = True, inline: bool = False) -> Plan:
        """When each backend starts on a board begun at ``start`` (perf_counter seconds).

        The leader starts at once; with a head start (it has won before, and others race), its
        partner joins after ``PARTNER_DELAY`` and the others when the head start ends.  With
        ``inline``, the leader is ``search`` in the runner's own process, for
        :meth:`inline_budget`; who joins it is only decided when they are due (``partner`` and
        ``later`` are then left for :meth:`partner` and :meth:`order` to say), so that a board
        search answers at once never looks at the others (nor imports their solvers).
        """
        if inline:
            staggered = self.stagger > 0 and len(self.names) > 1
            budget = self.inline_budget()
            release_at = start + budget
            partner_delay = budget if budget < self.PARTNER_DELAY else self.PARTNER_DELAY
            share, floor = self.PREPARE_SHARE * budget, self.INLINE_PREPARE_AFTER
            prepare = partner_delay if partner_delay >= share else share  # the largest of the three
            prepare = prepare if prepare >= floor else floor
            return Plan(  # by position: nine keywords cost some 3 k instructions more, on every board
                INLINE,  # leader
                None,  # partner
                [],  # later
                [INLINE],  # first
                staggered,
                start + partner_delay if staggered else None,  # partner_at
                release_at,
                release_at + self.CLAIMS_WAIT,  # hold_until
                start + prepare if staggered else None,  # prepare_at
            )
        order = self.order()
        leader = order[0]
        earned = self.wins[leader] > 0 or leader == self.prefer
        staggered = head_start and self.stagger > 0 and len(order) > 1 and earned
        partner = self.partner(leader) if staggered else None
        release_at = start + self.head_start(leader)
        return Plan(
            leader=leader,
            partner=partner,
            later=[n for n in order if n not in (leader, partner)] if staggered else [],
            first=[n for n in order if not staggered or n == leader],
            staggered=staggered,
            partner_at=start + min(self.PARTNER_DELAY, self.head_start(leader)) if partner else None,
            release_at=release_at,
            hold_until=release_at + self.CLAIMS_WAIT,
            prepare_at=start + self.PREPARE_AFTER if partner else None,
        )


class _PlanFields(Record):
    """:class:`Plan`'s fields, in a class whose slots take a plain assignment: a Plan is made as one of these and
    becomes a Plan by ``__class__`` (the same slots), as a Result is (``models/result.py``'s ``_ResultFields``):
    nine ``object.__setattr__`` calls cost some 10 k instructions in Python 3.11, and a plan is made for every
    board."""

    __slots__ = (
        "leader",
        "partner",
        "later",
        "first",
        "staggered",
        "partner_at",
        "release_at",
        "hold_until",
        "prepare_at",
    )
    leader: str
    partner: str | None  # joins at ``partner_at``
    later: list[str]  # join when the head start ends (``release_at``), or when the leader is done
    first: list[str]  # start at once
    staggered: bool  # the leader runs alone for its head start
    partner_at: float | None
    release_at: float
    hold_until: float  # claim-only backends held back while the partner proves join by then at the latest
    prepare_at: float | None  # when the DRUP check's own encoding is made, while the partner proves


class Plan(_PlanFields, Frozen):
    """One board's start-up, as :meth:`RacePolicy.plan` decides it."""

    __slots__ = ()
    __match_args__ = (
        "leader",
        "partner",
        "later",
        "first",
        "staggered",
        "partner_at",
        "release_at",
        "hold_until",
        "prepare_at",
    )

    def __init__(
        self,
        leader: str,
        partner: str | None,
        later: list[str],
        first: list[str],
        staggered: bool,
        partner_at: float | None,
        release_at: float,
        hold_until: float,
        prepare_at: float | None,
    ) -> None:
        _SET_CLASS(self, "__class__", _PlanFields)  # assignable while it is one (see _PlanFields)
        fields: _PlanFields = self
        fields.leader, fields.partner, fields.later, fields.first = leader, partner, later, first
        fields.staggered, fields.partner_at, fields.release_at = staggered, partner_at, release_at
        fields.hold_until, fields.prepare_at = hold_until, prepare_at
        fields.__class__ = Plan


_SET_CLASS = object.__setattr__


class RaceOutcome(Record):
    """What the race found on one board: the answer to report and everything seen on the way."""

    __slots__ = __match_args__ = ("result", "answers", "wrong")
    result: Result
    answers: dict[str, Result]
    # Backends whose answer was provably wrong (a rejected solution, or
    # "unsolvable" against a verified solution): exit status 3 (docs/formats.md#exit-status).
    wrong: dict[str, str]

    def __init__(
        self, result: Result, answers: dict[str, Result] | None = None, wrong: dict[str, str] | None = None
    ) -> None:
        self.result = result
        self.answers = {} if answers is None else answers
        self.wrong = {} if wrong is None else wrong


class Race:
    """Worker processes for the named backends, reused board after board.

    Use as a context manager so the workers are killed on any exit,
    Ctrl-C included.
    """

    def __init__(
        self,
        names: list[str],
        *,
        proofs: ProofStore | None = None,
        slack: float = 0.5,
        grace: float = 0.2,
        stagger: float = 0.02,
        optional: Iterable[str] = (),
        selector: Callable[[Board], str | None] | None = None,
        presolve: tuple[str, float] | None = None,
        later: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        """``optional``: names that are dropped, not refused, when unavailable (``all``); they are
        looked at only when a board needs the workers, so an easy board never imports their solvers.
        ``later``: more such names, asked for then too (``all``'s plugins: a board search settles here
        never reads the installed packages' metadata for them).
        ``selector``: the backend to lead each board (``solve --selector``), instead of the most wins;
        ``presolve``: a backend that leads every board alone for its seconds first, the pick as its partner."""
        if not names:
            raise registry.UnknownBackend("no backend named")
        self.optional = frozenset(optional)
        self._later = later
        for name in names:
            if name not in self.optional:
                registry.make(name)  # unknown or unavailable names fail here, in the parent (exit 2)
        self.policy = RacePolicy(list(dict.fromkeys(names)), stagger)
        self.selector = selector
        self.presolve = presolve
        self.slack = slack  # seconds past the time limit allowed for a backend's own "unknown"
        self.grace = grace  # seconds a loser gets to stop before it is killed
        # Each backend's wins so far, the policy's record (tests and benchmarks read them here).
        self.wins, self.win_times, self.late_wins = self.policy.wins, self.policy.win_times, self.policy.late_wins
        # Certificate files: the caller's folder, or a temporary one that close() removes.
        self._own_proofs = proofs is None
        self.proofs = proofs if proofs is not None else ProofStore()
        self._job = 0
        self.workers: dict[str, Worker] = {}
        self.claims_only: frozenset[str] = frozenset()  # set with the workers
        # What happened when, for tests and benchmarks: set to a list to record (seconds, event, names).
        self.events: list[tuple[float, str, tuple[str, ...]]] | None = None
        # ``search`` in this process, the leader of every board (see the module's docstring); with
        # ``stagger`` 0 everything starts at once, as asked, each in its worker.
        self.inline: Any = None
        self._settled = False  # the certifying backends known
        self._probe: Any = None  # the child that finds them out (:meth:`settle`), while it runs
        self._probe_began = 0.0  # when it started (perf_counter)
        self._turn: str | None = None  # the file the workers lock to warm up one at a time (:meth:`expect`)
        self.timer = _Timer()  # the ticks while search runs here
        self.copy: Copy | None = None  # search's forked copy on the board running now (_Heat._hand_over)
        if INLINE in self.names and stagger > 0:
            self.inline = registry.make(INLINE)
        else:
            self.start_workers()

    def settle(self, wait: bool = True) -> bool:
        """Whether it is known which backends certify their "no" (learned once); with ``wait``, it is.

        Asked of a forked child (:func:`_certifying`), started on the first call: to say, each backend
        is made, which imports its family's module (python-sat, MiniZinc's driver: 0.05-0.3 s), and
        here search may be running on a board.  Without ``wait`` the answer is taken only if it is
        there.  A child that dies, raises or takes longer than ``PROBE_WAIT`` from its start is not
        waited for (with ``wait`` or without): the backends are asked here.  Only when a board needs
        more than search in this process (or the workers start ahead): an easy board never looks.
        Whether an optional backend is available here is its worker's to find out (one that is not is
        dropped then, :meth:`drop`)."""
        if self._settled:
            return True
        if self._later is not None:  # before the probe, which is asked of every name
            more = [name for name in self._later() if name not in self.names]
            self._later = None
            self.optional |= frozenset(more)
            self.names = [*self.names, *more]
        if self._probe is None:
            from sigmar.encoders.processes.parent import Child

            ask = (
                (_certifying_in_turn, (tuple(self.names), self._turn))
                if self._turn
                else (_certifying, (tuple(self.names),))
            )
            self._probe = Child("certifies", keeper=False, stops=False, only=ask)
            self._probe_began = time.perf_counter()
        probe = self._probe
        left = max(0.0, self._probe_began + PROBE_WAIT - time.perf_counter())
        try:
            ready = probe.conn.poll(left if wait else 0)
        except (EOFError, OSError):
            ready = True
        if not ready and not wait and left > 0:
            return False
        answer = probe.answer() if ready else None
        probe.kill()
        self._probe = None
        if answer is not None and not answer.raised and isinstance(answer.value, frozenset):
            certifying = answer.value & set(self.names)
        else:
            certifying = _certifying(tuple(self.names))
        self._settled = True
        # A backend whose "no" is only a claim yields the CPU to those that certify theirs.
        self.policy.certifying = frozenset(certifying)
        self.claims_only = frozenset(self.names) - certifying if certifying else frozenset()
        for name, worker in self.workers.items():  # started before it was known
            if name in self.claims_only:
                worker.lower(RacePolicy.CLAIMS_ONLY_NICENESS)
        return True

    def drop(self, name: str) -> None:
        """An optional backend its worker found unavailable here: out of the race, its worker closed."""
        self.names = [n for n in self.names if n != name]
        worker = self.workers.pop(name, None)
        if worker is not None:
            worker.kill()

    def expect(self, boards: int) -> None:
        """The race is told how many boards it will see: with more than one, every worker starts now, each
        importing its solver in the background (:func:`~sigmar.runners.worker_jobs.warm_up`), so that the
        first board that needs them does not wait for their start (issue 48).

        They warm up in turn, one at a time (the turn: a lock on a file of the race's), so that on 2 cores
        search keeps one for the boards it settles meanwhile: six at once took both cores for the first
        second or so of a batch, and search's easy boards waited for the CPU.  A worker a board needs
        before its turn skips its warm-up and takes the job at once."""
        if boards > 1 and self.inline is not None and len(self.names) > 1:
            import tempfile

            from sigmar.encoders.processes.lifetime import guard_folder

            guard_folder()  # a file in the run's folder, and the workers' forks: the run's janitor first
            fd, self._turn = tempfile.mkstemp(prefix="sigmar-warm-turn-")
            os.close(fd)
            self.settle(wait=False)  # the probe first: it takes the turn, and works while the checks are imported
            # The worker of a partner whose "no" is a DRUP proof next, before the checks' imports (0.14 s of the
            # runner's CPU): it warms up meanwhile, after the probe, on the other core.  Forked after them it
            # warmed up 0.2 s into the batch at the earliest, where the public solver's dense deal 4, its first
            # board, found it cold (its first board costs cnf 85-95 ms of CPU, 30 once warm).
            for name in self.names:
                if registry.split_name(name)[0] in DRUP_FAMILIES:
                    self.worker(name)
            _warm_checks(self.names)
            # What lives now (the checks' modules just imported, numpy's among them) lives as long as the race:
            # out of the cycle collector's sight, as the console freezes what it imported before the verb
            # (runners/cli/entry.py); a full collection looked through it all (46 ms of the runner's CPU).
            gc.freeze()
            self.start_workers()  # with the probe's answer if it is in: those that only claim lowered, and last

    def worker(self, name: str) -> Worker:
        """The worker of backend ``name``, started now if it has none (a fork; the worker imports its solver
        itself, before its first job)."""
        worker = self.workers.get(name)
        if worker is None:
            self.settle(wait=False)
            from sigmar.runners.workers import Worker  # here: a race that search settles in this process never needs it

            low = name in self.claims_only  # else lowered once that is known (settle)
            niceness = RacePolicy.CLAIMS_ONLY_NICENESS if low else 0
            worker = Worker(name, niceness=niceness, warm=name, turn=self._turn)
            self.workers[name] = worker
        return worker

    def start_workers(self) -> None:
        """Every backend's worker process, now (optional backends not available here are dropped).  Those whose
        "no" is only a claim, when that is known, start last, held back: they warm up after the others (the
        warm-up's turn goes about in the order of the forks), and cpsat's 0.3 s of it no longer takes a core
        at the start of a batch from search and its partner."""
        self.settle(wait=False)
        try:
            # Search's own worker after the other certifying ones: it serves only a search that cannot go on here.
            for name in sorted(self.names, key=lambda n: (n in self.claims_only, n == INLINE)):
                self.worker(name)
        except BaseException:
            self.close()
            raise

    @property
    def names(self) -> list[str]:
        return self.policy.names

    @names.setter
    def names(self, names: list[str]) -> None:
        self.policy.names = names

    @property
    def stagger(self) -> float:
        return self.policy.stagger

    @property
    def certifying(self) -> frozenset[str]:
        return self.policy.certifying

    def __enter__(self) -> Race:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.timer.close()
        if self.copy is not None:
            self.copy.kill()
            self.copy = None
        if self._probe is not None:
            self._probe.kill()
            self._probe = None
        for worker in self.workers.values():
            if worker.job_id is not None:
                worker.kill()
            else:
                worker.close()
        if self._own_proofs and hasattr(self, "proofs"):
            self.proofs.close()
        if self._turn is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._turn)
            self._turn = None

    def check(
        self,
        board: Board,
        raw: object,
        name: str | None = None,
        seconds: float | None = None,
        others: Iterable[Worker] = (),
    ) -> Result:
        """The answer of backend ``name`` taken in, replayed and its certificate checked; ``seconds``
        (measured by the runner) replaces the backend's own; ``others`` are paused while a slow
        certificate is checked."""
        result = replayed(board, raw, name, seconds)
        certificate = result.certificate
        slow = result.status is Status.UNSOLVABLE and certificate is not None and certificate.kind in SLOW_CHECKS
        if not slow:  # no ``with`` on every board: a generator's context manager costs some 10 k instructions
            return certify(board, result, self.proofs)
        with _paused(others):
            return certify(board, result, self.proofs)

    def trace(self, event: str, *names: str, at: float | None = None) -> None:
        """Record ``event`` (board, start, release, join, prepare, answer, checked) when ``events`` is a list,
        at ``at`` (a perf_counter time; now by default)."""
        if self.events is not None:
            self.events.append((time.perf_counter() if at is None else at, event, names))

    def pids(self) -> list[int]:
        return [w.pid for w in self.workers.values() if w.pid is not None]

    # -- one board -------------------------------------------------------

    def ready_for(self, worker: Worker, now: float) -> bool:
        """True when ``worker`` can take a new job now (restarting it when dead or stuck)."""
        if not worker.alive():
            worker.restart()
            return True
        if worker.job_id is None:
            return True
        worker.ask_stop()
        if now - worker.stop_sent >= self.grace:
            worker.restart()
            return True
        return False

    # The policy's decisions (tests and benchmarks ask them here).
    def order(self) -> list[str]:
        return self.policy.order()

    def won(self, name: str, seconds: float, late: bool = False, refuted: bool = False) -> None:
        self.policy.won(name, seconds, late, refuted)

    def late_leader(self, leader: str) -> str | None:
        return self.policy.late_leader(leader)

    def partner(self, leader: str) -> str | None:
        return self.policy.partner(leader)

    def head_start(self, leader: str) -> float:
        return self.policy.head_start(leader)

    def solve(self, board: Board, time_limit: float | None) -> RaceOutcome:
        """One board raced, with Python's cycle collector held off until it is over.

        Why (issue 48, the race's tail): a board's checks make many short-lived objects (the DRUP check's
        encoding of the board, some 20,000 small lists; the proof's lemmas), and the collections they set off
        traversed them while they were still alive, on the way to the board's answer: on the public solver's
        dense deals a generation-1 collection took 10-20 ms of the runner's CPU and a full one 46 ms, at the
        end of the boards cnf won.  The race makes no reference cycles of its own; what it made is freed by
        its counts when the board ends, and the collection that is due then looks only at what is left.
        (Not a ``contextlib.contextmanager``: its generator costs some 10 k instructions a board.)"""
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._solve(board, time_limit)
        finally:
            if collecting:
                gc.enable()

    def _solve(self, board: Board, time_limit: float | None) -> RaceOutcome:
        start = time.perf_counter()
        early = counts_answer(board)
        if early is not None:
            return RaceOutcome(self.check(board, early).with_(seconds=time.perf_counter() - start))
        self._choose(board)
        if self._probe is not None:
            self.settle(wait=False)  # its answer, if it has come: claims-only workers are lowered now
        self._job += 1
        for worker in self.workers.values():
            worker.collect()  # a loser that answered since: idle again, nothing to kill
            if worker.job_id is not None and worker.stop_sent and start - worker.stop_sent >= self.grace:
                worker.kill()  # a loser still busy past its grace burns CPU: kill it now
        heat = _Heat(self, board, self._job, time_limit, start)
        winner = heat.run()
        for name in heat.running:
            heat.worker_of(name).ask_stop()
        if heat.copy is not None:
            heat.copy.kill()  # answered, or stopped above: it ends now, reaped
            self.copy = None
        if heat.prepared:  # the check's encoding made ahead, and not used up by a check: it stops being made
            from sigmar.runners.checking import fresh_formula

            fresh_formula.release(board)
        elapsed = time.perf_counter() - start
        outcome = heat.outcome
        if winner is not None and winner.verified:
            for claim in heat.claims:  # "unsolvable" against a verified solution is wrong
                outcome.wrong[claim.backend] = (
                    f"{claim.backend} said unsolvable ({claim.reason}) but {winner.backend} found a verified solution"
                )
        outcome.result = winner if winner is not None else self._no_winner(outcome, heat.claims, elapsed, time_limit)
        return outcome

    def _choose(self, board: Board) -> None:
        """This board's leader (and partner) when a selector is given: its presolver, then its pick."""
        if self.selector is None:
            return
        pick = self.selector(board)
        pick = pick if pick in self.names else None
        first = self.presolve if self.presolve is not None and self.presolve[0] in self.names else None
        self.policy.prefer = first[0] if first else pick
        self.policy.lead_seconds = first[1] if first else None
        self.policy.second = pick if first and pick != first[0] else None

    def _no_winner(self, outcome: RaceOutcome, claims: list[Result], elapsed: float, limit: float | None) -> Result:
        answers = outcome.answers
        said = tuple(answers.values())
        if claims:
            agreed = corroborated(claims)
            if agreed is not None:
                return agreed.with_(seconds=elapsed, claims=said)
            message = f"{claims_message(claims)}; no checked certificate and no backend of another family agreed"
            return Result(Status.UNKNOWN, "race", elapsed, message=message, claims=said)
        if outcome.wrong:
            name, message = next(iter(outcome.wrong.items()))
            return Result(Status.ERROR, name, elapsed, message=message, wrong=True)
        if answers and len(answers) == len(self.names) and all(a.status is Status.ERROR for a in answers.values()):
            message = "; ".join(a.message for a in answers.values())
            return Result(Status.ERROR, "race", elapsed, message=f"every backend failed: {message}")
        silent = [n for n in self.names if n not in answers]
        parts = []
        if silent and limit is not None:
            parts.append(f"no answer from {', '.join(silent)} in {limit:g} s")
        for name, answer in answers.items():
            parts.append(f"{name}: {answer.message or answer.status}")
        return Result(Status.UNKNOWN, "race", elapsed, message="; ".join(parts) or "no answer", claims=said)

    def solve_all(self, board: Board, time_limit: float | None) -> dict[str, Result]:
        """Every backend to the end on ``board`` (for crosscheck): checked answers by name.

        ``seconds`` of each answer is the wall time of its ``solve`` in the
        worker.  A backend still running ``slack`` seconds past the time limit
        is killed (its worker replaced) and reported ``unknown``.
        """
        return self._to_the_end(board, time_limit, None)

    def count_all(self, board: Board, notion: str, time_limit: float | None) -> dict[str, Result]:
        """Every backend's ``count`` of ``notion`` on ``board``, each in its worker, taken in as counting answers
        by name (``checking.intake.count_taken_in``); a crash is an error, a hang is killed as in ``solve_all``."""
        return self._to_the_end(board, time_limit, notion)

    def _to_the_end(self, board: Board, time_limit: float | None, notion: str | None) -> dict[str, Result]:
        """Every worker's job on ``board`` (a solve, or with ``notion`` a count) run to its end or killed."""
        self.start_workers()
        start = time.perf_counter()
        self._job += 1
        job = self._job
        deadline = None if time_limit is None else start + time_limit + self.slack
        answers: dict[str, Result] = {}
        from sigmar.runners.workers import (
            WorkerSet,
            with_output,
        )  # here, like the workers: not on a board search settles

        busy: WorkerSet[str] = WorkerSet()
        for name, worker in self.workers.items():
            if worker.job_id is not None or not worker.alive():
                worker.restart()
            worker.submit(job, name, board, time_limit, notion)
            busy.add(name, worker, name, deadline, time_limit, doing="solving" if notion is None else "counting")
        while busy:
            for heard in busy.wait():
                if heard.done is None:  # it died, or outlived the time limit: a fresh worker for the next board
                    heard.worker.restart()
                    answers[heard.key] = heard.answer(time.perf_counter() - start)
                elif notion is not None:
                    answer = count_taken_in(heard.done.result, heard.key, notion).with_(seconds=heard.done.seconds)
                    answers[heard.key] = with_output(answer, heard.done.output)
                else:
                    answer = self.check(board, heard.done.result, heard.key, heard.done.seconds)
                    answers[heard.key] = with_output(answer, heard.done.output)
        return {name: answers[name] for name in self.workers}


def count_board(race: Race, board: Board, notion: Notion, time_limit: float | None) -> CountVerdict:
    """Every backend of ``race`` counts ``notion`` on ``board`` in its worker, while the rule engine counts
    here; each count graded against the rule engine's (``checking.count_grade``)."""
    from sigmar.runners.checking.count_grade import ReferenceBeside, grade_counts  # only where boards are counted

    reference = ReferenceBeside(board, notion, time_limit)
    answers = race.count_all(board, notion, time_limit)
    count, seconds = reference.result()
    return grade_counts(board, notion, answers, count, seconds)


# How long, from its start, the runner waits for the child that finds out which backends certify (Race.settle).
PROBE_WAIT = 10.0

# The largest side on which the DRUP check's encoding is made while search runs in the runner's own process
# (``_Heat._prepare``): side 6 takes some 25 ms, side 8 a tenth of a second and more.
INLINE_PREPARE_DIM = 6

# The families whose "no" is a DRUP proof, checked against the runner's own encoding of the board
# (:mod:`~sigmar.runners.checking.fresh_formula`): the encoding is made ahead for them alone.
DRUP_FAMILIES = frozenset({"cnf"})


def _certifying(names: tuple[str, ...]) -> frozenset[str]:
    """Of ``names``, the backends whose "no" comes with a certificate."""
    return frozenset(name for name in names if _certifies(name))


def _certifying_in_turn(names: tuple[str, ...], turn: str) -> frozenset[str]:
    """:func:`_certifying`, in the warm-up turn of the race's workers (:meth:`Race.expect`): forked before them,
    it takes the turn first, since the first board that needs the workers needs its answer."""
    import fcntl

    with contextlib.suppress(OSError), open(turn) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return _certifying(names)
    return _certifying(names)


def _warm_checks(names: list[str]) -> None:
    """Before a batch's workers are forked, the modules of the runner's checks of the answers its hard boards
    bring: numpy and the dead-states check (search's refutations past a stuck set), the DRUP check and the
    board's own CNF encoding (cnf's).  Imported on the first such answer, they cost that board 80-130 ms of CPU
    (numpy) and some 35 ms (the encoding's modules, python-sat's among them): the public solver's dense deal 4,
    the batch's first dead-states refutation, took 75 ms more in the race than cnf alone (issue 48).  Here the
    batch pays them once, before its first board, while the probe works on the other core, and the workers
    forked after inherit them (numpy is a third of cpsat's warm-up; cnf's, forked before them, imports its own)."""
    if INLINE in names:
        # One BLAS thread (unless the environment says otherwise): the checks sort and mask, they do no linear
        # algebra, and OpenBLAS starting a thread a core took numpy's import from 75 to 90-100 ms of CPU (and
        # twice the wall time at load 13); the workers forked after inherit it.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        import numpy  # noqa: F401

        from sigmar.models import output_files  # noqa: F401  # a certificate's files
        from sigmar.runners.checking import closure, dead_states_check  # noqa: F401
    if any(registry.split_name(name)[0] in DRUP_FAMILIES for name in names):
        from sigmar.encoders.cnf import build_formula  # noqa: F401
        from sigmar.runners.checking import drup_check  # noqa: F401


def _certifies(name: str) -> bool:
    """Whether ``name``'s "no" comes with a certificate, asked of an instance made without importing its
    solver; False for one that cannot even be made here.  A built-in whose class keeps the base's answer (a
    claim, whatever its solver) is not made at all: cpmpy's constructor imports CPMpy and its solver, 0.3-0.4 s
    of the probe's CPU, and a batch's workers wait for the probe before they warm up (the public solver's dense
    deal 4, 0.2 s into the batch, found cnf's worker cold: 85-95 ms of CPU for its first board, 30 warm)."""
    from sigmar.encoders.backend import Backend

    try:
        family, _ = registry.split_name(name)
        if family in registry.builtin_names() and registry.load(family).certifies is Backend.certifies:
            return False
        return bool(registry.make(name, check=False).certifies)
    except Exception:
        return False


class _Overrun(BaseException):
    """Raised by the timer in a search run in this process that outlives its stop (not an Exception: no
    ``except Exception`` inside the backend may swallow it)."""


# A search run in this process that is asked to stop has ``Race.slack`` seconds of its own CPU time to do
# so, or this many on the clock (one that sleeps, or waits, and does not listen), before it is interrupted
# as one that ignores its stop.  Counted on the clock alone, a search the loaded machine gave no CPU since
# its stop was taken for one that ignores it, and search never ran in this process again that batch.
OVERRUN_WALL = 10.0


# How often the timer looks at the workers' pipes while search runs in this process and others race it (only
# then: a board search settles before its partner joins has no tick but the schedule's).  2 ms, not 5: an answer
# waits for the next look, and on the boards cnf wins beside search that wait is on the way to the board's end;
# on the public solver's dense deals, cnf's answer was heard a median 5.3-5.9 ms past its start and its solve instead of
# 7.8-8.6 (issue 48), for some 20 us of search's CPU a tick (tail10's measure).
TICK = 0.002
# While search runs in this process the race's schedule goes by search's CPU time (_Heat._search_clock), but
# never more than this many seconds behind the wall clock: a search that gets no CPU for so long (a machine
# that swaps) is joined by the others all the same.
SEARCH_CLOCK_LAG = 1.0


def _on_main_thread() -> bool:
    """Whether this is the main thread (the one that may set a signal handler).  Where nothing has imported
    threading (a one-board solve: 3 M instructions saved), no thread of the suite's was started: it is."""
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()


class _Timer:
    """The race's timer: within ``with timer.ticks(tick, first):``, ``tick()`` runs at ``first`` (a perf_counter
    time) and again whenever it asks (the time it returns; None: not again).  Only on the main thread (the
    one that may set a signal handler): elsewhere the block runs with no tick (``ticking`` says which).

    A timer signal (SIGALRM): Python runs the handler between any two bytecodes of the code it
    interrupts, so search in this process needs no thread (a thread with a timed wait cost ~6 ms a
    board in wake-ups on the loaded 2 cores, more than the search needs for most boards).  A tick
    that forks a worker does so with the timer's signal held (:func:`~sigmar.encoders.processes.parent.held_signals`).

    The handler is set at the first block and kept until :meth:`close` (the race's end): setting a
    handler costs about 10 us, a board that search settles here about 0.6 ms.  A block's end stops the
    timer, and a signal that came before and is handled after (Python runs a handler at the next
    bytecode, not when the signal comes) finds no tick: it must not set the timer again, or the signal
    that timer sends after :meth:`close` ends the process ("Alarm clock", exit 142).
    """

    def __init__(self) -> None:
        self.tick: Callable[[], float | None] | None = None  # the running block's, else None
        self.ticking = False
        self._handler = self._on_signal  # one bound method: what ``signal.getsignal`` gives back while it is set
        self._previous: Any = None  # the handler before the first block's, put back by close()
        self._set = False
        self._first: float | None = None

    def _on_signal(self, signum: int, frame: object) -> None:
        tick = self.tick
        if tick is None:
            return  # a late signal: its block has ended
        due = tick()
        if due is not None and self.tick is tick:
            wait = due - time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, wait if wait > 1e-5 else 1e-5)

    def ticks(self, tick: Callable[[], float | None], first: float | None, main: bool | None = None) -> _Timer:
        """The block (``with``) of one board's ticks; ``main``: whether this is the main thread, when the caller
        has just asked (:func:`_on_main_thread`)."""
        self.ticking = _on_main_thread() if main is None else main
        if self.ticking:
            self._first = first
            self.tick = tick
        return self

    def __enter__(self) -> bool:
        if not self.ticking:
            return False
        if signal.getsignal(signal.SIGALRM) is not self._handler:  # first, or set by another since
            previous = signal.signal(signal.SIGALRM, self._handler)
            if not self._set:
                self._previous, self._set = previous, True
        if self._first is not None:
            wait = self._first - time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, wait if wait > 1e-5 else 1e-5)
        return True

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.ticking:
            self.tick = None
            self.ticking = False
            signal.setitimer(signal.ITIMER_REAL, 0)

    def close(self) -> None:
        """The handler from before the first block put back (the timer is stopped at each block's end)."""
        if self._set and _on_main_thread():
            self._set = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            if signal.getsignal(signal.SIGALRM) is self._handler:
                signal.signal(signal.SIGALRM, self._previous)


@contextlib.contextmanager
def _paused(workers: Iterable[Worker]) -> Iterator[None]:
    """Within, ``workers`` are stopped (SIGSTOP); they go on afterwards, however the block ends."""
    held = list(workers)
    try:
        for worker in held:
            worker.pause()
        yield
    finally:
        for worker in held:
            worker.resume()


# A heat's outcome before it has one (its result is set when the heat ends): a Result cannot change, so one
# serves every board.
_PENDING = Result(Status.UNKNOWN, "race")


class _Heat:
    """One board's race: search in this process (when the race has it there) leads, the workers join on the
    policy's schedule, and the first answer accepted wins.

    While search runs here, the timer's ticks (:class:`_Timer`) do what the wait loop does between
    answers: the others join when due, and as soon as one of them has news, search is asked to stop
    so that the news is heard (and checked) here.  Search's work is not thrown away when the others
    join: a board it answers a little past its head start is still its own.
    """

    def __init__(self, race: Race, board: Board, job: int, time_limit: float | None, start: float) -> None:
        self.race, self.board, self.job, self.time_limit, self.start = race, board, job, time_limit, start
        self.deadline = None if time_limit is None else start + time_limit + race.slack
        self.outcome = RaceOutcome(_PENDING)
        self.running: set[str] = set()  # workers on this board
        self.waiting: set[str] = set()  # workers still finishing an earlier board
        self._busy: WorkerSet[str] | None = None  # made on first use (:attr:`busy`)
        self.claims: list[Result] = []  # unsolvable answers without a checked certificate
        # Search in this process, or None (also when a selector gave this board another leader).
        self.inline: Any = race.inline if race.policy.prefer in (None, INLINE) else None
        self.inline_running = False
        self.inline_stop_asked = 0.0  # perf_counter when search here was asked to stop, 0 if not
        self.inline_stop_cpu = 0.0  # this thread's CPU time then
        # Search's own clock while it runs here (:meth:`_search_clock`): when it began, and its CPU time then.
        self.inline_began = 0.0
        self.inline_cpu = 0.0
        self.resume = False  # search was stopped here with the board still open: it goes on in its worker
        # Search handed over at the head start's end to a copy of this process (:meth:`_hand_over`): here the
        # copy as a busy worker, in the copy the pipe its answer goes to.
        self.copy: Copy | None = None
        self.copy_out: Any = None
        if self.inline is None:
            race.settle()  # every backend in its worker: who leads and who joins is decided now
        self.plan = race.policy.plan(start, inline=self.inline is not None)
        self.leader = self.plan.leader
        self.partner: str | None = self.plan.partner
        self.partner_due: float | None = self.plan.partner_at  # None once the partner has joined
        self.release_due: float | None = self.plan.release_at if self.plan.staggered else None
        self.held: list[str] = []  # claim-only backends waiting while the partner proves
        self.late = False  # the head start ran out: a hard board
        self.staying = False  # search stays here past its head start, beside its partner alone (_stays_here)
        self.prepare_due: float | None = self.plan.prepare_at
        self.prepared = False  # the DRUP check's encoding was asked for ahead (:meth:`_prepare`)
        race.trace("board", at=start)
        if self.inline is None:
            self.dispatch(self.plan.first, start)

    @property
    def busy(self) -> WorkerSet[str]:
        """Both, waited on: a waiting one until its grace ends, a running one until the heat's deadline.  Made
        on first use, like the workers: the workers' module is not imported on a board search settles."""
        if self._busy is None:
            from sigmar.runners.workers import WorkerSet

            self._busy = WorkerSet()
        return self._busy

    # -- who runs

    def dispatch(self, names: list[str], now: float, low: int = 0) -> None:
        """``names`` join this board; with ``low``, held back by that much niceness (``LATE_NICENESS``,
        ``OTHERS_NICENESS``) so that they take only the CPU that the leader and its partner leave (else at their
        own niceness again, if they were held back)."""
        for name in names:
            if name == INLINE and self.inline_running and not self.inline_stop_asked:
                continue  # it runs here
            worker = self.race.worker(name)
            if low:
                worker.demote(low)
            else:
                worker.promote()  # where lowering its niceness is not allowed, a fresh worker
                worker = self.race.worker(name)
            if self.race.ready_for(worker, now):
                self._submit(name)
            else:
                self.waiting.add(name)
                self.busy.add(name, worker, name, deadline=worker.stop_sent + self.race.grace)

    def _submit(self, name: str) -> None:
        worker = self.race.worker(name)
        worker.submit(self.job, name, self.board, self.time_limit)
        self.race.trace("start", name)
        self.running.add(name)
        self.busy.add(name, worker, name)  # the heat's own deadline ends it

    def _leader_done(self) -> bool:
        return not self.inline_running and self.leader not in self.running and self.leader not in self.waiting

    def _schedule(self, now: float, clock: float | None = None) -> None:
        """The joins that are due: the partner, the others at the head start's end, the held claimers.

        ``clock``: the time the schedule goes by (search's own clock while it runs here, else ``now``)."""
        clock = now if clock is None else clock
        done = self._leader_done()
        if self.partner_due is not None and (clock >= self.partner_due or done):
            self._join_partner(now, clock)
        if self.release_due is not None and (clock >= self.release_due or done):
            self._release(now, clock)
            if self.copy_out is not None:
                return  # this is search's forked copy: nothing more of the race's is its to do
        if self.held and (clock >= self.plan.hold_until or not self._partner_busy() or (self.staying and done)):
            if self.staying:  # search stayed here beside its partner: it is held back now that the others join
                self.staying = False
                if self.inline_running and not self.inline_stop_asked and self._hold_back_leader(now):
                    return  # this is search's forked copy
            self.race.trace("join", *self.held)
            self.dispatch(self.held, now, low=RacePolicy.OTHERS_NICENESS)
            self.held = []
        if (
            self.prepare_due is not None
            and self.partner_due is None
            and clock >= self.prepare_due
            and self._may_prepare()
        ):
            self._prepare()

    def _may_wait(self, now: float) -> bool:
        """Whether the runner may wait here for what it needs to know (:meth:`Race.settle`): not while search
        runs in this process (it goes on meanwhile, and the partner joins once the answer is in: on a loaded
        machine the child took seconds, and search waited here with it)."""
        return not self.inline_running

    def _join_partner(self, now: float, clock: float) -> None:
        if self.partner is None:  # decided now (search here leads): the backend that wins the hard boards
            if not self.race.settle(wait=self._may_wait(now)):
                self.partner_due = clock + TICK  # asked again at the next tick
                return
            self.partner = self.race.partner(self.leader)
        self.partner_due = None
        if self.partner is not None:
            self.dispatch([self.partner], now)

    def _partner_busy(self) -> bool:
        return self.partner is not None and (self.partner in self.running or self.partner in self.waiting)

    def _may_prepare(self) -> bool:
        """Whether the check's encoding may be made now: not while search runs here on a board larger than
        ``INLINE_PREPARE_DIM`` (its encoding takes a tenth of a second and more; such boards' partner proves for
        seconds, and the encoding is made once search has stopped or gone on in its copy), nor when the last hard
        boards were mostly solvable (``RacePolicy.RECENT_HARD``)."""
        if not self.inline_running:
            return True
        return self.board.dim <= INLINE_PREPARE_DIM and self.race.policy.refutations_likely()

    def _prepare(self) -> None:
        """The partner is still at work: the runner makes the DRUP check's own encoding meanwhile, when the
        partner's "no" is a DRUP proof, in a thread (the runner only waits for answers).

        Also while search runs here (past ``PREPARE_SHARE`` of its head start), on a board of side
        ``INLINE_PREPARE_DIM`` at most, in this tick: search waits the encoding's 25 ms of CPU (taken off its
        own clock), where made only once search had stopped it came after the partner's answer, on the way to
        the board's end (the public solver's dense deal 4, the batch's first board the partner wins: 40 ms
        between cnf's answer and its check; issue 48).  Not in a thread then: on a loaded machine every hand-over
        of the interpreter between search and that thread waited for the scheduler, and search took twice as
        long."""
        if self.partner in self.waiting:
            return  # still ending its last board: it proves this one next (asked again at the next look)
        self.prepare_due = None
        if self.partner in self.running and registry.split_name(self.partner)[0] in DRUP_FAMILIES:
            from sigmar.runners.checking import fresh_formula

            self.race.trace("prepare", self.partner)
            self.prepared = True
            if not self.inline_running:
                fresh_formula.prepare(self.board)
                return
            cpu = time.thread_time()
            with contextlib.suppress(Exception):  # kept with the encoding: the check says it
                fresh_formula.fresh(self.board)
            self.inline_cpu += time.thread_time() - cpu  # not search's: its clock leaves it out

    def _release(self, now: float, clock: float) -> None:
        """The others join: the leader did not answer within its head start, or answered without winning.

        Backends that only claim wait while the partner (the winner of the hard boards) proves.
        """
        if not self.race.settle(wait=self._may_wait(now)):
            self.release_due = clock + TICK  # asked again at the next tick
            return
        self.release_due = None
        if self.partner_due is not None:
            self._join_partner(now, clock)
        later = self.plan.later or [n for n in self.race.order() if n not in (self.leader, self.partner)]
        self.late = not self._leader_done()
        self.staying = self.late and self._stays_here()
        if not self.staying and self._hold_back_leader(now):
            return  # this is search's forked copy: it only searches on
        if self._partner_busy():
            self.held = [n for n in later if self.staying or n in self.race.claims_only]
        joining = [n for n in later if n not in self.held]
        self.race.trace("release", *joining)
        # On 2 cores the leader and its partner each have one; the others take what those two leave.
        self.dispatch(joining, now, low=RacePolicy.OTHERS_NICENESS if self.partner is not None else 0)

    def _stays_here(self) -> bool:
        """Whether search, past its head start, goes on here as it is while its partner proves, the others waiting
        (``RacePolicy.STAY_WITH_PARTNER``): on a board of side ``INLINE_PREPARE_DIM`` at most (where the check's
        encoding is made between search's steps), with the partner at work."""
        return (
            RacePolicy.STAY_WITH_PARTNER
            and self.inline_running
            and not self.inline_stop_asked
            and self.board.dim <= INLINE_PREPARE_DIM
            and self._partner_busy()
        )

    def _hold_back_leader(self, now: float) -> bool:
        """The leader, past its head start on a board another backend wins more often, goes on held back
        (``LATE_NICENESS``): search here in a forked copy of this process (or in its worker), a worker demoted.
        True in search's forked copy."""
        if not self.late or self.race.late_leader(self.leader) is None:
            return False
        if not self.inline_running:
            self.race.workers[self.leader].demote(RacePolicy.LATE_NICENESS)
            return False
        if not RacePolicy.HAND_OVER:
            self._stop_inline(now)
            self.dispatch([INLINE], now, low=RacePolicy.LATE_NICENESS)
            return False
        return self._hand_over(now)

    def _until(self, now: float, clock: float | None = None) -> float | None:
        """When to look again at the latest (a perf_counter time): the deadline, the head start's end, the
        partner's start, ... (a straggler's grace is its own deadline in the worker set).  The schedule's
        times are on ``clock`` (search's own while it runs here, which lags ``now``): one that is due
        there in ``d`` seconds is looked at in ``d`` seconds from ``now``, and then again if search has
        not had the CPU meanwhile."""
        lag = 0.0 if clock is None else now - clock
        until = self.deadline
        for due in (
            self.release_due,
            self.partner_due,
            self.plan.hold_until if self.held else None,
            self.prepare_due
            if self.partner_due is None and self.partner not in self.waiting and self._may_prepare()
            else None,
        ):
            if due is not None:
                due += lag
                until = due if until is None or due < until else until
        return until

    # -- search in this process

    def _hand_over(self, now: float) -> bool:
        """Search, here past its head start on a board another backend wins more often, goes on held back
        (``LATE_NICENESS``) in a copy of this process forked from where it is (a tick runs between two of its
        bytecodes): its work so far is kept, where a restart in its worker began the board again (dense deals
        253 and 265: +68 and +87 ms over search alone).  True in the copy, which then only searches on and
        sends its answer (``encoders/processes/copies.py``); here search is stopped and the copy waited on as
        its worker.  Where no copy can be forked, search goes on in its worker from the start, as before."""
        from sigmar.encoders.processes.copies import fork_copy

        try:
            copy, out = fork_copy(self.job, RacePolicy.LATE_NICENESS)
        except OSError:
            self._stop_inline(now)
            self.dispatch([INLINE], now, low=RacePolicy.LATE_NICENESS)
            return False
        if copy is None:  # the copy
            self.race.timer.tick = None  # no interval timer comes with a fork; a late signal finds no tick
            self.copy_out = out
            return True
        self.copy = self.race.copy = copy
        self.race.trace("hand over", INLINE)
        self._stop_inline(now)
        self.running.add(INLINE)
        self.busy.add(INLINE, self.copy, INLINE)  # type: ignore[arg-type]  # a Worker in what the set asks of one
        return False

    def worker_of(self, name: str) -> Worker:
        """The process running ``name`` on this board: search's forked copy, or its worker."""
        if name == INLINE and self.copy is not None:
            return self.copy  # type: ignore[return-value]  # a Worker in what the race asks of one
        return self.race.workers[name]

    def _search_clock(self) -> float:
        """The time the schedule goes by while search runs here: its start plus the CPU time it has had
        since.  Its head start, and its partner's delay, are seconds of its own work: on a loaded machine
        an easy board, which search settles in a few ms of CPU, never looks at the others (nor forks
        them to take the CPU it needs), however long its few ms take on the clock."""
        return self.inline_began + (time.thread_time() - self.inline_cpu)

    def _stop_inline(self, now: float) -> None:
        if not self.inline_stop_asked:
            self.inline_stop_asked, self.inline_stop_cpu = now, time.thread_time()
            self.inline.stop()

    def _overrun(self, now: float) -> float:
        """A tick after search here was asked to stop: :class:`_Overrun` once it has had ``slack`` seconds
        of CPU since (it runs and does not listen), or ``OVERRUN_WALL`` on the clock (it sleeps and does
        not listen); else the time of the next look."""
        used = time.thread_time() - self.inline_stop_cpu
        waited = now - self.inline_stop_asked
        if used >= self.race.slack or waited >= OVERRUN_WALL:
            raise _Overrun()  # it does not listen: it is interrupted here, and never used here again
        # Its CPU time cannot grow faster than the clock: the soonest it can be past ``slack``.
        return now + min(self.race.slack - used, OVERRUN_WALL - waited)

    def _tick(self) -> float | None:
        """A timer tick while search runs here (it runs between two of search's bytecodes): the joins that are
        due, the stragglers of the last board seen to, and search asked to stop as soon as a worker on this
        board has news.  The time of the next tick, or None."""
        now = time.perf_counter()
        if self.inline_stop_asked:
            return self._overrun(now)
        if self.deadline is not None and now >= self.deadline:
            self._stop_inline(now)
            return now + self.race.slack
        if self.running and self.busy.news(self.running):  # before any join that is due: the news may end the board
            self._stop_inline(now)
            return now + self.race.slack
        clock = min(max(self._search_clock(), now - SEARCH_CLOCK_LAG), now)
        self._schedule(now, clock)
        if self.copy_out is not None:
            return None  # search's forked copy: no more ticks, it searches on
        if self.waiting:
            for heard in self.busy.wait(now, among=self.waiting):
                self._hear(heard)  # a straggler answered, died or ran out of grace: a job of this board for it
        due = self._until(now, clock)
        if self.running or self.waiting:
            due = now + TICK if due is None else min(due, now + TICK)
        return due

    def _run_inline(self) -> Result | None:
        """Search in this process, the others joining on the timer's ticks: its answer when it wins.

        Where no tick can run (not the main thread), search leads for its head start and then hands
        the board over: the others join, and search goes on in its worker."""
        start = time.perf_counter()
        ticking = _on_main_thread()
        budget = self.time_limit
        handing_over = not ticking and self.plan.staggered
        if handing_over:
            head = self.race.policy.inline_budget()
            budget = head if budget is None else min(budget, head)
        self.race.trace("start", INLINE)
        self.inline_running = True
        self.inline_began, self.inline_cpu = start, time.thread_time()
        try:
            with self.race.timer.ticks(self._tick, self._until(start), ticking):
                raw: object = self.inline.solve(self.board, budget)
        except _Overrun:
            self.race.inline = None  # it ignored its stop: never again in this process
            raw = None
        except Exception as exc:  # a crashing backend is an answer
            raw = crashed(INLINE, exc)
        except BaseException:
            if self.copy_out is not None:  # search's forked copy, interrupted (Ctrl-C): it ends here, quietly
                os._exit(1)
            raise
        finally:
            self.inline_running = False
        seconds = time.perf_counter() - start
        if self.copy_out is not None:
            from sigmar.encoders.processes.copies import answer_and_end

            answer_and_end(self.copy_out, raw, seconds)
        if raw is None or ((self.inline_stop_asked or handing_over) and _gave_up(raw)):
            # Stopped (for the others' news, at the head start's end, or it did not stop): not its answer.
            # Unless the board is over, it goes on in its worker.
            past = self.deadline is not None and time.perf_counter() >= self.deadline
            if len(self.race.names) > 1 and not past and INLINE not in self.running | self.waiting:
                self.resume = True
            return None
        return self._heard(INLINE, raw, seconds, "")

    # -- the wait loop

    def run(self) -> Result | None:
        """The first accepted answer, or None when every backend answered without one or time ran out."""
        if self.inline is not None:
            winner = self._run_inline()
            if winner is not None:
                return winner
        while (
            (self.running or self.waiting or self.resume or self.held)
            or self.release_due is not None
            or self.partner_due is not None
        ):
            now = time.perf_counter()
            if self.resume and not self.running:  # nothing to hear first
                self._resume(now)
            if self.running and self.busy.news(self.running):
                # An answer already here (the news that stopped search in this process) is heard before the
                # joins and the check's preparation that are due meanwhile: it may end the board.
                for heard in self.busy.wait(now, among=self.running):
                    winner = self._hear(heard)
                    if winner is not None:
                        return winner
                continue
            self._schedule(now)
            if self.deadline is not None and now >= self.deadline:
                return None
            for heard in self.busy.wait(self._until(now)):
                winner = self._hear(heard)
                if winner is not None:
                    return winner
            if self.resume:  # what stopped search here was no win: search goes on in its worker
                self._resume(time.perf_counter())
        return None

    def _resume(self, now: float) -> None:
        self.resume = False
        self.dispatch([INLINE], now)

    def _hear(self, heard: Heard[str]) -> Result | None:
        """What one busy worker did (answered, died, or outlived its grace); the answer when it wins."""
        name, worker, done = heard.key, heard.worker, heard.done
        if done is None:
            if name in self.waiting:  # a loser of the last board, dead or past its grace: a fresh one for this
                self.waiting.discard(name)
                worker.restart()
                self._submit(name)
            elif name in self.running:  # it died on this board: its answer is the crash
                self.running.discard(name)
                self.outcome.answers[name] = heard.answer()
            return None
        if done.job_id != self.job:  # a stale answer from an earlier board
            if name in self.waiting:
                self.waiting.discard(name)
                self._submit(name)
            elif name in self.running:
                self.busy.add(name, worker, name)  # still at this board
            return None
        self.running.discard(name)
        return self._heard(name, done.result, done.seconds, done.output)

    def _heard(self, name: str, raw: object, seconds: float, output: str) -> Result | None:
        """``name``'s answer to this board checked and recorded; the answer when it wins."""
        if name in self.race.optional and _unavailable(raw):  # ``all``'s backend not installed here: dropped
            self.race.drop(name)
            return None

        self.race.trace("answer", name)
        others = [self.worker_of(n) for n in self.running | self.waiting] if self.running or self.waiting else ()
        answer = self.race.check(self.board, raw, name, seconds, others)
        if output:  # a worker's (search here prints nothing): the workers' module is imported by then
            from sigmar.runners.workers import with_output

            answer = with_output(answer, output)
        self.race.trace("checked", name)
        self.outcome.answers[name] = answer
        if answer.wrong:
            self.outcome.wrong[name] = answer.message
        elif accepted(answer):
            seconds = time.perf_counter() - self.start  # the answer counts once it is checked
            # A hard board: the leader's head start ran out, or the leader did not win it.
            hard = self.late or name != self.leader
            self.race.won(name, seconds, late=hard, refuted=answer.status is Status.UNSOLVABLE)
            return answer.with_(seconds=seconds)
        elif answer.status is Status.UNSOLVABLE:
            self.claims.append(answer)
        return None


def _unavailable(raw: object) -> bool:
    """Whether a worker's answer says its backend is not available here
    (:func:`~sigmar.runners.worker_jobs.backend_job`)."""
    return isinstance(raw, Result) and raw.status is Status.ERROR and raw.statistics.get("unavailable") is True


def _gave_up(raw: object) -> bool:
    """Whether search's answer says nothing (it was stopped): neither a solution nor a refutation."""
    return isinstance(raw, Result) and raw.status in (Status.UNKNOWN, Status.ERROR)
