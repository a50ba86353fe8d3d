"""Worker processes that run backends, one board at a time, and can be killed.

Why processes and not threads: python-sat's ``solve()`` holds the GIL and
CaDiCaL ignores interrupts, so the only sure way to stop a losing backend is
to kill its process.  A worker keeps its backend instances alive between
jobs, so a multi-board file pays the solver imports once.

Start method: ``fork`` on POSIX.  The parent has already imported the
backend modules (``Race.start_workers`` makes each backend once before the
first fork), so a fresh worker, and the replacement of a killed one, costs a
fork and no imports.  Every worker still receives the parent's ``registry.FAMILIES``
explicitly, so ``spawn``/``forkserver`` also work (for example with a family
that a test registered).

Each worker leads its own process group, so killing the group also kills a
solver binary the backend started (MiniZinc runs ``minizinc`` as a child),
and Ctrl-C at the terminal reaches only the parent, which then kills the
workers.  On Linux a worker also dies with its parent (``PR_SET_PDEATHSIG``).

A backend's descendants die with it, even those that left its process group or
session (``setsid``, a double fork): each worker is the child of a *keeper*, a
small process that is a child subreaper (as the guard of
:mod:`sigmar.encoders.processes.guard` is), so every orphan of the worker's tree
becomes the keeper's child and stays findable.  When the worker ends, however it
ends (a backend's ``os._exit``, a crash), the keeper kills all that is left and
exits with the worker's status; when the runner kills a worker it kills the
keeper's whole tree first.

Each job is measured inside its worker (CPU time and peak memory, the
worker's children included; :mod:`sigmar.runners.usage`), and the same meter
enforces the worker's memory limit.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from sigmar.encoders import registry
from sigmar.encoders.processes import capture
from sigmar.encoders.processes.guard import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, descendants, kill_tree, prctl
from sigmar.models.board import Board
from sigmar.models.result import Lost, Result, Status
from sigmar.runners.checking.intake import counted, crashed, overrun_message
from sigmar.runners.usage import Meter, Usage, kill_descendants, release_free_memory

K = TypeVar("K")  # what an engine calls its busy workers by: a backend's name, the worker itself

# On ``conn``, parent -> worker: ("job", job_id, name, board, time_limit, notion) or ("quit",);
# worker -> parent: Done.  On the stop pipe, parent -> worker: job_id.  ``notion`` is None for a
# solve, else what to count (``Backend.count``; the answer carries it, see ``checking.intake.counted``).


@dataclass(frozen=True)
class Done:
    """A worker's answer to one job; ``seconds`` is the wall time of ``solve`` inside the worker."""

    job_id: int
    result: Result
    seconds: float
    usage: Usage | None = None  # CPU and peak memory of the run (worker and its children)
    output: str = ""  # what the backend printed during the run (bounded, see encoders/processes/capture.py)


def die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def memory_error(name: str, peak_mb: float, limit_mb: float | None) -> Result:
    limit = f"the limit of {limit_mb:g} MB" if limit_mb is not None else "what the machine gave"
    return Result(Status.ERROR, name, message=f"memory: peak {peak_mb:.0f} MB over {limit}")


def _start_meter(conn: Connection, send_lock: threading.Lock, job: dict[str, Any], limit_mb: float | None) -> Meter:
    """The run meter of this worker; over ``limit_mb`` it answers the job with a memory error and exits."""

    def over(peak_mb: float, generation: int) -> None:
        usage = Usage(meter.cpu_so_far(), peak_mb, over_memory=True)
        seconds = time.perf_counter() - job["start"]
        with send_lock:
            if not meter.current(generation):
                return  # the run ended meanwhile: its own answer carries over_memory (the peak was recorded)
            with contextlib.suppress(Exception):
                conn.send(Done(job["id"], memory_error(job["name"], peak_mb, limit_mb), seconds, usage))
            kill_descendants(os.getpid())
            os._exit(0)  # the parent sees over_memory and starts a fresh worker

    meter = Meter(limit_mb, over)
    return meter


