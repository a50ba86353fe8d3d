"""The parent's side of a child process of the suite: start it, send it calls, wait with a time limit,
measure it, pause it, stop it with its whole tree, and clean up after it.

Why one home: the race's and the bench's workers, the workbench's job workers, the hosts of Dask
worker threads and of cube nodes, and the forked calls of solvers that hold the GIL all need the
same few things, and each had its own copy of them.  The child's side is
:mod:`sigmar.encoders.processes.child`.

- :class:`Child` is forked (the parent has imported what the calls need, so a fresh child costs a
  fork and no imports), by default under a *keeper*
  (:func:`~sigmar.encoders.processes.child.keep`) that adopts every orphan of its tree; killing
  the child kills that whole tree, wherever its processes went.  Forks happen with the signals
  whose handlers raise held back (:func:`held_signals`).
- :class:`Host` is a fresh interpreter (``python -m sigmar.encoders.processes.child``) under the
  guard (:mod:`~sigmar.encoders.processes.guard`), for where a fork is not allowed or not safe
  (a Dask worker is daemonic and runs threads); :func:`hosted` keeps one per thread.
- Every child still alive when the parent exits is killed (``atexit``), and each dies with its
  parent (``PR_SET_PDEATHSIG``) even when the parent is killed outright.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from sigmar.encoders.processes import capture
from sigmar.encoders.processes.child import Answer, ChildFailure, Options, main
from sigmar.encoders.processes.guard import descendants, guarded, stop
from sigmar.encoders.processes.lifetime import guard_folder
from sigmar.models.errors import SigmarError

T = TypeVar("T")

# The signals whose handlers raise in the suite (the race's timer, Ctrl-C, SIGTERM, a hang-up): held back
# around a fork, so that no handler runs inside ``os.fork``'s own hooks.  (One did: logging takes its
# lock before a fork and gives it back after; the race's timer fired in between, its handler raised,
# and the lock stayed taken for ever: every later log call in that process waited.)
HELD = frozenset({signal.SIGALRM, signal.SIGINT, signal.SIGTERM, signal.SIGHUP})

START_TIMEOUT = 120.0  # seconds for a fresh host to say it is ready (a loaded machine, a slow disk)
KILL_WAIT = 30.0  # seconds kill() waits for a SIGKILLed tree to end (it cannot refuse; a busy machine is slow)


class ChildError(SigmarError, RuntimeError):
    """A child died under its call, or did not answer within the call's time limit (it was stopped).
    ``code``: its exit status as ``multiprocessing`` says it (negative: the signal), when known."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class ChildTimeout(ChildError):
    """No answer within the call's time limit: the child and everything it started were killed."""


@contextlib.contextmanager
def held_signals() -> Iterator[frozenset[int]]:
    """Within, :data:`HELD` signals wait: each one that came is handled once the block ends, by the handler
    that was set.  Yields this thread's signal mask from before.

    Two locks, because one is not enough: the signals are blocked in this thread, and their Python
    handlers are swapped for one that only notes them (a timer's signal is the process's, and the
    kernel hands it to any thread that does not block it, a progress bar's or a meter's; Python then
    runs the handler in the main thread, wherever it is).  Only the main thread runs Python handlers,
    so elsewhere the mask alone holds them.
    """
    caught: list[int] = []
    saved: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in HELD:
            handler = signal.getsignal(sig)
            if handler not in (signal.SIG_IGN, None):
                saved[sig] = signal.signal(sig, lambda signum, _frame: caught.append(signum))
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD) if hasattr(signal, "pthread_sigmask") else set()
    try:
        yield frozenset(previous)
    finally:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # what waited arrives, and is noted
        _run_pending()
        for held, handler in saved.items():
            signal.signal(held, handler)
        for number in dict.fromkeys(caught):  # each once, to its own handler now
            signal.raise_signal(number)


def _run_pending() -> None:
    """A Python call, where the interpreter runs the handlers of signals that have arrived."""


