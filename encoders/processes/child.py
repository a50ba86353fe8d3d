"""The child's side of a child process of the suite: what runs in it, from its first instruction to its exit.

Every child the suite starts (a race's or a bench's worker, a workbench job's worker, the host of a
Dask worker thread, a forked call of a solver that holds the GIL) runs the same code here; its
parent's side is :mod:`sigmar.encoders.processes.parent`.

- :func:`enter`: its own process group (so a group kill reaches what it starts, and Ctrl-C at the
  terminal reaches only the runner), death with its parent (``PR_SET_PDEATHSIG``), the signals its
  parent blocked around the fork let through again.
- :func:`keep`: the *keeper*, a child subreaper between the parent and the child proper, so that
  every orphan of the child's tree (a solver that left its group or session, a double fork) becomes
  the keeper's child and stays findable; when the child ends, however it ends, the keeper kills
  all that is left and exits with the child's status.
- :func:`serve`: the call loop.  Calls ``(call, function, args)`` come on one pipe and each is
  answered with an :class:`Answer`, in the main thread (a reader thread handing calls over through a
  queue cost ~3 ms a call in GIL hand-offs, more than the search needs for a whole board).  A
  "stop" comes on a pipe of its own to a thread that calls the running call's stop
  (:func:`on_stop`).  Each call can be measured (CPU time and peak memory, the child's children
  included: :class:`~sigmar.encoders.processes.usage.Meter`), held to a memory limit by the same
  meter, and have what it printed captured apart (:mod:`~sigmar.encoders.processes.capture`).
- ``python -m sigmar.encoders.processes.child CALLS ANSWERS``: the same loop in a fresh interpreter
  (a *host*, started where forking is not allowed or not safe: a Dask worker is daemonic and has
  threads), its first message the caller's ``sys.path``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, NoReturn

from sigmar.encoders.processes import capture
from sigmar.encoders.processes.guard import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, die_with_parent, kill_tree, prctl
from sigmar.encoders.processes.usage import Meter, Usage, kill_descendants, release_free_memory
from sigmar.models.errors import SigmarError


class ChildFailure(SigmarError):
    """Why a call got no value: raised in the child, sent to the parent as the answer's ``value``."""


class OverMemory(ChildFailure):
    """The call's child (with its children) went over its memory limit; the child exits after saying so."""

    def __init__(self, peak_mb: float, limit_mb: float | None) -> None:
        self.peak_mb, self.limit_mb = peak_mb, limit_mb
        limit = f"the limit of {limit_mb:g} MB" if limit_mb is not None else "what the machine gave"
        super().__init__(f"memory: peak {peak_mb:.0f} MB over {limit}")

    def __reduce__(self) -> tuple[Any, ...]:
        return OverMemory, (self.peak_mb, self.limit_mb)


@dataclass(frozen=True)
class Answer:
    """The answer to one call: its ``value``, or with ``raised`` the exception it raised (a
    :class:`ChildFailure` for one the child could not send); the wall seconds of the call in the
    child, what it cost (when measured) and what it printed (when captured, bounded)."""

    call: int
    value: Any
    raised: bool = False
    seconds: float = 0.0
    usage: Usage | None = None
    output: str = ""
    where: str = ""  # FILE:LINE of the raise, when it raised (an exception crosses the pipe without its traceback)


@dataclass(frozen=True)
class Options:
    """How a child serves: its memory limit (MB, it and its children), whether each call is measured,
    its capture file (None: what it prints goes nowhere; -1: it stays the parent's), and a call it
    makes before the first (``setup``: a function and its arguments)."""

    memory_limit_mb: float | None = None
    measure: bool = False
    output: int | None = -1
    setup: tuple[Callable[..., Any], tuple[Any, ...]] | None = None


# -- entering, keeping ---------------------------------------------------------