def _graded_for_memory(result: Result, name: str, usage: Usage, limit_mb: float | None) -> Result:
    """A run whose peak went over the limit is an error (reason memory), whatever it answered."""
    if usage.over_memory and usage.memory_mb is not None:
        return memory_error(name, usage.memory_mb, limit_mb)
    return result


def _worker_main(
    conn: Connection,
    stops: Connection,
    families: tuple[tuple[str, str, str], ...],
    parent_pid: int,
    mem_limit_mb: float | None = None,
    measure: bool = True,
    output: int | None = None,
) -> None:
    """The loop of one worker process: read jobs, solve, send answers; stop on request.

    Jobs and answers share ``conn`` and only the main thread touches it; "stop"
    comes on its own pipe to a thread that sleeps in ``recv``.  (A reader
    thread handing jobs over through a queue cost ~3 ms a job in GIL
    hand-offs, more than the search backend needs for a whole board.)
    """
    _become_worker(parent_pid)
    if output is None:
        output = capture.open_capture()
    capture.redirect(output)  # what a backend prints is its own, never the suite's
    capture.keep_bounded(output)
    registry.FAMILIES = families
    jobs = _Jobs(mem_limit_mb, output)
    threading.Thread(target=jobs.stopper, args=(stops,), daemon=True).start()
    send_lock = threading.Lock()  # the memory watchdog may answer from its own thread
    meter = _start_meter(conn, send_lock, jobs.info, mem_limit_mb) if measure else None
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            break
        if job[0] != "job":
            break
        _, job_id, name, board, time_limit, notion = job
        result, seconds, usage = jobs.run(job_id, name, board, time_limit, meter, notion)
        try:
            with send_lock:
                conn.send(Done(job_id, result, seconds, usage, capture.text(output)))
        except (BrokenPipeError, OSError):
            break
        except Exception as exc:  # an answer that cannot be pickled
            with send_lock:
                conn.send(Done(job_id, Result(Status.ERROR, name, message=f"answer not sendable: {exc}"), seconds))
        if measure:
            release_free_memory()  # while the parent checks the answer
    os._exit(0)


def _keeper_main(
    conn: Connection,
    stops: Connection,
    families: tuple[tuple[str, str, str], ...],
    parent_pid: int,
    mem_limit_mb: float | None = None,
    measure: bool = True,
    priority: int | None = None,
    output: int | None = None,
) -> None:
    """The keeper: start the worker as its only child, adopt every orphan of its tree, and when the worker
    ends (or the runner does) kill the whole tree and exit with the worker's status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until it leads its own group, Ctrl-C is the runner's
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    if priority is not None:  # before the fork: the worker inherits it
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, priority)
    keeper = os.getpid()
    worker = os.fork()
    if worker == 0:
        try:
            _worker_main(conn, stops, families, keeper, mem_limit_mb, measure, output)
        finally:
            os._exit(1)  # the worker never returns into the keeper's code
    conn.close()  # the worker's alone, so that its death closes the pipe
    stops.close()
    capture.redirect(None)  # the keeper has nothing to say: never a stray line in the suite's output

    def finish(signum: int, _frame: object) -> None:
        kill_tree(keeper, worker)
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, finish)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent_pid:  # the runner died before we asked to hear of it
        finish(signal.SIGTERM, None)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)  # the worker, or an adopted orphan that ended
        except ChildProcessError:
            os._exit(1)
        if pid == worker:
            break
    kill_tree(keeper, None)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: die of the same one, so the runner says which
        with contextlib.suppress(OSError, ValueError):  # SIGKILL's action cannot be set (nor need be)
            signal.signal(-code, signal.SIG_DFL)
        with contextlib.suppress(OSError):
            os.kill(keeper, -code)
    os._exit(code if code >= 0 else 128 - code)


def _become_worker(parent_pid: int) -> None:
    """Signals, process group and death with the parent, before the first job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until it leads its own group, Ctrl-C is the parent's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler raises; a worker just dies
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # now only a SIGINT sent to the worker itself arrives
    die_with_parent()
    if os.getppid() != parent_pid:  # the parent died before we could ask to die with it
        os._exit(1)