class Process:
    """A forked child's pid, seen from its parent: whether it lives, its exit status, and a ``sentinel`` (a file
    descriptor readable once it has ended: its pidfd) to wait on beside the pipes."""

    def __init__(self, pid: int, sentinel: int) -> None:
        self.pid = pid
        self.sentinel = sentinel
        self.exitcode: int | None = None  # as multiprocessing says it: negative for the signal that killed it

    def poll(self) -> int | None:
        """Its exit status once it has ended (reaped here), else None."""
        if self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: it has ended, how is not known
                self.exitcode = -signal.SIGKILL
                return self.exitcode
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def is_alive(self) -> bool:
        return self.poll() is None

    def join(self, timeout: float | None = None) -> None:
        """Wait until it has ended, at most ``timeout`` seconds."""
        if self.poll() is not None or self.sentinel < 0:
            return
        from multiprocessing.connection import wait

        wait([self.sentinel], timeout)
        self.poll()

    def close(self) -> None:
        if self.sentinel >= 0:
            with contextlib.suppress(OSError):
                os.close(self.sentinel)
            self.sentinel = -1


def _fork(body: Callable[[], None]) -> Process:
    """``body()`` in a forked child, which never returns into the parent's code; the child's record here."""
    pid = os.fork()
    if pid == 0:
        try:
            body()
        finally:
            os._exit(1)
    try:
        sentinel = os.pidfd_open(pid)
    except (AttributeError, OSError):  # an old kernel: no sentinel, the child's end is seen by polling
        sentinel = -1
    return Process(pid, sentinel)


# Every Child whose process may still run.  At exit they are killed (:func:`_kill_all_at_exit`): one its
# owner failed to close (a bench whose checking loop raised) would otherwise run on, or be waited for.
_LIVE: weakref.WeakSet[Child] = weakref.WeakSet()


@atexit.register
def _kill_all_at_exit() -> None:
    for child in list(_LIVE):
        child.kill()


