"""Where the nodes of a cube-and-conquer split run: this machine's cores, or a Dask cluster's workers.

Both pools run a call in a *host* (:class:`sigmar.encoders.processes.parent.Host`): a Python
process of our own, under the guard, so a solver that crashes takes only its
host down (the call raises ChildError), and no process outlives the run.

- :class:`LocalPool`: one thread per core here, each with its own host.
  Closing the pool kills the hosts, a solver in the middle of a node included.
- :class:`DaskPool`: each call is a task of an existing Dask cluster, done in
  the worker thread's host (as ``bench --cluster`` does).  Task keys carry a
  token unique to the run, so two runs on one cluster never share an answer.
  Closing cancels the tasks not yet started; a node already running ends at
  its conflict budget.  A task whose answer went with its worker (killed after
  the task ended) is waited for while the scheduler computes it again.

A pool's ``submit`` returns a future (``concurrent.futures``); the caller learns
of finished ones through ``add_done_callback``, and of where one ran through
``where(future)``: a worker id that ``submit(..., prefer=ID)`` takes to send a
later call to the same worker (cube-and-conquer sends a node's first child to
the worker that keeps its parent's solver, :mod:`sigmar.runners.cubes.node`).
A call sent so waits for that worker, never runs elsewhere.  ``priority``: of
the calls waiting, the lowest runs first (the split's solving before the
checks of its proofs, which nothing waits on but the end).

What the cubes need of a process home: a process per worker that lives across
calls and keeps its module state between them (the warm solver), a call sent to
one given worker, calls taken by priority, and every process killed on
``cancel``/``close`` (a solver in the middle of a node included).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Future
from typing import Any

from sigmar.encoders.processes.guard import stop
from sigmar.encoders.processes.parent import Host, hosted
from sigmar.models.errors import SigmarError

# What a Dask task that the cluster lost ends as (its status), and the errors Dask gives a task whose
# worker or scheduler went away: faults of the cluster, never an answer about the board.
LOST_STATUSES = frozenset({"cancelled", "lost"})
LOST_ERRORS = frozenset({"CancelledError", "FutureCancelledError", "CommClosedError", "KilledWorker"})


class ClusterLost(SigmarError, RuntimeError):
    """A node's task lost with the cluster (the scheduler or its worker gone): a fault, not an answer.

    It ends the split (one line, exit 2) rather than making the board an ``error``, so a survey
    writes nothing for that board and its resume answers it again (issue 47, S4).
    """


def _lost(exc: BaseException) -> ClusterLost:
    return ClusterLost(f"the cluster lost the task: {type(exc).__name__}: {exc}")


def local_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LocalPool:
    """``workers`` threads, each with a host process of its own, started on its first call."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or local_workers()
        self._ready = threading.Condition()
        self._shared: list[tuple[int, int, _Call]] = []  # (priority, order, call): a heap
        self._own: list[deque[_Call]] = [deque() for _ in range(self.workers)]  # calls sent to one worker
        self._order = itertools.count()
        self._hosts: list[Host | None] = [None] * self.workers
        self._lock = threading.Lock()
        self._closed = self._stopping = False
        self._threads = [
            threading.Thread(target=self._serve, args=(i,), name=f"sigmar-cubes-{i}", daemon=True)
            for i in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()

    def describe(self) -> str:
        return f"{self.workers} local worker process{'es' if self.workers != 1 else ''}"

    def width(self) -> int:
        """How many calls run at once."""
        return self.workers

    def lost(self) -> str:
        """Never: this machine's hosts are not a cluster that can go away (a host that dies is a node's error)."""
        return ""

    def pids(self) -> list[int]:
        """The host processes alive now."""
        with self._lock:
            return [host.proc.pid for host in self._hosts if host is not None and host.alive()]

    def submit(
        self, fn: Callable[..., Any], *args: Any, key: str = "", prefer: Hashable = None, priority: int = 0
    ) -> Future[Any]:
        future: Future[Any] = Future()
        call = (future, fn, args)
        with self._ready:
            if isinstance(prefer, int) and 0 <= prefer < self.workers:
                self._own[prefer].append(call)
            else:
                heapq.heappush(self._shared, (priority, next(self._order), call))
            self._ready.notify_all()
        return future

    def where(self, future: Future[Any]) -> Hashable:
        """The worker that ran ``future`` (None if it has not run here)."""
        return getattr(future, "sigmar_worker", None)

    def _next(self, slot: int) -> _Call | None:
        """This worker's next call: one sent to it first, else the shared calls by priority; None to stop."""
        with self._ready:
            while not self._stopping:
                if self._own[slot]:
                    return self._own[slot].popleft()
                if self._shared:
                    return heapq.heappop(self._shared)[2]
                self._ready.wait()
        return None

    def _serve(self, slot: int) -> None:
        while True:
            item = self._next(slot)
            if item is None:
                return
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            future.sigmar_worker = slot  # type: ignore[attr-defined]
            try:
                future.set_result(self._host(slot).call(fn, *args))
            except BaseException as exc:  # the caller gets it through the future
                future.set_exception(exc)

    def _host(self, slot: int) -> Host:
        """This thread's host, started now if it has none or its last one died."""
        with self._lock:
            host = self._hosts[slot]
        if host is not None and host.alive():
            return host
        host = Host()
        with self._lock:
            if self._closed:
                host.close(kill=True)
                raise RuntimeError("the pool is closed")
            self._hosts[slot] = host
        return host

    def cancel(self) -> None:
        """Drop the calls not started and kill the hosts at work (each thread starts a new one when next asked)."""
        with self._ready:
            dropped = [call for _, _, call in self._shared] + [call for own in self._own for call in own]
            self._shared.clear()
            for own in self._own:
                own.clear()
        for future, _, _ in dropped:
            future.cancel()
        with self._lock:
            hosts = list(self._hosts)
        for host in hosts:  # the host's tree dies; a thread waiting on it sees the end of its pipe
            if host is not None:
                stop(host.proc)

    def close(self) -> None:
        """Stop every host (killing a node still at work) and the threads; calls not started are cancelled."""
        self.cancel()
        with self._lock:
            self._closed = True
            hosts, self._hosts = self._hosts, [None] * self.workers
        for host in hosts:
            if host is not None:
                stop(host.proc)
        with self._ready:
            self._stopping = True
            self._ready.notify_all()
        for thread in self._threads:
            thread.join(30)
        for host in hosts:
            if host is not None:
                host.close(kill=True)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class DaskPool:
    """Calls as tasks of a Dask cluster (``client``: a ``distributed.Client``), each in its worker thread's host.

    At most as many tasks are with the scheduler as the cluster has threads; the rest wait here.
    Why: a scheduler hands a worker more tasks than it has threads (Dask's worker saturation), and
    a node that waits behind a long one on a busy worker, while another worker is idle, holds up
    the whole subtree below it (measured on side-8 deal 455: 11.1 s on two workers against 7.3 s).
    """

    # How long what the scheduler said of its workers is taken as known (seconds): asking is a round trip
    # (Client.scheduler_info fetches every worker's record), 6-8 ms each at load 7 on the loopback cluster.
    WIDTH_FOR = 2.0

    def __init__(self, client: Any) -> None:
        self.client = client
        self.token = uuid.uuid4().hex[:12]
        self._lock = threading.Lock()
        self._known: tuple[float, int, int] | None = None  # (when asked, the cluster's workers, their threads)
        # (priority, order, the caller's future, fn, args, key, the worker it is sent to): a heap
        self._waiting: list[tuple[int, int, Future[Any], Callable[..., Any], tuple[Any, ...], str, Hashable]] = []
        self._order = itertools.count()
        self._running: dict[Any, Future[Any]] = {}  # the Dask future -> the caller's

    def describe(self) -> str:
        try:
            workers, threads = self._cluster()
            return f"Dask cluster {self.client.scheduler.address}: {workers} workers, {threads} threads"
        except Exception:
            return "Dask cluster"

    def width(self) -> int:
        """How many calls run at once (the cluster's threads; 1 when the scheduler cannot say)."""
        try:
            return self._threads()
        except Exception:
            return 1

    def _threads(self) -> int:
        return self._cluster()[1]

    def _cluster(self) -> tuple[int, int]:
        """The cluster's workers and threads, as the scheduler said at most ``WIDTH_FOR`` seconds ago.

        Why not asked every time: each call submitted and each task finished asked the scheduler, three
        round trips between a node's end and its children's start (on deal 8:212's split, 25 of them,
        155-208 ms at load 7; 5 now).  A worker that joins or leaves is seen within ``WIDTH_FOR`` seconds.
        """
        known = self._known
        now = time.monotonic()
        if known is None or now - known[0] >= self.WIDTH_FOR:
            workers = self.client.scheduler_info().get("workers", {})
            known = self._known = (now, len(workers), max(1, sum(w.get("nthreads", 1) for w in workers.values())))
        return known[1], known[2]

    def submit(
        self, fn: Callable[..., Any], *args: Any, key: str = "", prefer: Hashable = None, priority: int = 0
    ) -> Future[Any]:
        mine: Future[Any] = Future()
        with self._lock:
            heapq.heappush(self._waiting, (priority, next(self._order), mine, fn, args, key, prefer))
        self._start_waiting()
        return mine

    def where(self, future: Future[Any]) -> Hashable:
        """The address of the worker that ran ``future`` (None if it has not run here)."""
        return getattr(future, "sigmar_worker", None)

    def _start_waiting(self) -> None:
        """Hand the cluster what it has threads for, by priority, then oldest first."""
        started = []
        threads = self._threads()  # not under the lock: it may ask the scheduler
        gone = self.lost() if self._waiting else ""
        if gone:  # the count may be older than the cluster's loss: nothing more is handed to it
            raise ClusterLost(gone)
        with self._lock:
            free = threads - len(self._running)
            while free > 0 and self._waiting:
                priority, _, mine, fn, args, key, prefer = heapq.heappop(self._waiting)
                if not mine.set_running_or_notify_cancel():
                    continue
                theirs = self.client.submit(
                    located,
                    fn,
                    *args,
                    pure=False,
                    key=f"sigmar-cubes-{self.token}-{key}",
                    priority=-priority,
                    workers=None if prefer is None else [prefer],
                    allow_other_workers=prefer is not None,  # if that worker is gone, any other
                )
                self._running[theirs] = mine
                started.append(theirs)
                free -= 1
        for theirs in started:
            theirs.add_done_callback(self._finished)

    def _finished(self, theirs: Any, waited: bool = False) -> None:
        if theirs.status == "lost" and not waited and not self.lost():
            # Its answer went with its worker, killed after the task ended: the scheduler computes the task
            # again for the future held here (as a bench's does, runners/cluster.py).  Dask has called this at
            # once on the lost future and will not again, so a thread waits for the new answer.
            threading.Thread(target=self._again, args=(theirs,), name="sigmar-cubes-lost", daemon=True).start()
            return
        with self._lock:
            mine = self._running.pop(theirs, None)
        if mine is not None:
            try:
                if theirs.status == "finished":
                    worker, value = theirs.result()
                    mine.sigmar_worker = worker  # type: ignore[attr-defined]
                    mine.set_result(value)
                elif theirs.status in LOST_STATUSES:  # not cancelled by this pool: it forgets a task first
                    mine.set_exception(ClusterLost(f"the cluster task was {theirs.status} (was the scheduler lost?)"))
                else:
                    error = theirs.exception()
                    if error is not None and type(error).__name__ in LOST_ERRORS:
                        error = _lost(error)
                    mine.set_exception(error or RuntimeError(f"the cluster task was {theirs.status}"))
            except BaseException as exc:  # the task's error, or the cluster's, is the caller's
                if not mine.done():
                    mine.set_exception(_lost(exc) if type(exc).__name__ in LOST_ERRORS else exc)
        try:
            self._start_waiting()
        except Exception as exc:  # the cluster refuses new tasks: every call still waiting is lost with it
            with self._lock:
                waiting, self._waiting = self._waiting, []
            for _, _, call, *_ in waiting:
                if call.set_running_or_notify_cancel():
                    call.set_exception(_lost(exc))

    def _again(self, theirs: Any) -> None:
        """Wait for a lost answer computed again (or its failure, or its cancelling), then take it as any other;
        an answer still lost then is the cluster's fault."""
        with contextlib.suppress(BaseException):  # the task's error or the cluster's: _finished reads the future
            theirs.result()
        self._finished(theirs, waited=True)

    def lost(self) -> str:
        """Why the cluster is gone (the client no longer running), or ''."""
        status = str(getattr(self.client, "status", "running"))
        return "" if status == "running" else f"the Dask client is {status} (was the scheduler lost?)"

    def cancel(self) -> None:
        """Drop the calls not started and cancel the tasks (one already running ends at its node's budget)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            running, self._running = dict(self._running), {}
        for _, _, mine, *_ in waiting:
            mine.cancel()
        if running and not self.lost():  # a closed client cannot send the cancel: its tasks went with the cluster
            try:
                self.client.cancel(list(running))
            except Exception:  # the scheduler lost between the two lines: as above
                if not self.lost():
                    raise
        for mine in running.values():  # running here: it cannot be cancelled, so it ends as cancelled
            if not mine.done():
                mine.set_exception(CancelledError("the split was stopped"))

    def close(self) -> None:
        self.cancel()

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def located(fn: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """``fn(*args)`` in this Dask worker thread's host, with the worker's address (for ``prefer``)."""
    from distributed import get_worker

    return get_worker().address, hosted(fn, *args)