class _Jobs:
    """A worker's backends and the job it runs now, so a late "stop" never reaches the next job."""

    def __init__(self, mem_limit_mb: float | None, output: int | None = None) -> None:
        self.mem_limit_mb = mem_limit_mb
        self.output = output  # the capture file of standard output and error, emptied at each job
        self.backends: dict[str, Any] = {}
        self.current: list[Any] = [None, None, False]  # job id, backend, whether it was asked to stop
        # The last job asked to stop.  The stop pipe is read by its own thread, so a stop can come before the
        # main thread has read its job, or while the backend is being made: such a job is skipped, not solved.
        self.stopped_job: int | None = None
        self.lock = threading.Lock()
        self.info: dict[str, Any] = {"id": None, "name": "", "start": 0.0}  # for the memory watchdog

    def stopper(self, stops: Connection) -> None:
        """The stop thread: a "stop" for the running job stops its backend."""
        while True:
            try:
                job_id = stops.recv()
            except (EOFError, OSError):
                return
            with self.lock:
                self.stopped_job = job_id
                running_id, backend, _ = self.current
                if running_id == job_id and backend is not None:
                    self.current[2] = True
                    with contextlib.suppress(Exception):
                        backend.stop()

    def run(
        self, job_id: int, name: str, board: Any, time_limit: float | None, meter: Any, notion: str | None = None
    ) -> tuple[Result, float, Usage]:
        """One job: the backend's answer (a crash or a MemoryError is an error answer), its time and usage."""
        capture.restart(self.output)
        start = time.perf_counter()
        self.info.update(id=job_id, name=name, start=start)
        if meter is not None:
            meter.begin()
        over_memory = False
        try:
            backend = self.backends.get(name)
            if backend is None:
                backend = self.backends[name] = registry.make(name)
            with self.lock:
                self.current[:] = [job_id, backend, False]
                stopped = self.stopped_job == job_id
            if stopped:
                result = Result(Status.UNKNOWN, name, message="stopped before it started")
            elif notion is not None:
                refused = backend.refusal(board)  # a board it does not play (quintessence): not asked
                if refused is not None:
                    result = refused.with_(statistics={"refused": True})
                else:
                    result = counted(backend.count(board, notion, time_limit), name, notion)
            else:
                result = backend.solve(board, time_limit)
            if not isinstance(result, Result):
                raise TypeError(f"solve returned {type(result).__name__}, not a Result")
        except MemoryError:
            over_memory = True
            result = Result(Status.ERROR, name, message=f"memory: {name} ran out of memory")
        except Exception as exc:  # a crashing backend is an answer, not a crash of the worker
            result = crashed(name, exc)
        seconds = time.perf_counter() - start
        usage = meter.end() if meter is not None else Usage()
        if over_memory:  # MemoryError: the answer already says so
            usage = Usage(usage.cpu_seconds, usage.memory_mb, over_memory=True)
        else:
            result = _graded_for_memory(result, name, usage, self.mem_limit_mb)
        with self.lock:
            if self.current[2]:  # a stopped backend gets a fresh instance for the next job, to be safe
                self.backends.pop(name, None)
            self.current[:] = [None, None, False]
        return result, seconds, usage


# Every Worker whose process may still run.  At exit they are killed (:func:`_kill_all_at_exit`): a worker is
# not a daemon (it may start processes), so multiprocessing's own exit handler would otherwise wait for a
# worker that an engine failed to close, for ever (a bench whose checking loop raised hung so).
_LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


@atexit.register
def _kill_all_at_exit() -> None:
    for worker in list(_LIVE):
        worker.kill()


def default_context() -> multiprocessing.context.BaseContext:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