class Child:
    """One forked child process seen from its parent: send it calls, read the answers, pause it, kill it.

    ``keeper``: under a keeper that adopts its orphans (else it must start no process that could
    outlive it).  ``niceness`` is added to its CPU priority (its children inherit it).  With
    ``memory_limit_mb`` its own watchdog ends a call that goes over (with its children), answered
    :class:`~sigmar.encoders.processes.child.OverMemory`; with ``measure`` each answer carries the
    call's CPU time and peak memory.  With ``capture``, what it prints goes to a capture file that
    the parent reads (:meth:`output`), even after the child died.  ``stops``: a pipe for
    :meth:`ask_stop` (else a stop is a kill).  ``setup``: a call (function, arguments) it makes
    before the first.  ``only``: the one call it makes, inherited with the fork (never pickled),
    answered as call 0; it then exits.

    Forked with ``os.fork`` itself (not ``multiprocessing``, which a daemonic process may not use and
    whose own pipes a child would have to keep): the parent has imported what the calls need, so a
    fresh child costs a fork and no imports, and the child lets go of every descriptor it inherited
    but its own (:func:`~sigmar.encoders.processes.child.release_inherited`).
    """

    def __init__(
        self,
        label: str,
        *,
        keeper: bool = True,
        niceness: int = 0,
        memory_limit_mb: float | None = None,
        measure: bool = False,
        capture: bool = True,
        stops: bool = True,
        setup: tuple[Callable[..., Any], tuple[Any, ...]] | None = None,
        only: tuple[Callable[..., Any], tuple[Any, ...]] | None = None,
    ) -> None:
        self.label = label
        self.keeper = keeper
        self.niceness = niceness
        self.memory_limit_mb = memory_limit_mb
        self.measure = measure or memory_limit_mb is not None
        self.capture = capture
        self.stops_wanted = stops
        self.setup = setup
        self.call_id: int | None = None  # the call it is working on, None when idle
        self.stop_sent = 0.0  # perf_counter when it was asked to stop its call, 0 if not
        self._killed = True  # until started
        try:
            self._start(only)
        except BaseException:  # a handler that raised (Ctrl-C, the race's timer) as it started: no child left
            self.kill()
            raise

    def _start(self, only: tuple[Callable[..., Any], tuple[Any, ...]] | None = None) -> None:
        from multiprocessing import Pipe

        # With ``only``, one way: the answer, child -> parent (the reader is the first end).
        parent_conn, child_conn = Pipe(duplex=only is None)
        stop_read, stop_write = Pipe(duplex=False) if self.stops_wanted and only is None else (None, None)
        self.priority = min(os.getpriority(os.PRIO_PROCESS, 0) + self.niceness, 19)
        # The capture file, shared with the child (a forked child inherits it), so that what it printed
        # before it died can still be read here.
        self.output_fd = capture.open_capture() if self.capture else None
        options = Options(
            memory_limit_mb=self.memory_limit_mb,
            measure=self.measure,
            output=self.output_fd if self.capture else -1,
            setup=self.setup,
        )
        parent = os.getpid()
        priority = self.priority if self.niceness else None
        with held_signals() as mask:
            process = _fork(
                lambda: main(child_conn, stop_read, options, parent, mask, priority, self.keeper, only, self.label)
            )
            # Still held: a handler that raises (the race's timer) cannot cut in before the child's ends of
            # its pipes are closed here, so a Child dropped by that exception is collected and its child,
            # seeing its pipe close, exits.
            _LIVE.add(self)
            child_conn.close()
            if stop_read is not None:
                stop_read.close()
            self.stops: Connection | None = stop_write
            self.conn: Connection = parent_conn
            self.process = process
            self._top = process.pid  # the keeper, or the child itself
            self._pid: int | None = None if self.keeper else process.pid  # the child proper, found by :attr:`pid`
            self._killed = False
            self.demoted = 0  # the extra niceness it runs at until promote(), 0 if none
            self._paused: list[tuple[Any, int]] = []  # what pause() stopped: (os.kill or os.killpg, id)
            self.call_id = 0 if only is not None else None
            self.stop_sent = 0.0

    # -- calls

    def send(self, call: int, function: Callable[..., Any], *args: Any) -> None:
        """Start call ``call``: ``function(*args)`` in the child (both pickled: importable by name).

        A child that died before it read the call (in its ``setup``, say) does not make this raise: the
        call is lost with it, and the wait for its answer hears its end, as for a death mid-call."""
        payload = pickle.dumps((function, args), pickle.HIGHEST_PROTOCOL)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.conn.send((call, payload))
        self.call_id = call
        self.stop_sent = 0.0

    def ask_stop(self) -> None:
        """Ask the running call to stop (it may not listen; then it is killed later)."""
        if self.call_id is not None and not self.stop_sent:
            self.stop_sent = time.perf_counter()
            if self.stops is None:
                self.kill()
                return
            with contextlib.suppress(OSError, ValueError):
                self.stops.send(self.call_id)

    def answer(self) -> Answer | None:
        """The answer waiting on the pipe, or None when the child died."""
        try:
            answer: Answer = self.conn.recv()
        except (EOFError, OSError):
            return None
        if answer.call == self.call_id:
            self.call_id = None
            self.stop_sent = 0.0
        return answer

    def call(self, function: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``function(*args)`` in the child, waited for: its value, or its exception raised here;
        :class:`ChildTimeout` past ``timeout`` seconds (the child is killed), :class:`ChildError` when it died."""
        self.send(0, function, *args)
        return _value(self._wait_answer(timeout))

    def _wait_answer(self, timeout: float | None) -> Answer:
        try:
            ready = self.conn.poll(timeout)
        except (EOFError, OSError):
            ready = True
        if not ready:
            self.kill()
            raise ChildTimeout(f"no answer within {timeout:g} s: the child was stopped")
        answer = self.answer()
        if answer is None:
            said = self.exit_description()
            code = self.process.exitcode
            self.kill()
            raise ChildError(f"the child process ended ({said})", code)
        return answer

    def collect(self) -> None:
        """Read a late answer to the call it was asked to stop, if one is waiting: the child is idle again."""
        if self.call_id is None or self._killed:  # idle (asked of every worker at every board of a race)
            return
        with contextlib.suppress(OSError, ValueError):
            if self.conn.poll():
                self.answer()

    # -- the process

    @property
    def pid(self) -> int | None:
        """The child proper (the keeper's first child), once the keeper has started it; None if it is gone."""
        if self._pid is None and not self._killed:
            deadline = time.monotonic() + 10
            while self._pid is None and time.monotonic() < deadline and self.alive():
                children = descendants(self._top)
                if children:
                    self._pid = children[0]
                else:
                    time.sleep(0.001)
        return self._pid

    @property
    def sentinel(self) -> int:
        return self.process.sentinel

    def alive(self) -> bool:
        return not self._killed and self.process.is_alive()

    def pause(self) -> None:
        """Stop the child's tree (SIGSTOP) so it takes no CPU; :meth:`resume` lets it go on.

        The process groups of its descendants are stopped too: a solver under its guard
        (MiniZinc's ``fzn-gecode``) leads a group of its own and would otherwise keep a
        core.  A paused child still dies with its parent (SIGKILL reaches a stopped process).
        """
        if self.pid is None or self._killed:
            return
        # Each process of the tree, and each group it leads (not the keeper's: it must stay awake to clean
        # up; a child that has not yet left the keeper's group is stopped by its pid).
        targets: list[tuple[Any, int]] = []
        tree = descendants(self._top) if self.keeper else [self._top, *descendants(self._top)]
        for pid in tree:
            targets.append((os.kill, pid))
            with contextlib.suppress(OSError):
                group = os.getpgid(pid)
                if (os.killpg, group) not in targets and (group != self._top or not self.keeper):
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

    def lower(self, extra: int) -> None:
        """``extra`` more niceness for good (the child proper now, and every start of it after)."""
        self.niceness += extra
        self.priority = min(self.priority + extra, 19)
        pid = self.pid
        if pid is not None and not self._killed and not self.demoted:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, pid, self.priority)

    def demote(self, extra: int) -> None:
        """Run at ``extra`` more niceness (the child proper only) until :meth:`promote`; a child already demoted
        goes only further down (back up needs :meth:`promote`, which may need a fresh child)."""
        pid = self.pid
        if pid is not None and not self._killed and extra > self.demoted:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, pid, min(self.priority + extra, 19))
                self.demoted = extra

    def promote(self) -> None:
        """Back to the child's own niceness; where lowering it is not allowed, a fresh child."""
        if not self.demoted:
            return
        pid = self.pid
        try:
            if pid is not None:
                os.setpriority(os.PRIO_PROCESS, pid, self.priority)
            self.demoted = 0
        except PermissionError:
            self.restart()
        except OSError:  # gone meanwhile: it is restarted when next needed
            self.demoted = 0

    def exit_description(self) -> str:
        """How the child ended: its exit status, or the signal that killed it."""
        self.process.join(0.05)
        code = self.process.exitcode
        if code is None:
            return "died"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def output(self) -> str:
        """What the child printed during its last call (bounded), also after it died."""
        return capture.text(self.output_fd)

    def stop_now(self) -> None:
        """SIGKILL the child and what it started, from any thread, without waiting: the thread that waits on
        the child sees its pipe close, and cleans up with :meth:`kill`."""
        if self._killed:
            return
        if self.keeper:
            sweep(self._top)
        else:
            with contextlib.suppress(OSError):
                os.killpg(self._top, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(self._top, signal.SIGKILL)

    def kill(self) -> None:
        """Kill the child and everything it started; wait until it is gone.  Idempotent."""
        if self._killed:
            return
        self._killed = True
        _LIVE.discard(self)
        if self.keeper:
            sweep(self._top, wait=KILL_WAIT)  # the child and all it started, wherever they went: the keeper took them
        else:
            with contextlib.suppress(OSError):
                os.killpg(self._top, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(self._top, signal.SIGKILL)
        self.process.join(60)  # a killed process cannot refuse; on a machine at load 24 it took more than 5 s to go
        for conn in (self.conn, self.stops):
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.close()
        if self.output_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.output_fd)
            self.output_fd = None
        self.process.close()

    def restart(self) -> None:
        self.kill()
        self._start()

    def close(self) -> None:
        """Quit politely when idle, else kill."""
        if self.call_id is None and self.alive():
            with contextlib.suppress(OSError, ValueError):
                self.conn.send(None)
            self.process.join(0.5)
        self.kill()


def call_once(
    function: Callable[..., T], args: tuple[Any, ...], timeout: float | None, started: Callable[[Child | None], None]
) -> T:
    """``function(*args)`` in a fresh forked child, inherited with the fork (not pickled): its value or its
    exception.  ``started(child)`` is told of the child while it runs (and ``None`` after), so that a stop
    from another thread can kill it (:meth:`Child.kill`).  Past ``timeout`` seconds it is killed:
    :class:`ChildTimeout`; killed otherwise, or dead: :class:`ChildError`.  No keeper: such a call must
    start no process of its own."""
    child = Child("call", keeper=False, capture=False, stops=False, only=(function, args))
    started(child)
    try:
        return _value(child._wait_answer(timeout))
    finally:
        started(None)
        child.kill()


def _value(answer: Answer) -> Any:
    if answer.raised:
        raise answer.value
    return answer.value


def sweep(top: int, rounds: int = 50, wait: float = 0.0) -> None:
    """SIGKILL every live descendant of ``top`` until none is left; ``top`` itself is spared.

    While a keeper lives, it is the parent of every orphan of its tree (it is a subreaper), so a
    process forked in the moment it was listed is found in the next round.  Its zombies stay for the
    keeper (or, once it is gone, init) to reap: only the keeper may wait for them.  With ``wait``, the
    rounds go on until every descendant has ended or ``wait`` seconds have passed: a killed process
    runs on until it is scheduled, on a busy machine longer than 50 rounds of a millisecond, and once
    the keeper is gone it is no longer found here.
    """
    deadline = time.monotonic() + wait
    done = 0
    while True:
        live = [pid for pid in descendants(top) if _running(pid)]
        if not live:
            return
        for pid in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        done += 1
        if done >= rounds and time.monotonic() >= deadline:
            return
        time.sleep(0.001 if done < rounds else 0.01)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


# -- hosts: a fresh interpreter -------------------------------------------------------------


class Host:
    """A child that is a fresh interpreter, under the guard: for a caller that may not fork.

    Why: a stock ``dask worker`` runs under a nanny as a *daemonic* process, which may not start
    ``multiprocessing`` children (the race's workers, the cnf backend's solver are), and it runs
    threads, which a fork would copy in the middle of what they hold.  ``subprocess`` is allowed
    anywhere.  The host imports what its caller can (the caller's ``sys.path`` is its first
    message), keeps its state across calls, and runs under the guard: when the caller's thread or
    process ends, even by SIGKILL, the guard kills the host's whole tree and removes the host's
    temporary folder.  A call not answered within its time limit stops the host (its tree is killed).
    """

    def __init__(self) -> None:
        call_read, call_write = os.pipe()
        answer_read, answer_write = os.pipe()
        guard_folder()  # a program started and its folder in the run's: the run's janitor first
        self.folder = tempfile.mkdtemp(prefix="sigmar-host-")
        argv = [sys.executable, "-m", "sigmar.encoders.processes.child", str(call_read), str(answer_write)]
        try:
            self.proc = subprocess.Popen(
                guarded(argv, cleanup=self.folder),
                stdin=subprocess.DEVNULL,
                pass_fds=(call_read, answer_write),
                env=os.environ | {"TMPDIR": self.folder},
            )
        finally:
            os.close(call_read)
            os.close(answer_write)
        self.calls = Connection(call_write, readable=False)
        self.answers = Connection(answer_read, writable=False)
        self._calls = 0
        self.calls.send(list(sys.path))
        self._receive(START_TIMEOUT)  # "ready": the host has started and taken our sys.path

    def call(self, function: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``function(*args)`` in the host; its exception is raised here."""
        self._calls += 1
        self.calls.send((self._calls, pickle.dumps((function, args), pickle.HIGHEST_PROTOCOL)))
        answer: Answer = self._receive(timeout)
        return _value(answer)

    def _receive(self, timeout: float | None) -> Any:
        try:
            if not self.answers.poll(timeout):
                self.close(kill=True)
                raise ChildTimeout(f"the host gave no answer in {timeout:g} s and was stopped")
            return self.answers.recv()
        except (EOFError, OSError):
            code = self.proc.wait()
            self.close(kill=True)
            raise ChildError(f"the host process ended (exit status {code})", code) from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None and not self.calls.closed

    def close(self, kill: bool = False) -> None:
        """Ask the host to finish (or kill it); the guard then kills what is left and removes its folder."""
        if not self.calls.closed:
            if not kill:
                try:
                    self.calls.send(None)
                    self.proc.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self.calls.close()
            self.answers.close()
        stop(self.proc)


_local = threading.local()  # one host per thread (a Dask worker thread, a local pool's thread)


def hosted(function: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
    """``function(*args)`` in this thread's host, started on first use and again after one died or was stopped."""
    host: Host | None = getattr(_local, "host", None)
    if host is None or not host.alive():
        host = _local.host = Host()
    return host.call(function, *args, timeout=timeout)


__all__ = ["Answer", "Child", "ChildError", "ChildFailure", "ChildTimeout", "Host", "call_once", "hosted"]