def enter(parent: int, mask: Iterable[int] | None = None) -> None:
    """The first steps of a forked child: signals as a fresh process has them, its own process group,
    death with ``parent``, and the signals blocked around the fork (``mask``: the mask before) let
    through.  A child whose parent died before it could ask to die with it exits at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until it leads its own group, Ctrl-C is the parent's
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):  # the parent's handlers raise; a child just dies
        signal.signal(sig, signal.SIG_DFL)
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # now only a SIGINT sent to the child itself arrives
    die_with_parent()
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if os.getppid() != parent:
        os._exit(1)


def keep(
    body: Callable[[], None],
    parent: int,
    mask: Iterable[int] | None,
    priority: int | None,
    closing: Iterable[Connection | None] = (),
) -> NoReturn:
    """The keeper: ``body()`` in its only child; it adopts every orphan of that child's tree, and when the
    child ends (or the parent does) kills the whole tree and exits with the child's status.  ``closing``:
    the child's ends of its pipes, closed here once it has them, so that its death closes them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until it leads its own group, Ctrl-C is the runner's
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    if priority is not None:  # before the fork: the child inherits it
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, priority)
    keeper = os.getpid()
    worker = os.fork()  # signals are still blocked (``mask``): no handler of the parent runs in between
    if worker == 0:
        try:
            enter(keeper, mask)
            body()
        finally:
            os._exit(1)  # the child never returns into the keeper's code
    for conn in closing:
        if conn is not None:
            conn.close()
    capture.redirect(None)  # the keeper has nothing to say: never a stray line in the suite's output

    def finish(signum: int, _frame: object) -> None:
        kill_tree(keeper, worker)
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, finish)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if os.getppid() != parent:  # the runner died before we asked to hear of it
        finish(signal.SIGTERM, None)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)  # the child, or an adopted orphan that ended
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


def main(
    conn: Connection,
    stops: Connection | None,
    options: Options,
    parent: int,
    mask: Iterable[int] | None,
    priority: int | None,
    kept: bool,
    only: tuple[Callable[..., Any], tuple[Any, ...]] | None,
    label: str = "",
) -> NoReturn:
    """A forked child's life (:class:`~sigmar.encoders.processes.parent.Child`): with ``kept``, under a
    keeper; the calls on ``conn``, or the ``only`` one.  It first lets go of every descriptor it inherited
    but its own pipes and capture file."""
    global _current
    _current = _Current()  # its lock may have been held by another thread of the parent at the fork
    # Its own garbage collected, whatever the parent was doing at the fork: a child forked while its parent held
    # the cycle collector off (search's solve, a race's board) would otherwise never collect, board after board.
    gc.enable()
    own = [c.fileno() for c in (conn, stops) if c is not None]
    if options.output not in (None, -1):
        own.append(options.output)
    release_inherited(own)

    def body() -> None:
        if only is not None:
            serve_once(conn, only[0], only[1], options)
        serve(conn, stops, options)

    if kept:
        keep(body, parent, mask, priority, closing=(conn, stops))
    if priority is not None:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, priority)
    enter(parent, mask)
    body()
    os._exit(1)


def release_inherited(keep: Iterable[int]) -> None:
    """Point every descriptor above 2 but those in ``keep`` at /dev/null (and standard input too): the
    parent's sockets (a server's clients), its event loop's, its other children's pipes.

    Why: a descriptor held here keeps open what the parent closes: a client's connection would never
    reach EOF and would linger in CLOSE-WAIT, another child would never read the end of its pipe.
    Pointed, not closed: an object inherited from the parent that still names one of these numbers may
    close it when collected, and must not close a file opened here since under that number.
    """
    kept = set(keep)
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)  # an event loop's, soon /dev/null: a signal here must not write to it
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:  # no /proc: every number up to the limit
        names = [str(fd) for fd in range(3, min(os.sysconf("SC_OPEN_MAX"), 65536))]
    for fd in [0, *map(int, names)]:
        if (0 < fd <= 2) or fd in kept or fd == null:
            continue
        try:
            os.fstat(fd)
        except OSError:
            continue  # not open (the listing's own descriptor, gone by now)
        with contextlib.suppress(OSError):
            os.dup2(null, fd, inheritable=fd == 0)
    os.close(null)