class Worker:
    """One worker process seen from the parent: send a job, read the answer, kill it."""

    def __init__(
        self,
        label: str,
        context: multiprocessing.context.BaseContext | None = None,
        *,
        niceness: int = 0,
        mem_limit_mb: float | None = None,
        measure: bool = False,
    ) -> None:
        self.label = label
        self.mem_limit_mb = mem_limit_mb  # each run's limit on the worker's and its children's RSS
        # CPU and memory per run (bench): a sampler thread and a heap trim per job, which a race does
        # not need and cannot afford (about 1.5 ms a board on the public boards).
        self.measure = measure or mem_limit_mb is not None
        self.context = context or default_context()
        self.niceness = niceness  # added to the worker's CPU priority (its solver children inherit it)
        self.job_id: int | None = None  # the job it is working on, None when idle
        self.stop_sent = 0.0  # perf_counter when it was asked to stop its job, 0 if not
        self._start()

    def _start(self) -> None:
        parent_conn, child_conn = self.context.Pipe()
        stop_read, stop_write = self.context.Pipe(duplex=False)
        # the worker's own niceness (its solver children inherit it)
        self.priority = min(os.getpriority(os.PRIO_PROCESS, 0) + self.niceness, 19)
        # The worker's capture file, shared with it (a forked child inherits it), so that what a
        # backend printed before its worker died can still be read here.
        forked = self.context.get_start_method() == "fork"
        self.output = capture.open_capture() if forked else None
        process = self.context.Process(  # type: ignore[attr-defined]
            target=_keeper_main,
            args=(
                child_conn,
                stop_read,
                registry.FAMILIES,
                os.getpid(),
                self.mem_limit_mb,
                self.measure,
                self.priority if self.niceness else None,
                self.output,
            ),
            name=f"sigmar-{self.label}",
            # not daemonic: a backend may start processes of its own (cnf runs CaDiCaL in a
            # child), which multiprocessing forbids in a daemon; the owner kills every worker.
            daemon=False,
        )
        process.start()
        _LIVE.add(self)
        child_conn.close()
        stop_read.close()
        self.stops: Connection = stop_write
        self.demoted = False
        self._paused: list[tuple[Any, int]] = []  # what pause() stopped: (os.kill or os.killpg, id)
        self.conn: Connection = parent_conn
        self.process = process
        self._keeper = process.pid
        self._pid: int | None = None  # the worker's, found by :attr:`pid`
        self._killed = False
        self.job_id = None
        self.stop_sent = 0.0

    @property
    def pid(self) -> int | None:
        """The worker process (the keeper's first child), once its keeper has started it; None if it is gone."""
        if self._pid is None and not self._killed:
            deadline = time.monotonic() + 10
            while self._pid is None and time.monotonic() < deadline and self.alive():
                children = descendants(self._keeper)
                if children:
                    self._pid = children[0]
                else:
                    time.sleep(0.001)
        return self._pid

    @property
    def sentinel(self) -> int:
        return int(self.process.sentinel)

    def alive(self) -> bool:
        try:
            return self.process.is_alive()
        except ValueError:  # closed after a kill
            return False

    def submit(self, job_id: int, name: str, board: Board, time_limit: float | None, notion: str | None = None) -> None:
        """Send one job: solve ``board``, or with ``notion`` count it (``Backend.count``)."""
        self.conn.send(("job", job_id, name, board, time_limit, notion))
        self.job_id = job_id
        self.stop_sent = 0.0

    def ask_stop(self) -> None:
        """Ask the backend to give up its job (it may not listen; then it is killed later)."""
        if self.job_id is not None and not self.stop_sent:
            self.stop_sent = time.perf_counter()
            with contextlib.suppress(OSError, ValueError):
                self.stops.send(self.job_id)

    def receive(self) -> Done | None:
        """The answer waiting on the pipe, or None when the worker died."""
        try:
            done: Done = self.conn.recv()
        except (EOFError, OSError):
            return None
        if done.job_id == self.job_id:
            self.job_id = None
            self.stop_sent = 0.0
        return done

    def pause(self) -> None:
        """Stop the worker's process group (SIGSTOP) so it takes no CPU; :meth:`resume` lets it go on.

        The process groups of its descendants are stopped too: a solver under its guard
        (MiniZinc's ``fzn-gecode``) leads a group of its own and would otherwise keep a
        core while the race checks a certificate.  A paused worker still dies with the
        parent (SIGKILL reaches a stopped process).
        """
        if self.pid is None or self._killed:
            return
        # Each process of the tree, and each group it leads (not the keeper's: it must stay awake to clean
        # up; a worker that has not yet left the keeper's group is stopped by its pid).
        targets: list[tuple[Any, int]] = []
        for child in descendants(self._keeper):
            targets.append((os.kill, child))
            with contextlib.suppress(OSError):
                group = os.getpgid(child)
                if (os.killpg, group) not in targets and group != self._keeper:
                    targets.append((os.killpg, group))
        self._paused = targets
        self._signal(targets, signal.SIGSTOP)

    def resume(self) -> None:
        self._signal(self._paused, signal.SIGCONT)
        self._paused = []

    def _signal(self, targets: list[tuple[Any, int]], signum: int) -> None:
        if self._killed:
            return
        for send, target in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
                send(target, signum)

    def demote(self, extra: int) -> None:
        """Run at ``extra`` more niceness (the worker process only) until :meth:`promote`."""
        pid = self.pid
        if pid is not None and not self._killed and not self.demoted:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, pid, min(self.priority + extra, 19))
                self.demoted = True

    def promote(self) -> None:
        """Back to the worker's own niceness; where lowering it is not allowed, a fresh worker."""
        if not self.demoted:
            return
        pid = self.pid
        try:
            if pid is not None:
                os.setpriority(os.PRIO_PROCESS, pid, self.priority)
            self.demoted = False
        except PermissionError:
            self.restart()
        except OSError:  # gone meanwhile: it is restarted when next needed
            self.demoted = False

    def collect(self) -> None:
        """Read a late answer to the job it was asked to stop, if one is waiting: the worker is idle again."""
        with contextlib.suppress(OSError, ValueError):
            if self.job_id is not None and not self._killed and self.conn.poll():
                self.receive()

    def exit_description(self) -> str:
        self.process.join(0.05)
        code = self.process.exitcode
        if code is None:
            return "worker died"
        if code < 0:
            try:
                return f"worker killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"worker killed by signal {-code}"
        return f"worker exited with status {code}"

    def crash_message(self, name: str, doing: str = "solving") -> str:
        """The message of an answer lost with its worker: how the worker ended while ``doing`` its job
        (solving or counting), and what it printed."""
        said = capture.text(self.output)
        return f"{name}: {self.exit_description()} while {doing}" + (
            f"; its output: {capture.one_line(said)}" if said else ""
        )

    def kill(self) -> None:
        """Kill the worker and everything it started; wait until it is gone.  Idempotent."""
        if self._killed:
            return
        self._killed = True
        _LIVE.discard(self)
        sweep(self._keeper)  # the worker and all it started, wherever they went: the keeper adopted them
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(self._keeper, signal.SIGKILL)
        self.process.join(5)
        for conn in (self.conn, self.stops):
            with contextlib.suppress(OSError):
                conn.close()
        if self.output is not None:
            with contextlib.suppress(OSError):
                os.close(self.output)
            self.output = None
        with contextlib.suppress(ValueError, AttributeError):
            self.process.close()

    def restart(self) -> None:
        self.kill()
        self._start()

    def close(self) -> None:
        """Quit politely when idle, else kill."""
        if self.job_id is None and self.alive():
            with contextlib.suppress(OSError, ValueError):
                self.conn.send(("quit",))
            self.process.join(0.5)
        self.kill()


