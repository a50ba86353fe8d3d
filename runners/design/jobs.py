"""Worker processes for the workbench server: each answer computed in a process that can be killed.

Why processes: the search is pure Python and holds the GIL, and the server must answer the next
request while a board is being explained; and a runaway answer (a side-16 board, a board whose
repair has thousands of hard neighbours) must be stopped for sure, which only killing its process
does.  So each job runs in one of a few worker processes:

- a job that outlives its deadline, or whose request was cancelled (the page sent a newer edit,
  or the client went away), gets its worker killed (the whole process group) and a fresh one
  forked in its place;
- a worker whose memory (with its children) goes over the limit is stopped by its own watchdog
  (:class:`sigmar.runners.usage.Meter`) and replaced: the job is answered with a memory error;
- at most ``waiting`` requests wait for a worker; beyond that a request is refused at once
  (:class:`Busy`), so a flood of requests cannot queue without bound;
- workers die with the server (``PR_SET_PDEATHSIG``), and :meth:`Pool.close` kills them all.

Workers are forked from the server process, which by then has imported what the jobs need, so a
fresh worker costs a fork and no imports.  The server runs no thread of its own (its static files
are held in memory), so forking it is safe.  A replacement is forked while the server's event loop
runs, so the child's first act is to let go of every descriptor it inherited but its pipe
(:func:`release_inherited`): a client's connection held open by a worker would never reach EOF
after the server closed it, and would linger in CLOSE-WAIT.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from sigmar.runners.usage import Meter, kill_descendants
from sigmar.runners.workers import die_with_parent

MEMORY_EXIT = 86  # a worker's exit status when its watchdog stopped it


class Busy(Exception):
    """Every worker is taken and the waiting line is full."""


class JobFailed(Exception):
    """The job raised, ran out of time or memory, or its worker died: one line saying which."""


def release_inherited(keep: int) -> None:
    """Point every descriptor above 2 but ``keep`` at /dev/null: the server's sockets, its event loop's, its pipes.

    Pointed, not closed: an object the child inherited that still names one of these numbers may
    close it when collected, and must not close a file the child opened since under that number.
    """
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)  # the event loop's, now /dev/null: a signal here must not write to it
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:  # no /proc: every number up to the limit
        names = [str(fd) for fd in range(3, min(os.sysconf("SC_OPEN_MAX"), 65536))]
    for fd in map(int, names):
        if fd <= 2 or fd in (keep, null):
            continue
        try:
            os.fstat(fd)
        except OSError:
            continue  # not open (the listing's own descriptor, gone by now)
        with contextlib.suppress(OSError):
            os.dup2(null, fd, inheritable=False)
    os.close(null)


def _worker_main(conn: Connection, memory_mb: float | None) -> None:
    """One worker: run the jobs that come down the pipe, send back ``(True, value)`` or ``(False, message)``."""
    release_inherited(conn.fileno())
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's; it kills the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()

    def over(_peak_mb: float, _generation: int) -> None:
        kill_descendants(os.getpid())
        os._exit(MEMORY_EXIT)

    meter = Meter(memory_mb, over) if memory_mb is not None else None
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        function, args = job
        if meter is not None:
            meter.begin()
        try:
            reply: tuple[bool, Any] = (True, function(*args))
        except MemoryError:
            reply = (False, "out of memory")
        except Exception as exc:  # a failing job is an answer, not a dead worker
            where = traceback.extract_tb(exc.__traceback__)[-1]
            reply = (False, f"{type(exc).__name__}: {exc} (at {os.path.basename(where.filename)}:{where.lineno})")
        if meter is not None:
            meter.end()
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            os._exit(0)


class _Worker:
    def __init__(self, context: multiprocessing.context.BaseContext, memory_mb: float | None) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, memory_mb), name="sigmar-workbench-worker")  # type: ignore[attr-defined]
        self.process.start()
        child.close()
        with contextlib.suppress(OSError):
            os.setpgid(self.process.pid, self.process.pid)

    def kill(self) -> None:
        pid = self.process.pid
        if pid is not None:
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
        self.process.join(5)
        with contextlib.suppress(OSError):
            self.conn.close()

    def exit_reason(self) -> str:
        self.process.join(1)
        if self.process.exitcode == MEMORY_EXIT:
            return "the answer went over the memory limit of a worker and was stopped"
        return f"the worker died (exit status {self.process.exitcode})"


class Pool:
    """``size`` worker processes; :meth:`run` a job on an idle one, within a deadline (module docstring)."""

    def __init__(self, size: int = 2, *, memory_mb: float | None = 1024, waiting: int = 64) -> None:
        self.size = size
        self.memory_mb = memory_mb
        self.waiting = waiting
        self.context = multiprocessing.get_context("fork")
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: set[_Worker] = set()
        self._waiters = 0
        self.started = 0  # jobs given to a worker (the workbench's health reports it)
        self.closed = False

    async def start(self) -> None:
        self._idle = asyncio.Queue()
        for _ in range(self.size):
            self._idle.put_nowait(self._fresh())

    def _fresh(self) -> _Worker:
        worker = _Worker(self.context, self.memory_mb)
        self._all.add(worker)
        return worker

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        self._all.discard(worker)
        if not self.closed and self._idle is not None:
            self._idle.put_nowait(self._fresh())

    async def run(self, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        """``function(*args)`` in a worker; JobFailed past ``seconds`` (the worker is killed), Busy when full.

        Cancelling the awaiting task kills the worker too: a cancelled request stops its answer.
        """
        assert self._idle is not None, "Pool.start() first"
        if self._idle.empty() and self._waiters >= self.waiting:
            raise Busy(f"all {self.size} workers are busy and {self._waiters} requests wait")
        deadline = time.monotonic() + seconds
        self._waiters += 1
        try:
            worker = await asyncio.wait_for(self._idle.get(), timeout=seconds)
        except TimeoutError:
            raise JobFailed(f"no worker was free within the time limit of {seconds:g} s") from None
        finally:
            self._waiters -= 1
        self.started += 1
        try:
            reply = await self._job(worker, function, args, deadline - time.monotonic())
        except BaseException:  # a timeout, a dead worker, or the request cancelled: the worker goes
            self._replace(worker)
            raise
        self._idle.put_nowait(worker)
        ok, value = reply
        if not ok:
            raise JobFailed(value)
        return value

    async def _job(self, worker: _Worker, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()
        fd = worker.conn.fileno()

        def ready() -> None:
            if not answered.done():
                answered.set_result(None)

        worker.conn.send((function, args))
        loop.add_reader(fd, ready)
        try:
            await asyncio.wait_for(answered, timeout=max(seconds, 0.001))
        except TimeoutError:
            raise JobFailed(f"no answer within the time limit of {seconds:.3g} s: the answer was stopped") from None
        finally:
            loop.remove_reader(fd)
        try:
            return worker.conn.recv()
        except (EOFError, OSError):
            raise JobFailed(worker.exit_reason()) from None

    def pids(self) -> list[int]:
        return [w.process.pid for w in self._all if w.process.pid is not None]

    def close(self) -> None:
        """Kill every worker (idempotent)."""
        self.closed = True
        for worker in list(self._all):
            worker.kill()
        self._all.clear()