# -- the running call and its stop ---------------------------------------------


class _Current:
    """The call this child runs now and how to stop it, so that a late "stop" never reaches the next call."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.call: int | None = None
        self.stop: Callable[[], None] | None = None
        self.stopped = False  # the running call was asked to stop
        # The last call asked to stop.  The stop pipe is read by its own thread, so a stop can come before
        # the main thread has read its call: that call starts stopped.
        self.stopped_call: int | None = None

    def begin(self, call: int) -> None:
        with self.lock:
            self.call, self.stop, self.stopped = call, None, self.stopped_call == call

    def end(self) -> None:
        with self.lock:
            self.call, self.stop, self.stopped = None, None, False

    def listen(self, stops: Connection) -> None:
        """The stop thread: a "stop" for the running call calls its stop."""
        while True:
            try:
                call = stops.recv()
            except (EOFError, OSError):
                return
            with self.lock:
                self.stopped_call = call
                if self.call != call:
                    continue
                self.stopped = True
                stop = self.stop
            if stop is not None:
                with contextlib.suppress(Exception):
                    stop()


_current = _Current()


def on_stop(stop: Callable[[], None] | None) -> None:
    """How the running call is stopped (a backend's ``stop``); called at once if a stop came already."""
    with _current.lock:
        _current.stop = stop
        already = _current.stopped
    if already and stop is not None:
        with contextlib.suppress(Exception):
            stop()


def stop_requested() -> bool:
    """Whether the running call was asked to stop (also before it started)."""
    with _current.lock:
        return _current.stopped


# -- serving calls ----------------------------------------------------------------


class _Server:
    """One child's calls: each run, measured and captured, and answered on ``conn``."""

    def __init__(self, conn: Any, options: Options) -> None:
        self.conn, self.options = conn, options
        self.output = options.output if options.output != -1 else None
        self.send_lock = threading.Lock()  # the memory watchdog may answer from its own thread
        self.started = 0.0
        self.meter: Meter | None = None
        if options.measure or options.memory_limit_mb is not None:
            self.meter = Meter(options.memory_limit_mb, self.over)

    def over(self, peak_mb: float, generation: int) -> None:
        """The meter's watchdog: the running call went over the memory limit.  It is answered so, and the
        child exits (the parent sees ``over_memory`` and starts a fresh one)."""
        assert self.meter is not None
        usage = Usage(self.meter.cpu_so_far(), peak_mb, over_memory=True)
        with self.send_lock:
            call = _current.call
            if not self.meter.current(generation) or call is None:
                return  # the call ended meanwhile: its own answer carries over_memory (the peak was recorded)
            failure = OverMemory(peak_mb, self.options.memory_limit_mb)
            seconds = time.perf_counter() - self.started
            with contextlib.suppress(Exception):
                self.conn.send(Answer(call, failure, True, seconds, usage, capture.text(self.output)))
            kill_descendants(os.getpid())
            os._exit(0)

    def run(self, call: int, function: Callable[..., Any], args: tuple[Any, ...]) -> Answer:
        """One call, measured: its value or what it raised (a MemoryError marks the usage over memory)."""
        capture.restart(self.output)
        self.started = time.perf_counter()
        if self.meter is not None:
            self.meter.begin()
        _current.begin(call)
        raised, where = False, ""
        try:
            value = function(*args)
        except MemoryError:
            value, raised = MemoryError("out of memory"), True
        except Exception as exc:  # a failing call is an answer, not a dead child
            value, raised = exc, True
            frames = traceback.extract_tb(exc.__traceback__)
            where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
        seconds = time.perf_counter() - self.started
        usage = self.meter.end() if self.meter is not None else None
        if usage is not None and raised and isinstance(value, MemoryError):
            usage = Usage(usage.cpu_seconds, usage.memory_mb, over_memory=True)
        _current.end()
        return Answer(call, value, raised, seconds, usage, capture.text(self.output), where)

    def answer(self, answer: Answer) -> bool:
        """Send ``answer``; False when the parent is gone."""
        try:
            with self.send_lock:
                _send(self.conn, answer)
        except (BrokenPipeError, OSError):
            return False
        if self.meter is not None:
            release_free_memory()  # while the parent reads the answer
        return True


# The pipe this child's calls come on, once it serves (:func:`call_pipe`).
_calls: Connection | None = None


def call_pipe() -> Connection | None:
    """The pipe this child's calls come on, while it serves: a ``setup`` that waits for something watches it
    too, so that a call that comes meanwhile is served at once."""
    return _calls


def serve(conn: Any, stops: Connection | None, options: Options) -> NoReturn:
    """The loop of a child: run the calls that come on ``conn`` and answer each; exit on ``None`` or when
    the parent's end closes.  A call that raises is an answer too; the child goes on.

    A call comes as ``(call, payload)``, the payload its function and arguments pickled apart, so that
    one this child cannot read (a module it cannot import) is answered as such, not its end.
    """
    if options.output != -1:
        capture.redirect(options.output)  # what a call prints is its own, never the suite's
        capture.keep_bounded(options.output)
    if stops is not None:
        threading.Thread(target=_current.listen, args=(stops,), name="sigmar-stops", daemon=True).start()
    server = _Server(conn, options)
    global _calls
    _calls = conn
    if options.setup is not None:
        function, args = options.setup
        function(*args)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            break
        if message is None:
            break
        call, payload = message
        try:
            function, args = pickle.loads(payload)
        except Exception as exc:
            answer = Answer(call, ChildFailure(f"the child cannot read the call: {exc!r}"), True)
        else:
            answer = server.run(call, function, args)
        if not server.answer(answer):
            break
    os._exit(0)


def serve_once(conn: Connection, function: Callable[..., Any], args: tuple[Any, ...], options: Options) -> NoReturn:
    """One call, inherited with the fork (never pickled: a solver's model need not pickle), answered as call 0."""
    if options.output != -1:
        capture.redirect(options.output)
    server = _Server(conn, options)
    server.answer(server.run(0, function, args))
    os._exit(0)


def _send(conn: Connection, answer: Answer) -> None:
    """Send ``answer``; one whose value (or exception) does not pickle goes as a :class:`ChildFailure` saying so."""
    try:
        conn.send(answer)
    except (BrokenPipeError, OSError):
        raise
    except Exception as exc:
        said = "".join(traceback.format_exception_only(answer.value)).strip() if answer.raised else ""
        failure = ChildFailure(f"answer not sendable: {said or exc}")
        conn.send(Answer(answer.call, failure, True, answer.seconds, answer.usage, answer.output, answer.where))


def _host_setup(paths: list[str]) -> None:
    sys.path[:] = paths


def host_main(calls: Connection, answers: Connection) -> NoReturn:
    """A host's life: the caller's ``sys.path``, "ready", then the call loop on the two pipes."""
    _host_setup(calls.recv())
    answers.send(None)  # ready
    serve(_Duplex(calls, answers), None, Options())


class _Duplex:
    """Two one-way pipes (calls in, answers out) used as one connection."""

    def __init__(self, incoming: Connection, outgoing: Connection) -> None:
        self.incoming, self.outgoing = incoming, outgoing

    def recv(self) -> Any:
        return self.incoming.recv()

    def send(self, value: Any) -> None:
        self.outgoing.send(value)


if __name__ == "__main__":  # run as a script, this module is ``__main__``: its classes are the real module's
    from sigmar.encoders.processes import child as _child

    _child.host_main(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