# -- the one wait loop on busy workers


@dataclass(frozen=True)
class Heard(Generic[K]):
    """What one busy worker did: sent ``done``; or died, or outlived its deadline (``overran``), said in ``message``."""

    key: K
    worker: Worker
    name: str  # the backend it was running
    done: Done | None = None
    overran: bool = False
    message: str = ""

    def answer(self, seconds: float = 0.0) -> Result:
        """A death or an overrun as the answer of its backend: ``error`` or ``unknown`` with the one message."""
        status = Status.UNKNOWN if self.overran else Status.ERROR
        lost = Lost.OVERRUN if self.overran else Lost.CRASH
        return Result(status, self.name, seconds, message=self.message, lost=lost)


@dataclass
class _Busy:
    worker: Worker
    name: str
    deadline: float | None
    time_limit: float | None
    doing: str  # "solving" or "counting", for the message of a death


class WorkerSet(Generic[K]):
    """The busy workers of an engine, by key, each with a deadline; the one place that waits on them.

    :meth:`wait` blocks until a worker answers or dies, a deadline passes, or ``until``, and
    returns what happened, each worker at most once, with one message for each kind: a death
    says how the worker ended (:meth:`Worker.crash_message`), an overrun
    :func:`overrun_message`.  A worker with news leaves the set; the caller decides what
    becomes of it (given back, restarted, retired).  The race, crosscheck and bench all wait here.
    """

    def __init__(self) -> None:
        self._busy: dict[K, _Busy] = {}

    def add(
        self,
        key: K,
        worker: Worker,
        name: str,
        deadline: float | None = None,
        time_limit: float | None = None,
        doing: str = "solving",
    ) -> None:
        """Wait on ``worker`` (``doing`` a job of backend ``name``) under ``key`` until ``deadline`` (perf_counter)."""
        self._busy[key] = _Busy(worker, name, deadline, time_limit, doing)

    def discard(self, key: K) -> None:
        self._busy.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._busy

    def __len__(self) -> int:
        return len(self._busy)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._busy))

    def workers(self) -> list[Worker]:
        return [busy.worker for busy in self._busy.values()]

    def wait(self, until: float | None = None) -> list[Heard[K]]:
        """What the busy workers did, waiting for the first news until ``until`` or the next deadline."""
        from multiprocessing.connection import wait  # here: a race that search settles in-process never waits

        ends = [b.deadline for b in self._busy.values() if b.deadline is not None]
        if until is not None:
            ends.append(until)
        end = min(ends) if ends else None
        handles: dict[Any, K] = {}
        for key, busy in self._busy.items():
            handles[busy.worker.conn] = key
            handles[busy.worker.sentinel] = key
        timeout = None if end is None else max(end - time.perf_counter(), 0.0)
        if handles:
            ready = wait(list(handles), timeout)
        else:  # nobody busy: only the time passes
            ready = []
            if timeout:
                time.sleep(timeout)
        heard: list[Heard[K]] = []
        for key in dict.fromkeys(handles[h] for h in ready):
            busy = self._busy[key]
            done = busy.worker.receive() if busy.worker.conn.poll() else None
            if done is None and busy.worker.alive():
                continue  # woken by nothing readable; look again
            del self._busy[key]
            message = "" if done is not None else busy.worker.crash_message(busy.name, busy.doing)
            heard.append(Heard(key, busy.worker, busy.name, done, message=message))
        now = time.perf_counter()
        for key, busy in list(self._busy.items()):
            if busy.deadline is not None and now >= busy.deadline:
                del self._busy[key]
                heard.append(Heard(key, busy.worker, busy.name, overran=True, message=overrun_message(busy.time_limit)))
        return heard


def sweep(keeper: int, rounds: int = 50) -> None:
    """SIGKILL every live descendant of ``keeper`` until none is left; the keeper itself is spared.

    While the keeper lives, it is the parent of every orphan of its tree (it is a subreaper), so a
    process forked in the moment it was listed is found in the next round.  Its zombies stay for the
    keeper (or, once it is gone, init) to reap: only the keeper may wait for them.
    """
    for _ in range(rounds):
        live = [pid for pid in descendants(keeper) if _running(pid)]
        if not live:
            return
        for pid in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.001)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


def with_output(result: Result, output: str) -> Result:
    """A checked answer with what its backend printed: in the message of an error, and on standard error
    with ``--verbose`` (``SIGMAR_VERBOSE``); otherwise it is dropped."""
    if not output:
        return result
    if os.environ.get("SIGMAR_VERBOSE"):
        print(f"{result.backend} printed: {output}", file=sys.stderr, flush=True)
    if result.status is Status.ERROR:
        return result.with_(message=f"{result.message}; its output: {capture.one_line(output)}")
    return result
