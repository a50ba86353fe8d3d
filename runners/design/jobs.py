"""Worker processes for the workbench server: each answer computed in a process that can be killed.

Why processes: the search is pure Python and holds the GIL, and the server must answer the next
request while a board is being explained; and a runaway answer (a side-16 board, a board whose
repair has thousands of hard neighbours) must be stopped for sure, which only killing its process
does.  So each job runs in one of a few worker processes, children of the suite's one home for them
(:class:`sigmar.encoders.processes.parent.Child`):

- a job that outlives its deadline, or whose request was cancelled (the page sent a newer edit,
  or the client went away), gets its worker killed (the whole process group) and a fresh one
  forked in its place;
- a worker whose memory (with its children) goes over the limit is stopped by its own watchdog
  and replaced: the job is answered with a memory error;
- at most ``waiting`` requests wait for a worker; beyond that a request is refused at once
  (:class:`Busy`), so a flood of requests cannot queue without bound;
- workers die with the server (``PR_SET_PDEATHSIG``), and :meth:`Pool.close` kills them all.

Workers are forked from the server process, which by then has imported what the jobs need, so a
fresh worker costs a fork and no imports.  A replacement is forked while the server's event loop
runs: the child's first act is to let go of every descriptor it inherited but its pipe
(:func:`~sigmar.encoders.processes.child.release_inherited`), or a client's connection it held open
would never reach EOF after the server closed it, and would linger in CLOSE-WAIT.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import Any

from sigmar.encoders.processes.child import Answer, OverMemory
from sigmar.encoders.processes.parent import Child


class Busy(Exception):
    """Every worker is taken and the waiting line is full."""


class JobFailed(Exception):
    """The job raised, ran out of time or memory, or its worker died: one line saying which."""


def failure(answer: Answer) -> str:
    """The one line of a job that raised."""
    exc = answer.value
    if isinstance(exc, OverMemory):
        return "the answer went over the memory limit of a worker and was stopped"
    if isinstance(exc, MemoryError):
        return "out of memory"
    where = f" (at {answer.where})" if answer.where else ""
    return f"{type(exc).__name__}: {exc}{where}"


class Pool:
    """``size`` worker processes; :meth:`run` a job on an idle one, within a deadline (module docstring)."""

    def __init__(self, size: int = 2, *, memory_mb: float | None = 1024, waiting: int = 64) -> None:
        self.size = size
        self.memory_mb = memory_mb
        self.waiting = waiting
        self._idle: asyncio.Queue[Child] | None = None
        self._all: set[Child] = set()
        self._calls = itertools.count(1)
        self._waiters = 0
        self.started = 0  # jobs given to a worker (the workbench's health reports it)
        self.closed = False

    async def start(self) -> None:
        self._idle = asyncio.Queue()
        for _ in range(self.size):
            self._idle.put_nowait(self._fresh())

    def _fresh(self) -> Child:
        # No keeper and no stop pipe: an answer starts no process, and a stop is a kill.
        worker = Child("workbench-worker", keeper=False, memory_limit_mb=self.memory_mb, capture=False, stops=False)
        self._all.add(worker)
        return worker

    def _replace(self, worker: Child) -> None:
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
            answer = await self._job(worker, function, args, deadline - time.monotonic())
        except BaseException:  # a timeout, a dead worker, or the request cancelled: the worker goes
            self._replace(worker)
            raise
        if isinstance(answer.value, OverMemory):  # its watchdog stopped it
            self._replace(worker)
        else:
            self._idle.put_nowait(worker)
        if answer.raised:
            raise JobFailed(failure(answer))
        return answer.value

    async def _job(self, worker: Child, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Answer:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()
        fd = worker.conn.fileno()

        def ready() -> None:
            if not answered.done():
                answered.set_result(None)

        worker.send(next(self._calls), function, *args)
        loop.add_reader(fd, ready)
        try:
            await asyncio.wait_for(answered, timeout=max(seconds, 0.001))
        except TimeoutError:
            raise JobFailed(f"no answer within the time limit of {seconds:.3g} s: the answer was stopped") from None
        finally:
            loop.remove_reader(fd)
        answer = worker.answer()
        if answer is None:
            raise JobFailed(f"the worker died ({worker.exit_description()})")
        return answer

    def pids(self) -> list[int]:
        return [w.process.pid for w in self._all]

    def close(self) -> None:
        """Kill every worker (idempotent)."""
        self.closed = True
        for worker in list(self._all):
            worker.kill()
        self._all.clear()
